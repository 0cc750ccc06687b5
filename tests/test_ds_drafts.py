"""Draft feedback (seed 000 s10, issue 28 s5): qualitative only, no score; where the analytical
direction and the communication arc stand, what is there, what is missing, what to do next; a
draft's placeholders are expected, not findings, while the same placeholders in a document sent
for a full review still are."""

from __future__ import annotations

from pathlib import Path

from helpers import reviews, run
from review_harness.ds.models import Severity
from review_harness.ds.render import render_report
from review_harness.ds.rubric import default_rubric

DRAFT = Path(__file__).parent / "data" / "ds_inputs" / "draft-warehouse-pilot.md"


def test_a_draft_gets_qualitative_feedback_and_its_placeholders_are_expected(tmp_path):
    [review] = reviews(run(tmp_path, document=str(DRAFT), draft=True)).values()
    assert review.draft and review.final_score is None and review.verdict is None
    assert all(f.severity != Severity.CRITICAL for f in review.findings)
    assert not any(f.issue_type == "placeholder_left" for f in review.findings)
    report = render_report(review, default_rubric())
    for part in ("### Where the draft stands", "**Analytical direction:**", "**Communication arc:**",
                 "**What is there:**", "**What is missing:**", "**What to do next:**",
                 "## Top 3 Things to Address Before Finalizing", "## What You Did Well"):
        assert part in report, part
    there = report.split("**What is there:**")[1].split("\n")[0]
    missing = report.split("**What is missing:**")[1].split("\n")[0]
    assert "the question it answers" in there and "a summary up front" in missing
    assert "Score:" not in report and "/100" not in report.split("## Top 3")[0]


def test_the_same_placeholders_in_a_full_review_are_a_finding(tmp_path):
    [review] = reviews(run(tmp_path, document=str(DRAFT))).values()
    assert review.final_score is not None
    assert any(f.issue_type == "placeholder_left" for f in review.findings)
