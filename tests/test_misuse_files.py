"""Every file a user hands in, to every task parameter and every `review-harness` command that
names one: a folder, a binary file, a missing file and a named pipe (FIFO) each get one line that
names the input and says what is wrong, a non-zero exit, and within seconds (a FIFO is never
opened, so nothing blocks). Tasks are built in-process (the task function is what `inspect eval`
calls first; its PrerequisiteError is the one line and exit 1), commands run through
`review_harness.cli.main`; a few of each also run as the real commands in subprocesses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers import load_task_file
from test_misuse_cli import gold_log  # noqa: F401 (an impact gold-set log, the fixture)
from review_harness.cli import main
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.paths import BASELINES_DIR, PROJECT_ROOT

BIN = Path(sys.executable).parent
INSPECT, REVIEW_HARNESS = str(BIN / "inspect"), str(BIN / "review-harness")
SECONDS = 20  # a case that blocks (a FIFO opened for reading) fails here instead of hanging the suite
DESIGN = PROJECT_ROOT / "fixtures" / "design" / "api-rate-limiter"
CODE = PROJECT_ROOT / "fixtures" / "code" / "js-sql"
PATCH = dict(patch=str(CODE / "change.patch"), spec=str(CODE / "spec.md"))
KINDS = ("folder", "binary", "missing", "fifo")
FILE_ONLY, NOT_A_FOLDER_TARGET = KINDS, ("binary", "fifo")  # an output folder may be new or exist

# what the one line must say for each bad input (any of the words)
SAYS = {
    "folder": ("folder", "directory", "no supported documents", "has no", "no gold files", "not a git repository"),
    "binary": ("binary", "not a text file", "not UTF-8", "not a readable", "a file, not a"),
    "missing": ("no such", "does not exist", "not found"),
    "fifo": ("named pipe (FIFO)",),
}

# task -> parameter -> (the other parameters it needs, the bad inputs it is fed)
TASK_PARAMETERS: dict[str, dict[str, tuple[dict, tuple[str, ...]]]] = {
    "ds_review": {
        "document": ({}, FILE_ONLY),  # a folder of documents is allowed: an empty one is the bad case
        "rubric": ({}, FILE_ONLY),
        "reference": ({"domain": "search-ranking"}, FILE_ONLY),
        "output_dir": ({}, NOT_A_FOLDER_TARGET),
    },
    "design_review": {
        "design": ({"requirements": str(DESIGN / "requirements.md")}, FILE_ONLY),
        "requirements": ({"design": str(DESIGN / "design.md")}, FILE_ONLY),
        "output_dir": ({"design": str(DESIGN / "design.md"), "requirements": str(DESIGN / "requirements.md")},
                       NOT_A_FOLDER_TARGET),
    },
    "code_review": {
        "repo": ({"spec": str(CODE / "spec.md"), "base": "HEAD~1"}, FILE_ONLY),
        "patch": ({"spec": PATCH["spec"]}, FILE_ONLY),
        "spec": ({"patch": PATCH["patch"]}, FILE_ONLY),
        "config": (PATCH, FILE_ONLY),
        "plan": (PATCH, FILE_ONLY),
        "memory_dir": (PATCH | {"memory": "update"}, NOT_A_FOLDER_TARGET),
    },
    "impact_review": {
        "artifact": ({}, FILE_ONLY),
        "config": ({}, FILE_ONLY),
        "template_dirs": ({}, FILE_ONLY),
        "knowledge": ({}, FILE_ONLY),
    },
    "judge_meta": {"rubric": ({}, FILE_ONLY)},
}
TASK_CASES = [(task, name, bad) for task, params in TASK_PARAMETERS.items() for name, (_, bads) in params.items()
              for bad in bads]


@contextmanager
def within_seconds(seconds: int = SECONDS):
    def stop(*_):
        raise TimeoutError(f"took over {seconds} s (blocked?)")

    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bad-inputs")
    (folder / "empty-folder").mkdir()
    (folder / "binary.bin").write_bytes(bytes(range(256)) * 16)
    os.mkfifo(folder / "pipe.md")
    return {"folder": folder / "empty-folder", "binary": folder / "binary.bin", "fifo": folder / "pipe.md",
            "missing": folder / "missing"}


def _value(bad_inputs: dict[str, Path], bad: str, case: str) -> Path:
    if bad == "missing":  # a missing path of its own for each case (an output folder would create it)
        return bad_inputs["missing"] / case / "nope.md"
    return bad_inputs[bad]


def _assert_one_line(message: str, value: Path, bad: str) -> None:
    assert "\n" not in message.strip() and "Traceback" not in message, message
    assert value.name in message, message  # names the input
    assert any(word in message for word in SAYS[bad]), f"{bad}: {message}"


@pytest.mark.parametrize("task,name,bad", TASK_CASES, ids=[f"{t}-{n}-{b}" for t, n, b in TASK_CASES])
def test_every_file_parameter_of_every_task(bad_inputs, task, name, bad):
    others, _ = TASK_PARAMETERS[task][name]
    value = _value(bad_inputs, bad, f"{task}-{name}")
    started = time.monotonic()
    with within_seconds(), pytest.raises(PrerequisiteError) as info:
        load_task_file(task)(**others, **{name: str(value)})
    assert time.monotonic() - started < SECONDS
    _assert_one_line(str(info.value.message), value, bad)


def test_the_cases_cover_every_parameter_that_names_a_file():
    """A new task parameter that takes a path must join the table above."""
    import inspect

    path_words = ("document", "rubric", "reference", "output_dir", "design", "requirements", "repo", "patch",
                  "spec", "config", "plan", "memory_dir", "artifact", "template_dirs", "knowledge")
    for task in TASK_PARAMETERS:
        declared = inspect.signature(load_task_file(task)).parameters
        named = {p for p in declared if p in path_words}
        assert named == set(TASK_PARAMETERS[task]), task


# ---------------------------------------------------------------------------- the commands


BASELINE = str(BASELINES_DIR / "impact_review.json")
# each command line with {x} where the bad input goes; {log} is a readable gold log
COMMANDS = {
    "summary": ["summary", "{x}"],
    "show": ["show", "{x}"],
    "gate": ["gate", "{x}"],
    "gate-baseline": ["gate", "{log}", "--baseline", "{x}"],
    "gate-config": ["gate", "{log}", "--baseline", BASELINE, "--config", "{x}"],
    "gate-write-baseline": ["gate", "--write-baseline", "{x}"],
    "lint-prompts-rubric": ["lint-prompts", "--rubric", "{x}"],
    "calibrate-log": ["calibrate", "--log", "{x}"],
    "calibrate-gold": ["calibrate", "--gold", "{x}"],
    "design-export": ["design", "export", "{x}"],
    "design-process": ["design", "process", "{x}"],
    "code-analytics": ["code", "analytics", "{x}"],
    "code-analytics-overrides": ["code", "analytics", "{log}", "--overrides", "{x}"],
    "code-override": ["code", "override", "{x}", "--sample", "a", "--decision", "approve"],
    "domain-index": ["domain", "--index", "{x}", "list"],
    "domain-roster": ["domain", "--roster", "{x}", "refresh", "search-ranking", "--source",
                      str(PROJECT_ROOT / "knowledge" / "domain" / "pages")],
    "impact-check": ["impact", "check", "{x}"],
}
# a folder is what these take: an empty one is no bad input for them (it has nothing to read, and says so)
FOLDER_TAKING = {"design-process": "a folder that is no review folder asks for decisions, a readable case"}
CLI_CASES = [(c, b) for c in COMMANDS for b in KINDS if not (b == "folder" and c in FOLDER_TAKING)]


@pytest.mark.parametrize("command,bad", CLI_CASES, ids=[f"{c}-{b}" for c, b in CLI_CASES])
def test_every_command_that_reads_a_file(bad_inputs, gold_log, capsys, command, bad):
    value = _value(bad_inputs, bad, command)
    argv = [a.replace("{x}", str(value)).replace("{log}", str(gold_log)) for a in COMMANDS[command]]
    with within_seconds():
        code = main(argv)
    assert code == 2, argv
    _assert_one_line(capsys.readouterr().err, value, bad)


OUTPUTS = {
    "code-analytics-output": ["code", "analytics", "{log}", "--output", "{x}"],
    "code-analytics-html": ["code", "analytics", "{log}", "--html", "{x}"],
    "calibrate-output": ["calibrate", "--write", "--output", "{x}"],
}


@pytest.mark.parametrize("command", sorted(OUTPUTS))
@pytest.mark.parametrize("bad", ["folder", "fifo"])
def test_an_output_file_that_is_a_folder_or_a_pipe_is_refused_before_any_work(bad_inputs, gold_log, capsys,
                                                                              command, bad):
    value = bad_inputs[bad]
    argv = [a.replace("{x}", str(value)).replace("{log}", str(gold_log)) for a in OUTPUTS[command]]
    with within_seconds():
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(value) in err
    assert ("is a folder" if bad == "folder" else "is a named pipe (FIFO), not a file") in err


# ---------------------------------------------------------------------------- the real commands


REAL = {
    "ds-document-fifo": [INSPECT, "eval", "review_harness/ds_review", "-T", "document={fifo}"],
    "impact-artifact-fifo": [INSPECT, "eval", "review_harness/impact_review", "-T", "artifact={fifo}"],
    "design-design-binary": [INSPECT, "eval", "review_harness/design_review", "-T", "design={binary}",
                             "-T", f"requirements={DESIGN / 'requirements.md'}"],
    "code-spec-folder": [INSPECT, "eval", "review_harness/code_review", "-T", f"patch={CODE / 'change.patch'}",
                         "-T", "spec={folder}"],
    "summary-fifo": [REVIEW_HARNESS, "summary", "{fifo}"],
    "impact-check-fifo": [REVIEW_HARNESS, "impact", "check", "{fifo}"],
}


def test_the_commands_exit_non_zero_with_one_line_on_stderr(bad_inputs, tmp_path):
    env = dict(os.environ, PWD=str(tmp_path))
    runs = {}
    for case, command in REAL.items():
        argv = [a.format(**{k: str(v) for k, v in bad_inputs.items()}) for a in command]
        if argv[0] == INSPECT:
            argv += ["--model", "offline/rules", "--display", "none", "--log-dir", str(tmp_path / case)]
        runs[case] = subprocess.Popen(argv, cwd=tmp_path, env=env, text=True, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
    for case, process in runs.items():
        out, err = process.communicate(timeout=120)
        expected = 1 if REAL[case][0] == INSPECT else 2
        assert process.returncode == expected, (case, out, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in err, (case, err)
        bad = case.rsplit("-", 1)[1]
        assert bad_inputs[bad].name in lines[0] and any(w in lines[0] for w in SAYS[bad]), (case, lines[0])
        assert not list((tmp_path / case).glob("*.eval"))  # stopped before any review
