"""Shared helpers for the tests that run the task end to end."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from review_harness.cli import reviews_in_log
from review_harness.ds.models import Review
from review_harness.core.paths import PROJECT_ROOT

TASK = str(PROJECT_ROOT / "tasks" / "ds_review.py")
FIXTURES = sorted((PROJECT_ROOT / "fixtures" / "ds").glob("*.md"))
MODEL = "offline/rules"


def ds_review_task():
    """The task function itself, imported from its file as inspect does."""
    spec = importlib.util.spec_from_file_location("ds_review_task_file", TASK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ds_review


def load_task_file(name: str):
    """The task function of tasks/<name>.py, imported from its file as inspect does."""
    spec = importlib.util.spec_from_file_location(f"{name}_task_file", PROJECT_ROOT / "tasks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def run(tmp_path: Path, model_args: dict | None = None, **task_args) -> EvalLog:
    [log] = inspect_eval(
        ds_review_task()(**task_args),
        model=MODEL,
        model_args=model_args or {},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    return log


def reviews(log: EvalLog) -> dict[str, Review]:
    return {sample_id: review for sample_id, _, review in reviews_in_log(log)}


def rule_findings(text: str, **options) -> list:
    """The offline DS reviewer's findings on `text`, both dimensions (its rules, no task run)."""
    from review_harness.ds.offline.rules import review_with_rules

    return [f for d in ("analysis", "communication") for f in review_with_rules(d, text, **options).findings]


def rule_types(text: str, **options) -> set[str]:
    return {f.issue_type for f in rule_findings(text, **options)}


def rule_positives(text: str) -> list:
    from review_harness.ds.offline.rules import review_with_rules

    return [p for d in ("analysis", "communication") for p in review_with_rules(d, text).positives]


def interruptible() -> None:
    """preexec_fn of a child the test interrupts: Ctrl-C at its default, as a terminal starts it. A
    test run itself started in the background (`cmd &` in a script) has SIGINT ignored, and every
    child would inherit that and never see the test's Ctrl-C."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
