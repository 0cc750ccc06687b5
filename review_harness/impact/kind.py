"""The causal-impact results review, declared for the core's registry (seed 003)."""

from __future__ import annotations

from review_harness.core.kinds import ReviewKind, lazy
from review_harness.core.paths import PROMPTS_DIR
from review_harness.impact.gold import ImpactGold
from review_harness.impact.models import ImpactReview

REVIEWER = "impact-reviewer"  # the kind's one member


def _render(review: ImpactReview) -> str:
    from review_harness.impact.render import render_report

    return render_report(review)


def _offline_answer(member: str, prompt: str) -> str | None:
    if member != REVIEWER:
        return None
    from review_harness.impact.offline import answer

    return answer(prompt)


KIND = ReviewKind(
    name="impact",
    title="impact",
    prompts=PROMPTS_DIR / "impact",
    offline_answer=_offline_answer,
    task="impact_review",
    review_model=ImpactReview,
    gold_model=ImpactGold,
    synthesis_scorer="impact_synthesis",
    gold_scorer="impact_gold",
    render=_render,
    members=lambda metadata: [REVIEWER],
    summary_row=lazy("review_harness.impact.cli:summary_row"),
    lint=lazy("review_harness.impact.lint:lint_impact_prompts"),
)
