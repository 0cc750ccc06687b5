"""A review made by the offline rule checks says so at its top with what the rules cannot assess, and
never rates a lens SOUND that no check looked at; the checks off by default are a table's rows."""

from __future__ import annotations

from pathlib import Path

from review_harness.core.member import MemberRun
from review_harness.ds.models import DocumentInfo, LensRating
from review_harness.ds.offline.limits import CANNOT_ASSESS
from review_harness.ds.offline.precision import checks_off, configured_off
from review_harness.ds.offline.rules import review_with_rules, rule_table
from review_harness.ds.render import render_report
from review_harness.ds.rubric import default_rubric
from review_harness.ds.synthesis import synthesize

DOC = (Path(__file__).parent / "data" / "ds_regressions" / "visitors-row.md").read_text(encoding="utf-8")


def _review(model: str):
    reports = {d: review_with_rules(d, DOC) for d in ("analysis", "communication")}
    runs = [MemberRun(kind="ds", member=f"{d}-reviewer", status="complete", model=model) for d in reports]
    info = DocumentInfo(title="T", source="t.md", word_count=200, reading_minutes=1, token_estimate=260, tier=1)
    return synthesize(info, reports, runs, default_rubric(), requested_mode="full", mode="full", audience="mixed",
                      workflow="general")


def test_a_rule_check_review_says_so_at_its_top_with_what_it_cannot_assess():
    text = render_report(_review("offline/rules"), default_rubric())
    head = text.split("## ", 1)[0] if "## " in text else text
    assert "Made by rule checks" in head
    for what in CANNOT_ASSESS:
        assert what in head
    assert "causal claim is warranted beyond what the stated design shows" in head


def test_a_model_review_carries_no_rule_check_notice():
    assert "Made by rule checks" not in render_report(_review("anthropic/some-model"), default_rubric())


def test_a_lens_no_check_looked_at_is_not_assessed_never_sound():
    metrics = set(rule_table()[("analysis", "metrics")])
    report = review_with_rules("analysis", DOC, off=frozenset(metrics))
    rating = next(r for r in report.lens_ratings if r.lens == "metrics")
    assert rating.rating == LensRating.NOT_ASSESSED and "no rule check covers" in rating.note
    assert not any(f.lens == "metrics" for f in report.findings)
    # with its checks on, the same lens is checked (and this document gives it nothing to fault)
    on = next(r for r in review_with_rules("analysis", DOC, off=frozenset()).lens_ratings if r.lens == "metrics")
    assert on.rating != LensRating.NOT_ASSESSED


def test_the_checks_off_by_default_are_the_configured_ones_and_the_environment_turns_them_on(monkeypatch):
    monkeypatch.delenv("REVIEW_HARNESS_OFFLINE_CHECKS", raising=False)
    assert checks_off() == frozenset(configured_off())
    monkeypatch.setenv("REVIEW_HARNESS_OFFLINE_CHECKS", "all")
    assert checks_off() == frozenset()
