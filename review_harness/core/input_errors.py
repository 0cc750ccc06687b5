"""Files of a folder that cannot be read: each becomes a sample that fails with its reason, and
the run goes on with the others (DS documents, impact artifacts). The sample carries the reason in
its metadata under `INPUT_ERROR`; the kind's first solver raises it, and the Task tolerates
exactly those failures."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol

INPUT_ERROR = "input_error"


class _HasMetadata(Protocol):
    metadata: dict[str, Any] | None


def input_error_tolerance(samples: Sequence[_HasMetadata]) -> float | None:
    """Task(fail_on_error=...): unreadable folder files are sample failures, not a failed run;
    any other sample error still fails it."""
    failed = sum(1 for s in samples if s.metadata and s.metadata.get(INPUT_ERROR))
    return (failed + 0.5) / len(samples) if failed else None


def safe_name(name: str) -> str:
    """A file name as text that every writer accepts: bytes that are not UTF-8 (kept by Python
    as surrogates) shown as U+FFFD, so one odd name cannot break a log."""
    return os.fsencode(name).decode("utf-8", "replace")
