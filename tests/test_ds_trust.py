"""Issue 11: loud failures, a visible review, calibrated verdicts, correct calls."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from review_harness.core.inspect_adapter import PrerequisiteError

from helpers import ds_review_task, reviews, run
from review_harness import cli
from review_harness.core.params import MODEL_HELP
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.member import MemberRun
from review_harness.ds.models import DocumentInfo, ReviewerFinding, ReviewerReport, Severity
from review_harness.ds.parse import parse_reviewer_output
from review_harness.ds.render import render_report
from review_harness.ds.rubric import default_rubric
from review_harness.ds.synthesis import synthesize

STRONG = PROJECT_ROOT / "fixtures" / "ds" / "strong-analysis.md"
INSPECT = str(Path(sys.executable).with_name("inspect"))


def task_error(**task_args) -> str:
    with pytest.raises(PrerequisiteError) as info:
        ds_review_task()(**task_args)
    message = str(info.value.message)
    assert "\n" not in message
    return message


def inspect_cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [INSPECT, "eval", *args, "--display", "none"],
        cwd=cwd, env=env or os.environ.copy(), capture_output=True, text=True, timeout=120,
    )


# ------------------------------------------------------------------ loud failures


def test_no_model_is_a_one_line_error(monkeypatch, tmp_path):
    """Inside an eval with no model (inspect resolves 'none/none'), the task refuses to start."""
    from inspect_ai import eval as inspect_eval

    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    with pytest.raises(PrerequisiteError) as info:
        inspect_eval(os.path.relpath(PROJECT_ROOT / "tasks" / "ds_review.py", tmp_path), task_args={"document": str(STRONG)},
                     display="none", log_dir=str(tmp_path))
    assert info.value.message == MODEL_HELP


def test_task_built_outside_an_eval_takes_its_model_later(monkeypatch):
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    assert ds_review_task()(document=str(STRONG)).dataset[0].id == "strong-analysis"


def test_run_from_another_folder_without_a_model_fails_on_stderr(tmp_path):
    """.env is not found from outside the project: no model -> exit 1, the reason on stderr."""
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_EVAL_MODEL"}
    task = os.path.relpath(PROJECT_ROOT / "tasks" / "ds_review.py", tmp_path)
    done = inspect_cli(task, "-T", f"document={STRONG}", "--log-dir", str(tmp_path / "logs"), cwd=tmp_path, env=env)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"ds_review: {MODEL_HELP}"]


@pytest.mark.parametrize(
    "args, expected",
    [
        ({"timeout": "abc"}, "-T timeout=abc: expected a number"),
        ({"timeout": "-5"}, "-T timeout=-5: expected a number greater than 0"),
        ({"max_tokens": "abc"}, "-T max_tokens=abc: expected a whole number"),
        ({"max_tokens": "2.5"}, "-T max_tokens=2.5: expected a whole number"),
        ({"document": []}, "-T document=[]: expected a path (or several, comma-separated)"),
    ],
)
def test_bad_task_values(args, expected):
    assert task_error(**args) == expected


def test_output_dir_that_is_a_file(tmp_path):
    target = tmp_path / "taken"
    target.write_text("x")
    assert task_error(document=str(STRONG), output_dir=str(target)) == (
        f"-T output_dir={target}: {target} is a file, not a folder"
    )


def test_several_documents_in_one_parameter(tmp_path):
    other = tmp_path / "strong-analysis.md"
    other.write_text(STRONG.read_text())
    task = ds_review_task()(document=[str(STRONG), str(other)])
    assert [s.id for s in task.dataset] == ["strong-analysis", "strong-analysis-2"]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["-T", "max_tokens=abc"], "ds_review: -T max_tokens=abc: expected a whole number"),
        (["-T", "timeout=abc"], "ds_review: -T timeout=abc: expected a number"),
        (["-M", "latency_s=1"], "offline reviewer: -M latency_s: unknown model arg for the offline reviewer; "
                                 "known: latency, fault_rate, fault_seed, faults"),
    ],
)
def test_cli_errors_reach_stderr_with_display_none(tmp_path, args, expected):
    done = inspect_cli("tasks/ds_review.py", "-T", f"document={STRONG}", *args,
                       "--log-dir", str(tmp_path / "logs"), cwd=PROJECT_ROOT)
    assert done.returncode == 1
    assert expected in done.stderr.splitlines()
    assert "Traceback" not in done.stderr + done.stdout


def test_all_deferred_run_reports_no_accuracy_and_fails_the_gate(tmp_path, capsys):
    log = run(tmp_path, model_args={"fault_rate": 1.0, "faults": "exception"})
    assert all(r.status == "deferred" for r in reviews(log).values())
    metrics = {s.name: next(iter(s.metrics.values())).value for s in log.results.scores}
    assert math.isnan(metrics["precision"]) and math.isnan(metrics["verdict_band_accuracy"])
    assert cli.main(["gate", str(tmp_path / "logs")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("review-harness: ") and "every review was deferred" in err
    assert "\n" not in err


# ------------------------------------------------------------------ seeing the review


def test_report_is_the_final_assistant_message_and_show_prints_it(tmp_path, capsys):
    out = tmp_path / "reviews"
    log = run(tmp_path, document=str(STRONG), output_dir=str(out))
    [sample] = log.samples
    report = sample.output.completion
    assert report.startswith("# DS Analysis Review")
    assert sample.messages[-1].role == "assistant" and sample.messages[-1].text == report
    assert sample.scores["review_synthesis"].explanation == report  # what inspect view renders as markdown
    assert (out / "strong-analysis.review.md").read_text() == report
    capsys.readouterr()  # drop what the eval printed
    assert cli.main(["show", str(tmp_path / "logs")]) == 0
    assert capsys.readouterr().out == report
    assert cli.main(["show", str(tmp_path / "logs"), "--sample", "nope"]) == 2
    assert "--sample nope: no such sample" in capsys.readouterr().err


def test_console_says_where_the_review_is(tmp_path):
    from review_harness.core.console import verdict_report

    text = verdict_report("ds", {"memo": "Minor Fix, score 70/100, no findings"}, [str(tmp_path / "memo.review.md")],
                          "logs/x.eval")
    assert "review-harness show logs/x.eval --sample memo" in text
    assert f"written: {tmp_path / 'memo.review.md'}" in text


# ------------------------------------------------------------------ calibration


# (the calibration tests live in tests/test_ds_calibration.py)


# ------------------------------------------------------------------ correct calls


def _doc_info():
    return DocumentInfo(title="T", source="t.md", word_count=900, reading_minutes=3.9, token_estimate=1170, tier=1)


def _f(lens, severity, title, issue, evidence=""):
    return ReviewerFinding(lens=lens, severity=severity, title=title, location="Results", issue=issue,
                           evidence=evidence, suggested_fix="Fix it.")


def _synth(reports, runs=()):
    return synthesize(_doc_info(), reports, list(runs), default_rubric(), requested_mode="full", mode="full",
                      audience="mixed", workflow="general")


def test_finding_in_the_other_dimensions_lens_is_rerouted_with_a_note():
    answer = {
        "dimension": "analysis",
        "lens_ratings": [],
        "findings": [
            {"lens": "metrics", "severity": "MAJOR", "title": "No interval", "location": "Results", "issue": "i",
             "evidence": "", "suggested_fix": "f", "issue_type": None},
            {"lens": "Structure & TL;DR", "severity": "MAJOR", "title": "Answer buried", "location": "End",
             "issue": "The answer is at the end.", "evidence": "", "suggested_fix": "Move it up.", "issue_type": None},
        ],
        "positives": [], "score": None,
    }
    outcome = parse_reviewer_output(json.dumps(answer), default_rubric().dimension("analysis"), default_rubric())
    assert outcome.usable and outcome.problems == []
    review = _synth({"analysis": outcome.report, "communication": ReviewerReport(dimension="communication")})
    assert review.status == "complete"
    moved = [f for f in review.findings if f.title == "Answer buried"]
    assert [(f.dimension, f.lens) for f in moved] == [("communication", "structure")]
    assert review.notes == [
        'Re-routed "Answer buried" from analysis-reviewer to Communication / Structure & TL;DR: that lens belongs to '
        "the Communication dimension (routing table)."
    ]
    assert "## Notes" in render_report(review, default_rubric())


def test_cross_cutting_is_one_issue_deducted_once():
    quote = "The new onboarding email caused a 12% lift in retention among new members"
    analysis = ReviewerReport(dimension="analysis", findings=[
        _f("methodology", Severity.MAJOR, "Causal claim without a control group",
           "The lift is attributed to the email with no control group.", quote),
        _f("metrics", Severity.MAJOR, "No interval", "The lift has no interval.", quote),
    ])
    communication = ReviewerReport(dimension="communication", findings=[
        _f("audience", Severity.MAJOR, "Causal claim without a control group is presented as fact",
           "The lift is attributed to the email with no control group, and readers will take it as fact.", quote),
    ])
    review = _synth({"analysis": analysis, "communication": communication})
    assert len(review.cross_cutting) == 1  # the unrelated 'No interval' finding is not paired
    assert "deducted once" in review.cross_cutting[0]
    # deducted once, in the dimension where it lowers the review more: on the default curve a second
    # MAJOR in analysis costs less than a first one in communication
    major = default_rubric().severity_points(Severity.MAJOR)
    assert review.dimensions["communication"].raw_deductions == major
    assert review.dimensions["analysis"].raw_deductions == major
    copies = [f for f in review.findings if "control group" in f.title]
    assert sorted(f.deduction for f in copies) == [0.0, major]


def test_deferred_report_lists_each_reviewers_reason():
    runs = [MemberRun(kind="ds", member="analysis-reviewer", status="timed_out", reason="no answer within 600 s"),
            MemberRun(kind="ds", member="communication-reviewer", status="malformed",
                      reason="malformed answer: the reviewer returned empty output")]
    review = _synth({"analysis": None, "communication": None}, runs)
    text = render_report(review, default_rubric())
    assert "analysis-reviewer timed out (no answer within 600 s)" in text
    assert ("communication-reviewer returned malformed output (malformed answer: the reviewer returned empty output); "
            "nothing in it could be used.") in text
    assert "see the warnings" not in text


def test_lead_writes_positives_when_the_reviewers_were_lost():
    runs = [MemberRun(kind="ds", member="analysis-reviewer", status="complete", truncated=True)]
    analysis = ReviewerReport(dimension="analysis", findings=[_f("metrics", Severity.MINOR, "Undefined metric", "i")])
    review = _synth({"analysis": analysis, "communication": ReviewerReport(dimension="communication")}, runs)
    assert review.positives and review.positives[0].title == "Methodology & Assumptions: nothing to fix"
    assert "Written by the lead" in review.positives[0].detail
    assert "No reviewer reported positives" not in render_report(review, default_rubric())


# ------------------------------------------------------------------ offline fidelity


def _offline(name: str, dimension: str = "analysis", **kw):
    from review_harness.ds.offline.rules import review_with_rules

    return review_with_rules(dimension, (PROJECT_ROOT / "fixtures" / "ds" / f"{name}.md").read_text(), **kw)


@pytest.mark.parametrize(
    "name, issue_type, evidence",
    [
        ("checkout-button-early-stop", "early_stopping", "We stopped the test on day 4 because it had reached significance"),
        ("demand-forecast-leakage", "leakage", "end-of-week stock-out flag"),
        ("onboarding-checklist-imbalance", "covariate_imbalance_ignored", "This is probably chance and should not matter much."),
        ("loyalty-revenue-arithmetic", "arithmetic_inconsistent", "**All members** | **$12.1M** | **$14.6M**"),
        ("search-ranking-guardrails", "guardrail_contradiction", "**All guardrail metrics stayed stable.**"),
        ("dark-mode-retention", "causal_claim_without_design", "**Dark mode drives retention**"),
    ],
)
def test_new_rules_quote_the_document(name, issue_type, evidence):
    found = [f for f in _offline(name).findings if f.issue_type == issue_type]
    assert found, issue_type
    assert evidence in found[0].evidence


def test_early_stopping_quotes_the_planned_run_as_written():
    """The planned duration is quoted from the document, not spliced into a sentence of ours."""
    [finding] = [f for f in _offline("checkout-button-early-stop").findings if f.issue_type == "early_stopping"]
    assert 'before the end of its planned run ("planned duration was 14 days")' in finding.issue
    assert "planned planned" not in finding.issue


def test_arithmetic_rule_recomputes_the_documents_numbers():
    from review_harness.ds.offline.checks.analysis_logic import _percent_claims, _table_totals
    from review_harness.ds.offline.registry import Context
    from review_harness.ds.offline.view import build_view

    text = (PROJECT_ROOT / "fixtures" / "ds" / "loyalty-revenue-arithmetic.md").read_text()
    ctx = Context(view=build_view(text), dimension="analysis")
    assert "the rows above it add up to $14.0M" in _table_totals(ctx).issue
    assert "is a 25% relative change (0.5 points), not 50%" in _percent_claims(ctx).issue


def test_strengths_need_evidence():
    early = _offline("checkout-button-early-stop")
    assert {p.credit for p in early.positives}.isdisjoint({"sound_design", "uncertainty_reported"})  # bare p-value, early stop
    assert "sound_design" in {p.credit for p in _offline("geo-holdout-tv-campaign").positives}


def test_no_false_positives_on_a_short_finished_memo():
    from review_harness.ds.prepare import detect_partial_input

    text = (PROJECT_ROOT / "fixtures" / "ds" / "short-complete-memo.md").read_text()
    assert len(text.split()) < 600
    assert detect_partial_input(text).is_partial is False  # short is not a draft
    for dim in ("analysis", "communication"):
        found = _offline("short-complete-memo", dim, workflow="reactive").findings
        assert [f.issue_type for f in found] == []  # no "placeholder" for [link](...), no "no limitations"


def test_unfinished_markers_still_make_a_draft():
    from review_harness.ds.prepare import detect_partial_input

    check = detect_partial_input((PROJECT_ROOT / "fixtures" / "ds" / "partial-input-bullets.md").read_text())
    assert check.is_partial and any("unfinished marker" in r for r in check.reasons)


def test_suggested_fixes_invent_no_numbers():
    """Every number in a suggested fix comes from the document it reviews (the arithmetic rule's
    recomputations from the document's own figures are tested above)."""
    import re as _re

    for path in sorted((PROJECT_ROOT / "fixtures" / "ds").glob("*.md")):
        text = path.read_text()
        for dim in ("analysis", "communication"):
            for f in _offline(path.stem, dim).findings:
                if f.issue_type == "arithmetic_inconsistent":
                    continue
                for number in _re.findall(r"\d+(?:[.,]\d+)?", f.suggested_fix):
                    assert number in text or number in ("95",), (path.stem, f.issue_type, f.suggested_fix)


def test_evidence_not_in_the_document_is_kept_and_marked_unverified():
    from review_harness.ds.panel import mark_evidence
    from review_harness.ds.render import render_report

    report = ReviewerReport(dimension="analysis", findings=[
        _f("metrics", "MAJOR", "No interval", "The lift has no interval.", evidence="conversion rose   4.1%"),
        _f("metrics", "MINOR", "Made-up quote", "Quote not in the text.", evidence="revenue tripled overnight"),
    ])
    review = _synth({"analysis": report, "communication": ReviewerReport(dimension="communication")})
    mark_evidence(review, "In March conversion rose 4.1% after the change.")
    verified = {f.title: f.evidence_verified for f in review.findings}
    assert verified == {"No interval": True, "Made-up quote": False}
    bad = next(f for f in review.findings if f.title == "Made-up quote")
    assert f"(kept, unverified): {bad.id}." in review.warnings[-1]
    assert '"revenue tripled overnight" (not found verbatim in the document)' in render_report(review, default_rubric())
