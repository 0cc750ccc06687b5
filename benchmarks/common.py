"""What every benchmark script uses: its command line (`--quick`), loading a task file as
`inspect eval` does, one timed offline run, the harness overhead against a bare Inspect task, and
the bare baseline's constant scorer."""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task, eval

from inspect_ai.scorer import Score, mean, scorer

ROOT = Path(__file__).resolve().parent.parent
# harness wall time over bare Inspect making the same model calls (the budget in docs/performance.md)
OVERHEAD_BUDGET = 1.5
# --quick: each eval of a gold set reviews its first few samples only (the path is exercised, the
# figures are rougher); None in full mode
QUICK_SAMPLES = 3
sample_limit: int | None = None


def bench_args(doc: str, parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """The script's options: `--quick` runs each figure once on fewer cases, so CI can check
    that every benchmark still runs (its figures are then rougher, never skipped)."""
    parser = parser or argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="one run per figure and fewer cases: a check that the benchmark works (CI)")
    args = parser.parse_args()
    global sample_limit
    sample_limit = QUICK_SAMPLES if args.quick else None
    return args


def samples_run(task: Task) -> int:
    """How many of the task's samples an eval runs (all of them, or the quick mode's few)."""
    return len(task.dataset) if sample_limit is None else min(sample_limit, len(task.dataset))


def load_task(name: str):
    """The task function `name` from tasks/<name>.py."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "tasks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def run(task: Task, log_dir: str, latency: float = 0.0, model: str = "offline/rules"):
    """Seconds for one offline eval of `task`, and its log (which must succeed)."""
    start = time.perf_counter()
    log = eval(task, model=model, model_args={"latency": latency}, display="none", log_dir=log_dir,
               limit=sample_limit)[0]
    if log.status != "success":
        raise RuntimeError(f"eval failed: {log.status} {log.error}")
    return time.perf_counter() - start, log


@dataclass(frozen=True)
class Overhead:
    harness_s: float
    bare_s: float
    samples: int

    @property
    def ratio(self) -> float:
        return self.harness_s / self.bare_s

    def line(self) -> str:
        per = 1000 * self.harness_s / self.samples
        extra = 1000 * (self.harness_s - self.bare_s) / self.samples
        return (f"harness {self.harness_s:.2f} s vs bare Inspect {self.bare_s:.2f} s over {self.samples} samples = "
                f"{self.ratio:.2f}x; {per:.0f} ms per sample, {extra:+.0f} ms over bare   "
                f"(budget <= {OVERHEAD_BUDGET}x)")


def overhead(make_task: Callable[[], Task], bare: Task, log_dir: str, repeats: int = 3) -> Overhead:
    """Median seconds of the harness task and of the bare task making the same model calls,
    after one warm-up run of each."""
    run(bare, log_dir)
    run(make_task(), log_dir)
    harness = statistics.median(run(make_task(), log_dir)[0] for _ in range(repeats))
    baseline = statistics.median(run(bare, log_dir)[0] for _ in range(repeats))
    return Overhead(harness, baseline, samples_run(bare))


@scorer(metrics=[mean()])
def constant_scorer():
    async def score(state, target):
        return Score(value=1.0)
    return score
