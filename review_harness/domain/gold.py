"""The domain reviewer's gold set (gold/domain/*.yaml over fixtures/domain/): what a careful
Search specialist expects the domain reviewer to find in each document, and, for gray-zone
documents, which analysis findings are the same issue. Used to measure the offline rules and
dedup (benchmarks/domain.py, tests); the DS task's own gold files will carry `options: {domain: ...}`.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import anyio
from pydantic import BaseModel

from review_harness.core.gold import ExpectedFinding, GoldCase, gold_files
from review_harness.core.matching import one_to_one, quote_overlap, ratio
from review_harness.core.paths import FIXTURES_DIR, GOLD_DIR, PROJECT_ROOT, leave_out_absent, repo_path
from review_harness.domain.config import DomainIndex
from review_harness.domain.dedup import FindingRef, dedup, suppressed
from review_harness.domain.reviewer import DomainFinding, ReviewerRubric
from review_harness.domain.rules import review_document
from review_harness.domain.skill import get_domain_context

DOMAIN_GOLD_DIR = GOLD_DIR / "domain"
DOMAIN_FIXTURES_DIR = FIXTURES_DIR / "domain"
QUOTE_MATCH = 0.8


class GoldDomainFinding(ExpectedFinding):
    lens: str
    issue_type: str
    severity: str
    must_catch: bool
    evidence: str


class ExpectedDedup(BaseModel):
    analysis_id: str
    merged: bool


class DomainGold(GoldCase):
    fixture: str
    domains: list[str]
    designed_deficiency: str
    expected_findings: list[GoldDomainFinding]
    expected_unverified: list[str] = []
    analysis_findings: list[FindingRef] = []
    expected_dedup: list[ExpectedDedup] = []


def load_gold(directory: Path = DOMAIN_GOLD_DIR) -> list[DomainGold]:
    """Every gold file of the folder, each checked against its fixture document."""
    return gold_files(directory, DomainGold)


class FixtureResult(BaseModel):
    fixture: str
    split: str
    expected: int
    must_catch: int
    predicted: int
    matched: int
    must_caught: int
    severity_agreed: int
    quotes_matched: int
    missed: list[str]
    false_positives: list[str]
    dedup_expected: int = 0
    dedup_correct: int = 0


def _similarity(pred: DomainFinding, gold: GoldDomainFinding) -> float:
    if pred.issue_type != gold.issue_type:
        return 0.0
    return 0.5 + 0.5 * quote_overlap(pred.quote, gold.evidence)


def evaluate(gold: DomainGold, rubric: ReviewerRubric, index: DomainIndex, now: datetime,
             fixtures: Path = DOMAIN_FIXTURES_DIR) -> FixtureResult:
    document = (fixtures / gold.fixture).read_text(encoding="utf-8")
    brief = get_domain_context(gold.domains, index=index, clock=lambda: now)
    review = review_document(document, brief.content, rubric)
    pairs = one_to_one(review.findings, gold.expected_findings, _similarity, 0.5)
    matched_gold = {j for _, j, _ in pairs}
    matched_pred = {i for i, _, _ in pairs}
    result = FixtureResult(
        fixture=gold.fixture, split=gold.split, expected=len(gold.expected_findings),
        must_catch=sum(g.must_catch for g in gold.expected_findings), predicted=len(review.findings),
        matched=len(pairs), must_caught=sum(gold.expected_findings[j].must_catch for j in matched_gold),
        severity_agreed=sum(review.findings[i].severity == gold.expected_findings[j].severity for i, j, _ in pairs),
        quotes_matched=sum(quote_overlap(review.findings[i].quote, gold.expected_findings[j].evidence) >= QUOTE_MATCH
                           for i, j, _ in pairs),
        missed=[g.id for j, g in enumerate(gold.expected_findings) if j not in matched_gold],
        false_positives=[f"{f.issue_type}: {f.quote}" for i, f in enumerate(review.findings) if i not in matched_pred],
    )
    if gold.expected_dedup:
        domain_refs = [FindingRef(id=f.id, summary=f.summary, quote=f.quote, section=f.section, fix=f.fix)
                       for f in review.findings]
        from review_harness.domain.offline import offline_dedup_model

        decisions = anyio.run(lambda: dedup(gold.analysis_findings, domain_refs, rubric.dedup, model=offline_dedup_model()))
        merged = suppressed(decisions)
        result.dedup_expected = len(gold.expected_dedup)
        result.dedup_correct = sum((e.analysis_id in merged) == e.merged for e in gold.expected_dedup)
    return result


def summarize(results: list[FixtureResult]) -> dict[str, float | None]:
    total = lambda key: sum(getattr(r, key) for r in results)  # noqa: E731
    return {
        "recall": ratio(total("matched"), total("expected")),
        "must_catch_recall": ratio(total("must_caught"), total("must_catch")),
        "precision": ratio(total("matched"), total("predicted")),
        "severity_agreement": ratio(total("severity_agreed"), total("matched")),
        "quote_accuracy": ratio(total("quotes_matched"), total("matched")),
        "dedup_accuracy": ratio(total("dedup_correct"), total("dedup_expected")),
    }


# ---------------------------------------------------------------------------------- fit gold

FIT_GOLD = DOMAIN_GOLD_DIR / "fit" / "documents.yaml"
class FitCase(BaseModel):
    document: str
    split: str
    fits: list[str]


class FitGold(BaseModel):
    indexes: dict[str, str] = {}
    domains: list[str]
    documents: list[FitCase]


class FitResult(BaseModel):
    document: str
    split: str
    domain: str
    expected: bool
    got: bool
    reason: str


def load_fit_gold(path: Path = FIT_GOLD) -> FitGold:
    from review_harness.core.yamlio import read_model

    return read_model(path, FitGold, f"fit gold {path}", ValueError)


def evaluate_fit(gold: FitGold | None = None) -> list[FitResult]:
    """Each document of the fit gold against each domain; a real write-up (kept beside the
    repository) that is not here is left out with one line (core.paths.leave_out_absent)."""
    from review_harness.domain.config import default_index, load_index
    from review_harness.domain.topics import domain_fit

    gold = gold or load_fit_gold()
    indexes = {d: load_index(PROJECT_ROOT / p) for d, p in gold.indexes.items()}
    out = []
    for case in leave_out_absent("domain fit gold", gold.documents, lambda case: case.document):
        path = repo_path(case.document)
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for domain in gold.domains:
            fit = domain_fit(text, [domain], indexes.get(domain) or default_index())
            out.append(FitResult(document=case.document, split=case.split, domain=domain,
                                 expected=domain in case.fits, got=fit.applicable, reason=fit.reason))
    return out


def fit_summary(results: list[FitResult]) -> dict[str, float | None]:
    """Accuracy of the fit decisions, and precision / recall of "fits"."""
    right = sum(r.expected == r.got for r in results)
    said = [r for r in results if r.got]
    real = [r for r in results if r.expected]
    return {"accuracy": ratio(right, len(results)), "fit_precision": ratio(sum(r.expected for r in said), len(said)),
            "fit_recall": ratio(sum(r.got for r in real), len(real)), "decisions": float(len(results))}
