"""The code review as an Inspect scorer: the merged review (log contract) in
`Score.metadata["review"]`, numbers reduced across samples and epochs in `Score.value`. It
rebuilds the merge from what the solvers stored, so `inspect score` redoes it without calls."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from review_harness.code.models import DECISIONS
from review_harness.code.panel import review_from_store
from review_harness.code.render import render_report
from scorers.metrics import nanmean

STATUS_KEYS = ("complete", "escalated", "waiting")


@scorer(metrics={
    "confidence": [mean()], "fix_iterations": [mean()], "complete": [mean()], "escalated": [mean()], "waiting": [mean()],
    "auto_approve": [mean()], "auto_reject": [mean()], "human": [mean()], "degraded": [mean()], "findings": [nanmean()],
})
def code_synthesis() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store, state.metadata)
        first = review.first if review.iterations else None
        value = {
            "confidence": first.confidence.value if first else 0.0,
            "fix_iterations": float(review.fix_iterations),
            "complete": float(review.final_status == "complete"),
            "escalated": float(review.final_status == "escalated"),
            "waiting": float(review.final_status not in ("complete", "escalated")),
            "auto_approve": float(first is not None and first.decision == DECISIONS[0]),
            "auto_reject": float(first is not None and first.decision == DECISIONS[1]),
            "human": float(first is not None and first.decision == DECISIONS[2]),
            "degraded": float(first is not None and bool(first.degraded)),
            "findings": float(sum(len(s.findings) for s in first.reviewed())) if first else float("nan"),
        }
        explanation = (f"{first.decision} at {first.confidence.label} ({first.confidence.value:g}); "
                       f"final status {review.final_status} after {review.fix_iterations} fix(es)") if first else "no review"
        # the answer is what `inspect view` shows as ANSWER: the readable report
        return Score(value=value, answer=render_report(review), explanation=explanation,
                     metadata={"review": review.model_dump(mode="json")})

    return score
