"""End to end through inspect_ai.eval() on the offline reviewer, in one process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.event import ModelEvent

from inspect_ai import eval as inspect_eval

from review_harness.cli import summary_table
from review_harness.core.member import MEMBER_STATUSES
from review_harness.core.paths import PROJECT_ROOT

from helpers import FIXTURES, MODEL, TASK, ds_review_task, reviews, run


@pytest.fixture(scope="module")
def default_log(default_gold_log) -> EvalLog:
    return default_gold_log("ds_review")


def test_default_run_reviews_every_fixture(default_log):
    assert default_log.status == "success"
    assert len(default_log.samples) == len(FIXTURES) >= 9
    found = reviews(default_log)
    assert set(found) == {p.stem for p in FIXTURES}
    for sample in default_log.samples:
        assert sample.error is None
        review = found[str(sample.id)]
        assert review.status == "complete"
        if review.draft:  # a fixture reviewed as a draft: qualitative only
            assert review.final_score is None and review.verdict is None
        else:
            assert review.final_score is not None and 0 <= review.final_score <= 100
            assert review.verdict in ("Good to Go", "Minor Fix", "Major Rework")
        assert len(review.dashboard) == 8
        assert sample.output.completion.startswith("# DS Analysis Review: ")
        assert ("### Lens Dashboard" in sample.output.completion) != review.draft


def test_default_run_metrics_and_summary(default_log):
    # dict-valued scores are reported per key: one EvalScore per key
    metrics = {
        score.name: next(iter(score.metrics.values())).value
        for score in default_log.results.scores
    }
    assert 0 < metrics["score"] < 100 and metrics["findings"] > 0
    reduced = next(r for r in default_log.reductions if r.scorer == "review_synthesis").samples
    assert all(s.value["complete"] == 1.0 for s in reduced)  # a per-sample value for the gate, no run metric
    table = summary_table(default_log)
    assert "log status: success" in table
    assert "strong-analysis" in table


def test_strong_analysis_is_good_to_go(default_log):
    review = reviews(default_log)["strong-analysis"]
    assert review.verdict == "Good to Go"


def test_review_a_single_document(tmp_path):
    doc = tmp_path / "my-analysis.md"
    doc.write_text((PROJECT_ROOT / "fixtures/ds/causal-without-method.md").read_text())
    log = run(tmp_path, document=str(doc))
    assert log.status == "success"
    assert [s.id for s in log.samples] == ["my-analysis"]
    review = reviews(log)["my-analysis"]
    assert review.document.source == str(doc)


def test_review_a_folder(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("a.md", "b.md"):
        (folder / name).write_text((PROJECT_ROOT / "fixtures/ds/strong-analysis.md").read_text())
    (folder / "notes.csv").write_text("a,b")  # not a supported format: named in a warning
    log = run(tmp_path, document=str(folder))
    assert sorted(s.id for s in log.samples) == ["a", "b"]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: d / "missing.md", "does not exist"),
        (lambda d: (d / "empty.md").write_text("  \n") and d / "empty.md", "is empty"),
        (lambda d: (d / "blob.md").write_bytes(b"\x00\x01\x02binary\x00" * 50) and d / "blob.md", "not a text file"),
    ],
)
def test_bad_document_gets_a_one_line_error_naming_the_file(tmp_path, make, message):
    path = make(tmp_path)
    with pytest.raises(PrerequisiteError) as info:
        ds_review_task()(document=str(path))
    text = str(info.value)
    assert message in text
    assert path.name in text
    assert "\n" not in text


def test_cli_bad_document_prints_no_traceback(tmp_path):
    missing = tmp_path / "nowhere.md"
    result = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "tasks/ds_review.py", "-T", f"document={missing}",
         "--model", MODEL],
        capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120,
        env={**os.environ, "COLUMNS": "400"},  # rich wraps at the terminal width
    )
    output = result.stdout + result.stderr
    assert f"{missing} does not exist" in output
    assert "Traceback" not in output
    assert len(output.strip().splitlines()) == 1


def test_quick_mode_has_status_table_and_no_lens_breakdown(tmp_path):
    log = run(tmp_path, mode="quick", document=str(PROJECT_ROOT / "fixtures/ds/no-tldr-analysis.md"))
    sample = log.samples[0]
    report = sample.output.completion
    assert "**Mode:** Quick" in report
    assert "### Status" in report and "| Analysis |" in report
    assert "Lens Dashboard" not in report and "Dimension (Score" not in report
    review = reviews(log)[str(sample.id)]
    assert review.mode == "quick" and review.tier == 3


def test_draft_has_no_numeric_score_and_no_critical(tmp_path):
    log = run(tmp_path, draft="true", document=str(PROJECT_ROOT / "fixtures/ds/no-tldr-analysis.md"))
    sample = log.samples[0]
    review = reviews(log)[str(sample.id)]
    assert review.final_score is None and review.verdict is None
    assert all(f.severity.value != "CRITICAL" for f in review.findings)
    assert "**Score:" not in sample.output.completion
    assert "Draft feedback" in sample.output.completion


@pytest.mark.parametrize("option, value, header", [
    ("audience", "exec", "**Audience:** exec"),
    ("workflow", "reactive", "**Workflow:** reactive"),
])
def test_audience_and_workflow_reach_report_and_prompt(tmp_path, option, value, header):
    log = run(tmp_path, document=str(PROJECT_ROOT / "fixtures/ds/good-analysis-bad-comms.md"), **{option: value})
    sample = log.samples[0]
    assert header in sample.output.completion
    sample = resolve_sample_attachments(sample)
    prompts = [e.input[-1].text for e in sample.events if isinstance(e, ModelEvent)]
    label = {"audience": "Audience", "workflow": "Workflow Context"}[option]
    assert prompts and all(f"{label}: {value}" in p for p in prompts)


def test_faults_degrade_reviews_but_never_error_samples(tmp_path):
    log = run(tmp_path, model_args={"fault_rate": 0.5, "fault_seed": 1})
    assert log.status == "success"
    found = reviews(log)
    assert len(found) == len(log.samples)
    statuses = {r.status for r in found.values()}
    assert statuses <= {"complete", "partial", "deferred"}
    assert len(statuses) >= 2  # the faults really hit
    for sample in log.samples:
        assert sample.error is None
        review = found[str(sample.id)]
        if review.status != "complete" or review.degradation_level:
            assert review.warnings, f"{sample.id}: degraded without saying why"
        for run_ in review.reviewer_runs:
            assert run_.status in MEMBER_STATUSES
            if run_.status != "complete":
                assert run_.reason
                assert review.status != "complete", "a member that did not complete never leaves a complete review"


def test_reviewers_run_concurrently(tmp_path):
    log = run(tmp_path, model_args={"latency": 0.5}, document=str(PROJECT_ROOT / "fixtures/ds/strong-analysis.md"))
    events = [e for e in log.samples[0].events if isinstance(e, ModelEvent)]
    assert len(events) == 2
    first, second = sorted(events, key=lambda e: e.timestamp)
    # the second call started before the first one finished
    assert second.timestamp < first.completed


@pytest.mark.parametrize("option, values, document, differs_by", [
    # an executive reader makes unexplained terms a finding a data-science reader would not get
    ("audience", ("ds", "exec"), "strong-analysis.md", "jargon_unexplained"),
    # a reactive answer needs intervals the stakeholder can act on
    ("workflow", ("general", "reactive"), "causal-without-method.md", "overreach_unbounded"),
])
def test_audience_and_workflow_change_the_review(tmp_path, option, values, document, differs_by):
    found = {}
    for value in values:
        log = run(tmp_path / value, document=str(PROJECT_ROOT / "fixtures/ds" / document), **{option: value})
        found[value] = {f.issue_type for f in reviews(log)[Path(document).stem].findings}
    assert differs_by not in found[values[0]]
    assert differs_by in found[values[1]]


# the seed's synthetic set (s15.2) and the strong analysis: the offline reviewer's development set
SEED_SET = ["no-tldr-analysis", "causal-without-method", "good-analysis-bad-comms", "contradicts-data",
            "data-dump", "wrong-audience", "partial-input-bullets", "unstructured-text", "strong-analysis"]


@pytest.mark.parametrize("fixture", SEED_SET)
def test_offline_reviewer_catches_each_designed_deficiency(default_log, fixture):
    sample = next(s for s in default_log.samples if s.id == fixture)
    gold = sample.scores["gold_comparison"].metadata["gold"]
    assert gold["missed_must_catch"] == []
    assert gold["severity_agreement"] in (None, 1.0)
    if fixture == "strong-analysis":
        assert reviews(default_log)[fixture].verdict == "Good to Go"


def test_epochs_report_spread_and_finding_stability(tmp_path):
    [log] = inspect_eval(
        ds_review_task()(document=str(PROJECT_ROOT / "fixtures/ds/no-tldr-analysis.md")),
        model=MODEL, epochs=3, log_dir=str(tmp_path), display="none",
    )
    assert log.status == "success" and len(log.samples) == 3
    names = {s.name for s in log.results.scores}
    assert {"score_spread", "score_within_10"} <= names
    reduced = next(r for r in log.reductions if r.scorer == "review_synthesis").samples[0]
    assert reduced.value["score_spread"] == 0.0  # the offline reviewer is deterministic
    assert reduced.metadata["epoch_scores"] == [reduced.value["score"]] * 3


def test_epochs_with_gold_report_per_finding_stability(tmp_path, monkeypatch):
    [log] = inspect_eval(ds_review_task()(), model=MODEL, epochs=2, limit=2, log_dir=str(tmp_path), display="none")
    reduced = next(r for r in log.reductions if r.scorer == "gold_comparison").samples[0]
    stability = reduced.metadata["finding_stability"]
    assert stability and all(v["epochs"] == 2 and v["status"] in ("stable", "flaky", "never") for v in stability.values())
    assert reduced.value["stable_findings"] + reduced.value["flaky_findings"] + reduced.value["never_findings"] == pytest.approx(1.0)


def test_response_cache_serves_the_second_run(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    document = str(PROJECT_ROOT / "fixtures/ds/strong-analysis.md")
    first = run(tmp_path / "a", document=document, cache=True)
    second = run(tmp_path / "b", document=document, cache=True)
    caches = [[e.cache for e in log.samples[0].events if isinstance(e, ModelEvent)] for log in (first, second)]
    assert caches[0] == ["write", "write"]
    assert caches[1] == ["read", "read"]
    assert reviews(first)["strong-analysis"].final_score == reviews(second)["strong-analysis"].final_score


def test_dimension_scores_follow_the_rubric_credit_rule(default_log):
    """The default rubric: a dimension is 100 less its effective deductions plus its credits
    (capped), which offset only what its MINOR findings add on the curve: a credit never cancels a
    MAJOR or CRITICAL finding."""
    from review_harness.ds import scoring
    from review_harness.ds.rubric import default_rubric

    rubric = default_rubric()
    assert rubric.scoring.credits_offset == "minor"
    curve = rubric.scoring.diminishing_returns
    for sample_id, review in reviews(default_log).items():
        for dim_id, result in review.dimensions.items():
            if result.score is None or dim_id == "domain":
                continue
            serious = scoring.diminishing_returns(sum(f.deduction for f in review.findings if f.dimension == dim_id
                                                      and f.severity.value != "MINOR"), curve)
            credits = min(sum(result.credits_earned.values()), rubric.scoring.credit_cap,
                          result.effective_deductions - serious)
            expected = max(0.0, min(100.0, 100 - result.effective_deductions + credits))
            assert result.score == pytest.approx(expected, abs=0.01), (sample_id, dim_id)
