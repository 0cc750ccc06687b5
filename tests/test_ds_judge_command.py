"""The documented judge command runs (issue 28 s4): `inspect score LOG --scorer
scorers/ds_judge.py@review_judge --model-role grader=offline/judge --action append` on a DS log with
gold, through the `inspect` command itself (the scorer file is loaded outside the package there,
which is where `JudgeResult` used to fail with PydanticUserError)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from review_harness.core.paths import PROJECT_ROOT

INSPECT = str(Path(sys.executable).with_name("inspect"))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "INSPECT_EVAL_MODEL": "offline/rules", "INSPECT_DISPLAY": "none"}
    return subprocess.run([INSPECT, *args], cwd=cwd, env=env, text=True, capture_output=True, timeout=600,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def gold_log(tmp_path_factory) -> Path:
    logs = tmp_path_factory.mktemp("judge-logs")
    done = _run(["eval", "tasks/ds_review.py", "--limit", "2", "--log-dir", str(logs), "--display", "none"], PROJECT_ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    [log] = logs.glob("*.eval")
    return log


@pytest.mark.parametrize("where", ["--overwrite", "--output-file"])
def test_the_documented_judge_command_runs_and_records_the_judge(gold_log, tmp_path, where):
    target = gold_log if where == "--overwrite" else tmp_path / "judged.eval"
    extra = ["--overwrite"] if where == "--overwrite" else ["--output-file", str(target)]
    done = _run(["score", str(gold_log), "--scorer", "scorers/ds_judge.py@review_judge",
                 "--model-role", "grader=offline/judge", "--action", "append", *extra], PROJECT_ROOT)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "PydanticUserError" not in output and "Traceback" not in output
    log = read_eval_log(str(target))
    assert log.status == "success"
    for sample in log.samples:
        judge = sample.scores["review_judge"]
        overall = judge.value["overall"]
        assert 0.0 <= overall <= 1.0 and not math.isnan(overall)
        assert "review_synthesis" in sample.scores and "gold_comparison" in sample.scores  # appended, not replaced
