"""Positives that hold up: a strength is never claimed for a sentence a finding faults."""

from __future__ import annotations

import re


def _squeeze(text: str) -> str:
    return re.sub(r"[\s*_`]+", " ", text).strip().lower()


def quotes_faulted(detail: str, evidence: list[str]) -> bool:
    """Whether a positive's quote ("...") is, or overlaps, the evidence quote of a finding."""
    quotes = [_squeeze(q) for q in re.findall(r'"([^"]{12,})"', detail)]
    faults = [_squeeze(e) for e in evidence if e]
    return any(q[:60] in e or e[:60] in q for q in quotes for e in faults)
