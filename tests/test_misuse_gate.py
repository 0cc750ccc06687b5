"""The gate under misuse: a comparison of nothing is never a pass, and a committed baseline changes
only on purpose (`--write-baseline` refuses to shrink it, to change its task, or to record a
degraded or worse run without the flag that says so, and says what it replaced). Through the CLI
in-process (`review_harness.cli.main`), on one offline gold-set log of the impact review."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest
from inspect_ai.log import write_eval_log

from review_harness.cli import main
from review_harness.core import gate
from review_harness.core.paths import BASELINES_DIR

IMPACT_CONFIG = BASELINES_DIR / "impact_review.gate.yaml"


@pytest.fixture(scope="module")
def gold(tmp_path_factory, default_gold_log):
    """An impact gold-set log, its baseline and tolerances in a folder of their own."""
    folder = tmp_path_factory.mktemp("gate-misuse")
    log = default_gold_log("impact_review")
    assert log.status == "success"
    path = folder / "gold.eval"
    write_eval_log(log, str(path))
    baseline = folder / "impact_review.json"
    gate.write_baseline(log, str(path), baseline)
    shutil.copy(IMPACT_CONFIG, folder / "impact_review.gate.yaml")
    return log, path, baseline


def _copy(tmp_path: Path, baseline: Path) -> Path:
    target = tmp_path / baseline.name
    shutil.copy(baseline, target)
    shutil.copy(baseline.with_name("impact_review.gate.yaml"), tmp_path / "impact_review.gate.yaml")
    return target


def _changed(log, tmp_path: Path, name: str, *, rename=None, keep=None, value=None, status=None) -> Path:
    """A copy of `log` with sample ids renamed, samples dropped, a metric changed or review statuses set."""
    changed = copy.deepcopy(log)
    for reduction in changed.reductions:
        reduction.samples = [s for s in reduction.samples if keep is None or str(s.sample_id) in keep]
        for sample in reduction.samples:
            if rename:
                sample.sample_id = rename(str(sample.sample_id))
            if value and isinstance(sample.value, dict) and value[0] in sample.value:
                sample.value[value[0]] = value[1](sample.value[value[0]])
    changed.samples = [s for s in changed.samples if keep is None or str(s.id) in keep]
    for sample in changed.samples:
        if rename:
            sample.id = rename(str(sample.id))
        if status:
            for score in sample.scores.values():
                review = (score.metadata or {}).get("review")
                if review is not None:
                    data = json.loads(review) if isinstance(review, str) else review
                    data["status"] = status
                    score.metadata["review"] = data
    path = tmp_path / f"{name}.eval"
    write_eval_log(changed, str(path))
    return path


def _err(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err  # one line, never a traceback
    return err.strip()


# ---------------------------------------------------------------------------- comparing nothing


def test_a_log_sharing_no_sample_with_the_baseline_exits_2(gold, tmp_path, capsys):
    log, _, baseline = gold
    other = _changed(log, tmp_path, "disjoint", rename=lambda s: f"other-{s}")
    assert main(["gate", str(other), "--baseline", str(baseline)]) == 2
    err = _err(capsys)
    assert "shares no sample with the baseline" in err and "nothing to compare" in err
    assert "other-" in err  # names what the log has


def test_the_gate_says_how_many_samples_it_compared(gold, tmp_path, capsys):
    log, path, baseline = gold
    assert main(["gate", str(path), "--baseline", str(baseline)]) == 0
    out = capsys.readouterr().out
    n = len(log.samples)
    assert f"compared {n} sample(s)\ngate: PASS" in out
    keep = sorted(str(s.id) for s in log.samples)[:3]
    fewer = _changed(log, tmp_path, "fewer", keep=set(keep))
    assert main(["gate", str(fewer), "--baseline", str(baseline)]) == 1  # missing samples fail
    out = capsys.readouterr().out
    assert f"compared 3 sample(s); {n - 3} baseline sample(s) missing from the log" in out


def test_an_empty_baseline_is_refused(gold, tmp_path, capsys):
    _, path, baseline = gold
    empty = tmp_path / "empty.json"
    data = json.loads(baseline.read_text())
    empty.write_text(json.dumps(data | {"values": {}}))
    assert main(["gate", str(path), "--baseline", str(empty), "--config", str(IMPACT_CONFIG)]) == 2
    assert _err(capsys) == f"review-harness: {empty}: not a gate baseline (values: no values: a baseline without values gates nothing)"
    one_empty = tmp_path / "one-empty.json"
    one_empty.write_text(json.dumps(data | {"values": {**data["values"], "complete": {}}}))
    assert main(["gate", str(path), "--baseline", str(one_empty), "--config", str(IMPACT_CONFIG)]) == 2
    assert "metric complete has no samples" in _err(capsys)


def test_an_empty_metric_set_is_refused(gold, tmp_path, capsys):
    _, path, baseline = gold
    config = tmp_path / "gate.yaml"
    config.write_text("metrics: {}\n")
    assert main(["gate", str(path), "--baseline", str(baseline), "--config", str(config)]) == 2
    assert _err(capsys) == f"review-harness: gate config {config} is invalid: metrics: no metrics: a gate without metrics checks nothing"
    config.write_text("metrics:\n  not_a_metric: {tolerance: 0}\n")
    assert main(["gate", str(path), "--baseline", str(baseline), "--config", str(config)]) == 2
    assert "none of the gated metrics (not_a_metric)" in _err(capsys)


@pytest.mark.parametrize("option", ["--baseline", "--config"])
@pytest.mark.parametrize("bad", ["binary", "folder", "missing", "fifo", "json-list"])
def test_a_bad_baseline_or_config_file_is_one_line(gold, tmp_path, capsys, option, bad):
    _, path, baseline = gold
    target = tmp_path / "bad"
    if bad == "binary":
        target.write_bytes(bytes(range(256)) * 8)
    elif bad == "folder":
        target.mkdir()
    elif bad == "fifo":
        os.mkfifo(target)
    elif bad == "json-list":
        target.write_text("[1, 2]\n")
    args = ["gate", str(path), option, str(target)] + (["--baseline", str(baseline)] if option == "--config" else [])
    assert main(args) == 2  # a FIFO is named, never opened: nothing blocks
    err = _err(capsys)
    assert str(target) in err
    expected = {"binary": "is not a text file (binary)", "folder": "is a folder, not a file",
                "missing": "not found", "fifo": "is a named pipe (FIFO), not a file",
                "json-list": "expected a"}[bad]
    assert expected in err


# ---------------------------------------------------------------------------- baselines only on purpose


def test_a_smaller_run_does_not_replace_the_baseline_without_the_flag(gold, tmp_path, capsys):
    log, _, committed = gold
    baseline = _copy(tmp_path, committed)
    before = baseline.read_text()
    keep = {str(s.id) for s in log.samples[:3]}
    limited = _changed(log, tmp_path, "limit3", keep=keep)
    assert main(["gate", "--write-baseline", str(limited), "--baseline", str(baseline)]) == 2
    err = _err(capsys)
    n = len(log.samples)
    assert f"has 3 samples, {baseline} {n}: {n - 3} would no longer be gated" in err and "--allow-fewer-samples" in err
    assert baseline.read_text() == before  # untouched
    assert main(["gate", "--write-baseline", str(limited), "--baseline", str(baseline), "--allow-fewer-samples"]) == 0
    out = capsys.readouterr().out
    assert f"wrote {baseline} from limit3.eval: " in out and ", 3 samples, 1 epoch(s)" in out
    assert f"replaced the baseline of " in out and f"{n} samples" in out  # says what it replaced
    assert "samples no longer in the baseline: " in out
    assert gate.load_baseline(baseline).samples == keep


def test_a_baseline_of_another_task_is_not_replaced_without_the_flag(gold, tmp_path, capsys):
    log, path, _ = gold
    ds = tmp_path / "impact_review.json"
    shutil.copy(BASELINES_DIR / "ds_review.json", ds)
    before = ds.read_text()
    assert main(["gate", "--write-baseline", str(path), "--baseline", str(ds)]) == 2
    assert "is the baseline of ds_review and gold.eval a log of impact_review: not replaced" in _err(capsys)
    assert ds.read_text() == before
    assert main(["gate", "--write-baseline", str(path), "--baseline", str(ds), "--allow-task-change",
                 "--allow-fewer-samples"]) == 0
    assert "task ds_review" in capsys.readouterr().out  # what it replaced
    assert gate.load_baseline(ds).task.endswith("impact_review")


def test_a_degraded_run_is_not_recorded_without_the_flag(gold, tmp_path, capsys):
    log, _, committed = gold
    baseline = _copy(tmp_path, committed)
    before = baseline.read_text()
    failed = _changed(log, tmp_path, "failed", status="failed")
    assert main(["gate", "--write-baseline", str(failed), "--baseline", str(baseline)]) == 2
    err = _err(capsys)
    assert f"a degraded run ({len(log.samples)} of {len(log.samples)} review(s) failed) is no baseline" in err
    assert "--allow-degraded" in err and baseline.read_text() == before
    # a new file is guarded the same way: a degraded run is no baseline anywhere
    assert main(["gate", "--write-baseline", str(failed), "--baseline", str(tmp_path / "new.json")]) == 2
    assert not (tmp_path / "new.json").exists()
    _err(capsys)


def test_a_worse_run_does_not_replace_the_baseline_without_the_flag(gold, tmp_path, capsys):
    log, _, committed = gold
    baseline = _copy(tmp_path, committed)
    before = baseline.read_text()
    worse = _changed(log, tmp_path, "worse", value=("concern_recall", lambda v: 0.0))
    assert main(["gate", "--write-baseline", str(worse), "--baseline", str(baseline)]) == 2
    err = _err(capsys)
    assert "is worse than" in err and "concern_recall" in err and "not replaced" in err
    assert baseline.read_text() == before
    assert main(["gate", "--write-baseline", str(worse), "--baseline", str(baseline), "--allow-degraded"]) == 0
    assert "concern_recall: " in capsys.readouterr().out  # the figure it lowered, old -> new


def test_a_file_that_is_no_baseline_is_never_replaced(gold, tmp_path, capsys):
    _, path, _ = gold
    notes = tmp_path / "notes.json"
    notes.write_text('{"my": "notes"}\n')
    assert main(["gate", "--write-baseline", str(path), "--baseline", str(notes), "--allow-degraded",
                 "--allow-fewer-samples", "--allow-task-change"]) == 2
    assert "not a gate baseline" in _err(capsys) and notes.read_text() == '{"my": "notes"}\n'


def test_the_same_run_replaces_its_baseline_and_says_so(gold, tmp_path, capsys):
    _, path, committed = gold
    baseline = _copy(tmp_path, committed)
    assert main(["gate", "--write-baseline", str(path), "--baseline", str(baseline)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"wrote {baseline} from gold.eval") and out[1].startswith("  replaced the baseline of ")
    assert len(out) == 2  # same figures, same samples: nothing else changed
