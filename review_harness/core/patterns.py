"""Named regular expressions kept as data: a rule engine's vocabulary read from a YAML file.

The file maps a name to a pattern, to a list of pieces joined into one pattern (a long
alternation split over lines), or to a group of such names (kept in file order). Patterns are
compiled once, case-insensitive unless told otherwise; a pattern that does not compile, or a name
given twice in one mapping (YAML would keep the second silently), is an error naming the file and
the key.

    vocabulary = read_pattern_table(PROMPTS_DIR / "design" / "offline_vocabulary.yaml")
    vocabulary.retry.search(text)
    for kind, pattern in vocabulary.certainty.items(): ...
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from review_harness.core.yamlio import read_mapping


class PatternTableError(ValueError):
    """The pattern file is missing, not YAML, or holds a value that is not a pattern."""


class PatternTable(Mapping[str, "re.Pattern[str] | PatternTable"]):
    """Compiled patterns by name; a name is also an attribute (`table.retry`)."""

    def __init__(self, where: str, entries: dict[str, re.Pattern[str] | PatternTable]):
        self._where = where
        self._entries = entries

    def __getattr__(self, name: str) -> Any:  # a pattern, or a group (a PatternTable)
        if name.startswith("_"):  # copy and pickle probe before __init__ ran
            raise AttributeError(name)
        try:
            return self._entries[name]
        except KeyError:
            raise AttributeError(f"{self._where} has no pattern {name!r}") from None

    def __getitem__(self, name: str) -> re.Pattern[str] | PatternTable:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def compile_patterns(raw: Mapping, where: str, flags: int = re.IGNORECASE) -> PatternTable:
    """A PatternTable from a mapping as read from YAML (`where` names it in errors)."""
    entries: dict[str, re.Pattern[str] | PatternTable] = {}
    for name, value in raw.items():
        here = f"{where}: {name}"
        if isinstance(value, Mapping):
            entries[str(name)] = compile_patterns(value, here, flags)
            continue
        pieces = value if isinstance(value, list) else [value]
        if not pieces or not all(isinstance(piece, str) for piece in pieces):
            raise PatternTableError(f"{here}: expected a pattern, a list of pattern pieces or a group")
        try:
            entries[str(name)] = re.compile("".join(pieces), flags)
        except re.error as ex:
            raise PatternTableError(f"{here}: the pattern does not compile: {ex}") from None
    return PatternTable(where, entries)


def read_pattern_table(path: str | Path, flags: int = re.IGNORECASE) -> PatternTable:
    raw = read_mapping(path, PatternTableError, label="pattern file", expected="a mapping of names to patterns",
                       unique_keys=True)
    return compile_patterns(raw, str(path), flags)
