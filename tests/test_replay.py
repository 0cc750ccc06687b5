"""The replay model (`--model offline/replay -M log=PATH`): a replayed run reproduces the recorded
reviews and token counts exactly without running a rule engine, and a request no log recorded
fails in one line naming the member and the document."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from review_harness.core.paths import PROJECT_ROOT
from review_harness.offline import provider
from helpers import MODEL, ds_review_task

INSPECT = str(Path(sys.executable).with_name("inspect"))
FIXTURES = PROJECT_ROOT / "fixtures" / "ds"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """An offline run of the first DS gold cases, and its log file."""
    folder = tmp_path_factory.mktemp("recorded")
    [log] = inspect_eval(ds_review_task()(), model=MODEL, limit=3, log_dir=str(folder), display="none")
    assert log.status == "success"
    return log, Path(log.location)


def _reviews(log):
    return {str(s.id): s.scores["review_synthesis"].metadata["review"] for s in log.samples}


def _gold_values(log):
    return {str(s.id): s.scores["gold_comparison"].value for s in log.samples}


RUN_FACTS = {"model", "seconds"}  # which model answered (offline/rules, then offline/replay) and how long it took


def _without_run_facts(review):
    """A review without the facts of each member's run that a replay changes by nature."""
    if isinstance(review, dict):
        return {k: _without_run_facts(v) for k, v in review.items() if k not in RUN_FACTS}
    if isinstance(review, list):
        return [_without_run_facts(v) for v in review]
    return review


@pytest.mark.parametrize("from_folder", [False, True])
def test_a_replayed_run_reproduces_the_recorded_reviews_without_the_rule_engines(recorded, tmp_path, monkeypatch,
                                                                                 from_folder):
    log, path = recorded

    def no_engine(*args, **kwargs):
        raise AssertionError("the replay ran a rule engine")

    monkeypatch.setattr(provider, "answer_prompt", no_engine)
    source = path.parent if from_folder else path
    [replayed] = inspect_eval(ds_review_task()(), model="offline/replay", model_args={"log": str(source)}, limit=3,
                              log_dir=str(tmp_path), display="none")
    assert replayed.status == "success"
    assert _without_run_facts(_reviews(replayed)) == _without_run_facts(_reviews(log))
    assert _gold_values(replayed) == _gold_values(log)  # findings matched, scores, and the recorded token counts
    assert all(r["status"] == "complete" for r in _reviews(replayed).values())
    usage = [(u.input_tokens, u.output_tokens) for s in log.samples for u in s.model_usage.values()]
    assert [(u.input_tokens, u.output_tokens) for s in replayed.samples for u in s.model_usage.values()] == usage


def _cli(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_EVAL_MODEL"}
    return subprocess.run([INSPECT, "eval", "tasks/ds_review.py", *args, "--display", "none",
                           "--log-dir", str(tmp_path / "logs")], cwd=PROJECT_ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_request_no_log_recorded_fails_in_one_line_naming_member_and_document(recorded, tmp_path):
    _, path = recorded
    other = FIXTURES / "wrong-audience.md"  # not among the recorded cases
    result = _cli(["-T", f"document={other}", "--model", "offline/replay", "-M", f"log={path}"], tmp_path)
    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    [line] = [line for line in result.stderr.splitlines() if line.startswith("review-harness: ds_review failed")]
    assert "no recorded answer for member" in line and "-reviewer on document" in line and str(other) in line


def test_a_missing_log_is_one_line(tmp_path):
    result = _cli(["-T", f"document={FIXTURES / 'wrong-audience.md'}", "--model", "offline/replay",
                   "-M", f"log={tmp_path / 'none.eval'}"], tmp_path)
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [f"offline reviewer: -M log={tmp_path / 'none.eval'}: no such file or folder "
                     "(give an eval log, or a folder of logs)"]



@pytest.mark.slow
def test_an_eval_set_stopped_by_a_failed_sample_resumes_with_the_reviews_it_finished(recorded, tmp_path):
    """`inspect eval-set` over the DS task: a sample that fails (here a request the replay has no
    answer for, as an outage would) fails the run; the same command run again reviews only that
    document and keeps the reviews the first run finished."""
    log, path = recorded
    ids = [str(s.id) for s in log.samples]
    answers = tmp_path / "answers"
    answers.mkdir()
    [first_two] = inspect_eval(ds_review_task()(), model=MODEL, limit=2, log_dir=str(tmp_path / "two"), display="none")
    shutil.copy(first_two.location, answers)
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_EVAL_MODEL"}
    command = [INSPECT, "eval-set", "tasks/ds_review.py", "--limit", "3", "--model", "offline/replay", "-M",
               f"log={answers}", "--log-dir", str(tmp_path / "set"), "--retry-attempts", "0", "--display", "none"]

    first = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 1, first.stderr[-2000:]
    [stopped] = (tmp_path / "set").glob("*.eval")
    before = {str(s.id): s for s in read_eval_log(str(stopped)).samples}
    assert [i for i in ids if before[i].error] == [ids[2]]

    shutil.copy(path, answers)  # the third document's answer can now be had
    second = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    [finished] = (tmp_path / "set").glob("*.eval")
    after = read_eval_log(str(finished))
    assert after.status == "success" and sorted(str(s.id) for s in after.samples) == sorted(ids)
    for sample in after.samples:
        assert sample.error is None
        if str(sample.id) != ids[2]:  # carried over from the first run, not reviewed again
            assert sample.uuid == before[str(sample.id)].uuid
    assert _without_run_facts(_reviews(after)) == _without_run_facts(_reviews(log))
