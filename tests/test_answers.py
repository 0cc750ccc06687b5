"""What `inspect view` shows of a review, for every kind: the synthesis score's answer is the
verdict line with the top findings (the sample header and list show it without a click), its
explanation is the whole markdown report (rendered as markdown), the log carries the kind's
viewer configuration and headline figure, and the score holds its labels as values."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.core.kinds import get_kind
from review_harness.core.viewer import LABEL_HEADER, PASSED, kind_columns
from helpers import load_task_file

KINDS = {"ds_review": "ds", "design_review": "design", "code_review": "code", "impact_review": "impact"}


@pytest.fixture(scope="module", params=sorted(KINDS))
def gold_run(request, tmp_path_factory):
    task = request.param
    [log] = inspect_eval(load_task_file(task)(), model="offline/rules", limit=2,
                         log_dir=str(tmp_path_factory.mktemp(task)), display="none")
    assert log.status == "success"
    return KINDS[task], log


def test_answer_is_the_verdict_and_the_report_is_the_explanation(gold_run):
    kind_name, log = gold_run
    kind = get_kind(kind_name)
    for sample in log.samples:
        score = sample.scores[kind.synthesis_scorer]
        review = kind.review_from_score(score.metadata)
        verdict = kind.verdict_line(review)
        assert score.answer == verdict.answer()
        assert score.answer.startswith(verdict.verdict) and len(score.answer.splitlines()) == 1
        assert "**" not in score.answer  # shown as it is in the SCORING tab's table and the sample list
        assert score.explanation.lstrip().startswith("#") and len(score.explanation.splitlines()) > 5
        assert sample.output.completion.strip() == score.explanation.strip()  # the report is the final message


def test_log_carries_the_kinds_viewer_and_headline(gold_run):
    kind_name, log = gold_run
    kind = get_kind(kind_name)
    viewer = log.eval.viewer
    view = viewer.task_samples_view
    ids = [c.id for c in view.columns]
    assert ids[0] == "sampleId" and "answer" in ids
    for column in kind_columns(kind):  # a gold run: the review's and the gold columns
        scorer = kind.gold_scorer if column.gold else kind.synthesis_scorer
        assert f"score__{scorer}__{column.key}" in ids
        label = view.score_labels[column.key]
        assert label.rstrip("\u00a0") == column.label
        if column.key == kind.verdict_key:  # the verdict column is as wide as the viewer makes one
            assert len(label) >= LABEL_HEADER
        assert column.key in log.samples[0].scores[scorer].value  # the column shows a recorded value
    assert viewer.sample_score_view.default == "grid"
    # with gold, the log list's figure is the share of cases whose verdict is the gold one
    headline = log.eval.headline_metric
    assert (headline.scorer, headline.score) == (kind.gold_scorer, kind.verdict_accuracy)
    assert log.results.headline is not None  # Inspect found it among the results (no warning)
    assert any(s.scorer == kind.gold_scorer and s.name == kind.verdict_accuracy for s in log.results.scores)


def test_passed_is_recorded_and_the_runs_verdict_is_named(gold_run):
    """`passed` is 1 exactly for the kind's passing verdict, 0 for its others, per review; the
    run's verdict metric (the headline without gold) is named for the verdicts the reviews got and
    valued at their mean place on the kind's scale (1 passing ... 0 strictest)."""
    kind_name, log = gold_run
    kind = get_kind(kind_name)
    values = [s.scores[kind.synthesis_scorer].value for s in log.samples]
    for value in values:
        verdict = value[kind.verdict_key]
        if verdict in kind.verdicts:
            assert value[PASSED] == float(verdict == kind.verdicts[0])
        else:
            assert math.isnan(value[PASSED])
    got = [v[kind.verdict_key] for v in values if v[kind.verdict_key] in kind.verdicts]
    assert got, "no review of the run has a verdict: choose other cases"
    [score] = [s for s in log.results.scores if s.scorer == kind.synthesis_scorer and s.name == kind.verdict_key]
    [metric] = score.metrics.values()
    places = [1 - kind.verdicts.index(v) / (len(kind.verdicts) - 1) for v in got]
    assert metric.value == pytest.approx(sum(places) / len(places))
    if len(set(got)) == 1:
        assert metric.name == got[0]
    else:
        assert metric.name == ", ".join(f"{got.count(v)} {v}" for v in kind.verdicts if v in got)
    assert not any(s.name == PASSED for s in log.results.scores)  # recorded per review, summed up by the verdict


def counted_findings(kind_name: str, review) -> list[str]:
    """The severities a kind's verdict line must count, read from the review JSON."""
    if kind_name == "ds":
        return [f.severity.value for f in review.findings]
    if kind_name == "design":
        return [getattr(f.severity, "value", f.severity) for f in review.findings]
    if kind_name == "code":
        first = review.first
        stages = [first.spec] + ([first.quality] if first.quality and not first.quality.discarded else [])
        return [getattr(m.finding.severity, "value", m.finding.severity) for s in stages for m in s.findings]
    from review_harness.impact.kind import problem  # impact: checks that fail, warn or miss what the method needs

    return [kind for c in review.checks if (kind := problem(c))]


def test_verdict_line_counts_every_finding_by_its_severity(gold_run):
    """Over every review of the gold run: the counts add up to the review's findings, each
    severity is counted under its own name, and the top findings come from them."""
    kind_name, log = gold_run
    kind = get_kind(kind_name)
    for sample in log.samples:
        review = kind.review_from_score(sample.scores[kind.synthesis_scorer].metadata)
        verdict = kind.verdict_line(review)
        severities = counted_findings(kind_name, review)
        assert sum(verdict.counts.values()) == len(severities), (sample.id, verdict)
        assert {s: severities.count(s) for s in set(severities)} == {s: n for s, n in verdict.counts.items() if n}
        assert len(verdict.top) <= max(len(severities), 1)
        line = verdict.line()
        assert line.startswith(verdict.verdict) and "\n" not in line
        if severities:
            assert f"{len(severities)} {verdict.noun}" in line


def test_code_verdict_line_says_the_fix_attempts_behind_the_final_status(tmp_path):
    """The decision and findings of the line are the first review's; a review that went through
    the fix loop says how many attempts led to its final status."""
    [log] = inspect_eval(load_task_file("code_review")(), model="offline/rules", log_dir=str(tmp_path), display="none")
    kind = get_kind("code")
    fixed = 0
    for sample in log.samples:
        review = kind.review_from_score(sample.scores[kind.synthesis_scorer].metadata)
        line = kind.verdict_line(review).line()
        attempts = review.fix_iterations
        assert f"status {review.final_status}" in line
        if attempts:
            fixed += 1
            said = f"status {review.final_status} after {attempts} fix attempt{'s' if attempts != 1 else ''}"
            assert f"{said}," in line or f"{said} [" in line  # a status in brackets may follow
        else:
            assert "fix attempt" not in line
    assert fixed >= 2  # the gold set has cases that go through the fix loop

