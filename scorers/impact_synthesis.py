"""The impact review as an Inspect scorer, for the task: it lives in
`review_harness/impact/pipeline.py`, where the library API (`review_harness.impact.engine`) runs
it too."""

from review_harness.impact.pipeline import impact_synthesis

__all__ = ["impact_synthesis"]
