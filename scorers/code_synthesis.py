"""The code review as an Inspect scorer: the merged review (log contract) in
`Score.metadata["review"]`, the decision and the numbers reduced across samples and epochs in
`Score.value`. It rebuilds the merge from what the solvers stored, so `inspect score` redoes it
without calls."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.code.models import DECISION_WORDS
from review_harness.code.panel import review_from_store
from review_harness.code.render import render_report
from review_harness.core.viewer import review_score
from scorers.metrics import review_metrics
from review_harness.core.metrics import SharedJSON


# decision and final status are labels (sample-list columns; the decision's metric names the
# run's decision: the headline)
@scorer(metrics=review_metrics("code", "confidence", "findings", "fix_iterations", "degraded"))
def code_synthesis() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store, state.metadata)
        first = review.first if review.iterations else None
        value = {
            "decision": DECISION_WORDS.get(first.decision, first.decision) if first else "none",
            "confidence": first.confidence.value if first else 0.0,
            "final_status": review.final_status,
            "findings": float(sum(len(s.findings) for s in first.reviewed())) if first else float("nan"),
            "fix_iterations": float(review.fix_iterations),
            "degraded": float(first is not None and bool(first.degraded)),
        }
        # the answer (the sample's header and list): decision and top findings; the explanation
        # (rendered as markdown in the viewer): the whole report
        return review_score(
            "code", review, value, render_report(review),
            metadata={"review": SharedJSON(review.model_dump(mode="json"))},
        )

    return score
