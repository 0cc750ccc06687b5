"""Misuse of the generic task parameters and of the CLI (issue 24), through the commands a user
types: each case is a review or one line naming the input and the problem (exit 1 for a task,
2 for the CLI), never a traceback, never a silent default where the user typed something."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import write_eval_log

from review_harness.cli import main
from review_harness.core.paths import BASELINES_DIR, PROJECT_ROOT

BIN = Path(sys.executable).parent
INSPECT, REVIEW_HARNESS = str(BIN / "inspect"), str(BIN / "review-harness")
DESIGN = PROJECT_ROOT / "fixtures" / "design" / "api-rate-limiter"

# -T values given empty: the parameter is named, nothing is reviewed (Inspect reads an empty
# value as None, which the tasks would otherwise take for 'not given' and use their default)
EMPTY = {
    "ds-document": ("ds_review", ["document="]),
    "ds-domain": ("ds_review", [f"document={PROJECT_ROOT / 'fixtures/ds/dark-mode-retention.md'}", "domain="]),
    "design-topic": ("design_review", [f"design={DESIGN / 'design.md'}", f"requirements={DESIGN / 'requirements.md'}",
                                       "topic="]),
    "impact-artifact": ("impact_review", ["artifact= "]),
    "code-spec": ("code_review", ["spec=~"]),
}


@pytest.fixture(scope="module")
def empty_runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("empty")
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_EVAL_MODEL"} | {"PWD": str(folder)}
    runs = {}
    for case, (task, args) in EMPTY.items():
        command = [INSPECT, "eval", f"review_harness/{task}", "--model", "offline/rules", "--display", "none",
                   "--log-dir", str(folder / case)]
        for arg in args:
            command += ["-T", arg]
        runs[case] = subprocess.Popen(command, cwd=folder, env=env, text=True, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
    return folder, {case: (p.wait(timeout=600), *p.communicate()) for case, p in runs.items()}


@pytest.mark.parametrize("case", sorted(EMPTY))
def test_an_empty_task_parameter_is_a_one_line_error(empty_runs, case):
    folder, done = empty_runs
    code, out, err = done[case]
    task, args = EMPTY[case]
    name, _, value = args[-1].partition("=")
    assert code == 1, err
    assert err.strip() == (f"{task}: -T {name}={value}: empty value; give a value, or leave -T {name} out "
                           f"for its default")
    assert not list((folder / case).glob("*.eval"))  # stopped before any review


def test_show_epoch_out_of_range_is_one_line(gold_log, capsys):
    assert main(["show", str(gold_log), "--epoch", "99"]) == 2
    assert capsys.readouterr().err == "review-harness: --epoch 99: the log has epoch 1\n"
    assert main(["show", str(gold_log), "--epoch", "0"]) == 2
    assert "--epoch" in capsys.readouterr().err


@pytest.fixture(scope="module")
def gold_log(default_gold_log, tmp_path_factory) -> Path:
    log = default_gold_log("impact_review")
    assert log.status == "success"
    return Path(shutil.copy(log.location, tmp_path_factory.mktemp("gold")))  # a copy: commands write beside it


def test_a_binary_decisions_file_is_one_line(tmp_path, capsys):
    from test_design_artifacts import review_v1

    from review_harness.design.artifacts import write_artifacts

    folder = write_artifacts(review_v1(), tmp_path)
    binary = tmp_path / "decisions.yaml"
    binary.write_bytes(bytes(range(256)) * 4)
    assert main(["design", "process", str(folder), "--decisions", str(binary)]) == 2
    assert capsys.readouterr().err == f"review-harness: --decisions {binary}: is not a text file (binary)\n"


@pytest.mark.parametrize("reader", ["true", "head -n 1"])
def test_summary_into_a_closed_pipe_ends_quietly(gold_log, reader):
    result = subprocess.run(f"{REVIEW_HARNESS} summary {gold_log} | {reader}", shell=True, capture_output=True,
                            text=True, timeout=120, executable="/bin/bash")
    assert result.stderr == ""
    assert result.stdout == ("" if reader == "true" else f"log: {gold_log}\n")


def test_the_gate_refuses_a_baseline_of_another_task(gold_log, capsys):
    other = BASELINES_DIR / "ds_review.json"
    assert main(["gate", str(gold_log), "--baseline", str(other)]) == 2
    assert capsys.readouterr().err == (f"review-harness: {gold_log.name} is a impact_review log but the baseline "
                                       f"{other} is of ds_review: give the baseline of its task (--baseline)\n")


def test_the_gate_refuses_a_log_without_gold(tmp_path, capsys):
    from inspect_ai import eval as inspect_eval

    from helpers import load_task_file

    [log] = inspect_eval(load_task_file("impact_review")(artifact=str(PROJECT_ROOT / "fixtures/impact/broken-arithmetic.json")),
                         model="offline/rules", display="none", log_dir=str(tmp_path))
    assert main(["gate", log.location]) == 2
    assert capsys.readouterr().err == (f"review-harness: {Path(log.location).name}: no gold comparison in this log (a run "
                                       "of documents without gold files); the gate judges gold-set runs: inspect eval "
                                       "review_harness/impact_review\n")
    assert main(["gate", "--write-baseline", log.location, "--baseline", str(tmp_path / "b.json")]) == 2
    assert "no gold comparison" in capsys.readouterr().err and not (tmp_path / "b.json").exists()


def test_code_analytics_writes_to_the_log_folder_by_default(tmp_path, capsys, monkeypatch):
    from inspect_ai import eval as inspect_eval

    from helpers import load_task_file

    logs, elsewhere = tmp_path / "logs", tmp_path / "repo"
    elsewhere.mkdir()
    [log] = inspect_eval(load_task_file("code_review")(), model="offline/rules", limit=2, display="none",
                         log_dir=str(logs))
    monkeypatch.chdir(elsewhere)
    (tmp_path / "none.jsonl").write_text("")  # no overrides (a file named but missing is an error)
    assert main(["code", "analytics", str(logs), "--overrides", str(tmp_path / "none.jsonl")]) == 0
    assert (logs / "review-analytics.json").exists()
    assert list(elsewhere.iterdir()) == []  # nothing written where the command ran
    assert f"wrote {logs / 'review-analytics.json'}" in capsys.readouterr().out
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["code", "analytics", str(logs), "--output", str(blocker / "a.json")]) == 2
    assert capsys.readouterr().err.startswith(f"review-harness: --output {blocker / 'a.json'}: {blocker} is a file, not a folder")
    assert main(["code", "analytics", str(logs), "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"review-harness: --output {tmp_path}: is a folder; give a file name\n"


def test_a_folder_without_logs_is_one_line(tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    for command in (["summary", str(logs)], ["show", str(logs)], ["gate", str(logs)], ["verdict", str(logs)]):
        assert main(command) == 2
        assert capsys.readouterr().err == f"review-harness: {logs}: folder has no .eval logs\n"
    assert main(["code", "analytics", str(logs)]) == 2  # a folder's code review logs: a folder of runs holds every kind's
    assert capsys.readouterr().err == f"review-harness: {logs}: folder has no code review logs\n"
