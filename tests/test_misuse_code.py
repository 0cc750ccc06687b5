"""The code review under misuse (issue 24): memory that goes where the user can see, folders that
cannot be written named before any review, a failed write that keeps the review, files with the
user's umask, review notes that never overwrite each other (also under concurrent updates), and
the analytics and override commands' output checked up front."""

from __future__ import annotations

import datetime
import multiprocessing
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from review_harness.core.inspect_adapter import PrerequisiteError

from review_harness.cli import main
from review_harness.code import memory as memory_module
from review_harness.code.memory import update_service
from test_code_review import ROOT, repo, run, task_function  # noqa: F401  (the repository fixture)

CASE = ROOT / "fixtures" / "code" / "go-ignored-error"
PATCH, SPEC = str(CASE / "change.patch"), str(CASE / "spec.md")


def day(text: str):
    return lambda: datetime.date.fromisoformat(text)


# ---------------------------------------------------------------------------- where memory goes


def test_a_patch_with_memory_update_needs_memory_dir(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PrerequisiteError, match=r"^-T memory=update with -T patch=: give -T memory_dir=DIR \(a patch "
                                                r"has no repository to keep reviewer memory in\)$"):
        task_function()(patch=PATCH, spec=SPEC, memory="update")
    assert not (tmp_path / ".claude").exists()


def test_the_cli_says_so_in_one_line_and_exits_1(tmp_path: Path):
    assert not (ROOT / ".claude").exists()
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", "tasks/code_review.py",
                           "-T", f"patch={PATCH}", "-T", f"spec={SPEC}", "-T", "memory=update", "--display", "none",
                           "--log-dir", str(tmp_path / "logs"), "--model", "offline/rules"],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PWD": str(ROOT)})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "code_review: -T memory=update with -T patch=: give -T memory_dir=DIR (a patch has no "
        "repository to keep reviewer memory in)"]
    assert not (ROOT / ".claude").exists()


