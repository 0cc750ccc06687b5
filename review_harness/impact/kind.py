"""The causal-impact results review, declared for the core's registry (seed 003)."""

from __future__ import annotations

from review_harness.core.kinds import ReviewKind
from review_harness.impact.gold import ImpactGold
from review_harness.impact.models import ImpactReview

KIND = ReviewKind("impact", "impact", task="impact_review", review_model=ImpactReview, gold_model=ImpactGold,
                  synthesis_scorer="impact_synthesis", gold_scorer="impact_gold")

REVIEWER = "impact-reviewer"  # the kind's one member


def render(review: ImpactReview) -> str:
    from review_harness.impact.render import render_report

    return render_report(review)


def offline_answer(member: str, prompt: str) -> str | None:
    if member != REVIEWER:
        return None
    from review_harness.impact.offline import answer

    return answer(prompt)
