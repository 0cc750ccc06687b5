"""The impact review as an Inspect scorer: the review (log contract: the seed's ReviewResult
plus the deterministic confidence) in `Score.metadata["review"]`; the numbers reduced across
samples and epochs in `Score.value`. It re-parses the stored raw answer, so `inspect score`
redoes it without model calls."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.impact.render import render_report
from review_harness.impact.review import review_from_store
from scorers.metrics import nanmean

NAN = float("nan")


@scorer(metrics={"*": [nanmean()]})
def impact_synthesis() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store)
        result = review.result
        # few keys: each becomes a metric row (partial = 1 - complete - failed; the confidence and
        # the checks are in the review JSON)
        value: dict[str, float] = {key: float(review.status == key) for key in ("complete", "failed")}
        value["overall"] = NAN if result.overall_score is None else result.overall_score
        for name in review.expected_dimensions:
            scored = review.score(name)
            value[name] = NAN if scored is None else scored
        overall = "-" if result.overall_score is None else f"{result.overall_score:.2f}"
        return Score(
            value=value,
            answer=render_report(review),  # what `inspect view` shows as ANSWER
            explanation=f"{review.status}: overall {overall}; "
            + ", ".join(f"{d.name} {d.score:.2f}" for d in result.dimensions)
            + f"; confidence {review.confidence.score:.2f}"
            + (f"; warnings: {'; '.join(review.warnings)}" if review.warnings else ""),
            metadata={"review": review.model_dump(mode="json")},
        )

    return score
