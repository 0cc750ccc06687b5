"""The lead synthesis as an Inspect scorer.

It reads the reviewer reports the panel left in the sample store and produces the review:
`Score.metadata["review"]` holds the whole review (the log contract), `Score.value` holds the
numbers that are reduced across samples and epochs. Because it is a scorer, `inspect score`
re-synthesizes an old log after a rubric or weight change without model calls.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from review_harness.ds.panel import review_from_store
from review_harness.ds.render import headline, render_report
from review_harness.ds.rubric import default_rubric, load_rubric
from scorers.epochs import score_consistency
from scorers.metrics import nanmean


@scorer(
    metrics={
        "score": [nanmean()],
        "complete": [mean()],
        "partial": [mean()],
        "deferred": [mean()],
        "score_spread": [nanmean()],
        "score_within_10": [nanmean()],
    }
)
def review_synthesis(rubric: str | None = None) -> Scorer:
    the_rubric = load_rubric(rubric) if rubric else default_rubric()

    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store, the_rubric, state.input_text)
        value = {
            "score": review.final_score if review.final_score is not None else float("nan"),
            "complete": float(review.status == "complete"),
            "partial": float(review.status == "partial"),
            "deferred": float(review.status == "deferred"),
        }
        # one run is trivially consistent; review_epochs() recomputes these across epochs
        value["score_spread"], value["score_within_10"] = score_consistency([value["score"]])
        return Score(
            value=value,
            # inspect view shows the scorer's answer as the sample's answer: the markdown review
            # (re-rendered here, so `inspect score` after a rubric change shows the new report)
            answer=render_report(review, the_rubric),
            # the full report is the sample output; keep the explanation to the headline
            explanation=headline(review),
            # without -T domain the JSON has no "domain" key: two-dimension reviews are unchanged
            metadata={"review": review.model_dump(mode="json", exclude={"domain"} if review.domain is None else None)},
        )

    return score
