"""What every gold scorer writes the same way: NaN for 'not applicable', the score of a sample
that cannot be compared, and the lines that explain a comparison. (Per-finding stability is an
across-epoch figure: the epoch reducer adds it with several epochs.)"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspect_ai.scorer import Score

from review_harness.core.matching import GoldComparison
from review_harness.core.metrics import recorded

NAN = float("nan")


def defined(value: float | None) -> float:
    """None (not applicable) as NaN, which the metrics leave out of their means; a figure to the
    decimals scores record (core/metrics.RECORDED_DECIMALS)."""
    return NAN if value is None else recorded(float(value))


def not_compared(keys: Iterable[str], why: str, **fields: Any) -> Score:
    """The score of a sample without a usable gold file or review: every metric NaN, and why
    (metadata `gold` None: a gold score with nothing compared)."""
    metadata = {"gold": None, **fields.pop("metadata", {})}
    return Score(value={key: NAN for key in keys}, explanation=why, metadata=metadata, **fields)


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
