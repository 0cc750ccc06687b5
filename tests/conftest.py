"""Tests build tasks outside `inspect eval`, where no .env is read: default to the offline
reviewer as the project's .env does (a test that needs no model unsets it).

Real inputs: a test marked `real("ds")` reads the real documents under ../shared/real/ds (found
through $REVIEW_HARNESS_SHARED or beside the checkout). Where they are absent (a fresh clone with
nothing beside it) the test is skipped with a reason naming the folder, and the terminal summary
says how many were left out; where they are required ($REVIEW_HARNESS_REQUIRE_SHARED=1, as CI
sets it) an absent folder fails the test instead.

Gold runs: `default_gold_log(task)` is the offline run over a kind's default gold set, made once
per test process for every test file that only reads it; where CI has made it already for its
gate ($REVIEW_HARNESS_GOLD_LOGS: <folder>/<task>/*.eval, as .ci/run's gold runs write them) that
log is read instead of running the set again."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

os.environ.setdefault("INSPECT_EVAL_MODEL", "offline/rules")

from review_harness.core.paths import REQUIRE_SHARED_ENV, SHARED_ENV, absent_shared, shared_required  # noqa: E402

LEFT_OUT = "real input absent:"


def real_input_problem(item: pytest.Item) -> str | None:
    """The real-input folders a marked test needs that are not here, as a skip reason."""
    marker = item.get_closest_marker("real")
    if marker is None:
        return None
    missing = [f"../shared/real/{folder}" for folder in marker.args or ("",) if absent_shared(f"../shared/real/{folder}")]
    if not missing:
        return None
    return f"{LEFT_OUT} {', '.join(missing)} (the shared inputs are found through ${SHARED_ENV} or beside the checkout)"


def pytest_runtest_setup(item: pytest.Item) -> None:
    problem = real_input_problem(item)
    if problem is None:
        return
    if shared_required():
        pytest.fail(f"{problem}, and ${REQUIRE_SHARED_ENV} requires it", pytrace=False)
    pytest.skip(problem)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    left_out = 0
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
        left_out += LEFT_OUT in reason
    if left_out:
        terminalreporter.write_line(f"real-input tests left out: {left_out} (their documents under ../shared/real "
                                    f"are not here; ${REQUIRE_SHARED_ENV}=1 makes that a failure)")
    else:
        terminalreporter.write_line("real-input tests left out: 0")


# ---------------------------------------------------------------------------- gold runs

GOLD_LOGS_ENV = "REVIEW_HARNESS_GOLD_LOGS"
GOLD_MODEL = "offline/rules"


def cached_gold_log(task: str):
    """The newest successful offline log of `task` over its default gold set (no task argument) in
    $REVIEW_HARNESS_GOLD_LOGS/<task>/, or None."""
    from inspect_ai.log import read_eval_log

    folder = os.environ.get(GOLD_LOGS_ENV)
    if not folder:
        return None
    for path in sorted((Path(folder) / task).glob("*.eval"), key=lambda p: p.stat().st_mtime, reverse=True):
        log = read_eval_log(str(path))
        passed = getattr(log.eval, "task_args_passed", None) or {}
        if log.status == "success" and log.eval.model == GOLD_MODEL and not passed:
            return log
    return None


@pytest.fixture(scope="session")
def default_gold_log(tmp_path_factory) -> Callable:
    """task name (`ds_review`, `design_review`, `code_review`, `impact_review`) -> the EvalLog of the
    offline run over that kind's default gold set (its `location` is the .eval file). Tests must not
    change it: copy it first (`model_copy(deep=True)`)."""
    from inspect_ai import eval as inspect_eval

    from helpers import load_task_file

    made: dict = {}

    def get(task: str):
        if task not in made:
            log = cached_gold_log(task)
            if log is None:
                folder = tmp_path_factory.mktemp(f"gold-{task}")
                [log] = inspect_eval(load_task_file(task)(), model=GOLD_MODEL, log_dir=str(folder), display="none")
            made[task] = log
        return made[task]

    return get
