"""Scoring math: deductions, the diminishing-returns curve, credits, weights, bands, floors.

Pure functions over the rubric and findings; the synthesis scorer composes them. The score
always comes from findings through these rules, never from a number a model wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

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
    deductions: Iterable[tuple[float, Severity]], credit_points: Iterable[float], rubric: Rubric,
    credit_cap: float | None = None, scale: float = 1.0, minor_allowance: float = 0.0, clamp: bool = True,
) -> tuple[float, float, float, float]:
    """(score, raw deductions, effective deductions, credits applied) for one dimension.

    score = 100 - effective + credits, clamped to 0..100, where credits are capped (at the
    rubric's cap, or `credit_cap`) and, with `credits_offset: minor`, only offset what the MINOR
    findings add on top of the MAJOR and CRITICAL ones on the diminishing-returns curve: a
    strength never cancels a MAJOR or CRITICAL finding, so a dimension with one cannot reach 100,
    and a finding, of any severity, never raises the score. `scale` and `minor_allowance` are the
    recalibration of a review with a domain (rubric `scoring.with_domain`): the effective
    deductions weigh `scale` times over, and the first `minor_allowance` points the MINOR findings
    add are absorbed before they lower the score. A dimension weighing `scale` times over can fall
    past 0: `clamp=False` gives that value, which the final score takes (so the recalibration
    holds exactly and adding a domain never lifts a review); the dimension itself shows 0."""
    pairs = [(float(points), severity) for points, severity in deductions]
    raw = sum(points for points, _ in pairs)
    curve = rubric.scoring.diminishing_returns
    effective = diminishing_returns(raw, curve)
    serious = diminishing_returns(sum(p for p, s in pairs if s != Severity.MINOR), curve)
    if minor_allowance:
        effective -= min(effective - serious, minor_allowance)
    cap = rubric.scoring.credit_cap if credit_cap is None else credit_cap
    credits = min(float(sum(credit_points)), cap)
    if rubric.scoring.credits_offset == "minor":
        credits = min(credits, effective - serious)
    # the dimension's net shortfall from 100 (deductions less credits) weighs `scale` times over
    # (rounded before it is scaled: a recalibrated dimension then moves the final score by exactly what
    # the unscaled one would, and no rounding lets a domain raise a score by a hundredth)
    shortfall = round(max(0.0, min(100.0, effective - credits)), 2) * scale
    score = 100.0 - shortfall if not clamp else max(0.0, 100.0 - shortfall)
    return round(score, 2), raw, round(effective * scale, 2), round(credits * scale, 2)


def uses_domain_weights(rubric: Rubric, scored: Iterable[str]) -> bool:
    """A weighted-mean review whose domain dimension is scored beside both DS dimensions: it is
    weighted (and recalibrated) by the rubric's `scoring.with_domain`."""
    scored = set(scored)
    return (rubric.scoring.combine == "weighted_mean" and rubric.scoring.with_domain is not None
            and "domain" in scored and set(rubric.dimensions) <= scored)


def recalibration(rubric: Rubric, dimension: str, with_domain: bool) -> dict[str, float]:
    """The `dimension_score` keywords (scale, minor_allowance) of a dimension: the rubric's
    with-domain recalibration when the domain weights apply, else none."""
    plan = rubric.scoring.with_domain
    if not with_domain or plan is None or rubric.scoring.combine != "weighted_mean":
        return {}
    return {"scale": plan.curve_scale.get(dimension, 1.0), "minor_allowance": plan.minor_allowance.get(dimension, 0.0)}


def earned_credits(positives: Iterable[Positive], dimension: Dimension) -> dict[str, float]:
    """Rubric strength credits the positives claim: each counts once per dimension."""
    earned: dict[str, float] = {}
    for positive in positives:
        credit = dimension.credit(positive.credit)
        if credit is not None and credit.id not in earned:
            earned[credit.id] = credit.points
    return earned


def final_score(scores: Mapping[str, float | None], weights: Mapping[str, float],
                combine: str = "shortfall") -> float | None:
    """The review's score from its scored dimensions (None when no dimension was scored; a
    dimension that was not scored, None, takes no part).

    weighted_mean (the seed's formula): the mean of the dimension scores at their weights.
    shortfall (calibrated): 100 minus each dimension's shortfall from 100 at its weight, clamped
    to 0..100, so adding a dimension can lower the score, never raise it."""
    available = {d: s for d, s in scores.items() if s is not None}
    if not available:
        return None
    if combine == "weighted_mean":
        total = sum(weights.get(d, 0.0) for d in available)
        if total <= 0:
            return None
        mean = sum(s * weights.get(d, 0.0) for d, s in available.items()) / total
        return _cents(max(0.0, min(100.0, mean)))
    shortfall = sum((100.0 - s) * weights.get(d, 0.0) for d, s in available.items())
    return _cents(max(0.0, min(100.0, 100.0 - shortfall)))


def _cents(value: float) -> float:
    """A score to two decimals, the same for sums that are equal but for float error (68.3649999...
    and 68.3650000...1 both round as 68.365 does), so equal scores never print a hundredth apart."""
    return round(round(value, 6), 2)


def review_weights(rubric: Rubric, scored: Iterable[str]) -> dict[str, float]:
    """The weights of the scored dimensions.

    weighted_mean: the rubric's `weights` (analysis and communication 0.5 each), or its
    `with_domain` weights (0.5 / 0.25 / 0.25) when the domain is scored; the mean renormalises
    over what was scored, so a partial review's score is its reviewed dimension's.
    shortfall: the rubric's, except in a partial review (some but not all of the rubric's own
    dimensions scored), where each reviewed DS dimension counts at weight 1, so the score is
    that dimension's score (less any domain shortfall)."""
    scored = list(scored)
    if rubric.scoring.combine == "weighted_mean":
        plan = rubric.scoring.with_domain
        base = plan.weights if plan is not None and "domain" in scored else rubric.scoring.weights
        return {d: float(base.get(d, 0.0)) for d in scored}
    own = [d for d in scored if d in rubric.dimensions]
    partial = 0 < len(own) < len(rubric.dimensions)
    return {d: 1.0 if partial and d in rubric.dimensions else rubric.weight(d) for d in scored}


def review_score(rubric: Rubric, scores: Mapping[str, float | None]) -> tuple[float | None, dict[str, float]]:
    """(final score, weights) of a review's scored dimensions under the rubric's formula."""
    scored = [d for d, s in scores.items() if s is not None]
    weights = review_weights(rubric, scored)
    return final_score(scores, weights, rubric.scoring.combine), weights


def band_verdict(score: float, rubric: Rubric) -> str:
    bands = rubric.scoring.bands
    if score >= bands["good_to_go"]:
        return GOOD_TO_GO
    if score >= bands["minor_fix"]:
        return MINOR_FIX
    return MAJOR_REWORK


_VERDICT_ORDER = [GOOD_TO_GO, MINOR_FIX, MAJOR_REWORK]


@dataclass(frozen=True)
class FloorItem:
    """One issue as the floor rules count it: its severity and every dimension it came from (a
    dedup pair, one issue raised by the analysis and the domain reviewer, keeps both origins)."""

    severity: Severity
    dimensions: frozenset[str]


def _origins(finding) -> frozenset[str]:
    dims = getattr(finding, "dimensions", None)
    if dims is not None:
        return frozenset(dims)
    dim = getattr(finding, "dimension", None)
    return frozenset({dim}) if dim else frozenset()


def floor_rule_triggers(findings: Iterable[ReviewerFinding | Finding | FloorItem], rubric: Rubric) -> list[tuple[str, str]]:
    """(cap, why) for every floor rule of the rubric that these findings trigger. Every dimension
    counts alike; a rule limited to one dimension counts an issue from that dimension, also when
    it was merged with another dimension's finding (it keeps its origin)."""
    findings = list(findings)
    triggered = []
    for rule in rubric.floor_rules:
        scope = [f for f in findings if rule.dimension is None or rule.dimension in _origins(f)]
        critical = sum(1 for f in scope if f.severity == Severity.CRITICAL)
        serious = sum(1 for f in scope if f.severity in (Severity.CRITICAL, Severity.MAJOR))
        if rule.rule == "criticals":
            hit = critical >= rule.at_least
            count = critical
        elif rule.rule == "serious":
            hit = serious >= rule.at_least
            count = serious
        else:  # critical_with_serious: a CRITICAL plus at least N more MAJOR-or-worse findings
            hit = critical >= 1 and serious - 1 >= rule.at_least
            count = serious
        if hit:
            triggered.append((rule.cap, rule.explain(count)))
    return triggered


def apply_floor_rules(
    verdict: str, findings: Iterable[ReviewerFinding | Finding | FloorItem], rubric: Rubric
) -> tuple[str, str | None]:
    """Cap the verdict (never the number) by the rubric's floor rules; the strictest cap wins.
    Returns (verdict, explanation or None when no rule changed it)."""
    capped, why = verdict, None
    for cap, reason in floor_rule_triggers(findings, rubric):
        if _VERDICT_ORDER.index(cap) > _VERDICT_ORDER.index(capped):
            capped, why = cap, reason
    return capped, why


def worst_severity(findings: Iterable[ReviewerFinding]) -> Severity | None:
    severities = [f.severity for f in findings]
    return min(severities, key=lambda s: s.rank) if severities else None


def lens_rating(findings: Iterable[ReviewerFinding]) -> LensRating:
    """A lens is rated by the worst finding listed under it (SOUND when none): what the reviewer
    self-reported is not shown, so a rating never disagrees with the findings beside it after
    re-routing, caps and dedup."""
    return LensRating.for_severity(worst_severity(findings))


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
