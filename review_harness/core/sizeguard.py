"""Long inputs: say what a review will cost before it starts, refuse what would not fit, show
progress while it runs, and end the process when it is done, the same way for every kind.

- `size_guard(who, samples)`: at task creation, for every sample whose input is at least
  `LONG_INPUT_CHARS` long or whose review is estimated at `LONG_REVIEW_SECONDS` or more (a big
  table), one line on stderr before anything runs: its size in MB, words, table cells and
  tokens, what the offline reviewer is likely to take (time and memory: `Estimate`, from its
  kind's rates, `ReviewKind.offline_cost`, measured on long prose and long tables, see
  docs/robustness.md) and how many input tokens one model call could be sent; an input over the limit
  (`REVIEW_HARNESS_MAX_INPUT_MB`, default `DEFAULT_MAX_INPUT_MB`) stops the run with one line
  saying how to raise it. Returns the Task metadata that marks the long samples.
- `LongInputProgress` (an Inspect hook, registered when this module is imported): for those
  samples, a line when the review starts (with its estimate), one when each step (solver,
  scorer) ends with its seconds, one as soon as the review runs past its estimate, and one at
  the end, through `core/progress.report` (stderr under `--display none`).
- `exit_promptly()`: a process that read a long input skips the collection of its readers' caches
  at exit.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.event import SpanBeginEvent, SpanEndEvent
from inspect_ai.hooks import Hooks, SampleEnd, SampleEvent, SampleStart, TaskStart, hooks
from inspect_ai.util import display_type

from review_harness.core import progress
from review_harness.core.files import shown
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.kinds import OfflineCost
from review_harness.core.tokens import estimate_tokens

LONG_INPUT_CHARS = 1_000_000  # about 150,000 words: every kind's reviews of prose take seconds below it
LONG_REVIEW_SECONDS = 20.0  # an input estimated to take longer is announced too, however short (a big table)
DEFAULT_MAX_INPUT_MB = 100.0
MAX_INPUT_ENV = "REVIEW_HARNESS_MAX_INPUT_MB"
# a review is over its estimate when it has run this much longer (a busy machine takes longer)
OVER_ESTIMATE_FACTOR = 1.5
OVER_ESTIMATE_SLACK_SECONDS = 10.0
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


def table_cells(text: str) -> int:
    """How many table cells the text holds: the cells of every markdown table row (a line with two
    or more `|`, its delimiter row included) and of HTML tables (`<td>`, `<th>`)."""
    cells = text.count("<td") + text.count("<th")
    if "|" not in text:
        return cells
    for line in text.splitlines():
        bars = line.count("|")
        if bars >= 2:
            stripped = line.strip()
            cells += bars + 1 - stripped.startswith("|") - stripped.endswith("|")
    return cells


@dataclass(frozen=True)
class Estimate:
    """What reviewing one input is likely to take with a kind's offline reviewer."""

    bytes: int
    cells: int
    words: int
    cost: OfflineCost = OfflineCost()

    @property
    def mb(self) -> float:
        return _mb(self.bytes)

    @property
    def read_share(self) -> float:
        """The share of the input the kind's reviewers read (all of it without an input budget)."""
        most = self.cost.read_at_most_words
        return 1.0 if most is None or self.words <= most else most / self.words

    @property
    def seconds(self) -> float:
        read = (self.mb * self.cost.seconds_per_mb + self.cells * self.cost.seconds_per_cell) * self.read_share
        return max(1.0, read + self.cost.seconds_per_word_squared * (self.words * self.read_share) ** 2)

    @property
    def memory_mb(self) -> float:
        return self.cost.base_memory_mb + self.mb * self.cost.memory_mb_per_mb + self.cells * self.cost.memory_mb_per_cell

    @property
    def over_after(self) -> float:
        """The seconds after which a review of this input is over its estimate."""
        return max(self.seconds * OVER_ESTIMATE_FACTOR, self.seconds + OVER_ESTIMATE_SLACK_SECONDS)


def estimate(text: str, cost: OfflineCost | None = None) -> Estimate:
    return Estimate(len(text.encode("utf-8", "replace")), table_cells(text), len(text.split()), cost or OfflineCost())


def duration(seconds: float) -> str:
    return f"about {seconds / 60:.0f} min" if seconds >= 90 else f"about {seconds:.0f} s"


def cost_line(name: str, text: str, cost: Estimate | None = None) -> str:
    """What reviewing `text` will take, in one line."""
    cost = cost or estimate(text)
    tables = f", {cost.cells:,} table cells" if cost.cells else ""
    return (f"{name} is a long input: {cost.mb:.1f} MB, {cost.words:,} words{tables}, ~{estimate_tokens(text):,} tokens. "
            f"The offline reviewer takes {duration(cost.seconds)} and ~{cost.memory_mb / 1000:.1f} GB of memory for "
            f"it; with a model, a reviewer call can be sent up to that many input tokens (see the kind's page for "
            f"what each reviewer reads). Progress is shown per step")


