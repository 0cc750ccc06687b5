"""The adversarial design review, declared for the core's registry (seed 004)."""

from __future__ import annotations

from typing import get_args

from review_harness.core.kinds import OfflineCost, ReviewKind
from review_harness.core.models import SEVERITIES, Severity
from review_harness.core.viewer import Column, Verdict, severity_counts, shorten
from review_harness.design.gold import DesignGold
from review_harness.design.models import GRADER, KIND_NAME, SYNTHESIZER, DesignReview
from review_harness.design.models import Verdict as DesignVerdict

# its offline reviewers read at most the input budget of prompts/design/personas.yaml (60,000 tokens,
# about 46,000 words), and their time grows with the words read, faster than in proportion. CPU seconds
# on the 2-core machine: a real design of 7,600 words took 2 s; a 5 MB design of prose cut to the budget
# 48 s (237 s before its sentence lookups were indexed)
OFFLINE_COST = OfflineCost(seconds_per_mb=0.0, seconds_per_cell=0.0, seconds_per_word_squared=2.3e-8,
                           read_at_most_words=46_000)

KIND = ReviewKind(KIND_NAME, "design", task="design_review", review_model=DesignReview, gold_model=DesignGold,
                  synthesis_scorer="design_synthesis", gold_scorer="design_gold",
                  verdicts=get_args(DesignVerdict), offline_cost=OFFLINE_COST)


def render(review: DesignReview, details: bool = False) -> str:
    """The markdown report (the same with `details`: it shows no scoring internals to hide)."""
    from review_harness.design.render import render_summary

    return render_summary(review)


def verdict_text(review: DesignReview) -> str:
    """'proceed', 'revise', 'escalate to calibrate', or 'no verdict' for a failed review."""
    if not review.verdict:
        return "no verdict"
    return f"{review.verdict} to {review.escalation_target}" if review.escalation_target else review.verdict


def verdict_line(review: DesignReview) -> Verdict:
    """The verdict (with its escalation target), reviewers completed, counts, top findings."""
    ranked = sorted(review.findings, key=lambda f: Severity(f.severity).rank)
    top = [f"{shorten(f.title, 70)} ({Severity(f.severity).value})" for f in ranked]
    figure = f"{len(review.reviewers_completed)}/{len(review.personas)} reviewers"
    counts = severity_counts([Severity(f.severity).value for f in review.findings], SEVERITIES)
    return Verdict(verdict_text(review), figure, counts, top, None if review.status == "complete" else review.status)


def columns() -> list[Column]:
    rate = ("good-high", 0.0, 1.0)
    return [
        Column("verdict", "Verdict", colors={"proceed": "good", "revise": "warn", "escalate": "bad"}),
        Column("escalation_target", "Escalate to"),
        Column("findings", "Findings"),
        Column("critical", "Critical", colors="good-low"),
        Column("reviewers_completed", "Reviewers completed"),
        Column("must_catch_recall", "Must-catch recall", gold=True, colors=rate),
        Column("recall", "Recall", gold=True, colors=rate),
        Column("verdict_accuracy", "Verdict right", gold=True, colors=rate),
    ]


def offline_answer(member: str, prompt: str) -> str | None:
    """The member names the answerer: the synthesizer, the grader, else the persona of that id."""
    from review_harness.design.offline import responder

    if member == SYNTHESIZER:
        return responder.synthesis_answer(prompt)
    if member == GRADER:
        return responder.grader_answer(prompt)
    return responder.persona_answer(member, prompt)
