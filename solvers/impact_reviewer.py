"""Solvers of the impact review, for the task: they live in `review_harness/impact/pipeline.py`,
where the library API (`review_harness.impact.engine`) runs them too."""

from review_harness.impact.pipeline import impact_pipeline, impact_reviewer, knowledge_base, render_impact_review

__all__ = ["impact_pipeline", "impact_reviewer", "knowledge_base", "render_impact_review"]
