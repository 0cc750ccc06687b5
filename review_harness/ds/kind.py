"""The DS analysis review, declared for the core's registry (seeds 000 and 001)."""

from __future__ import annotations

from review_harness.core.kinds import ReviewKind
from review_harness.ds.gold import GoldFile
from review_harness.ds.models import Review

KIND = ReviewKind("ds", "DS analysis", task="ds_review", review_model=Review, gold_model=GoldFile,
                  synthesis_scorer="review_synthesis", gold_scorer="gold_comparison")

# the members besides the reviewers (each named by its rubric dimension's `reviewer`)
JUDGE = "judge"
MATCHER = "matcher"


def render(review: Review) -> str:
    from review_harness.ds.render import render_report
    from review_harness.ds.rubric import default_rubric

    return render_report(review, default_rubric())


def offline_answer(member: str, prompt: str) -> str | None:
    """The judge and the matcher answer with the offline judge; every other member is a
    reviewer, answered by the rule engine (None when the prompt is no reviewer request)."""
    if member in (JUDGE, MATCHER):
        from review_harness.ds.offline.judge import answer_offline

        return answer_offline(prompt)
    from review_harness.ds.offline.responder import answer_reviewer

    return answer_reviewer(prompt)
