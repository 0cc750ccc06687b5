"""The design synthesis as an Inspect scorer: the review (log contract) in
`Score.metadata["review"]`, the verdict and the numbers reduced across samples and epochs in
`Score.value`. It reads what the solvers stored, so `inspect score` re-synthesizes without model
calls."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.core.viewer import review_score
from review_harness.design.panel import review_from_store
from review_harness.design.personas import default_personas
from review_harness.design.render import render_summary
from scorers.metrics import review_metrics
from review_harness.core.metrics import SharedJSON


# verdict and escalation target are labels (sample-list columns; the verdict's metric names the
# run's verdict: the headline); complete and failed are 0/1 per review for the gate
@scorer(metrics=review_metrics("design", "findings", "critical", "reviewers_completed", "hedge_rate"))
def design_synthesis() -> Scorer:
    config = default_personas()

    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store, config, state.input_text)
        failed = review.status == "failed"
        value = {
            "verdict": review.verdict or "none",
            "escalation_target": review.escalation_target or "-",
            "findings": float("nan") if failed else len(review.findings),
            "critical": float("nan") if failed else review.counts.get("Critical", 0),
            "reviewers_completed": len(review.reviewers_completed),
            "hedge_rate": float("nan") if failed else review.hedge_rate,
            "complete": float(review.status == "complete"),
            "failed": float(failed),
        }
        # the answer (the sample's header and list): verdict and top findings; the explanation
        # (rendered as markdown in the viewer): the summary
        return review_score(
            "design", review, value, render_summary(review),
            metadata={"review": SharedJSON(review.model_dump(mode="json"))},
        )

    return score
