"""Review memory per service and reviewer kind (filled in below)."""

from __future__ import annotations

MEMORY_MODES = ("off", "read", "update")


def memory_for_prompt(state, stage: str) -> str:
    return ""


def update_memory_after_review(state, review) -> None:
    return None
