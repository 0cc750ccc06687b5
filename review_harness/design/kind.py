"""The adversarial design review, declared for the core's registry (seed 004)."""

from __future__ import annotations

from review_harness.core.kinds import ReviewKind, lazy
from review_harness.core.paths import PROMPTS_DIR
from review_harness.design.gold import DesignGold
from review_harness.design.models import KIND_NAME, SYNTHESIZER, DesignReview


def _render(review: DesignReview) -> str:
    from review_harness.design.render import render_summary

    return render_summary(review)


def _offline_answer(member: str, prompt: str) -> str | None:
    """The member names the answerer: the synthesizer, else the persona of that id."""
    from review_harness.design.offline import responder

    if member == SYNTHESIZER:
        return responder.synthesis_answer(prompt)
    return responder.persona_answer(member, prompt)


KIND = ReviewKind(
    name=KIND_NAME,
    title="design",
    prompts=PROMPTS_DIR / "design",
    offline_answer=_offline_answer,
    task="design_review",
    review_model=DesignReview,
    gold_model=DesignGold,
    synthesis_scorer="design_synthesis",
    gold_scorer="design_gold",
    render=_render,
    summary_row=lazy("review_harness.design.cli:summary_row"),
    lint=lazy("review_harness.design.lint:lint"),
)
