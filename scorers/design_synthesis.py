"""The design synthesis as an Inspect scorer: the review (log contract) in
`Score.metadata["review"]`, the numbers reduced across samples and epochs in `Score.value`.
It reads what the solvers stored, so `inspect score` re-synthesizes without model calls."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from review_harness.design.personas import default_personas
from scorers.metrics import nanmean
from review_harness.design.panel import review_from_store
from review_harness.design.render import render_summary

VERDICT_KEYS = ("proceed", "revise", "escalate")


@scorer(metrics={
    "complete": [mean()], "partial": [mean()], "failed": [mean()],
    "proceed": [mean()], "revise": [mean()], "escalate": [mean()],
    "findings": [nanmean()], "hedge_rate": [nanmean()],
})
def design_synthesis() -> Scorer:
    config = default_personas()

    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store, config, state.input_text)
        value = {key: float(review.status == key) for key in ("complete", "partial", "failed")}
        value |= {key: float(review.verdict == key) for key in VERDICT_KEYS}
        value["findings"] = float(len(review.findings)) if review.status != "failed" else float("nan")
        value["hedge_rate"] = review.hedge_rate if review.status != "failed" else float("nan")
        counts = ", ".join(f"{n} {k}" for k, n in review.counts.items() if n)
        return Score(
            value=value,
            answer=render_summary(review),  # what `inspect view` shows as ANSWER: the summary
            explanation=f"{review.verdict or 'no verdict'} ({review.completion_note}; {counts or 'no findings'})",
            metadata={"review": review.model_dump(mode="json")},
        )

    return score
