"""Where the project's data lives: prompts/<kind>/, fixtures/<kind>/, gold/<kind>/, and the shared
inputs beside the checkout (../shared: real documents the gold files point at, never copied in)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
# the folder the process started in: inspect moves into a task file's folder while it loads the task
LAUNCH_DIR = Path.cwd()
PROMPTS_DIR = PROJECT_ROOT / "prompts"
FIXTURES_DIR = PROJECT_ROOT / "fixtures"
GOLD_DIR = PROJECT_ROOT / "gold"
BASELINES_DIR = PROJECT_ROOT / "logs" / "baselines"

SHARED_PREFIX = "../shared/"
# where the shared inputs may live: $REVIEW_HARNESS_SHARED, else beside the checkout
SHARED_ENV = "REVIEW_HARNESS_SHARED"
# set (to anything but 0 or empty) where the shared inputs must be present (CI): a gold set or test
# that needs one that is absent fails instead of leaving it out
REQUIRE_SHARED_ENV = "REVIEW_HARNESS_REQUIRE_SHARED"


def shared_dir() -> Path | None:
    """The shared inputs folder: $REVIEW_HARNESS_SHARED (a checkout that does not sit beside it), else
    <repo>/../shared; None when neither exists."""
    candidates = [Path(os.environ[SHARED_ENV])] if os.environ.get(SHARED_ENV) else []
    candidates.append(PROJECT_ROOT.parent / "shared")
    return next((c for c in candidates if c.is_dir()), None)


def repo_path(path: str) -> Path:
    """A path written relative to the repository root; one under ../shared/ is found in the shared
    inputs folder wherever it lives (an unfound one stays <repo>/../shared/..., so an error names it)."""
    if path.startswith(SHARED_PREFIX):
        shared = shared_dir()
        if shared is not None:
            return shared / path[len(SHARED_PREFIX):]
    return PROJECT_ROOT / path


def shared_required() -> bool:
    return os.environ.get(REQUIRE_SHARED_ENV, "").strip() not in ("", "0")


def absent_shared(path: str | None) -> bool:
    """Whether `path` (as a gold file writes it) names a shared input (../shared/...) that is not here."""
    return bool(path) and path.startswith(SHARED_PREFIX) and not repo_path(path).exists()


_said: set[str] = set()


def leave_out_absent(what: str, items: Sequence[T], document: Callable[[T], str | None]) -> list[T]:
    """The items whose shared input is here (`document(item)`: the path its gold file gives, None
    for an item of the repository's own). Those whose shared input is absent are left out, with one
    line on stderr (once per process) saying how many of `what` and why; where the shared inputs
    are required ($REVIEW_HARNESS_REQUIRE_SHARED, as CI sets it), an absent one is an error instead."""
    here = [not absent_shared(document(item)) for item in items]
    absent = [item for item, present in zip(items, here) if not present]
    if not absent:
        return list(items)
    first = document(absent[0])
    cases = f"{len(absent)} case{'s' if len(absent) != 1 else ''}"
    why = (f"{'their documents' if len(absent) != 1 else 'its document'} under {SHARED_PREFIX} {'are' if len(absent) != 1 else 'is'} "
           f"not here (e.g. {first}; the shared inputs are found through ${SHARED_ENV} or beside the checkout)")
    if shared_required():
        from review_harness.core.inspect_adapter import PrerequisiteError

        raise PrerequisiteError(f"{what}: {cases} cannot run: {why}, and ${REQUIRE_SHARED_ENV} requires them")
    line = f"{what}: {cases} left out: {why}"
    if line not in _said:
        _said.add(line)
        print(line, file=sys.stderr)
    return [item for item, present in zip(items, here) if present]


def _same(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def user_dir() -> Path:
    """The folder the user ran the command from, for their relative paths. A shell's $PWD names it
    (spelled as they see it, symlinks kept) when it is the current folder or the one the process
    started in; a $PWD that is neither was left by a launcher that started the command elsewhere
    without a shell, and the folder the process started in is used instead."""
    pwd = os.environ.get("PWD")
    if pwd and (_same(pwd, Path.cwd()) or _same(pwd, LAUNCH_DIR)):
        return Path(pwd)
    return LAUNCH_DIR
