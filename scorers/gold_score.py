"""What every gold scorer writes the same way: NaN for 'not applicable', the score of a sample
that cannot be compared, per-finding stability of one run, and the lines that explain a
comparison."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspect_ai.scorer import Score

from review_harness.core.matching import GoldComparison
from scorers.epochs import finding_stability

NAN = float("nan")
STABILITY_KEYS = ("stable_findings", "flaky_findings", "never_findings")


def defined(value: float | None) -> float:
    """None (not applicable) as NaN, which the metrics leave out of their means."""
    return NAN if value is None else float(value)


def not_compared(keys: Iterable[str], why: str, **fields: Any) -> Score:
    """The score of a sample without a usable gold file or review: every metric NaN, and why."""
    return Score(value={key: NAN for key in keys}, explanation=why, **fields)


def stability_values(comparison: GoldComparison) -> dict[str, float]:
    """One run: a caught gold finding is stable, a missed one never caught (the epoch reducer
    recomputes these across epochs)."""
    stability = finding_stability([comparison.model_dump(mode="json")])
    return {
        f"{status}_findings": (
            sum(1 for v in stability.values() if v["status"] == status) / len(stability) if stability else NAN
        )
        for status in ("stable", "flaky", "never")
    }


def comparison_lines(comparison: GoldComparison, notes: Iterable[str] = ()) -> list[str]:
    """The matcher, its notes, each match, the missed must-catch findings and the findings gold
    does not have."""
    lines = [f"matcher: {comparison.matcher}", *notes]
    lines += [f"matched {m.finding} -> {m.gold} ({m.similarity:.2f})" for m in comparison.matches]
    if comparison.missed_must_catch:
        lines.append("missed must-catch: " + ", ".join(comparison.missed_must_catch))
    if comparison.unmatched_findings:
        lines.append("not in gold: " + ", ".join(comparison.unmatched_findings))
    return lines
