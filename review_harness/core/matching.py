"""One-to-one matching of predicted findings to gold findings, and the ratios built on it.

Pairs are taken greedily, most similar first, so each prediction and each gold item is used at
most once. What "similar" means is the kind's own function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rapidfuzz import fuzz

P = TypeVar("P")
G = TypeVar("G")


def one_to_one(
    predicted: Sequence[P],
    gold: Sequence[G],
    similarity: Callable[[P, G], float],
    threshold: float,
) -> list[tuple[int, int, float]]:
    """(predicted index, gold index, similarity) of the matched pairs, best first."""
    pairs = sorted(
        ((similarity(p, g), i, j) for i, p in enumerate(predicted) for j, g in enumerate(gold)),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    used_p: set[int] = set()
    used_g: set[int] = set()
    out = []
    for score, i, j in pairs:
        if score < threshold:
            break
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        out.append((i, j, score))
    return out


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when there is nothing to divide by (not applicable)."""
    return numerator / denominator if denominator else None


def normalize_space(text: str) -> str:
    """Whitespace runs collapsed to one space: quotes are compared as text, not layout."""
    return " ".join(text.split())


def quote_overlap(pred: str | None, gold: str | None) -> float:
    """0..1: how much of the shorter quote occurs in the longer one (whitespace and case folded)."""
    if not pred or not gold:
        return 0.0
    return fuzz.partial_ratio(normalize_space(pred).lower(), normalize_space(gold).lower()) / 100
