"""Where the project's data lives: prompts/<kind>/, fixtures/<kind>/, gold/<kind>/, and the shared
inputs beside the checkout (../shared: real documents the gold files point at, never copied in)."""

from __future__ import annotations

import os
from pathlib import Path

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
