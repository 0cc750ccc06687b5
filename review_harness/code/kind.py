"""The dual-model code review, declared for the core's registry (seed 002)."""

from __future__ import annotations

from review_harness.code.gold import CodeGold
from review_harness.code.models import IMPLEMENTER, KIND_NAME, MATCHER_PREFIX, CodeReview, reviewer_of
from review_harness.core.kinds import ReviewKind

KIND = ReviewKind(KIND_NAME, "code", task="code_review", review_model=CodeReview, gold_model=CodeGold,
                  synthesis_scorer="code_synthesis", gold_scorer="code_gold")


def render(review: CodeReview) -> str:
    from review_harness.code.render import render_report

    return render_report(review)


def offline_answer(member: str, prompt: str) -> str | None:
    """The member names the answerer: a reviewer ('spec-A'), a stage's matcher, the implementer."""
    from review_harness.code import offline

    reviewer = reviewer_of(member)
    if reviewer is not None:
        return offline.review_answer(*reviewer, prompt)
    if member.startswith(MATCHER_PREFIX):
        return offline.match_answer(prompt)
    if member == IMPLEMENTER:
        return offline.fix_answer()
    return None


def log_summary(log) -> list[str]:
    """`review-harness summary` on a code log: the analytics summary (seed E4's progress view)."""
    from review_harness.code.analytics import analytics_of_log

    return analytics_of_log(log)
