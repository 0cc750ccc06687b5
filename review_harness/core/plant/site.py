"""What an input is to the planting engine, and one candidate mutation of it (a site).

A `PlantInput` is an input read by its kind's layout: named text files (a DS document is one
file; a design pair is `design` and `requirements`; a code change is its spec and the files of
its old and new trees). A `Site` is one place where an operator can plant its flaw: the new text
of every file it changes, the text it put in (which must then be in the output) or took out
(which must then be gone), the verbatim evidence quote and where it is.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from review_harness.core.matching import normalize_space


class PlantError(ValueError):
    """Bad input to `review-harness plant` (one line naming the input and what is wrong)."""


@dataclass
class PlantInput:
    id: str  # the name planted copies are named after
    source: str  # the input as given
    files: dict[str, str]  # logical name -> text
    primary: str  # the file an operator changes unless it names another
    origin: Path | None = None  # the file or folder read (its bytes must never change)
    extra: dict[str, Any] = field(default_factory=dict)  # what the layout needs to write a copy

    def digest(self) -> str:
        """One hash of every file's text: the source a planted gold file records."""
        h = hashlib.sha256()
        for name in sorted(self.files):
            h.update(name.encode() + b"\0" + self.files[name].encode() + b"\0")
        return h.hexdigest()


@dataclass
class Site:
    """One candidate mutation."""

    files: dict[str, str]  # logical name -> the file's new text (every file the mutation changes or adds)
    planted: str = ""  # text put in: must occur in files[planted_file] and not in the original
    planted_file: str = ""
    removed: list[str] = field(default_factory=list)  # texts taken out: must be gone from the output
    removed_file: str = ""
    evidence: str = ""  # verbatim quote in the output's evidence_file ("" : the finding is an absence)
    evidence_file: str = ""
    line: int | None = None  # where the change is, in the output (1-based)
    where: str = ""  # what the change touched, for a person (section, row, function)
    values: dict[str, Any] = field(default_factory=dict)  # for the finding's templates
    check: Callable[[dict[str, str]], str | None] | None = None  # a post-condition: why the output fails it
    order: tuple = ()  # position in the input, for a stable order of candidates


@dataclass
class Edit:
    start: int
    end: int
    text: str


def apply_edits(text: str, edits: list[Edit]) -> str:
    """`text` with the edits (non-overlapping spans) applied."""
    out = text
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        out = out[:edit.start] + edit.text + out[edit.end:]
    return out


def occurs(needle: str, haystack: str) -> bool:
    """Whether `needle` occurs in `haystack`, whitespace folded (as gold evidence is checked)."""
    return bool(needle.strip()) and normalize_space(needle) in normalize_space(haystack)


def count(needle: str, haystack: str) -> int:
    return normalize_space(haystack).count(normalize_space(needle)) if needle.strip() else 0


def rng_for(seed: int, *parts: object) -> random.Random:
    """A random generator fixed by the seed and what it is for (input, operator, site): the same
    seed always draws the same values, whatever else is planted."""
    return random.Random("/".join([str(seed), *map(str, parts)]))
