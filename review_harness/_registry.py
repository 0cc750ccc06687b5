"""The `inspect_ai` entry point of the package (pyproject's `[project.entry-points.inspect_ai]`),
as inspect_evals registers its evals. Inspect imports it when a name of ours is asked for and at
start-up (hooks). It registers:

- the offline model provider (`--model offline/rules`);
- every review kind's task under the package's name, so a task runs by name from any folder:
  `inspect eval review_harness/ds_review -T document=/abs/path.md --model offline/rules`. The
  task is the one of `tasks/<name>.py` (the file `inspect eval tasks/ds_review.py` runs), loaded
  when the task is created; a run by name records no task file, so `inspect eval-retry` finds it
  by name again;
- a one-line hint for the one mistake Inspect answers with a long traceback: a task file given
  by an absolute path (Inspect 0.3.285 cannot glob it: "Non-relative patterns are unsupported");
- Ctrl-C back to the run: Inspect imports this just before the run starts, so SIGINT, answered
  with one line while Inspect was importing (review_harness/_startup.py), goes back to Python's
  default and the run's event loop cancels the run and writes its log.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from inspect_ai import Task, task

from review_harness import _startup
from review_harness.core.paths import PROJECT_ROOT
from review_harness.offline import provider  # noqa: F401  (registers the offline model provider)

# the tasks registered by name: each review kind's (kinds.py declares them; a test checks the two agree)
TASKS = ("ds_review", "design_review", "code_review", "impact_review")
TASKS_DIR = PROJECT_ROOT / "tasks"
ABSOLUTE_PATH_ERROR = "Non-relative patterns are unsupported"


def task_module(name: str) -> ModuleType:
    """tasks/<name>.py, loaded once under a private module name."""
    module_name = f"_review_harness_tasks.{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    path = TASKS_DIR / f"{name}.py"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None or not path.is_file():
        raise FileNotFoundError(f"review_harness/{name}: the task file {path} is missing")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def task_function(name: str) -> Callable[..., Task]:
    """The undecorated task function of tasks/<name>.py (so the Task is tagged once, by name)."""
    function = getattr(task_module(name), name)
    return getattr(function, "__wrapped__", function)


def _by_name(name: str) -> Callable[..., Task]:
    """A task function defined in this package, so Inspect registers it as review_harness/<name>.
    It passes every `-T` on to tasks/<name>.py's function, which checks them (unknown names,
    empty values) as it does for a run by file; the file is loaded only when the task is created,
    so Inspect's start-up stays light."""

    def create(**kwargs: Any) -> Task:
        return task_function(name)(**kwargs)

    create.__name__ = create.__qualname__ = name
    create.__doc__ = f"The {name} task of tasks/{name}.py (its parameters: `-T name=value`, see that file)."
    return task(create)


for _name in TASKS:
    globals()[_name] = _by_name(_name)


# ---------------------------------------------------------------------------- a task file by absolute path


def _absolute_task_path() -> str | None:
    """The task given by an absolute path on an `inspect eval` (or `eval-set`) command line, if
    any: a `.py` file anywhere on it, or its first argument (a file or folder)."""
    if Path(sys.argv[0]).name != "inspect" or sys.argv[1:2] not in (["eval"], ["eval-set"]):
        return None
    first = sys.argv[2:3] if sys.argv[2:3] and not sys.argv[2].startswith("-") else []
    candidates = first + [arg for arg in sys.argv[3:] if arg.split("@")[0].endswith(".py")]
    return next((arg for arg in candidates if Path(arg.split("@")[0]).is_absolute()), None)


def _is_absolute_path_error(exception: BaseException) -> bool:
    if isinstance(exception, NotImplementedError) and ABSOLUTE_PATH_ERROR in str(exception):
        return True
    nested = getattr(exception, "exceptions", None) or ()  # an exception group
    return any(_is_absolute_path_error(e) for e in nested)


def absolute_path_hint(path: str) -> str:
    stem = Path(path.split("@")[0]).stem
    known = f"inspect eval review_harness/{stem}" if stem in TASKS else "inspect eval review_harness/<kind>_review"
    return (f"review-harness: inspect eval cannot load a task file by an absolute path ({path}); run the task by "
            f"name from any folder ({known} --model offline/rules), or by a relative path")


def _install_hint_hook() -> None:
    previous = sys.excepthook

    def hook(kind: type[BaseException], exception: BaseException, traceback: TracebackType | None) -> None:
        path = _absolute_task_path()
        if path is not None and _is_absolute_path_error(exception):
            print(absolute_path_hint(path), file=sys.stderr)
            sys.exit(1)
        previous(kind, exception, traceback)

    sys.excepthook = hook


if _absolute_task_path() is not None:  # only a command line that gives one: nothing changes otherwise
    _install_hint_hook()

_startup.release()  # the run starts next: its event loop answers Ctrl-C
