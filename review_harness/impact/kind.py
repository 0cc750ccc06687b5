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
PROBLEMS = ("fatal", "caution", "missing")  # a failed check, a warning, a major input the method needs


def problem(check) -> str | None:  # noqa: ANN001 - a ConsistencyCheck
    """What a check is as a problem of the result (None: none)."""
    if check.status == "fail":
        return "fatal"
    if check.status == "warn":
        return "caution"
    if check.status == "not_available" and check.severity == "major" and check.scored:
        return "missing"
    return None


def render(review: ImpactReview, details: bool = False) -> str:
    """The markdown report (the same with `details`: it shows no scoring internals to hide)."""
    from review_harness.impact.render import render_report

    return render_report(review)


def verdict_line(review: ImpactReview) -> Verdict:
    """The verdict (usable, caution, unreviewed, unusable), the overall score (said when capped),
    the share of the method's checks that ran, the method's own confidence, and the checks that
    raise a problem: counted as fatal, warning or missing, the top ones named."""
    overall = review.result.overall_score
    parts = [None if overall is None else f"overall {overall:.2f}" + (" (capped)" if review.overall_cap else ""),
             None if review.evidence_coverage is None else f"evidence {review.evidence_coverage:.0%}",
             f"method confidence {review.confidence.score:.2f}"]
    problems = [(problem(c), c) for c in review.checks if problem(c)]
    problems.sort(key=lambda pc: PROBLEMS.index(pc[0]))  # type: ignore[arg-type]
    top = [f"{shorten(c.message, 80)} ({kind}, {c.dimension})" for kind, c in problems]
    # the checks that decided a verdict below usable ('ci_contains_estimate: fail')
    reason = (", ".join(r.replace(": fail", " failed").replace(": ", " ") for r in review.verdict_reasons)
              if review.verdict != "usable" else None)
    return Verdict(review.verdict, ", ".join(p for p in parts if p),
                   severity_counts([kind for kind, _ in problems], PROBLEMS), top,  # type: ignore[misc]
                   None if review.status == "complete" else review.status, noun="problem", reason=reason or None)


def columns() -> list[Column]:
    rate = ("good-high", 0.0, 1.0)
    return [
        Column("verdict", "Verdict", colors={"usable": "good", "caution": "warn", "unreviewed": "warn",
                                             "unusable": "bad"}),
        Column("overall", "Overall", colors=rate),
        Column("evidence_coverage", "Evidence coverage", colors=rate),
        Column("method_confidence", "Method confidence", colors=rate),
        Column("verdict_accuracy", "Verdict accuracy", gold=True, colors=rate),
        Column("concern_recall", "Concern recall", gold=True, colors=rate),
    ]


def offline_answer(member: str, prompt: str) -> str | None:
    if member != REVIEWER:
        return None
    from review_harness.impact.offline import answer

    return answer(prompt)
