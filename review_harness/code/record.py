"""Each code review appends its analytics entries when its task ends (seed 002, E4: "after each
review merge, append the review's entry").

Where: `review-analytics.json` beside the run's log (the file `review-harness code analytics`
rebuilds from logs), or the file `-T analytics=FILE` names; `-T analytics=off` writes none.
Entries are built as each sample ends (from its review, gold file and store) and written once the
log has its name, under a lock, with the summary recalculated from all the file's entries, so
several runs writing into one folder add up. A file that cannot be written is said on stderr in
one line; the reviews are in the log either way.

Registered as an Inspect hook when this module is imported (the code review's solvers import it).
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, SampleEnd, TaskEnd, TaskStart, hooks

from review_harness.code.analytics import ANALYTICS, append_entries, review_entries
from review_harness.code.models import KIND_NAME
from review_harness.core.console import say
from review_harness.core.kinds import get_kind

OFF = "off"
PENDING_LOG = ""  # entries built before the log has its name


def analytics_target(metadata: dict[str, Any], location: str | None) -> Path | None:
    """The file a run's reviews are appended to (None: analytics off, or a log that is not a local file)."""
    chosen = metadata.get("analytics")
    if chosen == OFF:
        return None
    if chosen:
        return Path(chosen)
    if not location or "://" in location:
        return None
    return Path(location).parent / ANALYTICS


@hooks(name="review_harness_code_analytics", description="Appends each code review's analytics entries beside its log.")
class CodeAnalytics(Hooks):
    def __init__(self) -> None:
        self.runs: dict[str, dict[str, Any]] = {}  # eval id -> the task's metadata (code runs only)
        self.entries: dict[str, list[dict]] = {}

    async def on_task_start(self, data: TaskStart) -> None:
        metadata: dict[str, Any] = data.spec.metadata or {}
        if metadata.get("kind") == KIND_NAME and metadata.get("analytics") != OFF:
            self.runs[data.eval_id] = metadata

    async def on_sample_end(self, data: SampleEnd) -> None:
        if data.eval_id not in self.runs:
            return
        sample = data.sample
        kind = get_kind(KIND_NAME)
        score = (sample.scores or {}).get(kind.synthesis_scorer or "")
        review = kind.review_from_score(score.metadata if score is not None else None)
        if review is None:
            return
        self.entries.setdefault(data.eval_id, []).extend(review_entries(
            review, log=PENDING_LOG, sample=str(sample.id), epoch=int(sample.epoch or 1),
            date=datetime.date.today().isoformat(), metadata=sample.metadata or {}, store=sample.store or {}))

    async def on_task_end(self, data: TaskEnd) -> None:
        metadata = self.runs.pop(data.eval_id, None)
        entries = self.entries.pop(data.eval_id, [])
        if metadata is None or not entries:
            return
        target = analytics_target(metadata, data.log.location)
        if target is None:
            return
        name = Path(data.log.location).name if data.log.location else PENDING_LOG
        date = (data.log.eval.created or "")[:10]
        for entry in entries:
            entry["log"] = name
            entry["date"] = date or entry["date"]
        try:
            append_entries(target, entries)
        except OSError as ex:
            say(f"code review analytics not written: {ex.filename or target} ({ex.strerror or ex})")
