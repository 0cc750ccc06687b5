"""The impact review as an Inspect scorer, for the task. The scorer lives in
`review_harness/impact/pipeline.py`, where the library API (`review_harness.impact.engine`) runs
it too; here the task's copy declares its metrics with `average` (the name Inspect shows), on
every key but the verdict label."""

from inspect_ai.scorer import Scorer, scorer

from review_harness.core.metrics import keys_except
from review_harness.impact.pipeline import impact_synthesis as pipeline_synthesis
from scorers.metrics import averaged


@scorer(name="impact_synthesis", metrics=averaged(*keys_except("verdict")))
def impact_synthesis() -> Scorer:
    return pipeline_synthesis()


__all__ = ["impact_synthesis"]
