"""The design review under misuse (issue 24): iterations that never collide (concurrent runs of one
topic, the gold set's two-iteration topic), a corrupted earlier iteration, unwritable output
before and during a run, the user's umask, a requirements file identical to the design, a topic
too long for a folder name, and a design far over the input budget. Each case asserts the message
or the outcome."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.tokens import estimate_tokens
from review_harness.design.artifacts import (
    claim_iteration,
    claimed_iterations,
    export_review,
    findings_path,
    iterations,
    write_iteration,
)
from test_design_artifacts import review_v1
from test_design_review import GOLD_FIXTURES, design_review_task, reviews_of, run

WEBHOOK = GOLD_FIXTURES / "webhook-delivery-v1"
BILLING = GOLD_FIXTURES / "billing-export"


def args_for(case: Path, out: Path, **extra) -> dict:
    return dict(design=str(case / "design.md"), requirements=str(case / "requirements.md"),
                output_dir=str(out), **extra)


# ---------------------------------------------------------------------------- iterations never collide


def test_threads_claiming_one_topic_get_distinct_iterations_and_keep_every_run_line(tmp_path):
    errors: list[BaseException] = []

    def one() -> None:
        try:
            claim = claim_iteration(tmp_path, "t", "doc.md")
            write_iteration(review_v1(topic="t", iteration=claim.iteration, document="doc.md"), claim.folder)
        except BaseException as ex:  # noqa: BLE001  (reported below)
            errors.append(ex)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    folder = tmp_path / "t"
    assert iterations(folder) == list(range(1, 9))
    runs = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert sorted(r["iteration"] for r in runs) == list(range(1, 9))
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # no temporary folder left behind


def test_two_concurrent_runs_of_one_topic_keep_two_iterations_and_two_run_lines(tmp_path):
    """Two `inspect eval` processes on one topic at the same time."""
    task = os.path.relpath(PROJECT_ROOT / "tasks" / "design_review.py", tmp_path)
    out = tmp_path / "reviews"
    command = [sys.executable, "-m", "inspect_ai", "eval", task, "--model", "offline/rules", "--display", "none",
               "-M", "latency=0.5", "-T", f"design={WEBHOOK / 'design.md'}",
               "-T", f"requirements={WEBHOOK / 'requirements.md'}", "-T", "topic=shared", "-T", f"output_dir={out}"]
    env = dict(os.environ, PWD=str(tmp_path))
    procs = [subprocess.Popen([*command, "--log-dir", str(tmp_path / f"logs{n}")], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in (1, 2)]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
    folder = out / "shared"
    assert iterations(folder) == [1, 2]
    runs = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert sorted(r["iteration"] for r in runs) == [1, 2]
    assert "**Iteration:** 2" in (folder / "summary.md").read_text()


def test_the_gold_set_with_output_dir_keeps_both_webhook_iterations(tmp_path):
    log = run(tmp_path / "logs", split="dev", output_dir=str(tmp_path / "reviews"))
    folder = tmp_path / "reviews" / "webhook-delivery"
    assert log.status == "success" and iterations(folder) == [1, 2]
    assert len((folder / "runs.jsonl").read_text().splitlines()) == 2
    # run again into the same folder: two more iterations, nothing replaced
    run(tmp_path / "logs", split="dev", output_dir=str(tmp_path / "reviews"))
    assert iterations(folder) == [1, 2, 3, 4]
    assert len((folder / "runs.jsonl").read_text().splitlines()) == 4


# ---------------------------------------------------------------------------- a corrupted earlier iteration


def test_a_corrupted_earlier_iteration_is_said_and_the_next_is_written_whole_without_delta(tmp_path):
    out = tmp_path / "reviews"
    design = tmp_path / "design.md"
    design.write_text((WEBHOOK / "design.md").read_text())
    args = dict(design=str(design), requirements=str(WEBHOOK / "requirements.md"), topic="t", output_dir=str(out))
    run(tmp_path / "logs", **args)
    findings_path(out / "t", 1).write_text('{"id": "v1-x-001", "severity": "Critical"}\nnot json at all\n')
    log = run(tmp_path / "logs", **args)
    assert log.status == "success" and log.samples[0].error is None
    review = reviews_of(log)["t"]
    assert review.iteration == 2 and review.delta is None
    assert any(w.startswith("Iteration 1 of this topic cannot be read (") and "line 2 is not JSON" in w
               and w.endswith("this iteration is written without a delta.") for w in review.warnings)
    v2 = out / "t" / "v2"
    assert sorted(p.name for p in v2.iterdir()) == sorted(
        [f"{p}-v2.md" for p in review.personas] + ["summary-v2.md", "findings-v2.jsonl", "patterns-v2.json", "run-v2.json", "reports-v2.json"])
    assert "cannot be read" in (out / "t" / "summary.md").read_text()
    assert len((out / "t" / "runs.jsonl").read_text().splitlines()) == 2


# ---------------------------------------------------------------------------- unwritable output


def test_an_output_dir_that_cannot_be_a_folder_is_one_line_before_any_sample(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    for value, detail in ((blocker, f"{blocker} is a file, not a folder"), (blocker / "sub", f"{blocker} is a file, not a folder")):
        with pytest.raises(PrerequisiteError) as raised:
            design_review_task()(**args_for(WEBHOOK, value))
        message = str(raised.value)
        assert message.startswith(f"-T output_dir={value}:") and detail in message and "\n" not in message


def test_the_default_review_folder_is_checked_before_any_sample(tmp_path, monkeypatch):
    (tmp_path / "docs").write_text("a file where the folder would go")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    with pytest.raises(PrerequisiteError) as raised:
        design_review_task()(design=str(WEBHOOK / "design.md"), requirements=str(WEBHOOK / "requirements.md"))
    assert str(raised.value) == (f"-T output_dir (default docs/reviews): {tmp_path / 'docs'} is a file, not a "
                                 "folder; give -T output_dir=DIR")


def test_a_write_failure_mid_run_keeps_the_review_in_the_log_and_names_the_file(tmp_path):
    out = tmp_path / "reviews"
    task = design_review_task()(**args_for(WEBHOOK, out, topic="t"))  # the folder is fine when the task starts
    (out / "t").write_text("something took the topic's name since")
    from inspect_ai import eval as inspect_eval

    [log] = inspect_eval(task, model="offline/rules", log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and log.samples[0].error is None
    review = reviews_of(log)["t"]
    assert review.verdict is not None and review.findings  # the review is whole, in the log
    assert any(w.startswith(f"The review folder {out / 't'} could not be written (") and
               w.endswith("the review is in the log only.") for w in review.warnings), review.warnings
    assert (out / "t").read_text() == "something took the topic's name since"


def test_a_failure_while_writing_the_iteration_leaves_no_part_of_it(tmp_path, monkeypatch):
    from review_harness.design import artifacts

    claim = claim_iteration(tmp_path, "t", "doc.md")
    folder = claim.folder

    def no_space(temporary, destination):
        raise OSError(28, "No space left on device", str(destination))

    monkeypatch.setattr(artifacts, "publish_folder", no_space)
    with pytest.raises(OSError, match="No space left"):
        write_iteration(review_v1(topic="t"), folder)
    assert claimed_iterations(folder) == [1] and iterations(folder) == []  # claimed, never half-written
    assert not (folder / "runs.jsonl").exists() and not (folder / "summary.md").exists()
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------------- the user's umask


def test_artifacts_are_created_with_the_users_umask(tmp_path):
    old = os.umask(0o022)
    try:
        folder = export_review(review_v1(), tmp_path).parent
    finally:
        os.umask(old)
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in files), [
        (p.name, oct(stat.S_IMODE(p.stat().st_mode))) for p in files]
    assert stat.S_IMODE((folder / "v1").stat().st_mode) == 0o755


# ---------------------------------------------------------------------------- inputs


def test_a_requirements_file_identical_to_the_design_gets_a_warning(tmp_path):
    same = tmp_path / "same.md"
    same.write_text((BILLING / "design.md").read_text())
    log = run(tmp_path / "logs", design=str(BILLING / "design.md"), requirements=str(same), topic="same",
              output_dir=str(tmp_path / "reviews"))
    review = reviews_of(log)["same"]
    assert any(w.startswith("The design and the requirements are the same text: the review checks the document "
                            "against itself") for w in review.warnings)


def test_a_300_character_topic_is_one_line(tmp_path):
    for topic in ("t" * 300, "a" * 101):
        with pytest.raises(PrerequisiteError) as raised:
            design_review_task()(**args_for(WEBHOOK, tmp_path, topic=topic))
        message = str(raised.value)
        assert message == f"-T topic={topic[:60]}...: {len(topic)} characters, at most 100"


def test_a_long_file_name_gives_a_topic_that_fits(tmp_path):
    long = tmp_path / ("design-" + "x" * 200 + ".md")
    long.write_text((WEBHOOK / "design.md").read_text())
    [sample] = design_review_task()(design=str(long), requirements=str(WEBHOOK / "requirements.md"),
                                    output_dir=str(tmp_path)).dataset
    assert len(sample.metadata["topic"]) == 100


def test_a_5_mb_design_is_cut_to_the_input_budget_with_a_warning(tmp_path):
    big = tmp_path / "big.md"
    source = (GOLD_FIXTURES / "field-sync-offline" / "design.md").read_text()
    big.write_text((source + "\n") * (5_000_000 // len(source) + 1))
    assert big.stat().st_size >= 5_000_000
    log = run(tmp_path / "logs", design=str(big), requirements=str(WEBHOOK / "requirements.md"), topic="big",
              output_dir=str(tmp_path / "reviews"))
    assert log.status == "success"
    review = reviews_of(log)["big"]
    assert any(w.startswith("The documents exceed the input budget of 60,000 tokens per persona request: the "
                            "design document keeps") for w in review.warnings)
    budget = 60_000
    persona_runs = [r for r in review.reviewer_runs if r.member in review.personas]
    assert persona_runs and all(r.input_tokens <= budget + 3_000 for r in persona_runs), [
        r.input_tokens for r in persona_runs]
    # the whole design would have been sent six times: 7.19 M input tokens for 5 MB before the budget
    assert sum(r.input_tokens for r in persona_runs) < estimate_tokens(big.read_text()) / 2
