"""Metrics shared by the scorers of every kind."""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, metric


@metric
def nanmean() -> Metric:
    """Mean over samples where the value is defined: NaN marks 'not applicable' (no score for
    a draft or deferred review, no gold file, no must-catch finding)."""

    def compute(scores: list[SampleScore]) -> float:
        values = [float(s.score.value) for s in scores if not math.isnan(float(s.score.value))]
        return sum(values) / len(values) if values else float("nan")

    return compute
