"""Metrics shared by the scorers of every kind, and the one way a dict-valued score is reduced
across epochs.

A kind's score value mixes numbers (a review score, counts, 0/1 flags, gold comparison rates;
NaN where not applicable) and labels (a verdict, a decision: what the viewer shows in the sample
list). Metrics are declared on the numbers only; the labels are carried through the epochs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric


# gold comparison figures (shares in 0-1) are recorded to 3 decimals (the viewer shows 0.571, not
# 0.5714285714); the gate treats a move below half that unit as no move
RECORDED_DECIMALS = 3
RECORDING_NOISE = 0.5 * 10 ** -RECORDED_DECIMALS


class SharedJSON(dict):
    """A JSON object put in `Score.metadata` (a review, a gold comparison) that nothing changes
    after scoring. Inspect deep-copies every sample's Score once per metric key when it reduces a
    dict-valued score, so a review of tens of KB was copied a dozen times per sample; copies share
    it instead. It is written to the log as the plain JSON object it is."""

    def __copy__(self) -> SharedJSON:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedJSON:
        return self


def recorded(value: float) -> float:
    """A figure as a score records it (NaN stays NaN)."""
    return value if math.isnan(value) else round(value, RECORDED_DECIMALS)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def defined_mean(values: Iterable[Any]) -> float:
    """The mean of the defined numbers: NaN marks 'not applicable', labels are no numbers; NaN
    when nothing is left."""
    numbers = [float(v) for v in values if is_number(v) and not math.isnan(float(v))]
    return sum(numbers) / len(numbers) if numbers else math.nan


@metric
def nanmean() -> Metric:
    """Mean over samples where the value is defined: NaN marks 'not applicable' (no score for
    a draft or deferred review, no gold file, no must-catch finding)."""

    def compute(scores: list[SampleScore]) -> float:
        return defined_mean(s.score.value for s in scores)

    return compute


def reduce_epoch_values(values: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One value per key over the epochs of a sample: numbers are averaged (NaN-aware), a label
    is the one most epochs gave (on a tie, the latest epoch's)."""
    out: dict[str, Any] = {}
    for key in values[0] if values else ():
        given = [v.get(key) for v in values if key in v]
        if all(is_number(v) for v in given):
            out[key] = defined_mean(given)
        else:
            counts = Counter(str(v) for v in given)
            top = max(counts.values())
            out[key] = next(str(v) for v in reversed(given) if counts[str(v)] == top)
    return out


def keys_except(*names: str) -> list[str]:
    """Glob patterns (as a metrics dict takes them) that match every score key except `names`:
    a scorer whose keys are not known in advance (impact dimensions come from the template)
    declares its metric on these, so a label such as `verdict` gets none."""
    if len(names) != 1:  # the patterns below exclude exactly one name
        raise ValueError("keys_except takes one name")
    name = names[0]
    patterns = [f"{name[:i]}[!{name[i]}]*" for i in range(len(name))]  # differs at position i
    patterns += [name[:i] for i in range(1, len(name))]  # a proper prefix of the name
    return patterns + [f"{name}?*"]  # longer than the name
