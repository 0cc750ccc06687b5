"""One-to-one matching of predicted findings to gold findings, and the comparison built on it.

Pairs are taken greedily, most similar first, so each prediction and each gold item is used at
most once. What "similar" means is the kind's own function. `GoldComparison` holds the figures
every kind reports (precision, recall, must-catch recall, severity agreement); each kind's
comparison extends it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, Field
from rapidfuzz import fuzz
from typing_extensions import Self

P = TypeVar("P")
G = TypeVar("G")


def one_to_one(
    predicted: Sequence[P],
    gold: Sequence[G],
    similarity: Callable[[P, G], float],
    threshold: float,
    candidates: Iterable[tuple[int, int]] | None = None,
) -> list[tuple[int, int, float]]:
    """(predicted index, gold index, similarity) of the matched pairs, best first.

    `candidates`: the (predicted, gold) index pairs worth scoring, when the kind can tell which
    pairs cannot reach the threshold (different files, say); every pair by default. With them
    the work is the number of candidates instead of len(predicted) x len(gold)."""
    if candidates is None:
        candidates = ((i, j) for i in range(len(predicted)) for j in range(len(gold)))
    scored = ((similarity(predicted[i], gold[j]), i, j) for i, j in candidates)
    pairs = sorted((t for t in scored if t[0] >= threshold), key=lambda t: (-t[0], t[1], t[2]))
    used_p: set[int] = set()
    used_g: set[int] = set()
    out = []
    for score, i, j in pairs:
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


class ExpectedLike(Protocol):
    """What the comparison reads of a gold finding (the core's `ExpectedFinding` has it)."""

    id: str
    must_catch: bool


E = TypeVar("E", bound=ExpectedLike)


class Match(BaseModel):
    """One predicted finding paired with one gold finding."""

    finding: str
    gold: str
    similarity: float
    severity_agrees: bool | None = Field(default=None, description="None: the kind rates no severity")


class GoldComparison(BaseModel):
    """What one review got right and wrong against its gold file: the figures every kind
    reports. Each kind's gold scorer extends it with its own (verdict, windows, ...)."""

    matcher: str
    matches: list[Match] = Field(default_factory=list)
    unmatched_findings: list[str] = Field(default_factory=list)
    missed_gold: list[str] = Field(default_factory=list)
    missed_must_catch: list[str] = Field(default_factory=list)
    precision: float | None = None
    recall: float | None = None
    must_catch_recall: float | None = None
    severity_agreement: float | None = None

    @classmethod
    def from_matches(
        cls,
        predicted: Sequence[str],
        gold: Sequence[ExpectedLike],
        matches: Sequence[Match],
        *,
        matcher: str,
        precision_without_findings: float | None = 1.0,
        **extra: Any,
    ) -> Self:
        """The comparison of the `predicted` finding ids with the `gold` findings, given their
        one-to-one `matches`; `extra` fills the kind's own fields. With no predicted findings
        precision is `precision_without_findings` (1.0: no findings, no false positives)."""
        matched_pred = {m.finding for m in matches}
        matched_gold = {m.gold for m in matches}
        must = [g.id for g in gold if g.must_catch]
        return cls(
            matcher=matcher,
            matches=list(matches),
            unmatched_findings=[f for f in predicted if f not in matched_pred],
            missed_gold=[g.id for g in gold if g.id not in matched_gold],
            missed_must_catch=[g for g in must if g not in matched_gold],
            precision=ratio(len(matches), len(predicted)) if predicted else precision_without_findings,
            recall=ratio(len(matches), len(gold)),
            must_catch_recall=ratio(sum(1 for g in must if g in matched_gold), len(must)),
            severity_agreement=ratio(sum(m.severity_agrees is True for m in matches),
                                     sum(m.severity_agrees is not None for m in matches)),
            **extra,
        )


def matches_of(
    predicted: Sequence[P],
    gold: Sequence[E],
    similarity: Callable[[P, E], float],
    threshold: float,
    *,
    finding_id: Callable[[int, P], str],
    severity_agrees: Callable[[P, E], bool],
) -> list[Match]:
    """The one-to-one matches of `predicted` to `gold` findings (best first); `finding_id` names
    a prediction from its position and itself."""
    return [
        Match(finding=finding_id(i, predicted[i]), gold=gold[j].id, similarity=score,
              severity_agrees=severity_agrees(predicted[i], gold[j]))
        for i, j, score in one_to_one(predicted, gold, similarity, threshold)
    ]