def test_a_patch_run_reads_no_memory_from_the_current_folder(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    log = run(tmp_path / "logs", patch=PATCH, spec=SPEC)
    review = log.samples[0].scores["code_synthesis"].metadata["review"]
    assert review["memory"] == {"mode": "read", "root": None, "applied": []}
    assert "Memory (read): none for this run" in log.samples[0].output.completion
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs"]


def test_a_repository_run_says_where_memory_went(repo: Path, tmp_path: Path):  # noqa: F811
    log = run(tmp_path, repo=str(repo), base="HEAD~1", spec=str(repo / "SPEC.md"), memory="update")
    review = log.samples[0].scores["code_synthesis"].metadata["review"]
    folder = repo / ".claude" / "agent-memory"
    assert review["memory"]["root"] == str(folder) and len(review["memory"]["updated"]) == 6
    assert f"Memory: read from and updated in {folder} (6 files written)" in log.samples[0].output.completion


@pytest.mark.parametrize("args, message", [
    ({"memory": "off", "memory_dir": "x"}, "-T memory_dir=x: has no effect with -T memory=off"),
    ({"memory_dir": ""}, "-T memory_dir=: empty value"),
    ({"memory_dir": "nope-folder"}, r"-T memory_dir=nope-folder: no such folder \(memory=read reads it"),
    ({"implementer": "scripted"}, "-T implementer=scripted: only gold cases have scripted fixes"),
    ({"implementer": "robot"}, "-T implementer=robot: unknown implementer; choose one of: agent, scripted"),
    ({"human": "approve;reject"}, "expected approve or reject"),
    ({"plan": ""}, "-T plan=: empty value"),
])
def test_memory_and_loop_parameters_typed_wrong_are_one_line_errors(args, message, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PrerequisiteError, match=message):
        task_function()(patch=PATCH, spec=SPEC, **args)


def test_memory_dir_with_the_gold_set_is_an_error():
    with pytest.raises(PrerequisiteError, match="the gold set reads a per-sample copy"):
        task_function()(memory="update", memory_dir="/tmp/somewhere")


def test_an_unwritable_memory_dir_stops_the_run_before_any_review(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(PrerequisiteError, match=rf"^-T memory_dir={blocker}/memory: {blocker} is a file, not a folder$"):
        task_function()(patch=PATCH, spec=SPEC, memory="update", memory_dir=str(blocker / "memory"))


def test_a_write_failure_mid_run_keeps_the_review_and_names_the_file(tmp_path: Path, monkeypatch):
    target = tmp_path / "memory"

    def disk_full(folder, stem, suffix, text):
        raise OSError(28, "No space left on device", str(Path(folder) / f"{stem}{suffix}"))

    monkeypatch.setattr(memory_module, "write_new", disk_full)
    log = run(tmp_path / "logs", patch=PATCH, spec=SPEC, memory="update", memory_dir=str(target))
    assert log.status == "success"
    review = log.samples[0].scores["code_synthesis"].metadata["review"]
    note = target / "project-orchestrator-spec-reviewer" / "reviews" / f"{datetime.date.today().isoformat()}-task-1.md"
    expected = f"memory not updated: could not write {note} (No space left on device)"
    assert review["warnings"] == [expected] and review["memory"]["error"] == expected
    assert review["iterations"][0]["quality"]["findings"]  # the review itself is all there
    assert f"⚠️ {expected}" in log.samples[0].output.completion


# ---------------------------------------------------------------------------- files


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_memory_files_get_the_users_umask(tmp_path: Path, umask, mode):
    old = os.umask(umask)
    try:
        update_service(tmp_path, "quality", "svc", findings=[("x", "Minor", "a.py:1")], review_note="# r", slug="task-1",
                       today=day("2026-11-23"))
    finally:
        os.umask(old)
    folder = tmp_path / "project-orchestrator-quality-reviewer"
    for path in (folder / "MEMORY.md", folder / "service-patterns" / "svc.md", folder / "reviews" / "2026-11-23-task-1.md"):
        assert stat.S_IMODE(path.stat().st_mode) == mode, path
    assert not [p for p in folder.rglob(".*.tmp")]  # no temporary file left behind


def test_two_concurrent_updates_in_threads_keep_every_review_note(tmp_path: Path):
    threads = [threading.Thread(target=update_service, args=(tmp_path, "spec", "svc"),
                                kwargs={"findings": [(f"pattern {n}", "Minor", f"f.py:{n}")], "review_note": f"# review {n}",
                                        "slug": "task-3", "today": day("2026-11-23")}) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    folder = tmp_path / "project-orchestrator-spec-reviewer"
    notes = sorted(p.read_text() for p in (folder / "reviews").glob("*.md"))
    assert notes == sorted(f"# review {n}" for n in range(12))
    assert "Reviews: 12" in (folder / "MEMORY.md").read_text()


def _updates(root: str, worker: int) -> None:
    for n in range(10):
        update_service(Path(root), "quality", "svc", findings=[(f"pattern {worker}-{n}", "Minor", "f.py:1")],
                       review_note=f"# worker {worker} review {n}", slug="task-1", today=day("2026-11-23"))


def test_two_concurrent_memory_updates_in_processes_keep_every_review_note(tmp_path: Path):
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_updates, args=(str(tmp_path), w)) for w in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
        assert w.exitcode == 0
    folder = tmp_path / "project-orchestrator-quality-reviewer"
    notes = {p.read_text() for p in (folder / "reviews").glob("*.md")}
    assert notes == {f"# worker {w} review {n}" for w in range(2) for n in range(10)}
    assert "Reviews: 20" in (folder / "MEMORY.md").read_text()
    patterns = memory_module.read_patterns(tmp_path, "quality", "svc")
    assert sum(r.frequency for r in patterns.issues) == 20  # similar patterns merge; no update is lost


def test_two_epochs_updating_one_memory_keep_both_reviews(tmp_path: Path):
    from inspect_ai import eval as inspect_eval

    memory = tmp_path / "memory"
    log = inspect_eval(task_function()(patch=PATCH, spec=SPEC, memory="update", memory_dir=str(memory)),
                       model="offline/rules", display="none", log_dir=str(tmp_path / "logs"), epochs=2)[0]
    assert log.status == "success" and len(log.samples) == 2
    for kind in ("spec", "quality"):
        assert len(list((memory / f"project-orchestrator-{kind}-reviewer" / "reviews").glob("*.md"))) == 2


# ---------------------------------------------------------------------------- the commands' output


@pytest.fixture(scope="module")
def code_log(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("misuse-logs")
    log = run(folder, patch=PATCH, spec=SPEC)
    return Path(log.location)


def test_an_unwritable_analytics_output_is_named_before_any_log_is_read(code_log: Path, tmp_path: Path, capsys,
                                                                        monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    read = []
    monkeypatch.setattr("review_harness.code.commands.read_log", lambda p: read.append(p))
    assert main(["code", "analytics", str(code_log), "--output", str(blocker / "out.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"review-harness: --output {blocker}/out.json: {blocker} is a file, not a folder"
    assert read == []
    assert main(["code", "analytics", str(code_log), "--output", str(tmp_path)]) == 2
    assert "is a folder; give a file name" in capsys.readouterr().err


def test_an_unwritable_override_target_is_one_line(code_log: Path, tmp_path: Path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["code", "override", str(code_log), "--sample", "task-1", "--decision", "approve",
                 "--overrides", str(blocker / "o.jsonl")]) == 2
    assert capsys.readouterr().err.strip().endswith(f"o.jsonl: {blocker} is a file, not a folder")
    assert main(["code", "override", str(code_log), "--sample", "task-1", "--decision", "approve", "--dismiss", "q1",
                 "--overrides", str(tmp_path / "o.jsonl"), "--memory-dir", str(blocker / "m")]) == 2
    assert "--memory-dir" in capsys.readouterr().err


def test_an_override_without_a_memory_folder_asks_for_one(code_log: Path, tmp_path: Path, capsys):
    assert main(["code", "override", str(code_log), "--sample", "task-1", "--decision", "approve", "--dismiss", "q1",
                 "--overrides", str(tmp_path / "o.jsonl")]) == 2
    assert "the review kept no memory folder (or it is gone): give --memory-dir DIR" in capsys.readouterr().err


def test_analytics_onto_a_folder_or_an_unwritable_place_is_one_line(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PrerequisiteError, match="-T analytics=.*: is a folder; give the file to append to"):
        task_function()(patch=PATCH, spec=SPEC, analytics=str(tmp_path))
    (tmp_path / "file").write_text("x")
    with pytest.raises(PrerequisiteError, match="is a file, not a folder"):
        task_function()(patch=PATCH, spec=SPEC, analytics=str(tmp_path / "file" / "a.json"))


def test_text_parameters_keep_the_text_typed(monkeypatch):
    """Inspect reads -T values as YAML: `0123456` would be the octal number 42798, `1.10` the float 1.1."""
    from review_harness.core.params import as_typed

    monkeypatch.setattr("sys.argv", ["/usr/bin/inspect", "eval", "tasks/code_review.py", "-T", "base=0123456",
                                     "-T", "task_number=1.10"])
    assert as_typed("base", 42798) == "0123456" and as_typed("task_number", 1.1) == "1.10"
    assert as_typed("head", "HEAD") == "HEAD" and as_typed("human", ["approve", "reject"]) == ["approve", "reject"]
