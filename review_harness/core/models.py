"""Small building blocks every kind's models use."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

V = TypeVar("V")


class ClosedModel(BaseModel):
    """A model that refuses keys it does not declare, so a misspelt key in a file the user
    writes (a case file, a config) is an error naming it rather than a value silently ignored."""

    model_config = ConfigDict(extra="forbid")


class RankedEnum(str, Enum):
    """A string enum ordered by declaration: `rank` 0 is the first member (e.g. the most
    severe severity), so sorting by rank puts it first."""

    @property
    def rank(self) -> int:
        return list(type(self)).index(self)


class Severity(RankedEnum):
    """The three-level severity of the design and code reviews. Rank 0 is the most severe:
    sorting by rank puts Critical first."""

    CRITICAL = "Critical"
    IMPORTANT = "Important"
    MINOR = "Minor"


SEVERITIES: tuple[str, ...] = tuple(s.value for s in Severity)


def lookup(mapping: Mapping[str, V], key: str, what: str, error: type[Exception]) -> V:
    """mapping[key], or `error` naming the unknown key and the known ones."""
    try:
        return mapping[key]
    except KeyError:
        raise error(f"unknown {what} '{key}'; known: {', '.join(mapping)}") from None
