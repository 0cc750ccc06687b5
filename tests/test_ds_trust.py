"""Issue 11: loud failures, a visible review, calibrated verdicts, correct calls."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai._util.error import PrerequisiteError

from helpers import ds_review_task, reviews, run
from review_harness import cli
from review_harness.core.params import MODEL_HELP
from review_harness.core.paths import PROJECT_ROOT

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


def test_no_model_is_a_one_line_error(monkeypatch):
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    assert task_error(document=str(STRONG)) == MODEL_HELP


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
        ({"reviewer_timeout": "abc"}, "-T reviewer_timeout=abc: expected a number"),
        ({"reviewer_timeout": "-5"}, "-T reviewer_timeout=-5: expected a number greater than 0"),
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
        f"-T output_dir={target}: {target} exists and is not a folder"
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
    assert (out / "strong-analysis.review.md").read_text() == report
    assert cli.main(["show", str(tmp_path / "logs")]) == 0
    assert capsys.readouterr().out == report
    assert cli.main(["show", str(tmp_path / "logs"), "--sample", "nope"]) == 2
    assert "--sample nope: no such sample" in capsys.readouterr().err


def test_console_says_where_the_review_is(tmp_path):
    from review_harness.ds.preflight import where_the_review_is

    text = where_the_review_is("logs/x.eval", ["memo"], tmp_path)
    assert "review-harness show logs/x.eval" in text
    assert f"written: {tmp_path / 'memo.review.md'}" in text
