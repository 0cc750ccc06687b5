"""Mutators written in Python, by name: a way of an operator table says `use: NAME` (with its
`args`) where what to find or change cannot be written as a pattern. The core's are for markdown
documents (tables, summaries) and JSON; a kind's plant module registers its own (code: functions
in a syntax tree)."""

from __future__ import annotations

from collections.abc import Callable

from review_harness.core.plant.site import Site

Mutator = Callable[..., list[Site]]
MUTATORS: dict[str, Mutator] = {}


def register_mutator(name: str) -> Callable[[Mutator], Mutator]:
    def add(function: Mutator) -> Mutator:
        MUTATORS[name] = function
        return function

    return add
