"""How the offline provider answers the impact review's prompts (review_harness.impact.rules);
None for any other prompt."""

from __future__ import annotations

from review_harness.impact.artifact import TEXT_OPEN

MARK = "Dimensions to score:"


def answer(prompt: str) -> str | None:
    if TEXT_OPEN not in prompt or MARK not in prompt:
        return None
    from review_harness.impact.rules import review_prompt

    return review_prompt(prompt)
