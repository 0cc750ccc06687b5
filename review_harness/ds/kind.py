"""The DS analysis review, declared for the core's registry (seeds 000 and 001)."""

from __future__ import annotations

from typing import get_args

from review_harness.core.kinds import ReviewKind
from review_harness.core.viewer import Column, Verdict, severity_counts, shorten, whole
from review_harness.ds.gold import GoldFile
from review_harness.ds.models import Review
from review_harness.ds.models import Verdict as ReviewVerdict

KIND = ReviewKind("ds", "DS analysis", task="ds_review", review_model=Review, gold_model=GoldFile,
                  synthesis_scorer="review_synthesis", gold_scorer="gold_comparison",
                  verdicts=get_args(ReviewVerdict), verdict_accuracy="verdict_band_accuracy")

# the members besides the reviewers (each named by its rubric dimension's `reviewer`)
JUDGE = "judge"
MATCHER = "matcher"


def render(review: Review, details: bool = False) -> str:
    """The markdown report; `details`: with the scoring internals (deductions, credits, points)."""
    from review_harness.ds.render import render_report
    from review_harness.ds.rubric import default_rubric

    return render_report(review, default_rubric(), details=details)


def verdict_line(review: Review) -> Verdict:
    """The verdict (or draft feedback, or deferred), the score in whole points, the finding
    counts and the top fixes."""
    from review_harness.ds.models import Severity

    if review.status == "no_analysis":
        return Verdict(f"no analysis to review: the document {review.document.no_analysis or 'holds none'}", None, {}, [], None)
    if review.status == "deferred":
        verdict = "deferred (no review)"
    else:
        verdict = "draft feedback" if review.draft else (review.verdict or review.status)
    figure = None if review.final_score is None or review.draft else f"score {whole(review.final_score)}/100"
    top = [f"{shorten(f.title, 70)} ({f.severity.value})" for f in (review.finding(i) for i in review.top_fixes)]
    # an analysis finding merged into its domain version is that one issue: counted once
    counts = severity_counts([f.severity.value for f in review.findings if not f.merged_into], [s.value for s in Severity])
    # the computed score says one band, a floor rule set the verdict: why, briefly, and the band by score
    reason = None
    if figure and review.floor_rule and review.band_verdict and review.band_verdict != review.verdict:
        reason = f"{floor_reason(review.floor_rule)}; {review.band_verdict} by score"
    return Verdict(verdict, figure, counts, top, None if review.status in ("complete", "deferred") else review.status,
                   reason=reason)


def gold_problems(gold: GoldFile) -> list[str]:
    """A DS gold file's lenses and credits checked against the default rubric."""
    from review_harness.ds.gold import rubric_check

    return rubric_check()(gold)


def floor_reason(text: str) -> str:
    """A floor rule's reason in a few words: its explanation up to the first colon ('1 CRITICAL
    finding'), lower-cased at the start."""
    head = text.split(":", 1)[0].strip().rstrip(".")
    return head[:1].lower() + head[1:] if head[:2] != head[:2].upper() else head


def columns() -> list[Column]:
    rate = ("good-high", 0.0, 1.0)
    return [
        Column("verdict", "Verdict", colors={"Good to Go": "good", "Minor Fix": "warn", "Major Rework": "bad"}),
        Column("score", "Score", colors=("good-high", 0.0, 100.0)),
        Column("findings", "Findings"),
        Column("critical", "Critical", colors="good-low"),
        Column("must_catch_recall", "Must-catch recall", gold=True, colors=rate),
        Column("recall", "Recall", gold=True, colors=rate),
        Column("precision", "Precision", gold=True, colors=rate),
    ]


def offline_answer(member: str, prompt: str) -> str | None:
    """The judge and the matcher answer with the offline judge; every other member is a
    reviewer, answered by the rule engine (None when the prompt is no reviewer request)."""
    if member in (JUDGE, MATCHER):
        from review_harness.ds.offline.judge import answer_offline

        return answer_offline(prompt)
    from review_harness.ds.offline.responder import answer_reviewer

    return answer_reviewer(prompt)
