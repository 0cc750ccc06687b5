"""The kind and member of the model call being made, as a context variable.

`call_member` tags each call; the offline provider reads the tag to pick the kind's rule engine.
Kept apart from `member.py` so the provider, which Inspect loads before any task, imports nothing
that registers hooks or loads solvers.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class CallTag:
    kind: str
    member: str


_current_call: contextvars.ContextVar[CallTag | None] = contextvars.ContextVar("review_harness_call", default=None)


def current_call() -> CallTag | None:
    """The kind and member of the model call being made (None outside `call_member`/`tagged`)."""
    return _current_call.get()


@contextmanager
def tagged(kind: str, member: str) -> Iterator[None]:
    """Tag the model calls made inside with their kind and member."""
    token = _current_call.set(CallTag(kind, member))
    try:
        yield
    finally:
        _current_call.reset(token)
