"""Solvers of the impact review, for the task: they live in `review_harness/impact/pipeline.py`,
where the library API (`review_harness.impact.engine`) runs them too."""

from review_harness.impact.pipeline import (
    check_template,
    impact_pipeline,
    impact_reviewer,
    knowledge_base,
    prompt_spec,
    render_impact_review,
)

__all__ = ["check_template", "impact_pipeline", "impact_reviewer", "knowledge_base", "prompt_spec",
           "render_impact_review"]
