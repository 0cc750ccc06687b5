"""The dual-model code review, declared for the core's registry (seed 002)."""

from __future__ import annotations

from review_harness.code.gold import CodeGold
from review_harness.code.models import CodeReview
from review_harness.core.kinds import ReviewKind, lazy
from review_harness.core.paths import PROMPTS_DIR


def _render(review: CodeReview) -> str:
    from review_harness.code.render import render_report

    return render_report(review)


def _offline_answer(member: str, prompt: str) -> str | None:
    from review_harness.code.offline import answer

    return answer(prompt)


KIND = ReviewKind(
    name="code",
    title="code",
    prompts=PROMPTS_DIR / "code",
    offline_answer=_offline_answer,
    task="code_review",
    review_model=CodeReview,
    gold_model=CodeGold,
    synthesis_scorer="code_synthesis",
    gold_scorer="code_gold",
    render=_render,
    summary_row=lazy("review_harness.code.cli:summary_row"),
    lint=lazy("review_harness.code.lint:lint_code_prompts"),
)
