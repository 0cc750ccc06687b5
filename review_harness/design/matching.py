"""Compare a design review with its gold file: one-to-one finding matching and the metrics.

Deterministic: similarity adds persona agreement (a gold finding names the personas expected to
catch it), wording (rapidfuzz) against the gold summary and keywords, keyword hits and evidence
overlap. The same matching decides contradiction recall and the duplicate rate.
"""

from __future__ import annotations

from pydantic import Field
from rapidfuzz import fuzz

from review_harness.core.matching import GoldComparison, Match, one_to_one, quote_overlap, ratio
from review_harness.design.gold import DesignGold, GoldContradiction, GoldDesignFinding
from review_harness.design.models import Contradiction, DesignFinding, DesignReview

MATCH_THRESHOLD = 0.4
DETERMINISTIC_MATCHER = "design-deterministic-v1"


def _text(f: DesignFinding) -> str:
    return f"{f.title}. {f.section}. {f.issue} {f.why_it_matters} {f.suggestion} {f.evidence or ''}".lower()


def _wording(text: str, summary: str, keywords: list[str]) -> tuple[float, float]:
    wording = fuzz.token_set_ratio(text, f"{summary} {' '.join(keywords)}".lower()) / 100
    hits = sum(1 for k in keywords if k.lower() in text) / len(keywords) if keywords else 0.0
    return wording, hits


def similarity(pred: DesignFinding, gold: GoldDesignFinding) -> float:
    text = _text(pred)
    persona = 1.0 if set(pred.reviewers) & set(gold.personas) else 0.0
    wording, hits = _wording(text, gold.summary, gold.keywords)
    evidence = quote_overlap(pred.evidence, gold.evidence) if gold.evidence else (0.5 if not pred.evidence else 0.2)
    return round(0.15 * persona + 0.25 * wording + 0.3 * hits + 0.3 * evidence, 4)


def contradiction_similarity(pred: Contradiction, gold: GoldContradiction) -> float:
    text = f"{pred.topic} {pred.tension} {' '.join(p.position for p in pred.positions)}".lower()
    personas = {p.persona for p in pred.positions}
    wording, hits = _wording(text, gold.summary, gold.keywords)
    return round(0.3 * (len(personas & set(gold.personas)) / max(1, len(gold.personas))) + 0.3 * wording + 0.4 * hits, 4)


class DesignMatch(Match):
    """severity_agrees: the predicted severity is inside the gold finding's severity range."""

    phase_agrees: bool


class DesignGoldComparison(GoldComparison):
    """The core comparison plus the design review's own: phases, the verdict with its escalation
    target, contradictions and duplicates."""

    matcher: str = DETERMINISTIC_MATCHER
    matches: list[DesignMatch] = Field(default_factory=list)
    duplicates: list[str] = Field(default_factory=list, description="Findings that repeat a matched gold finding.")
    contradictions_found: list[str] = Field(default_factory=list)
    phase_accuracy: float | None = None
    verdict_accuracy: float | None = None
    contradiction_recall: float | None = None
    duplicate_rate: float | None = None


def compare_design(review: DesignReview, gold: DesignGold, threshold: float = MATCH_THRESHOLD) -> DesignGoldComparison:
    if review.status == "failed":
        return DesignGoldComparison(missed_gold=[g.id for g in gold.expected_findings])
    preds, golds = review.findings, gold.expected_findings
    pairs = one_to_one(preds, golds, similarity, threshold)
    matches = [
        DesignMatch(
            finding=preds[i].id, gold=golds[j].id, similarity=s,
            severity_agrees=golds[j].accepts(preds[i].severity),
            phase_agrees=preds[i].primary_phase == golds[j].phase,
        )
        for i, j, s in pairs
    ]
    matched_p = {i for i, _, _ in pairs}
    matched_gold = [golds[j] for _, j, _ in pairs]
    duplicates = [
        preds[i].id for i in range(len(preds))
        if i not in matched_p and any(similarity(preds[i], g) >= threshold for g in matched_gold)
    ]
    c_pairs = one_to_one(review.contradictions, gold.expected_contradictions, contradiction_similarity, threshold)
    target_ok = review.verdict == gold.verdict and review.escalation_target == gold.escalation_target
    return DesignGoldComparison.from_matches(
        [p.id for p in preds], golds, matches, matcher=DETERMINISTIC_MATCHER,
        duplicates=duplicates,
        contradictions_found=[gold.expected_contradictions[j].id for _, j, _ in c_pairs],
        phase_accuracy=ratio(sum(m.phase_agrees for m in matches), len(matches)),
        verdict_accuracy=float(target_ok) if gold.verdict is not None else None,
        contradiction_recall=ratio(len(c_pairs), len(gold.expected_contradictions)),
        duplicate_rate=ratio(len(duplicates), len(preds)) if preds else 0.0,
    )
