"""Long inputs: say what a review will cost before it starts, refuse what would not fit, and show
progress while it runs, the same way for every kind.

- `size_guard(who, samples)`: at task creation, for every sample whose input is at least
  `LONG_INPUT_CHARS` long, one line on stderr before anything runs: its size in MB, words and
  tokens, what the offline reviewer is likely to take (time and memory, from rates measured on the
  DS review of long markdown, see docs/robustness.md) and how many input tokens one model call
  could be sent; an input over the limit (`REVIEW_HARNESS_MAX_INPUT_MB`, default
  `DEFAULT_MAX_INPUT_MB`) stops the run with one line saying how to raise it. Returns the Task
  metadata that marks the long samples.
- `LongInputProgress` (an Inspect hook, registered when this module is imported): for those
  samples, a line when the review starts, one when each step (solver, scorer) ends with its
  seconds, and one at the end, through `core/progress.report` (stderr under `--display none`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.event import SpanBeginEvent, SpanEndEvent
from inspect_ai.hooks import Hooks, SampleEnd, SampleEvent, SampleStart, TaskStart, hooks

from review_harness.core import progress
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.tokens import estimate_tokens

LONG_INPUT_CHARS = 1_000_000  # about 150,000 words: every kind's reviews take seconds below it
DEFAULT_MAX_INPUT_MB = 100.0
MAX_INPUT_ENV = "REVIEW_HARNESS_MAX_INPUT_MB"
# measured on the DS review of a 20 MB markdown analysis with the offline reviewer, 2 cores:
# 53 s and 650 MB peak, 2 MB: 4 s and 260 MB (docs/robustness.md); other kinds read their input alike
OFFLINE_SECONDS_PER_MB = 2.7
MEMORY_MB_PER_MB = 22.0
BASE_MEMORY_MB = 215.0
METADATA_KEY = "long_inputs"


def input_text(sample: Sample) -> str:
    if isinstance(sample.input, str):
        return sample.input
    return "\n".join(getattr(message, "text", "") for message in sample.input)


def _mb(chars: int) -> float:
    return chars / 1_000_000


def max_input_mb() -> float:
    raw = os.environ.get(MAX_INPUT_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_MAX_INPUT_MB
    try:
        value = float(raw)
    except ValueError:
        raise PrerequisiteError(f"{MAX_INPUT_ENV}={raw}: expected a number of MB") from None
    if not value > 0:
        raise PrerequisiteError(f"{MAX_INPUT_ENV}={raw}: expected a number of MB greater than 0")
    return value


def cost_line(name: str, text: str) -> str:
    """What reviewing `text` will take, in one line."""
    size = _mb(len(text.encode("utf-8", "replace")))
    words = len(text.split())
    seconds = max(1.0, size * OFFLINE_SECONDS_PER_MB)
    memory = BASE_MEMORY_MB + size * MEMORY_MB_PER_MB
    when = f"about {seconds / 60:.0f} min" if seconds >= 90 else f"about {seconds:.0f} s"
    return (f"{name} is a long input: {size:.1f} MB, {words:,} words, ~{estimate_tokens(text):,} tokens. The offline "
            f"reviewer takes {when} and ~{memory / 1000:.1f} GB of memory for it; with a model, a reviewer call can "
            f"be sent up to that many input tokens (see the kind's page for what each reviewer reads). Progress "
            f"is shown per step")


def size_guard(who: str, samples: Sequence[Sample]) -> dict[str, Any]:
    """See the module docstring. `who` names the task in the lines it prints."""
    limit = max_input_mb()
    long: dict[str, int] = {}
    for sample in samples:
        text = input_text(sample)
        if len(text) < LONG_INPUT_CHARS:
            continue
        name = str((sample.metadata or {}).get("source") or sample.id)
        size = len(text.encode("utf-8", "replace"))
        if _mb(size) > limit:
            raise PrerequisiteError(f"{name}: {_mb(size):.1f} MB of text is over the input limit of {limit:g} MB "
                                    f"(memory would run to ~{(BASE_MEMORY_MB + _mb(size) * MEMORY_MB_PER_MB) / 1000:.1f} GB); "
                                    f"split the document, or raise the limit with {MAX_INPUT_ENV}=MB")
        long[str(sample.id)] = size
        print(f"{who}: {cost_line(name, text)}.", file=sys.stderr, flush=True)
    return {METADATA_KEY: long} if long else {}


@hooks(name="review_harness_long_inputs", description="Progress of reviews of long inputs.")
class LongInputProgress(Hooks):
    def __init__(self) -> None:
        self.long: dict[str, dict[str, int]] = {}  # eval id -> sample id -> bytes
        self.running: dict[str, tuple[str, datetime]] = {}  # sample uuid -> (sample id, start)
        self.spans: dict[str, tuple[str, datetime]] = {}  # span id -> (name, start)

    async def on_task_start(self, data: TaskStart) -> None:
        long = (data.spec.metadata or {}).get(METADATA_KEY)
        if long:
            self.long[data.eval_id] = dict(long)

    async def on_sample_start(self, data: SampleStart) -> None:
        size = self.long.get(data.eval_id, {}).get(str(data.summary.id))
        if size is None:
            return
        name = str(data.summary.id)
        self.running[data.sample_id] = (name, datetime.now(timezone.utc))
        progress.report(name, "started", f"{name}: reviewing {_mb(size):.1f} MB...", important=True)

    async def on_sample_event(self, data: SampleEvent) -> None:
        running = self.running.get(data.sample_id)
        if running is None:
            return
        event = data.event  # events reach hooks in batches: their own timestamps say when they happened
        if isinstance(event, SpanBeginEvent) and event.type in ("solver", "scorer"):
            self.spans[event.id] = (f"{event.type} {event.name}", event.timestamp)
        elif isinstance(event, SpanEndEvent) and event.id in self.spans:
            step, start = self.spans.pop(event.id)
            took, elapsed = (event.timestamp - start).total_seconds(), (event.timestamp - running[1]).total_seconds()
            progress.report(running[0], f"{step} done", f"{running[0]}: {step} done in {took:.0f} s "
                            f"({elapsed:.0f} s so far)", important=True)

    async def on_sample_end(self, data: SampleEnd) -> None:
        running = self.running.pop(data.sample_id, None)
        if running is None:
            return
        outcome = "failed" if data.sample.error else "reviewed"
        took = (datetime.now(timezone.utc) - running[1]).total_seconds()
        progress.report(running[0], outcome, f"{running[0]}: {outcome} in {took:.0f} s", important=True)
