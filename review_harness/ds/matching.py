"""One-to-one matching of predicted findings to gold findings, and the gold metrics.

Deterministic: a pair must share its dimension; its similarity adds lens agreement, text
similarity (rapidfuzz) between the finding and the gold summary, keyword hits, and evidence
overlap. Pairs are taken greedily, most similar first, so each finding matches at most once.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field
from rapidfuzz import fuzz

from review_harness.core.matching import GoldComparison, Match, matches_of, quote_overlap, ratio
from review_harness.ds.gold import GoldFile, GoldFinding
from review_harness.ds.models import Finding, Review

SEVERITIES = ("CRITICAL", "MAJOR", "MINOR")
MATCH_THRESHOLD = 0.45
DETERMINISTIC_MATCHER = "deterministic-v1"


class DsGoldComparison(GoldComparison):
    """The core comparison plus the DS review's own: the severity matrix, the verdict band, the
    score window and whether the top fixes are the important findings."""

    severity_matrix: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="gold severity -> predicted severity -> count"
    )
    verdict_band_correct: float | None
    score_in_window: float | None
    top3_relevance: float | None
    unsupported_critical: int = Field(
        default=0, description="CRITICAL findings the gold does not support: matched to no gold CRITICAL finding")


def _finding_text(f: Finding) -> str:
    return f"{f.title}. {f.issue} {f.evidence}"


def similarity(pred: Finding, gold: GoldFinding) -> float:
    """0..1; 0 when the dimensions differ."""
    if pred.dimension != gold.dimension:
        return 0.0
    text = _finding_text(pred).lower()
    lens = 1.0 if pred.lens == gold.lens else 0.0
    wording = fuzz.token_set_ratio(text, f"{gold.summary} {' '.join(gold.keywords)}".lower()) / 100
    keywords = (
        sum(1 for k in gold.keywords if k.lower() in text) / len(gold.keywords) if gold.keywords else 0.0
    )
    evidence = quote_overlap(pred.evidence, gold.evidence)
    if not gold.evidence and not pred.evidence:
        evidence = 0.5  # both describe an absence
    return round(0.35 * lens + 0.25 * wording + 0.2 * keywords + 0.2 * evidence, 4)


def match_findings(
    predicted: Sequence[Finding], gold: Sequence[GoldFinding], threshold: float = MATCH_THRESHOLD
) -> list[Match]:
    return matches_of(predicted, gold, similarity, threshold, finding_id=lambda _, f: f.id,
                      severity_agrees=lambda p, g: p.severity.value == g.severity.value)


def shown_findings(review: Review) -> list[Finding]:
    """The findings a review reports: an analysis finding merged into its domain version (dedup)
    is that one issue, compared with gold once, as the domain finding."""
    return [f for f in review.findings if not f.merged_into]


def compare_with_gold(
    review: Review, gold: GoldFile, matches: list[Match], matcher: str = DETERMINISTIC_MATCHER
) -> DsGoldComparison:
    by_id = {f.id: f for f in review.findings}
    gold_by_id = {g.id: g for g in gold.expected_findings}
    matrix = {g: {p: 0 for p in SEVERITIES} for g in SEVERITIES}
    for m in matches:
        matrix[gold_by_id[m.gold].severity.value][by_id[m.finding].severity.value] += 1
    important_gold = {
        g.id for g in gold.expected_findings if g.must_catch or g.severity.value in ("CRITICAL", "MAJOR")
    }
    gold_of = {m.finding: m.gold for m in matches}
    top = review.top_fixes[:3]
    top_hits = sum(1 for fid in top if gold_of.get(fid) in important_gold)
    scored = review.final_score is not None
    critical_gold = {g.id for g in gold.expected_findings if g.severity.value == "CRITICAL"}
    unsupported = sum(1 for f in shown_findings(review)
                      if f.severity.value == "CRITICAL" and gold_of.get(f.id) not in critical_gold)
    return DsGoldComparison.from_matches(
        [f.id for f in shown_findings(review)], gold.expected_findings, matches, matcher=matcher,
        severity_matrix=matrix,
        verdict_band_correct=float(review.verdict == gold.verdict_band) if review.verdict and gold.verdict_band else None,
        score_in_window=(
            float(gold.score_window[0] <= review.final_score <= gold.score_window[1])
            if scored and gold.score_window else None
        ),
        top3_relevance=ratio(top_hits, len(top)) if important_gold else None,
        unsupported_critical=unsupported,
    )
