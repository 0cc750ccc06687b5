"""The causal-impact results review, declared for the core's registry (seed 003)."""

from __future__ import annotations

from review_harness.core.kinds import ReviewKind
from review_harness.core.viewer import Column, Verdict, severity_counts, shorten
from review_harness.impact.gold import ImpactGold
from review_harness.impact.models import VERDICTS, ImpactReview

KIND = ReviewKind("impact", "impact", task="impact_review", review_model=ImpactReview, gold_model=ImpactGold,
                  synthesis_scorer="impact_synthesis", gold_scorer="impact_gold",
                  verdicts=VERDICTS)

REVIEWER = "impact-reviewer"  # the kind's one member
CHECK_SEVERITIES = ("major", "minor")


def render(review: ImpactReview, details: bool = False) -> str:
    """The markdown report (the same with `details`: it shows no scoring internals to hide)."""
    from review_harness.impact.render import render_report

    return render_report(review)


def verdict_line(review: ImpactReview) -> Verdict:
    """The verdict (usable, caution, unusable), the overall score and confidence, and the failed
    consistency checks: counted by severity, the top ones named."""
    overall = review.result.overall_score
    figure = ", ".join(p for p in (None if overall is None else f"overall {overall:.2f}",
                                   f"confidence {review.confidence.score:.2f}") if p)
    failed = [c for c in review.checks if c.status == "fail"]
    failed.sort(key=lambda c: CHECK_SEVERITIES.index(c.severity))
    top = [f"{shorten(c.message, 80)} ({c.severity}, {c.dimension})" for c in failed]
    # the checks that decided a verdict below usable ('ci_contains_estimate: fail')
    reason = (", ".join(r.replace(": fail", " failed").replace(": ", " ") for r in review.verdict_reasons)
              if review.verdict != "usable" else None)
    return Verdict(review.verdict, figure, severity_counts([c.severity for c in failed], CHECK_SEVERITIES), top,
                   None if review.status == "complete" else review.status, noun="failed check", reason=reason or None)


def columns() -> list[Column]:
    rate = ("good-high", 0.0, 1.0)
    return [
        Column("verdict", "Verdict", colors={"usable": "good", "caution": "warn", "unusable": "bad"}),
        Column("overall", "Overall", colors=rate),
        Column("confidence", "Confidence", colors=rate),
        Column("dimension_in_window", "Dimensions in window", gold=True, colors=rate),
        Column("concern_recall", "Concern recall", gold=True, colors=rate),
    ]


def offline_answer(member: str, prompt: str) -> str | None:
    if member != REVIEWER:
        return None
    from review_harness.impact.offline import answer

    return answer(prompt)
