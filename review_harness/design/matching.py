"""Compare a design review with its gold file: one-to-one finding matching and the metrics.

Deterministic: similarity adds persona agreement (a gold finding names the personas expected to
catch it), wording (rapidfuzz) against the gold summary and keywords, keyword hits, and where the
two evidence quotes sit in the documents: the same text, the same paragraph, nearby lines of one
section, or the same section. Two findings that quote different parts of a document about
different things do not match on a few shared words. The same matching decides contradiction
recall and the duplicate rate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import Field
from rapidfuzz import fuzz

from review_harness.core.markdown import find_line, normalize, parse_sections, section_at
from review_harness.core.matching import GoldComparison, Match, one_to_one, ratio
from review_harness.design.offline.vocabulary import REQ_ID
from review_harness.design.gold import DesignGold, GoldContradiction, GoldDesignFinding
from review_harness.design.models import Contradiction, DesignFinding, DesignReview

MATCH_THRESHOLD = 0.4
DETERMINISTIC_MATCHER = "design-deterministic-v2"  # v2: evidence compared by where it sits, not by fuzzy overlap


def _text(f: DesignFinding) -> str:
    return f"{f.title}. {f.section}. {f.issue} {f.why_it_matters} {f.suggestion} {f.evidence or ''}".lower()


def _wording(text: str, summary: str, keywords: list[str]) -> tuple[float, float]:
    wording = fuzz.token_set_ratio(text, f"{summary} {' '.join(keywords)}".lower()) / 100
    hits = sum(1 for k in keywords if k.lower() in text) / len(keywords) if keywords else 0.0
    return wording, hits


@dataclass(frozen=True)
class Place:
    """Where a quote sits: which document, its first and last line, and its section."""

    doc: str
    first: int
    last: int
    section: int


class Locator:
    """Finds quotes in the two documents a review was made of."""

    def __init__(self, documents: dict[str, str]):
        self.documents = {name: text for name, text in documents.items() if text}
        self.sections = {name: parse_sections(text) for name, text in self.documents.items()}
        self._cache: dict[str, Place | None] = {}

    def place(self, quote: str | None) -> Place | None:
        if not quote or len(quote.strip()) < 3:
            return None
        if quote not in self._cache:
            self._cache[quote] = self._find(quote)
        return self._cache[quote]

    def _find(self, quote: str) -> Place | None:
        for name, text in self.documents.items():
            line = find_line(text, quote)
            if line is None:
                continue
            sec = section_at(self.sections[name], line)
            span = max(0, quote.strip().count("\n")) + len(quote) // 400
            return Place(name, line, line + span, sec.index if sec else -1)
        return None


def _quotes_agree(a: str, b: str) -> bool:
    """The same text: one quote inside the other, or nearly the same words."""
    na, nb = normalize(a).strip(" .\"'"), normalize(b).strip(" .\"'")
    if not na or not nb:
        return False
    short_, long_ = sorted((na, nb), key=len)
    if len(short_) >= 3 and short_ in long_:
        return True
    return len(short_) >= 20 and fuzz.partial_ratio(short_, long_) >= 90


def evidence_score(pred: str | None, gold: str | None, where: Locator | None) -> float:
    """1 for the same text, 0.7 the same paragraph or an adjacent line, 0.5 within three lines of
    one section, 0.25 the same section, else 0. With no locator (documents unknown) only the
    text is compared. An absence (no gold quote) is 0.5 for a finding without a quote, else 0.2."""
    if not gold:
        return 0.5 if not pred else 0.2
    if not pred:
        return 0.0
    if _quotes_agree(pred, gold):
        return 1.0
    if where is None:
        return 0.0
    a, b = where.place(pred), where.place(gold)
    if a is None or b is None or a.doc != b.doc:
        return 0.0
    gap = max(a.first, b.first) - min(a.last, b.last)
    if gap <= 1:
        return 0.7
    if a.section == b.section:
        return 0.5 if gap <= 3 else 0.25
    return 0.0


def _ids(text: str) -> set[str]:
    return {re.sub(r"[-_.]", "", m.upper()) for m in REQ_ID.findall(text or "")}


def similarity(pred: DesignFinding, gold: GoldDesignFinding, where: Locator | None = None) -> float:
    text = _text(pred)
    persona = 1.0 if set(pred.reviewers) & set(gold.personas) else 0.0
    wording, hits = _wording(text, gold.summary, gold.keywords)
    evidence = evidence_score(pred.evidence, gold.evidence, where)
    if evidence < 0.7 and _ids(f"{pred.title} {pred.issue} {pred.evidence or ''}") & _ids(
            f"{gold.summary} {' '.join(gold.keywords)} {gold.evidence}"):
        evidence = 0.7  # both name the same requirement: one quotes it, the other the design that breaks it
    return round(0.1 * persona + 0.2 * wording + 0.3 * hits + 0.4 * evidence, 4)


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


def gold_locator(gold: DesignGold) -> Locator | None:
    """Where the gold case's documents are, for placing quotes (None when they cannot be read)."""
    try:
        design, requirements, _ = gold.parts()
    except OSError:
        return None
    return Locator({"design": design, "requirements": requirements})


def compare_design(review: DesignReview, gold: DesignGold, threshold: float = MATCH_THRESHOLD,
                   where: Locator | None = None) -> DesignGoldComparison:
    if review.status == "failed":
        return DesignGoldComparison(missed_gold=[g.id for g in gold.expected_findings])
    where = where or gold_locator(gold)
    preds, golds = review.findings, gold.expected_findings

    def sim(p: DesignFinding, g: GoldDesignFinding) -> float:
        return similarity(p, g, where)

    pairs = one_to_one(preds, golds, sim, threshold)
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
        if i not in matched_p and any(sim(preds[i], g) >= threshold for g in matched_gold)
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
