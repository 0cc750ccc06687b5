"""A user's own gold set: planted or hand-written (`gold new`), checked (`gold check`), run with
`-T fixtures=PATH` from outside the repository; every gold run records cost per correct finding,
and a planted run recall per operator and the table of what the reviewers miss."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelUsage

from review_harness.cli import main
from review_harness.core.goldrun import COST_KEYS, Price, cost_figures, not_judged, operator_recall, ratio_of_sums
from review_harness.core.goldset import gold_check, gold_new
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.plant import plant
from review_harness.core.plant.report import missed_table
from helpers import load_task_file

FIX = PROJECT_ROOT / "fixtures"


# ------------------------------------------------------------------------------------ gold new / check


def _fill(path: Path, evidence: str, **finding) -> None:
    text = path.read_text()
    raw = yaml.safe_load(text)
    raw["expected_findings"][0].update(evidence=evidence, summary="The headline lift has no interval.",
                                       keywords=["interval"], **finding)
    raw["designed_deficiency"] = "The lift is reported without its uncertainty."
    path.write_text(yaml.safe_dump(raw, sort_keys=False))


def test_gold_new_scaffolds_a_file_that_check_names_until_it_is_filled(tmp_path):
    doc = tmp_path / "analysis.md"
    doc.write_text("# Pricing test\n\nThe new price lifted revenue per visitor by 4%.\n")
    fixture, gold_path = gold_new("ds", doc, tmp_path / "set")
    assert fixture == tmp_path / "set" / "fixtures" / "ds" / "analysis.md" and fixture.read_text() == doc.read_text()
    assert gold_path == tmp_path / "set" / "gold" / "ds" / "analysis.yaml"
    problems, checked = gold_check(tmp_path / "set")
    assert checked == 1 and problems
    assert all(p.startswith(f"{gold_path}: ") and "\n" not in p for p in problems)
    assert any("still a placeholder" in p for p in problems)
    _fill(gold_path, "lifted revenue per visitor by 4%", dimension="analysis", lens="metrics", severity="MAJOR")
    assert gold_check(gold_path) == ([], 1)
    with pytest.raises(ValueError, match="exists"):
        gold_new("ds", doc, tmp_path / "set")


@pytest.mark.parametrize("edit, problem", [
    (lambda f: f.update(evidence="a quote the document does not have"), "not found in analysis.md"),
    (lambda f: f.update(lens="charisma"), "lens 'charisma' is not a lens of analysis"),
    (lambda f: f.update(severity="HUGE"), "expected_findings.0.severity"),
])
def test_gold_check_says_each_problem_on_one_line(tmp_path, edit, problem):
    doc = tmp_path / "analysis.md"
    doc.write_text("# Pricing test\n\nThe new price lifted revenue per visitor by 4%.\n")
    _, gold_path = gold_new("ds", doc, tmp_path / "set")
    _fill(gold_path, "lifted revenue per visitor by 4%", dimension="analysis", lens="metrics", severity="MAJOR")
    raw = yaml.safe_load(gold_path.read_text())
    raw["expected_findings"].append(dict(raw["expected_findings"][0]))  # the same id twice
    edit(raw["expected_findings"][0])
    gold_path.write_text(yaml.safe_dump(raw, sort_keys=False))
    problems, _ = gold_check(gold_path)
    assert any(problem in p for p in problems), problems
    assert any("ids must be unique (F1 repeated)" in p for p in problems), problems
    assert all(p.startswith(f"{gold_path}: ") for p in problems)


def test_gold_new_for_every_kind_copies_the_input(tmp_path):
    for kind, source, copied in [("design", FIX / "design" / "billing-export", "billing-export/design.md"),
                                 ("impact", FIX / "impact" / "its-weekly-signups.json", "its-weekly-signups.json"),
                                 ("code", FIX / "code" / "sql-injection", "sql-injection/case.yaml")]:
        fixture, gold_path = gold_new(kind, source, tmp_path / "set")
        assert (tmp_path / "set" / "fixtures" / kind / copied).is_file()
        text = gold_path.read_text()
        assert "expected_findings:" in text and "TODO" in text
        problems, _ = gold_check(gold_path)
        assert problems and all("still a placeholder" in p or "Input should be" in p or "not found" in p
                                or "valid" in p for p in problems), problems


def test_planted_gold_files_pass_gold_check(tmp_path):
    plant("impact", [FIX / "impact" / "its-weekly-signups.json"], tmp_path)
    problems, checked = gold_check(tmp_path)
    assert checked >= 3 and problems == []


def test_cli_gold_and_plant_commands(tmp_path, capsys):
    assert main(["plant", "ds", str(FIX / "ds" / "strong-analysis.md"), "--out", str(tmp_path / "set"),
                 "--operators", "delete-summary,remove-limitations"]) == 0
    out = capsys.readouterr().out
    assert "strong-analysis.md: 2 planted (delete-summary, remove-limitations)" in out
    assert f"inspect eval review_harness/ds_review -T fixtures={tmp_path / 'set'}" in out
    assert main(["gold", "check", str(tmp_path / "set")]) == 0
    assert "2 gold file(s) checked: no problems" in capsys.readouterr().out
    assert main(["plant", "nonsense", "x", "--out", str(tmp_path)]) == 2
    assert "unknown kind 'nonsense'" in capsys.readouterr().err
    assert main(["plant", "ds", str(tmp_path / "missing.md"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.md: no such file or folder" in err
    assert main(["plant", "ds", str(FIX / "ds" / "strong-analysis.md"), "--out", str(tmp_path / "o2"),
                 "--operators", "nope"]) == 2
    assert "unknown operator nope" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ cost per correct finding


def test_cost_figures_count_cached_input_as_cached():
    usage = {"anthropic/m": ModelUsage(input_tokens=1_000, output_tokens=500, input_tokens_cache_read=9_000,
                                       input_tokens_cache_write=2_000)}
    price = {"anthropic/m": Price(input=3.0, output=15.0, input_cache_read=0.3, input_cache_write=3.75)}
    figures = cost_figures(usage, correct=2, prices=price)
    assert figures["input_tokens"] == 12_000 and figures["cached_input_tokens"] == 9_000
    dollars = (1_000 * 3.0 + 500 * 15.0 + 9_000 * 0.3 + 2_000 * 3.75) / 1e6
    assert figures["dollars"] == pytest.approx(dollars)
    assert figures["dollars_per_correct"] == pytest.approx(dollars / 2)
    assert figures["tokens_per_correct"] == (12_000 + 500) / 2
    # no price: dollars are not applicable, never a partial sum
    unpriced = cost_figures(usage | {"other/m": ModelUsage(input_tokens=5, output_tokens=5)}, 2, price)
    assert math.isnan(unpriced["dollars"]) and math.isnan(unpriced["dollars_per_correct"])
    # no correct finding: nothing per correct finding
    assert math.isnan(cost_figures(usage, 0, price)["tokens_per_correct"])


def test_a_price_inspect_knows_is_used_as_it_is():
    usage = {"openai/x": ModelUsage(input_tokens=10, output_tokens=10, total_cost=0.25)}
    assert cost_figures(usage, 1, prices={})["dollars"] == 0.25


def test_run_ratio_is_sums_over_sums():
    costs = [{"tokens": 100, "dollars": 1.0, "correct": 1}, {"tokens": 300, "dollars": 3.0, "correct": 3},
             {"tokens": 50, "dollars": 0.5, "correct": 0}]
    assert ratio_of_sums(costs, "tokens") == 450 / 4
    assert ratio_of_sums(costs, "dollars") == 4.5 / 4
    assert math.isnan(ratio_of_sums([{"tokens": 10, "dollars": float("nan"), "correct": 1}], "dollars"))


def test_operator_recall_and_precision_not_judged():
    class Planted:
        operator = "delete-summary"

    class Finding:
        id = "delete-summary"

    class Gold:
        planted = Planted()
        expected_findings = [Finding()]
        findings_complete = False

    metadata = {"plant_operators": ["delete-summary", "remove-limitations"]}
    caught = operator_recall(metadata, Gold(), {"delete-summary"})
    assert caught["recall@delete-summary"] == 1.0 and math.isnan(caught["recall@remove-limitations"])
    assert operator_recall(metadata, Gold(), set())["recall@delete-summary"] == 0.0
    judged = not_judged({"precision": 0.5, "precision_spec_A": 1.0, "recall": 1.0}, Gold())
    assert math.isnan(judged["precision"]) and math.isnan(judged["precision_spec_A"]) and judged["recall"] == 1.0


# ------------------------------------------------------------------------------------ runs over a user gold set


def _metrics(log) -> dict[str, float]:
    return {s.name: next(iter(s.metrics.values())).value for s in log.results.scores}


@pytest.fixture(scope="module")
def planted_ds(tmp_path_factory):
    """A planted DS set outside the repository (two documents, a few operators)."""
    out = tmp_path_factory.mktemp("user-set")
    plant("ds", [FIX / "ds" / "causal-without-method.md", FIX / "ds" / "checkout-button-early-stop.md"], out,
          operators=["delete-summary", "remove-limitations", "summary-number-differs", "guardrail-moved-said-held"],
          seed=5)
    return out


def test_a_user_gold_set_outside_the_repository_runs(planted_ds, tmp_path):
    assert not planted_ds.is_relative_to(PROJECT_ROOT)
    [log] = inspect_eval(load_task_file("ds_review")(fixtures=str(planted_ds)), model="offline/rules",
                         log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    planted = log.eval.metadata["planted"]
    assert planted == {"delete-summary": 2, "remove-limitations": 1, "summary-number-differs": 2,
                       "guardrail-moved-said-held": 1}
    metrics = _metrics(log)
    for op in planted:
        assert 0.0 <= metrics[f"recall@{op}"] <= 1.0
    for key in COST_KEYS:
        assert key in metrics
    assert metrics["input_tokens"] > 0 and metrics["tokens_per_correct"] > 0
    assert math.isnan(metrics["precision"])  # a planted file judges no precision
    assert math.isnan(metrics["verdict_band_accuracy"])  # nor a verdict band
    # each sample: its own operator 1/0, the others NaN
    for sample in log.samples:
        value = sample.scores["gold_comparison"].value
        own = sample.id.split("--")[1]
        assert value[f"recall@{own}"] in (0.0, 1.0)
        assert sum(not math.isnan(value[f"recall@{op}"]) for op in planted) == 1
    table = missed_table([log])
    assert "What these reviewers miss" in table and "offline/rules" in table
    for op, n in planted.items():
        assert any(line.startswith(op) and f" {n} " in line for line in table.splitlines())
    assert table.splitlines()[-1].startswith("all")


def test_the_gate_holds_recall_per_operator(planted_ds, tmp_path, capsys):
    import json

    logs = tmp_path / "logs"
    [log] = inspect_eval(load_task_file("ds_review")(fixtures=str(planted_ds)), model="offline/rules",
                         log_dir=str(logs), display="none")
    baseline, config = tmp_path / "planted.json", tmp_path / "planted.gate.yaml"
    config.write_text("metrics:\n  'recall@*': {tolerance: 0.0}\n")
    assert main(["gate", "--write-baseline", str(logs), "--baseline", str(baseline)]) == 0
    assert main(["gate", str(logs), "--baseline", str(baseline), "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "recall@delete-summary" in out and "recall@guardrail-moved-said-held" in out and "gate: PASS" in out
    data = json.loads(baseline.read_text())
    missed = [op for op, values in data["values"].items() if op.startswith("recall@")
              and any(v is not None and v < 1 for v in values.values())]
    for op in missed:  # a baseline that caught everything: the run now regresses on those operators
        data["values"][op] = {k: (None if v is None else 1.0) for k, v in data["values"][op].items()}
    if not missed:  # the reviewer catches every planted flaw of this set: a baseline that recorded an
        # operator the run lacks regresses the same way
        op = next(op for op in data["values"] if op.startswith("recall@"))
        data["values"][f"{op}-renamed"] = data["values"][op]
        missed = [f"{op}-renamed"]
    baseline.write_text(json.dumps(data))
    assert main(["gate", str(logs), "--baseline", str(baseline), "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert all(op in out.split("gate: FAIL")[1] for op in missed)


def test_the_table_has_a_column_per_model(planted_ds, tmp_path):
    logs = inspect_eval(load_task_file("ds_review")(fixtures=str(planted_ds)), model=["offline/rules", "offline/other"],
                        log_dir=str(tmp_path), display="none")
    header = missed_table(logs).splitlines()[1]
    assert "offline/rules" in header and "offline/other" in header


def test_a_planted_impact_set_runs_and_the_gate_takes_it(tmp_path):
    out = tmp_path / "set"
    plant("impact", [FIX / "impact" / "its-daily-checkout.json", FIX / "impact" / "rct-checkout-button.json"], out)
    [log] = inspect_eval(load_task_file("impact_review")(fixtures=str(out)), model="offline/rules",
                         log_dir=str(tmp_path / "logs"), display="none")
    metrics = _metrics(log)
    assert log.status == "success" and metrics["recall@sample-ratio-mismatch"] == 1.0
    assert math.isnan(metrics["verdict_accuracy"])
    assert main(["gate", "--write-baseline", str(tmp_path / "logs"), "--baseline", str(tmp_path / "b.json")]) == 0
    baseline = (tmp_path / "b.json").read_text()
    assert '"recall@sample-ratio-mismatch"' in baseline and '"tokens_per_correct"' in baseline


def test_every_gold_run_records_cost_per_correct_finding(tmp_path):
    for task in ("design_review", "code_review"):
        [log] = inspect_eval(load_task_file(task)(), model="offline/rules", limit=2, log_dir=str(tmp_path / task),
                             display="none")
        metrics = _metrics(log)
        assert metrics["input_tokens"] > 0 and metrics["output_tokens"] > 0, task
        assert "tokens_per_correct" in metrics and "dollars_per_correct" in metrics
        assert not any(k.startswith("recall@") for k in metrics)  # hand-judged set: no operators


def test_a_user_set_without_the_kind_is_one_line(tmp_path):
    (tmp_path / "fixtures" / "design").mkdir(parents=True)
    (tmp_path / "gold" / "design").mkdir(parents=True)
    from review_harness.core.inspect_adapter import PrerequisiteError

    with pytest.raises(PrerequisiteError, match=r"fixtures/ds is not a folder \(a gold set holds fixtures/ds/"):
        load_task_file("ds_review")(fixtures=str(tmp_path))


def test_the_project_sets_still_load_by_name(tmp_path):
    shutil.copytree(FIX / "ds", tmp_path / "copy")  # a folder that is no gold set is not taken for one
    from review_harness.core.inspect_adapter import PrerequisiteError

    with pytest.raises(PrerequisiteError, match="fixture set .* not found"):
        load_task_file("ds_review")(fixtures=str(tmp_path / "copy"))
    task = load_task_file("ds_review")(fixtures="domain/search")
    assert len(task.dataset) > 0


def test_design_and_code_user_sets_run(tmp_path):
    plant("design", [FIX / "design" / "feature-flag-service"], tmp_path / "set", operators=["requirement-not-addressed"])
    plant("code", [FIX / "code" / "route-spec"], tmp_path / "set", operators=["sql-string-format"])
    for task, op in (("design_review", "requirement-not-addressed"), ("code_review", "sql-string-format")):
        [log] = inspect_eval(load_task_file(task)(fixtures=str(tmp_path / "set")), model="offline/rules",
                             log_dir=str(tmp_path / task), display="none")
        metrics = _metrics(log)
        assert log.status == "success" and f"recall@{op}" in metrics and "tokens_per_correct" in metrics, task


def test_the_terminal_prints_what_the_reviewers_miss(tmp_path):
    import subprocess
    import sys

    plant("impact", [FIX / "impact" / "its-weekly-signups.json"], tmp_path / "set")
    inspect = Path(sys.executable).parent / "inspect"
    result = subprocess.run([str(inspect), "eval", "tasks/impact_review.py", "-T", f"fixtures={tmp_path / 'set'}",
                             "--log-dir", str(tmp_path / "logs"), "--display", "none"],
                            cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "What these reviewers miss (impact review" in result.stderr
    assert "interval-excludes-estimate" in result.stderr and "offline/rules" in result.stderr


def test_gold_new_for_an_input_already_in_a_set(tmp_path, capsys):
    plant("ds", [FIX / "ds" / "strong-analysis.md"], tmp_path / "set", operators=["delete-summary"])
    doc = tmp_path / "set" / "fixtures" / "ds" / "memo.md"
    doc.write_text("# Memo\n\nRevenue rose 4%.\n")
    assert main(["gold", "new", "ds", str(doc)]) == 0
    assert (tmp_path / "set" / "gold" / "ds" / "memo.yaml").is_file()
    assert "fill in its TODOs" in capsys.readouterr().out
    outside = tmp_path / "memo.md"
    outside.write_text("# Memo\n")
    assert main(["gold", "new", "ds", str(outside)]) == 2
    assert "not inside a gold set" in capsys.readouterr().err
