"""The one task helper (review_harness/core/task.py): every review task checks its `-T` names, its
model and the shared parameters the same way, and says what is wrong in one line."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import MODEL_HELP, flag_value, within_range, writable_folder
from review_harness.core.paths import PROJECT_ROOT

TASKS = ("ds_review", "design_review", "code_review", "impact_review")
INSPECT = str(Path(sys.executable).with_name("inspect"))
STRONG = PROJECT_ROOT / "fixtures" / "ds" / "strong-analysis.md"


def task_function(name: str):
    """The task function imported from its file, as inspect does."""
    spec = importlib.util.spec_from_file_location(f"{name}_helper_test", PROJECT_ROOT / "tasks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def error_of(name: str, **task_args) -> str:
    with pytest.raises(PrerequisiteError) as raised:
        task_function(name)(**task_args)
    message = raised.value.message
    assert "\n" not in message
    return message


# ------------------------------------------------------------------ through the CLI


@pytest.mark.parametrize("name", TASKS)
def test_a_run_from_another_folder_with_no_model_exits_non_zero_naming_the_missing_model(tmp_path, name):
    """.env (INSPECT_EVAL_MODEL=offline/rules) is not found from outside the project: every task
    refuses to run rather than exit 0 having reviewed nothing."""
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_EVAL_MODEL"}
    task = os.path.relpath(PROJECT_ROOT / "tasks" / f"{name}.py", tmp_path)
    done = subprocess.run([INSPECT, "eval", task, "--display", "none", "--log-dir", str(tmp_path / "logs")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [f"{name}: {MODEL_HELP}"]
    assert not list((tmp_path / "logs").glob("*.eval"))  # nothing ran


# ------------------------------------------------------------------ the same checks in every kind


@pytest.mark.parametrize("name", TASKS)
def test_the_old_timeout_name_is_unknown_with_a_hint(name):
    message = error_of(name, reviewer_timeout=90)
    assert message.startswith("-T reviewer_timeout=90: unknown task parameter. Did you mean -T timeout? Known: ")


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize(
    "args, expected",
    [
        ({"timeout": "abc"}, "-T timeout=abc: expected a number"),
        ({"timeout": 0}, "-T timeout=0: expected a number greater than 0"),
        ({"timeout": "-5"}, "-T timeout=-5: expected a number greater than 0"),
        ({"max_tokens": "2.5"}, "-T max_tokens=2.5: expected a whole number"),
        ({"cache": "maybe"}, "-T cache=maybe: expected true or false"),
    ],
)
def test_bad_shared_values_give_the_same_message_in_every_kind(name, args, expected):
    assert error_of(name, **args) == expected


def test_the_design_timeout_is_bounded_by_the_personas_data():
    assert error_of("design_review", timeout=30) == "-T timeout=30: must be between 60 and 120 seconds"
    assert error_of("design_review", timeout=121) == "-T timeout=121: must be between 60 and 120 seconds"
    assert task_function("design_review")(timeout=90).metadata["kind"] == "design"


@pytest.mark.parametrize("name", TASKS)
def test_display_none_puts_the_line_on_stderr(monkeypatch, capsys, name):
    """inspect prints a PrerequisiteError on stdout, and with --display none not at all."""
    monkeypatch.setattr("inspect_ai.util.display_type", lambda: "none")
    error_of(name, timeout="abc")
    assert capsys.readouterr().err == f"{name}: -T timeout=abc: expected a number\n"


def test_other_displays_leave_the_message_to_inspect(monkeypatch, capsys):
    monkeypatch.setattr("inspect_ai.util.display_type", lambda: "full")
    error_of("code_review", timeout="abc")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("name, kind", [("ds_review", "ds"), ("design_review", "design"),
                                        ("code_review", "code"), ("impact_review", "impact")])
def test_the_task_records_its_kind_and_scores_gold_only_when_there_is_gold(name, kind):
    task = task_function(name)()
    assert task.metadata["kind"] == kind
    assert len(task.scorer) == 2  # the gold set: synthesis and gold comparison


def test_a_users_document_has_no_gold_scorer():
    task = task_function("ds_review")(document=str(STRONG))
    assert task.dataset.name == f"ds-review:{STRONG}"
    assert len(task.scorer) == 1


def test_judge_meta_checks_its_names_too():
    message = error_of("judge_meta", fixture="x")
    assert message.startswith("-T fixture=x: unknown task parameter. Did you mean -T fixtures?")
    assert error_of("judge_meta", max_tokens="many") == "-T max_tokens=many: expected a whole number"


# ------------------------------------------------------------------ the parts


def test_the_pipeline_gets_a_timeout_only_when_one_is_given(monkeypatch):
    seen = []

    def capture(run):
        seen.append(run.pipeline_options)
        raise PrerequisiteError("stop")

    monkeypatch.setattr("review_harness.code.task.code_input", capture)
    code_review = task_function("code_review")
    for args in ({}, {"timeout": "45"}):
        with pytest.raises(PrerequisiteError):
            code_review(**args)
    assert seen == [{"max_tokens": None, "cache": False}, {"max_tokens": None, "cache": False, "timeout": 45.0}]


def test_output_dir_is_created_relative_to_where_the_user_ran(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    folder = writable_folder("output_dir", "reviews/new")
    assert folder == tmp_path / "reviews" / "new" and folder.is_dir()


def test_output_dir_that_cannot_be_created_or_written(monkeypatch, tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("x")
    with pytest.raises(PrerequisiteError, match=r"taken is a file, not a folder"):
        writable_folder("output_dir", str(taken / "sub"))
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(PrerequisiteError) as raised:
        writable_folder("output_dir", str(tmp_path))
    assert raised.value.message == f"-T output_dir={tmp_path}: {tmp_path} is not writable"


def test_design_output_dir_is_checked_up_front(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("x")
    assert error_of("design_review", output_dir=str(taken)) == f"-T output_dir={taken}: {taken} is a file, not a folder"


@pytest.mark.parametrize("value, expected", [(True, True), ("Yes", True), (" off ", False), (0, False), ("maybe", None)])
def test_flag_words(value, expected):
    assert flag_value(value) is expected


def test_within_range():
    assert within_range("timeout", 60.0, 60, 120) == 60.0
    with pytest.raises(PrerequisiteError, match=r"^-T top=3: must be between 4 and 5 items$"):
        within_range("top", 3, 4, 5, unit="items")


@pytest.mark.parametrize(
    "args, expected",
    [
        ({"retries": -1}, "-T retries=-1: expected a whole number, 0 or more"),
        ({"top_k": "two"}, "-T top_k=two: expected a whole number"),
        ({"structured": "maybe"}, "-T structured=maybe: unknown structured; choose one of: auto, on, off"),
    ],
)
def test_impact_checks_its_own_numbers_the_shared_way(args, expected):
    assert error_of("impact_review", **args) == expected


def test_impact_retries_zero_is_allowed():
    assert task_function("impact_review")(retries=0).metadata["kind"] == "impact"


def test_the_users_folder_is_the_shells_or_where_the_process_started(monkeypatch, tmp_path):
    from review_harness.core import paths

    started, tasks, stale = (tmp_path / name for name in ("here", "tasks", "elsewhere"))
    for folder in (started, tasks, stale):
        folder.mkdir()
    monkeypatch.setattr(paths, "LAUNCH_DIR", started)
    monkeypatch.chdir(tasks)  # inspect moved into the task file's folder
    monkeypatch.setenv("PWD", str(started))  # a shell's $PWD names where the user is
    assert paths.user_dir() == started
    monkeypatch.setenv("PWD", str(stale))  # a launcher started the process in `started` without a shell
    assert paths.user_dir() == started
    monkeypatch.chdir(started)
    assert paths.user_dir() == started
    monkeypatch.delenv("PWD")
    assert paths.user_dir() == started
    (tmp_path / "link").symlink_to(started)
    monkeypatch.setenv("PWD", str(tmp_path / "link"))  # the path as the user sees it is kept
    assert paths.user_dir() == tmp_path / "link"
