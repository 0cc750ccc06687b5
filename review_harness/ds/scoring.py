"""Scoring math: deductions, the diminishing-returns curve, credits, weights, bands, floors.

Pure functions over the rubric and findings; the synthesis scorer composes them. The score
always comes from findings through these rules, never from a number a model wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from review_harness.ds.models import Finding, LensRating, Positive, ReviewerFinding, Severity
from review_harness.ds.rubric import Dimension, Rubric

GOOD_TO_GO = "Good to Go"
MINOR_FIX = "Minor Fix"
MAJOR_REWORK = "Major Rework"


def finding_deduction(finding: ReviewerFinding, dimension: Dimension, rubric: Rubric) -> float:
    """Points for one finding: the deduction-table row when the issue type matches the
    finding's lens and severity, otherwise the rubric's default for that severity."""
    lens = dimension.lens(finding.lens)
    row = lens.deduction(finding.issue_type) if lens else None
    if row is not None and row.severity == finding.severity:
        return row.points
    return rubric.severity_points(finding.severity)


def diminishing_returns(raw: float, bands: Iterable[tuple[float | None, float]]) -> float:
    """Effective deduction: each band of accumulated points counts at its own weight
    (v1: first 30 at 100%, 31-50 at 75%, beyond 50 at 50%)."""
    effective = 0.0
    lower = 0.0
    for upper, weight in bands:
        if raw <= lower:
            break
        top = raw if upper is None else min(raw, upper)
        effective += (top - lower) * weight
        if upper is None:
            break
        lower = upper
    return effective


def dimension_score(
    deductions: Iterable[float], credit_points: Iterable[float], rubric: Rubric
) -> tuple[float, float, float, float]:
    """(score, raw deductions, effective deductions, credits) for one dimension.
    score = 100 - effective + min(credits, cap), clamped to 0..100."""
    raw = float(sum(deductions))
    effective = diminishing_returns(raw, rubric.scoring.diminishing_returns)
    credits = min(float(sum(credit_points)), rubric.scoring.credit_cap)
    score = max(0.0, min(100.0, 100.0 - effective + credits))
    return round(score, 2), raw, round(effective, 2), credits


def credits_for(positives: Iterable[Positive], dimension: Dimension) -> list[float]:
    """Each rubric strength credit counts once per dimension, whoever claims it."""
    seen: set[str] = set()
    points: list[float] = []
    for positive in positives:
        credit = dimension.credit(positive.credit)
        if credit is not None and credit.id not in seen:
            seen.add(credit.id)
            points.append(credit.points)
    return points


def final_score(scores: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    """Weighted mean over the dimensions that were reviewed; a missing dimension's weight is
    redistributed, so a partial review shows the score of what was reviewed."""
    available = {d: s for d, s in scores.items() if s is not None}
    if not available:
        return None
    total_weight = sum(weights[d] for d in available)
    return round(sum(s * weights[d] for d, s in available.items()) / total_weight, 2)


def band_verdict(score: float, rubric: Rubric) -> str:
    bands = rubric.scoring.bands
    if score >= bands["good_to_go"]:
        return GOOD_TO_GO
    if score >= bands["minor_fix"]:
        return MINOR_FIX
    return MAJOR_REWORK


_VERDICT_ORDER = [GOOD_TO_GO, MINOR_FIX, MAJOR_REWORK]


def apply_floor_rules(verdict: str, critical_count: int) -> tuple[str, str | None]:
    """Cap the verdict (never the number) by the count of CRITICAL findings.
    Returns (verdict, explanation or None when no rule changed it)."""
    if critical_count >= 2:
        cap = MAJOR_REWORK
        why = (
            f"{critical_count} CRITICAL findings: two or more cap the verdict at Major Rework "
            "whatever the computed score."
        )
    elif critical_count == 1:
        cap = MINOR_FIX
        why = "1 CRITICAL finding: a CRITICAL finding caps the verdict at Minor Fix whatever the computed score."
    else:
        return verdict, None
    if _VERDICT_ORDER.index(verdict) >= _VERDICT_ORDER.index(cap):
        return verdict, None
    return cap, why


def worst_severity(findings: Iterable[ReviewerFinding]) -> Severity | None:
    severities = [f.severity for f in findings]
    return min(severities, key=lambda s: s.rank) if severities else None


def lens_rating(reported: LensRating | None, findings: Iterable[ReviewerFinding]) -> LensRating:
    """A lens is rated at least as badly as its worst finding; a reviewer may rate it worse."""
    derived = LensRating.for_severity(worst_severity(findings))
    if reported is None or reported.rank < derived.rank:
        return derived
    return reported


def dimension_status(findings: Iterable[ReviewerFinding]) -> str:
    """Quick-mode status: Critical Issues / Issues Found (any MAJOR) / Pass (MINOR at most)."""
    worst = worst_severity(findings)
    if worst == Severity.CRITICAL:
        return "Critical Issues"
    if worst == Severity.MAJOR:
        return "Issues Found"
    return "Pass"


def priority_order(findings: list[Finding]) -> list[Finding]:
    """Severity first, then impact (deduction points), then reviewer order."""
    ranked = sorted(enumerate(findings), key=lambda pair: (pair[1].severity.rank, -pair[1].deduction, pair[0]))
    return [finding for _, finding in ranked]


def select_top_fixes(findings: list[Finding], count: int = 3) -> list[str]:
    return [f.id for f in priority_order(findings)[:count]]


def select_positives(
    positives_by_dimension: Mapping[str, list[Positive]], count: int = 3
) -> list[tuple[str, Positive]]:
    """Up to `count` positives, at least one from each dimension that has any."""
    chosen: list[tuple[str, Positive]] = []
    for dim, positives in positives_by_dimension.items():
        if positives:
            chosen.append((dim, positives[0]))
    for dim, positives in positives_by_dimension.items():
        for positive in positives[1:]:
            if len(chosen) >= count:
                break
            chosen.append((dim, positive))
    return chosen[:count]
