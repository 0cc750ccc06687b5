"""Weighted scores over dimensions, for every kind that scores more than one dimension."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def weighted_mean(scores: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    """Weighted mean over the dimensions that have a score; a missing dimension's weight is
    spread over the others (a partial review shows the score of what was reviewed)."""
    available = {d: s for d, s in scores.items() if s is not None}
    if not available:
        return None
    total = sum(weights[d] for d in available)
    return round(sum(s * weights[d] for d, s in available.items()) / total, 2)


def band(score: float, cutoffs: Sequence[tuple[float, str]], below: str) -> str:
    """The name of the first cutoff (highest first) the score reaches, else `below`."""
    for minimum, name in cutoffs:
        if score >= minimum:
            return name
    return below
