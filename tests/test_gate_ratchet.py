"""The gate's per-finding ratchet and its floors: a run that loses one must-catch finding fails
even when its averages rise, a newly caught one is a gain, a reviewed accepted loss passes, and a
run under a floor of its config fails whatever its baseline."""

from __future__ import annotations

import copy
import random

import pytest
import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import write_eval_log

from review_harness.cli import main as cli_main
from review_harness.core import gate
from review_harness.core.goldrun import FINDINGS_METADATA
from review_harness.core.paths import BASELINES_DIR
from review_harness.core.ratchet import FindingOutcome, ratchet, run_outcomes
from helpers import MODEL, ds_review_task

RAISED = ("precision", "recall", "severity_agreement", "top3_relevance")


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """A real offline run of the first gold cases of the DS set."""
    folder = tmp_path_factory.mktemp("ratchet")
    [log] = inspect_eval(ds_review_task()(), model=MODEL, limit=4, log_dir=str(folder / "logs"), display="none")
    assert log.status == "success"
    return log


def _outcomes(log):
    return {str(s.id): s.scores["gold_comparison"].metadata[FINDINGS_METADATA] for s in log.samples}


def _caught_must_catch(log):
    """(case, finding id, summary) of every must-catch finding the run caught, in order."""
    return [(case, fid, o["summary"]) for case, found in _outcomes(log).items()
            for fid, o in found.items() if o["must_catch"] and o["matched"]]


def _set_matched(log, case, finding, matched):
    changed = copy.deepcopy(log)
    for sample in changed.samples:
        if str(sample.id) == case:
            sample.scores["gold_comparison"].metadata[FINDINGS_METADATA][finding]["matched"] = matched
    return changed


def _raise_averages(log):
    """Every sample's precision, recall, severity agreement and top-3 relevance up (to 1.0)."""
    changed = copy.deepcopy(log)
    for reduction in changed.reductions:
        for sample in reduction.samples:
            if isinstance(sample.value, dict):
                for key in RAISED:
                    if sample.value.get(key) is not None:
                        sample.value[key] = 1.0
    return changed


@pytest.fixture
def pair(real_run, tmp_path):
    """The constructed pair: a baseline that had missed one must-catch finding the run catches
    (a gain) and caught one the run misses (a loss), while the run's averages all rise."""
    caught = _caught_must_catch(real_run)
    assert len(caught) >= 2, "the DS gold cases chosen must hold two caught must-catch findings"
    (gain_case, gain_id, _), (loss_case, loss_id, loss_summary) = caught[0], caught[-1]
    base_log = _set_matched(real_run, gain_case, gain_id, False)
    baseline_path = tmp_path / "ds_review.json"
    gate.write_baseline(base_log, "base.eval", baseline_path)
    (tmp_path / "ds_review.gate.yaml").write_text((BASELINES_DIR / "gate.yaml").read_text())
    run = _raise_averages(_set_matched(real_run, loss_case, loss_id, False))
    run_path = tmp_path / "run.eval"
    write_eval_log(run, str(run_path))
    return {"run": run, "run_path": run_path, "baseline": baseline_path, "gain": (gain_case, gain_id),
            "loss": (loss_case, loss_id, loss_summary)}


def test_a_lost_must_catch_fails_while_the_averages_rise(pair, capsys):
    baseline = gate.load_baseline(pair["baseline"])
    config = gate.load_config(pair["baseline"].with_name("ds_review.gate.yaml"))
    result = gate.compare(pair["run"], baseline, config, baseline_name="ds_review")
    # every aggregate moved up or stayed: the metrics alone pass
    assert all(r.passed for r in result.results), gate.render_table(result)
    assert any(r.difference and r.difference > 0 for r in result.results if r.metric in RAISED)
    assert not result.passed
    case, finding, summary = pair["loss"]
    assert [(c.case, c.finding) for c in result.ratchet.failing] == [(case, finding)]

    code = cli_main(["gate", str(pair["run_path"]), "--baseline", str(pair["baseline"])])
    out = capsys.readouterr().out
    assert code == 1
    assert f"LOST {case}: {finding} ({summary})" in out
    assert "gate: FAIL: 1 must-catch finding(s) lost" in out
    gain_case, gain_id = pair["gain"]
    assert f"gained: {gain_case}: {gain_id} (" in out


