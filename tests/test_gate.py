"""The regression gate: passes on its own baseline, fails on regressions and on error logs."""

from __future__ import annotations

import copy
import shutil

import pytest
from inspect_ai.log import write_eval_log

from review_harness.core import gate
from review_harness.cli import main as cli_main
from review_harness.core.paths import BASELINES_DIR
from review_harness.ds.offline.registry import DETECTORS
from helpers import run

DEFAULT_BASELINE = BASELINES_DIR / "ds_review.json"
CONFIG = gate.load_config(BASELINES_DIR / "gate.yaml")


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory, default_gold_log):
    folder = tmp_path_factory.mktemp("gate")
    log = default_gold_log("ds_review")
    log_path = folder / "baseline.eval"
    write_eval_log(log, str(log_path))
    baseline = gate.write_baseline(log, str(log_path), folder / "baseline.json")
    shutil.copy(DEFAULT_BASELINE.parent / "gate.yaml", folder / "gate.yaml")
    return log, log_path, baseline, folder


def _with_values(log, metric, change):
    changed = copy.deepcopy(log)
    for reduction in changed.reductions:
        for sample in reduction.samples:
            if isinstance(sample.value, dict) and metric in sample.value:
                sample.value[metric] = change(sample.sample_id, sample.value[metric])
    return changed


def test_gate_passes_on_the_baseline_log(baseline_run):
    log, _, baseline, _ = baseline_run
    result = gate.compare(log, baseline, CONFIG)
    assert result.passed, gate.render_table(result)
    assert {r.metric for r in result.results} == set(CONFIG.metrics)


def test_gate_fails_when_recall_drops(baseline_run, tmp_path):
    log, _, baseline, folder = baseline_run
    worse = _with_values(log, "recall", lambda _id, v: v - 0.25)
    result = gate.compare(worse, baseline, CONFIG)
    assert not result.passed
    failed = [r for r in result.results if not r.passed]
    assert [r.metric for r in failed] == ["recall"]
    assert failed[0].difference == pytest.approx(-0.25)
    table = gate.render_table(result)
    assert "REGRESSED" in table and "gate: FAIL: recall" in table
    # and through the CLI, with a non-zero exit
    path = tmp_path / "worse.eval"
    write_eval_log(worse, str(path))
    assert cli_main(["gate", str(path), "--baseline", str(folder / "baseline.json")]) == 1


def test_gate_fails_on_error_status(baseline_run, tmp_path):
    log, _, baseline, folder = baseline_run
    broken = copy.deepcopy(log)
    broken.status = "error"
    result = gate.compare(broken, baseline, CONFIG)
    assert not result.passed
    assert result.problems == ["log status is 'error'"]
    path = tmp_path / "error.eval"
    write_eval_log(broken, str(path))
    assert cli_main(["gate", str(path), "--baseline", str(folder / "baseline.json")]) == 1


def test_with_epochs_noise_passes_and_consistent_drop_fails(baseline_run):
    log, _, baseline, _ = baseline_run
    samples = sorted(s for s, v in baseline.values["recall"].items() if v is not None)
    if len(samples) % 2:
        samples = samples[:-1]  # pairs of +-0.4 cancel out exactly

    def noisy(sample_id, value):  # +-0.4 noise around a 0.05 drop: over tolerance, not significant
        if sample_id not in samples:
            return value
        return value - 0.05 + (0.4 if samples.index(sample_id) % 2 else -0.4)

    noise = _with_values(log, "recall", noisy)
    noise.eval.config.epochs = 3
    result = gate.compare(noise, baseline, CONFIG)
    recall = next(r for r in result.results if r.metric == "recall")
    assert recall.difference < -CONFIG.metrics["recall"].tolerance
    assert recall.ci_low < 0 < recall.ci_high
    assert recall.passed and "within noise" in recall.note

    drop = _with_values(log, "recall", lambda _id, v: v - 0.1)
    drop.eval.config.epochs = 3
    recall = next(r for r in gate.compare(drop, baseline, CONFIG).results if r.metric == "recall")
    assert not recall.passed and recall.ci_high < 0


def test_gate_reports_missing_baseline_clearly(tmp_path, capsys):
    code = cli_main(["gate", str(tmp_path), "--baseline", str(tmp_path / "none.json")])
    assert code == 2
    assert "folder has no .eval logs" in capsys.readouterr().err


def test_committed_baseline_passes_and_a_broken_rule_fails_the_gate(tmp_path, monkeypatch):
    """The CI gate: the committed baseline holds for the current offline reviewer, and breaking
    one rubric rule of the offline reviewer is caught."""
    baseline = gate.load_baseline(DEFAULT_BASELINE)
    current = gate.compare(run(tmp_path / "ok"), baseline, CONFIG)
    assert current.passed, gate.render_table(current)

    monkeypatch.setitem(DETECTORS, "causal_claim_without_design", lambda ctx: None)
    broken = gate.compare(run(tmp_path / "broken"), baseline, CONFIG)
    assert not broken.passed
    failed = {r.metric for r in broken.results if not r.passed}
    assert "must_catch_recall" in failed
