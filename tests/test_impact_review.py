"""Impact review end to end on the offline reviewer, through inspect_ai.eval() in one process."""

from __future__ import annotations

import importlib.util
import json
import math

import pytest
import yaml
from inspect_ai import eval as inspect_eval
from review_harness.core.inspect_adapter import PrerequisiteError

from review_harness.core.member import MEMBER_STATUSES
from review_harness.core.paths import PROJECT_ROOT
from review_harness.impact.gold import ImpactGoldComparison, impact_gold_files, ranking_agreement
from review_harness.impact.models import ImpactReview

TASK = PROJECT_ROOT / "tasks" / "impact_review.py"
FIX = PROJECT_ROOT / "fixtures" / "impact"
MODEL = "offline/rules"


def impact_task():
    spec = importlib.util.spec_from_file_location("impact_review_task_file", TASK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.impact_review


def run(tmp_path, model_args=None, epochs=None, **task_args):
    [log] = inspect_eval(impact_task()(**task_args), model=MODEL, model_args=model_args or {},
                         log_dir=str(tmp_path / "logs"), display="none", epochs=epochs)
    return log


def reviews(log) -> dict[str, ImpactReview]:
    return {str(s.id): ImpactReview.model_validate(s.scores["impact_synthesis"].metadata["review"]) for s in log.samples}


@pytest.fixture(scope="module")
def gold_log(default_gold_log):
    return default_gold_log("impact_review")


def test_gold_set_runs_offline(gold_log):
    assert gold_log.status == "success"
    assert len(gold_log.samples) == len(impact_gold_files()) >= 12
    assert all(s.error is None for s in gold_log.samples)
    assert gold_log.eval.metadata["prompt_name"] == "impact_results_review" and gold_log.eval.metadata["prompt_version"] == "1.2"


def test_every_broken_artifact_scores_below_every_clean_one_on_what_it_breaks(gold_log):
    got = reviews(gold_log)
    golds = impact_gold_files()
    clean = [g for g in golds if g.clean]
    broken = [g for g in golds if not g.clean]
    assert len(clean) >= 4 and len(broken) >= 8
    for b in broken:
        for dim in b.breaks:
            worst_clean = min(got[c.id].score(dim) for c in clean)
            assert got[b.id].score(dim) < worst_clean, (b.id, dim)


def test_ranking_agreement_helper_counts_triples():
    cases = [ImpactGoldComparison(case="c", dimension_in_window=1, overall_in_window=1, verdict_correct=1,
                                  confidence_in_range=1, scores={"d": 0.9}),
             ImpactGoldComparison(case="b", dimension_in_window=1, overall_in_window=1, verdict_correct=1,
                                  confidence_in_range=1, scores={"d": 0.95}, breaks=["d"])]
    assert ranking_agreement(cases) == (0.0, ["b d 0.95 vs c 0.9"])


def test_result_contract_and_report(gold_log):
    sample = next(s for s in gold_log.samples if s.id == "broken-arithmetic")
    review = ImpactReview.model_validate(sample.scores["impact_synthesis"].metadata["review"])
    r = review.result
    assert (r.initiative_id, r.prompt_name, r.prompt_version, r.backend_name, r.model) == (
        "search-ranking-v3", "impact_results_review", "1.2", "offline", "rules")
    assert r.verdict == review.verdict == review.checks_verdict == review.model_verdict == "unusable"
    assert review.verdict_reasons == ["post_minus_pre: fail"]
    assert [d.name for d in r.dimensions] == ["estimate_plausibility", "statistical_rigor", "methodology_fit"]
    # a fatal check caps the overall score (the mean of the dimensions stays for audit), and says so
    assert review.dimension_mean == round(sum(d.score for d in r.dimensions) / 3, 4) > 0.4
    assert r.overall_score == 0.4 and review.overall_cap.startswith("capped at 0.4")
    assert sample.scores["impact_synthesis"].value["overall"] == 0.4
    assert r.raw_response.startswith("DIMENSION: estimate_plausibility") and review.answer_format == "text"
    assert "T" in r.timestamp and review.model_overall is not None
    assert review.confidence.model_type == "interrupted_time_series" and 0.5 <= review.confidence.score <= 0.7
    assert review.knowledge_chunks  # the built-in notes were retrieved
    assert sample.output.completion == sample.messages[-1].text
    assert sample.output.completion.startswith("# UNUSABLE: impact results review of search-ranking-v3\n")
    score = sample.scores["impact_synthesis"]
    assert score.metadata["verdict"] == "unusable" and score.value["verdict"] == "unusable"  # a label: the viewer's column
    assert score.answer.startswith("unusable (capped: post_minus_pre failed), overall ")  # the verdict line: the viewer's ANSWER
    assert score.explanation == sample.output.completion  # the report, rendered as markdown by the viewer
    assert "112.5 - 100 = 12.5" in sample.output.completion


def test_gold_metrics(gold_log):
    # every figure's metric is `average` (scorers/metrics.py); the ranking has its own
    metrics = {(score.scorer, score.name): {n.rsplit("/", 1)[-1]: m.value for n, m in score.metrics.items()}
               for score in gold_log.results.scores}
    assert metrics[("impact_gold", "ranking")]["ranking_agreement_metric"] == 1.0
    assert metrics[("impact_gold", "dimension_in_window")]["average"] >= 0.9
    assert metrics[("impact_gold", "confidence_in_range")]["average"] == 1.0
    assert metrics[("impact_synthesis", "review_complete")]["average"] == 1.0
    assert metrics[("impact_synthesis", "reviewer_failed")]["average"] == 0.0
    # every figure is named: no metric key is a glob pattern; the verdict's metric (the headline without gold)
    # exists, and `passed` is recorded per review without one
    assert all(not any(ch in name for ch in "*?[") for _, name in metrics)
    assert {"verdict", "overall", "method_confidence", "evidence_coverage", "failed_checks", "unusable"} <= {
        name for scorer, name in metrics if scorer == "impact_synthesis"}
    assert ("impact_synthesis", "passed") not in metrics


def test_user_file_and_folder(tmp_path):
    log = run(tmp_path, artifact=str(FIX / "short-pre-period.json"))
    assert log.status == "success" and [s.id for s in log.samples] == ["short-pre-period"]
    assert "impact_gold" not in log.samples[0].scores
    folder = tmp_path / "results"
    folder.mkdir()
    for name in ("its-daily-checkout", "missing-p-value"):
        (folder / f"{name}.json").write_text((FIX / f"{name}.json").read_text())
    log = run(tmp_path, artifact=str(folder))
    got = reviews(log)
    assert sorted(got) == ["its-daily-checkout", "missing-p-value"]
    assert got["missing-p-value"].notes[0].startswith("p_value: not reported")


@pytest.mark.parametrize("content, message", [
    ("not json", "bad.json: not valid JSON"),
    (json.dumps({"schema_version": "3.1"}), "bad.json: schema_version: '3.1' is not supported (expected '2.0')"),
])
def test_bad_artifact_is_one_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(PrerequisiteError) as ex:
        impact_task()(artifact=str(path))
    assert message in str(ex.value) and "\n" not in str(ex.value)


def test_bad_parameters(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(PrerequisiteError, match="the folder has no"):
        impact_task()(artifact=str(tmp_path / "empty"))
    with pytest.raises(PrerequisiteError, match="prompt 'nope' not found"):
        impact_task()(prompt="nope")
    with pytest.raises(PrerequisiteError, match="knowledge folder does not exist"):
        impact_task()(knowledge=str(tmp_path / "none-here"))
    with pytest.raises(PrerequisiteError, match="prompt 'impact_results_review' has no version 9.9; known: 1.1, 1.2"):
        impact_task()(prompt_version="9.9")
    with pytest.raises(PrerequisiteError, match="-T top_k=0: expected a whole number greater than 0"):
        impact_task()(top_k=0)
    with pytest.raises(PrerequisiteError, match="Did you mean -T artifact"):
        impact_task()(artifacts="x")


def test_template_with_an_unknown_key_stops_the_task(tmp_path):
    folder = tmp_path / "prompts"
    folder.mkdir()
    path = folder / "typo.yaml"
    path.write_text(yaml.safe_dump({"name": "typo", "version": "1", "description": "d", "dimensions": ["x"],
                                    "system": "s", "user": "{{ artifcat }}"}))
    with pytest.raises(PrerequisiteError) as ex:
        impact_task()(prompt="typo", template_dirs=str(folder))
    assert str(ex.value).startswith(f"prompt: {path}: user: unknown key 'artifcat'")


def test_faults_never_fail_a_sample(tmp_path):
    log = run(tmp_path, model_args={"fault_rate": 0.5, "fault_seed": 3})
    assert log.status == "success"
    assert all(s.error is None for s in log.samples)
    got = reviews(log)
    degraded = [r for r in got.values() if r.warnings]
    assert degraded  # some calls failed and the reviews say so
    for r in got.values():
        run_ = r.reviewer_run
        assert run_.status in MEMBER_STATUSES and (run_.kind, run_.member) == ("impact", "impact-reviewer")
        assert (r.status == "complete") == (run_.status == "complete")  # never complete after a bad answer
        if r.status != "complete":
            assert f"reviewer {run_.describe()}" in r.warnings
        if r.status == "failed":
            assert r.result.overall_score is None


def test_custom_template_and_no_knowledge(tmp_path):
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "short.yaml").write_text(yaml.safe_dump({
        "name": "short_review", "version": "0.1", "description": "two dimensions",
        "dimensions": ["statistical_rigor", "decision_readiness"],
        "system": "Be brief.", "user": "{{ facts }}\n{{ artifact }}"}))
    log = run(tmp_path, artifact=str(FIX / "ci-excludes-estimate.json"), prompt="short_review",
              template_dirs=str(folder), knowledge="none")
    review = reviews(log)["ci-excludes-estimate"]
    assert (review.result.prompt_name, review.result.prompt_version) == ("short_review", "0.1")
    assert [d.name for d in review.result.dimensions] == ["statistical_rigor", "decision_readiness"]
    assert review.score("statistical_rigor") == 0.5 and review.knowledge_chunks == []
    assert review.verdict == "unusable"
    assert "mean" in review.result.dimensions[1].justification


def test_structured_on_still_parses_the_text_answer(tmp_path):
    # the schema is sent; the offline reviewer answers in the text format and the parser reads it
    log = run(tmp_path, artifact=str(FIX / "missing-p-value.json"), structured="on")
    review = reviews(log)["missing-p-value"]
    assert review.status == "complete" and review.answer_format == "text"
    assert review.score("statistical_rigor") == 0.92  # only the p-value is not reported (minor: the interval says it)


def test_epochs_are_consistent(tmp_path):
    log = run(tmp_path, epochs=2, artifact=str(FIX / "heldout-n-mismatch.json"))
    reduced = {k: v for r in log.reductions if r.scorer == "impact_synthesis" for s in r.samples for k, v in s.value.items()}
    assert reduced["overall_spread"] == 0.0 and reduced["epoch_consistent"] == 1.0
    assert not math.isnan(reduced["overall"])


def test_engine_from_python(tmp_path):
    from review_harness.impact.engine import ArtifactReview, ReviewEngine

    engine = ReviewEngine({"backend": {"type": "offline", "model": "rules"}}, log_dir=tmp_path)
    result = engine.review(FIX / "unfit-model-did.json")
    assert result.initiative_id == "warehouse-automation-east"
    assert next(d for d in result.dimensions if d.name == "methodology_fit").score == 0.5
    assert result.verdict == "unusable"
    envelope = json.loads((FIX / "its-daily-checkout.json").read_text())
    out = ArtifactReview(engine=engine).execute({"impact_results": envelope, "stage": "evaluate"})
    assert out["stage"] == "evaluate" and out["review"]["overall_score"] == 1.0 and out["review_status"] == "complete"
    assert out["verdict"] == out["review"]["verdict"] == "usable"
    import asyncio
    again = asyncio.run(engine.areview(FIX / "unfit-model-did.json"))
    assert [d.score for d in again.dimensions] == [d.score for d in result.dimensions]


def test_summary_table_for_impact_logs(gold_log):
    from review_harness.cli import summary_table

    table = summary_table(gold_log)
    lines = table.splitlines()
    assert lines[0] == "log status: success"
    assert lines[1].split()[:8] == ["sample", "epoch", "status", "verdict", "overall", "estimate_plausibility",
                                    "statistical_rigor", "methodology_fit"]
    row = next(line for line in lines if line.startswith("broken-arithmetic"))
    assert row.split()[2:6] == ["complete", "unusable", "0.40*", "0.50"]  # * : capped by the fatal check
    assert "post_minus_pre" in row


def test_impact_cli_commands(capsys):
    from review_harness.cli import main

    assert main(["impact", "confidence", "checkout-redesign-2024", "interrupted_time_series"]) == 0
    assert capsys.readouterr().out.startswith("checkout-redesign-2024 (interrupted_time_series): 0.")
    assert main(["impact", "check", str(FIX / "ci-excludes-estimate.json")]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] ci_contains_estimate (statistical_rigor, major): the interval [1.2, 9.8] does not contain the estimate 12.5" in out
    assert main(["impact", "check", str(FIX / "nope.json")]) == 2
    assert "nope.json: does not exist" in capsys.readouterr().err


def test_gold_set_shape():
    golds = impact_gold_files()
    assert len(golds) >= 12 and {g.split for g in golds} == {"dev", "heldout"}
    assert sum(g.clean for g in golds if g.split == "heldout") >= 1
    for g in golds:
        assert g.clean or g.expected_findings, g.id  # a broken artifact says what a reviewer should raise
        assert all(c.dimension in g.breaks for c in g.expected_findings) or g.clean, g.id


def test_a_review_of_user_artifacts_has_its_headline_and_named_figures(tmp_path, caplog):
    """Without gold the headline is the run's verdict (every kind's: named for the verdicts, valued at their
    mean place from usable 1 to unusable 0), found among the results (no 'Headline score not found' warning), and no figure reads as something it is not: the method's band is
    `method_confidence`, the reviewer's state `review_complete` / `reviewer_failed`, the checks
    `failed_checks`."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("rct-sample-ratio-mismatch", "its-daily-checkout", "heldout-n-mismatch"):
        (folder / f"{name}.json").write_text((FIX / f"{name}.json").read_text())
    with caplog.at_level("WARNING"):
        log = run(tmp_path, artifact=str(folder))
    assert "Headline" not in caplog.text
    from inspect_ai.log import headline_metric

    resolved = headline_metric(log)
    assert (resolved.score.scorer, resolved.score.name) == ("impact_synthesis", "verdict")
    place = {"usable": 1.0, "caution": 2 / 3, "unreviewed": 1 / 3, "unusable": 0.0}
    verdicts = [s.scores["impact_synthesis"].value["verdict"] for s in log.samples]
    assert resolved.metric.value == pytest.approx(sum(place[v] for v in verdicts) / len(verdicts))
    srm = next(s for s in log.samples if s.id == "rct-sample-ratio-mismatch").scores["impact_synthesis"].value
    assert srm["failed_checks"] == 1.0 and srm["reviewer_failed"] == 0.0 and srm["unusable"] == 1.0
    assert srm["overall"] == 0.4  # capped: the fatal check
    assert "confidence" not in srm and "failed" not in srm
