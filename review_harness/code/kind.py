"""The dual-model code review, declared for the core's registry (seed 002)."""

from __future__ import annotations

from review_harness.code.gold import CodeGold
from review_harness.code.models import DECISION_WORDS, IMPLEMENTER, KIND_NAME, MATCHER_PREFIX, CodeReview, reviewer_of
from review_harness.core.kinds import ReviewKind
from review_harness.core.models import SEVERITIES, Severity
from review_harness.core.viewer import Column, Verdict, severity_counts, shorten

# the decisions from the passing one to the strictest (`verdict --fail-on human-decides` also fails an auto-reject)
DECISION_ORDER = ("AUTO_APPROVE", "PRESENT_TO_HUMAN", "AUTO_REJECT_TO_IMPLEMENTER")
KIND = ReviewKind(KIND_NAME, "code", task="code_review", review_model=CodeReview, gold_model=CodeGold,
                  synthesis_scorer="code_synthesis", gold_scorer="code_gold",
                  verdicts=tuple(DECISION_WORDS[d] for d in DECISION_ORDER), verdict_key="decision", verdict_accuracy="decision_accuracy")



def render(review: CodeReview, details: bool = False) -> str:
    """The markdown report (the same with `details`: it shows no scoring internals to hide)."""
    from review_harness.code.render import render_report

    return render_report(review)


def verdict_line(review: CodeReview) -> Verdict:
    """The first review's decision and confidence, the final status (and the fix attempts that
    led to it), the first review's counted findings (blocking ones first) by severity."""
    from review_harness.code.merge import counted_stages

    if not review.iterations:
        return Verdict("no review", None, {}, (), review.final_status)
    first = review.first
    merged = [m for stage in counted_stages(first.spec, first.quality) for m in stage.findings]
    ranked = sorted(merged, key=lambda m: (not m.finding.blocking, Severity(m.finding.severity).rank))
    top = [f"{shorten(m.finding.description, 70)} ({Severity(m.finding.severity).value}, "
           f"{m.finding.file}{f':{m.finding.line}' if m.finding.line else ''})" for m in ranked]
    figure = f"confidence {first.confidence.label} ({first.confidence.value:g}), status {review.final_status}"
    if review.fix_iterations:  # the decision and findings are the first review's: say what followed
        figure += f" after {review.fix_iterations} fix attempt{'s' if review.fix_iterations != 1 else ''}"
    counts = severity_counts([Severity(m.finding.severity).value for m in merged], SEVERITIES)
    # discarded with the failed spec stage and not reviewed after a spec approval either: never hidden
    unreviewed = first.quality.unreviewed_critical() if first.quality is not None and first.after_approval is None else []
    status = None
    if unreviewed:  # discarded with the failed spec stage, but never hidden
        status = (f"{len(unreviewed)} critical or security quality finding{'s' if len(unreviewed) != 1 else ''} "
                  "seen, not yet reviewed")
        top = [f"not yet reviewed: {shorten(m.finding.description, 60)} ({Severity(m.finding.severity).value}, "
               f"{m.finding.where})" for m in unreviewed] + top
    if review.answer_error:
        status = "; ".join(s for s in (status, f"answer not applied: {review.answer_error}") if s)
    return Verdict(DECISION_WORDS.get(first.decision, first.decision), figure, counts, top, status=status)


def columns() -> list[Column]:
    rate = ("good-high", 0.0, 1.0)
    return [
        Column("decision", "Decision", colors={DECISION_WORDS["AUTO_APPROVE"]: "good",
                                               DECISION_WORDS["AUTO_REJECT_TO_IMPLEMENTER"]: "bad",
                                               DECISION_WORDS["PRESENT_TO_HUMAN"]: "warn"}),
        Column("confidence", "Confidence", colors=rate),
        Column("final_status", "Final status", colors={"complete": "good", "escalated": "bad"}),
        Column("findings", "Findings"),
        Column("decision_accuracy", "Decision right", gold=True, colors=rate),
        Column("recall_spec_B", "Spec recall (B)", gold=True, colors=rate),
        Column("recall_quality_B", "Quality recall (B)", gold=True, colors=rate),
    ]


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
    from review_harness.code.commands import analytics_of_log

    return analytics_of_log(log)