def test_an_accepted_loss_passes_and_says_why(pair, capsys):
    case, finding, summary = pair["loss"]
    accepted = pair["baseline"].parent / "accepted-losses.yaml"
    accepted.write_text(yaml.safe_dump({"accepted": [
        {"case": case, "finding": finding, "reason": "the gold finding was judged wrong on review"}]}))
    code = cli_main(["gate", str(pair["run_path"]), "--baseline", str(pair["baseline"])])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"lost, accepted: {case}: {finding} ({summary}): the gold finding was judged wrong on review" in out
    assert "gained: " in out and "gate: PASS" in out


def test_an_accepted_loss_without_a_reason_is_refused(pair, capsys):
    case, finding, _ = pair["loss"]
    (pair["baseline"].parent / "accepted-losses.yaml").write_text(
        yaml.safe_dump({"accepted": [{"case": case, "finding": finding, "reason": "  "}]}))
    code = cli_main(["gate", str(pair["run_path"]), "--baseline", str(pair["baseline"])])
    err = capsys.readouterr().err
    assert code == 2
    assert "accepted.0.reason: an accepted loss needs its reason" in err and len(err.strip().splitlines()) == 1


def test_an_accepted_loss_of_another_gold_set_does_not_hold(pair, capsys):
    case, finding, _ = pair["loss"]
    (pair["baseline"].parent / "accepted-losses.yaml").write_text(yaml.safe_dump({"accepted": [
        {"case": case, "finding": finding, "reason": "judged wrong", "baseline": "ds_review.ds-real"}]}))
    assert cli_main(["gate", str(pair["run_path"]), "--baseline", str(pair["baseline"])]) == 1
    assert f"LOST {case}: {finding}" in capsys.readouterr().out


def test_a_baseline_is_not_replaced_by_a_run_that_lost_a_must_catch(pair, capsys):
    assert cli_main(["gate", "--write-baseline", str(pair["run_path"]), "--baseline", str(pair["baseline"])]) == 2
    err = capsys.readouterr().err
    case, finding, _ = pair["loss"]
    assert "lost 1 must-catch finding(s)" in err and f"{case}: {finding}" in err and "not replaced" in err
    # accepted with a reason, the loss may be recorded
    (pair["baseline"].parent / "accepted-losses.yaml").write_text(yaml.safe_dump({"accepted": [
        {"case": case, "finding": finding, "reason": "judged wrong on review"}]}))
    assert cli_main(["gate", "--write-baseline", str(pair["run_path"]), "--baseline", str(pair["baseline"])]) == 0
    rewritten = gate.load_baseline(pair["baseline"])
    assert rewritten.findings[case][finding].matched is False


def test_a_baseline_without_outcomes_says_the_ratchet_did_not_run(pair, capsys):
    old = gate.load_baseline(pair["baseline"]).model_copy(update={"findings": None})
    pair["baseline"].write_text(old.model_dump_json())
    code = cli_main(["gate", str(pair["run_path"]), "--baseline", str(pair["baseline"])])
    out = capsys.readouterr().out
    assert code == 0  # the averages rose; the ratchet could not judge
    [line] = [line for line in out.splitlines() if line.startswith("ratchet")]
    assert "not run" in line and "--write-baseline" in line


