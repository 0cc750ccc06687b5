"""The rule table: which detector implements which rubric issue type.

A detector is a small function ``(ctx) -> Hit | list[Hit] | None``. It is registered under the
rubric ``issue_type`` it reports; the engine finds the owning dimension and lens, the severity
and the points from the rubric's deduction row, so a detector never hard-codes them.
Strength detectors are registered the same way under rubric credit ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Union

from review_harness.core.registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    from review_harness.ds.offline.view import DocView


class DetectorError(RuntimeError):
    """A detector raised: a bug in the offline rules, never a finding about the document."""


@dataclass
class Hit:
    """What a detector found; the engine turns it into a ``ReviewerFinding``."""

    title: str
    issue: str
    suggested_fix: str
    evidence: str = ""
    location: str = "whole document"
    absence: bool = False  # the problem is something missing (draft mode says "consider adding")
    consider: str = ""  # draft-mode phrasing of an absence, e.g. "Consider adding a TL;DR ..."
    strength: float = 1.0  # orders hits of the same severity: higher first
    issue_type: str = ""  # filled in by the engine


@dataclass
class Strength:
    title: str
    detail: str
    strength: float = 1.0
    credit: str = ""  # filled in by the engine


@dataclass
class Context:
    view: "DocView"
    dimension: str
    mode: str = "full"
    audience: str = "mixed"
    workflow: str = "general"
    tier: int = 1
    draft: bool = False
    memo: dict = field(default_factory=dict)
    voice: list = field(default_factory=list)  # spans that speak as a reviewer, left out of the view (voice.py)

    @cached_property
    def features(self):
        from review_harness.ds.offline.features import Features

        return Features(self.view, self.workflow)


Detector = Callable[[Context], Union[Hit, list, None]]
StrengthDetector = Callable[[Context], Union[Strength, None]]

# detectors under the rubric issue type they report; strengths under the rubric credit id
DETECTORS: Registry[Detector] = Registry("detector")
STRENGTHS: Registry[StrengthDetector] = Registry("strength detector")
rule = DETECTORS.register
strength = STRENGTHS.register
