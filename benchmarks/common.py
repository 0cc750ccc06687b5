"""What both benchmark scripts use: loading a task file as `inspect eval` does, and the bare
baseline's constant scorer."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from inspect_ai.scorer import Score, mean, scorer

ROOT = Path(__file__).resolve().parent.parent


def load_task(name: str):
    """The task function `name` from tasks/<name>.py."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "tasks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@scorer(metrics=[mean()])
def constant_scorer():
    async def score(state, target):
        return Score(value=1.0)
    return score
