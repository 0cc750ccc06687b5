"""Positives that hold up: a strength is never claimed for a sentence a finding faults, and the
lead writes positives of its own only when the reviewers' were lost, never in place of positives
the reviewers gave."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any


def _squeeze(text: str) -> str:
    return re.sub(r"[\s*_`]+", " ", text).strip().lower()


def quotes_faulted(detail: str, evidence: list[str]) -> bool:
    """Whether a positive's quote ("...") is, or overlaps, the evidence quote of a finding."""
    quotes = [_squeeze(q) for q in re.findall(r'"([^"]{12,})"', detail)]
    faults = [_squeeze(e) for e in evidence if e]
    return any(q[:60] in e or e[:60] in q for q in quotes for e in faults)


def unfaulted(positives: Mapping[str, list[Any]], evidence: list[str]) -> dict[str, list[Any]]:
    """Each dimension's positives less those that praise a sentence a finding faults."""
    return {d: [p for p in ps if not quotes_faulted(p.detail, evidence)] for d, ps in positives.items()}


def positives_lost(given: Mapping[str, list[Any]], reports: Mapping[str, Any], runs: Iterable[Any]) -> bool:
    """Whether the reviewers' positives were lost rather than withheld: no reviewer gave any, and
    some reviewer's answer was cut off, malformed or missing. A complete run that gave positives
    (even ones a finding faults) lost nothing, so the lead writes none in their place."""
    if any(given.values()):
        return False
    failed = any(r.status == "malformed" or getattr(r, "truncated", False) for r in runs)
    return failed or any(report is None for report in reports.values())


def withheld_note(given: Mapping[str, list[Any]], shown: int) -> str | None:
    """What the report says when the reviewers' positives were all set aside."""
    count = sum(len(ps) for ps in given.values())
    if shown or not count:
        return None
    return (f"The reviewers gave {count} positive(s), each praising a sentence a finding faults; "
            "none is shown as a strength.")
