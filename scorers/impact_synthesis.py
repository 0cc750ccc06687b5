"""The impact review as an Inspect scorer, for the task. The scorer lives in
`review_harness/impact/pipeline.py`, where the library API (`review_harness.impact.engine`) runs
it too; here the task's copy declares its metrics with `average` (the name Inspect shows), on
every figure of the review by name (the template's dimensions among them), and `verdict` on the
verdict label (the run's verdict: the headline)."""

from collections.abc import Sequence

from inspect_ai.scorer import Scorer

from review_harness.impact.pipeline import synthesis_scorer
from scorers.metrics import average, verdict


def impact_synthesis(dimensions: Sequence[str] | None = None) -> Scorer:
    return synthesis_scorer(dimensions, average, labels={"verdict": [verdict("impact")]})


__all__ = ["impact_synthesis"]