@pytest.mark.parametrize("metric", ["verdict_band_accuracy", "must_catch_recall"])
def test_floors_fail_a_run_under_them_whatever_the_baseline(real_run, tmp_path, capsys, metric):
    log_path = tmp_path / "run.eval"
    write_eval_log(real_run, str(log_path))
    baseline = tmp_path / "ds_review.json"
    gate.write_baseline(real_run, str(log_path), baseline)
    rules = yaml.safe_load((BASELINES_DIR / "gate.yaml").read_text())
    values = gate.sample_values(real_run)[metric]
    reached = sum(v for v in values.values() if v is not None) / sum(v is not None for v in values.values())
    config = tmp_path / "ds_review.gate.yaml"

    config.write_text(yaml.safe_dump({**rules, "floors": {metric: round(reached, 3)}}))
    assert cli_main(["gate", str(log_path), "--baseline", str(baseline)]) == 0
    assert f"floor: {metric} {reached:.3f} (floor {round(reached, 3):g}): ok" in capsys.readouterr().out

    above = round(reached + 0.01, 3)
    config.write_text(yaml.safe_dump({**rules, "floors": {metric: above}}))
    assert cli_main(["gate", str(log_path), "--baseline", str(baseline)]) == 1  # the run equals its baseline
    out = capsys.readouterr().out
    assert f"floor: {metric} {reached:.3f} (floor {above:g}): UNDER FLOOR" in out
    assert f"gate: FAIL: {metric} under its floor" in out

    config.write_text(yaml.safe_dump({**rules, "floors": {"no_such_metric": 0.5}}))
    assert cli_main(["gate", str(log_path), "--baseline", str(baseline)]) == 1
    assert "floor: no_such_metric is not recorded by the run" in capsys.readouterr().out


def test_the_committed_configs_floors_name_recorded_metrics():
    """Every floor of a committed gate config names a metric its baseline records."""
    for config_path in sorted(BASELINES_DIR.glob("*.yaml")):
        if config_path.name == "accepted-losses.yaml":
            continue
        config = gate.load_config(config_path)
        stem = config_path.name.removesuffix(".gate.yaml").removesuffix(".yaml")
        baselines = [BASELINES_DIR / f"{stem}.json"] if stem != "gate" else [
            p for p in BASELINES_DIR.glob("*.json") if not (BASELINES_DIR / f"{p.stem}.gate.yaml").exists()]
        for baseline in baselines:
            recorded = set(gate.load_baseline(baseline).values)
            assert set(config.floors) <= recorded, (config_path.name, baseline.name)


@pytest.mark.parametrize("seed", range(20))
def test_the_ratchet_loses_exactly_the_must_catch_findings_caught_before_and_not_now(seed):
    rng = random.Random(seed)

    def outcomes(cases):
        return {c: {f: FindingOutcome(must_catch=m, matched=rng.random() < 0.6, summary=f"{c}/{f}")
                    for f, m in findings.items()} for c, findings in cases.items()}

    shape = {f"case{c}": {f"F{f}": rng.random() < 0.5 for f in range(rng.randint(1, 5))} for c in range(6)}
    before, after = outcomes(shape), outcomes(shape)
    result = ratchet(before, after, baseline_name="b")
    expected_lost = {(c, f) for c in shape for f, must in shape[c].items()
                     if must and before[c][f].matched and not after[c][f].matched}
    expected_gained = {(c, f) for c in shape for f, must in shape[c].items()
                       if must and after[c][f].matched and not before[c][f].matched}
    assert {(x.case, x.finding) for x in result.failing} == expected_lost
    assert {(x.case, x.finding) for x in result.gained} == expected_gained
    assert ratchet(before, before, baseline_name="b").failing == []


def test_with_epochs_a_finding_is_caught_when_caught_in_half_of_them(real_run):
    log = copy.deepcopy(real_run)
    case, finding, _ = _caught_must_catch(log)[0]
    [sample] = [s for s in log.samples if str(s.id) == case]
    missed = copy.deepcopy(sample)
    missed.epoch = 2
    missed.scores["gold_comparison"].metadata[FINDINGS_METADATA][finding]["matched"] = False
    log.samples.append(missed)
    assert run_outcomes(log)[case][finding].matched  # 1 of 2
    third = copy.deepcopy(missed)
    third.epoch = 3
    log.samples.append(third)
    assert not run_outcomes(log)[case][finding].matched  # 1 of 3
