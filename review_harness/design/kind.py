"""The adversarial design review, declared for the core's registry (seed 004)."""

from __future__ import annotations

from review_harness.core.kinds import ReviewKind
from review_harness.design.gold import DesignGold
from review_harness.design.models import GRADER, KIND_NAME, SYNTHESIZER, DesignReview

KIND = ReviewKind(KIND_NAME, "design", task="design_review", review_model=DesignReview, gold_model=DesignGold,
                  synthesis_scorer="design_synthesis", gold_scorer="design_gold")


def render(review: DesignReview) -> str:
    from review_harness.design.render import render_summary

    return render_summary(review)


def offline_answer(member: str, prompt: str) -> str | None:
    """The member names the answerer: the synthesizer, the grader, else the persona of that id."""
    from review_harness.design.offline import responder

    if member == SYNTHESIZER:
        return responder.synthesis_answer(prompt)
    if member == GRADER:
        return responder.grader_answer(prompt)
    return responder.persona_answer(member, prompt)