def size_guard(who: str, samples: Sequence[Sample], rates: OfflineCost | None = None) -> dict[str, Any]:
    """See the module docstring. `who` names the task in the lines it prints; `rates` are its
    kind's (`ReviewKind.offline_cost`)."""
    limit = max_input_mb()
    long: dict[str, dict[str, float]] = {}
    for sample in samples:
        text = input_text(sample)
        cost = estimate(text, rates)
        if len(text) < LONG_INPUT_CHARS and cost.seconds < LONG_REVIEW_SECONDS:
            continue
        name = shown(str((sample.metadata or {}).get("source") or sample.id))
        if cost.mb > limit:
            raise PrerequisiteError(f"{name}: {cost.mb:.1f} MB of text is over the input limit of {limit:g} MB "
                                    f"(memory would run to ~{cost.memory_mb / 1000:.1f} GB); "
                                    f"split the document, or raise the limit with {MAX_INPUT_ENV}=MB")
        long[str(sample.id)] = {"bytes": cost.bytes, "seconds": round(cost.seconds, 1),
                                "over_after": round(cost.over_after, 1)}
        print(f"{who}: {cost_line(name, text, cost)}.", file=sys.stderr, flush=True)
    if long:
        exit_promptly()
    return {METADATA_KEY: long} if long else {}


_EXIT_PROMPTLY: list[bool] = []


def exit_promptly() -> None:
    """A process that read a long input ends when its work is done: the readers' caches hold
    millions of small objects (a 200,000-row table parses into 4.4 million tokens), and the
    collection Python runs over every live object as it shuts down took longer than the review
    after it (38 s). Registered first, this runs last at exit, after every report is printed:
    it moves what is alive into the collector's permanent generation, which that last collection
    skips; the memory goes back with the process."""
    if not _EXIT_PROMPTLY:
        _EXIT_PROMPTLY.append(True)
        atexit.register(gc.freeze)


@dataclass
class _Running:
    name: str
    start: datetime
    cost: dict[str, float]
    step: str = ""
    over: bool = False  # said that it is over its estimate
    watch: threading.Timer | None = None

    def elapsed(self, now: datetime | None = None) -> float:
        return ((now or datetime.now(timezone.utc)) - self.start).total_seconds()

    def over_line(self, elapsed: float) -> str:
        where = f" (in {self.step})" if self.step else ""
        return (f"{self.name}: {elapsed:.0f} s so far{where}, over its estimate of {duration(self.cost['seconds'])}; "
                f"the review goes on (Ctrl-C stops it when this step ends)")


@hooks(name="review_harness_long_inputs", description="Progress of reviews of long inputs.")
class LongInputProgress(Hooks):
    """Lines for the long inputs `size_guard` marked: the start, each step's end, the end; and one
    line as soon as a review runs past its estimate (`Estimate.over_after`), said from a timer
    thread because a step that reads a long input keeps the event loop busy until it ends."""

    def __init__(self) -> None:
        self.long: dict[str, dict[str, dict[str, float]]] = {}  # eval id -> sample id -> estimate
        self.running: dict[str, _Running] = {}  # sample uuid -> its review
        self.spans: dict[str, tuple[str, datetime]] = {}  # span id -> (name, start)

    async def on_task_start(self, data: TaskStart) -> None:
        long = (data.spec.metadata or {}).get(METADATA_KEY)
        if long:
            self.long[data.eval_id] = dict(long)

    async def on_sample_start(self, data: SampleStart) -> None:
        cost = self.long.get(data.eval_id, {}).get(str(data.summary.id))
        if not isinstance(cost, dict):
            return
        name = shown(str(data.summary.id))
        running = self.running[data.sample_id] = _Running(name, datetime.now(timezone.utc), cost)
        progress.report(name, "started", f"{name}: reviewing {_mb(int(cost['bytes'])):.1f} MB "
                        f"(estimate: {duration(cost['seconds'])})...", important=True)
        running.watch = threading.Timer(cost["over_after"], self._overdue, args=(data.sample_id,))
        running.watch.daemon = True
        running.watch.start()

    def _overdue(self, sample_id: str) -> None:
        running = self.running.get(sample_id)
        if running is None or running.over:
            return
        running.over = True
        if display_type() not in progress.COUNTER_DISPLAYS:  # a live display is redrawn by its own thread only
            progress.report(running.name, "over its estimate", running.over_line(running.elapsed()), important=True)

    async def on_sample_event(self, data: SampleEvent) -> None:
        running = self.running.get(data.sample_id)
        if running is None:
            return
        event = data.event  # events reach hooks in batches: their own timestamps say when they happened
        if isinstance(event, SpanBeginEvent) and event.type in ("solver", "scorer"):
            self.spans[event.id] = (f"{event.type} {event.name}", event.timestamp)
            running.step = f"{event.type} {event.name}"
        elif isinstance(event, SpanEndEvent) and event.id in self.spans:
            step, start = self.spans.pop(event.id)
            took, elapsed = (event.timestamp - start).total_seconds(), running.elapsed(event.timestamp)
            progress.report(running.name, f"{step} done", f"{running.name}: {step} done in {took:.0f} s "
                            f"({elapsed:.0f} s so far)", important=True)

    async def on_sample_end(self, data: SampleEnd) -> None:
        running = self.running.pop(data.sample_id, None)
        if running is None:
            return
        if running.watch is not None:
            running.watch.cancel()
        outcome = "failed" if data.sample.error else "reviewed"
        took = running.elapsed()
        over = (f", over its estimate of {duration(running.cost['seconds'])}"
                if took > running.cost["over_after"] else "")
        progress.report(running.name, outcome, f"{running.name}: {outcome} in {took:.0f} s{over}", important=True)
