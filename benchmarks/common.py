"""What every benchmark script uses: loading a task file as `inspect eval` does, one timed
offline run, and the bare baseline's constant scorer."""

from __future__ import annotations

import importlib.util
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from inspect_ai import Task, eval

from inspect_ai.scorer import Score, mean, scorer

ROOT = Path(__file__).resolve().parent.parent


def load_task(name: str):
    """The task function `name` from tasks/<name>.py."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "tasks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def run(task: Task, log_dir: str, latency: float = 0.0, model: str = "offline/rules"):
    """Seconds for one offline eval of `task`, and its log (which must succeed)."""
    start = time.perf_counter()
    log = eval(task, model=model, model_args={"latency": latency}, display="none", log_dir=log_dir)[0]
    if log.status != "success":
        raise RuntimeError(f"eval failed: {log.status} {log.error}")
    return time.perf_counter() - start, log


def overhead(make_task: Callable[[], Task], bare: Task, log_dir: str, repeats: int = 3) -> tuple[float, float]:
    """Median seconds of the harness task and of the bare task making the same model calls,
    after one warm-up run of the bare task (the harness task is assumed warm already)."""
    run(bare, log_dir)
    harness = statistics.median(run(make_task(), log_dir)[0] for _ in range(repeats))
    baseline = statistics.median(run(bare, log_dir)[0] for _ in range(repeats))
    return harness, baseline


@scorer(metrics=[mean()])
def constant_scorer():
    async def score(state, target):
        return Score(value=1.0)
    return score
