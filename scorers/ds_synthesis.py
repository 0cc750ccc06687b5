"""The lead synthesis as an Inspect scorer.

It reads the reviewer reports the panel left in the sample store and produces the review:
`Score.metadata["review"]` holds the whole review (the log contract), `Score.value` holds the
verdict and the numbers that are reduced across samples and epochs. Because it is a scorer, `inspect score`
re-synthesizes an old log after a rubric or weight change without model calls.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.core.viewer import review_score
from review_harness.ds.panel import review_from_store
from review_harness.ds.render import render_report
from review_harness.ds.rubric import default_rubric, load_rubric
from scorers.epochs import SPREAD_KEYS
from scorers.metrics import review_metrics
from review_harness.core.metrics import SharedJSON


# the verdict is a label (a sample-list column; its metric names the run's verdict: the headline);
# complete and deferred are 0/1 per review for the gate; the spread keys exist with several
# epochs only (the epoch reducer's)
@scorer(metrics=review_metrics("ds", "score", "findings", "critical", *SPREAD_KEYS))
def review_synthesis(rubric: str | None = None) -> Scorer:
    the_rubric = load_rubric(rubric) if rubric else default_rubric()

    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store, the_rubric, state.input_text)
        value = {
            "verdict": review.verdict or ("draft" if review.draft else review.status),
            "score": review.final_score if review.final_score is not None else float("nan"),
            # an analysis finding merged into its domain version (dedup) is that one issue: counted once
            "findings": sum(1 for f in review.findings if not f.merged_into),
            "critical": sum(1 for f in review.findings if f.severity.value == "CRITICAL" and not f.merged_into),
            "complete": float(review.status == "complete"),
            "deferred": float(review.status == "deferred"),
        }
        # the answer (the sample's header and list) is the verdict and top fixes; the explanation,
        # rendered as markdown, the whole report (re-rendered here, so `inspect score` after a
        # rubric change shows the new report)
        return review_score(
            "ds", review, value, render_report(review, the_rubric),
            # without -T domain the JSON has no "domain" key: two-dimension reviews are unchanged
            metadata={"review": SharedJSON(review.model_dump(mode="json", exclude={"domain"} if review.domain is None else None))},
        )

    return score
