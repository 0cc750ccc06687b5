"""The offline domain reviewer: real checks of a document against the knowledge in its brief.

The brief is read item by item (items.py): every bullet is a claim with its section's tier and
authority. Each item is checked against one reading of the document (reading.py):

* an item about a concept the engine can read (position bias, the logging policy, a metric used
  alone, segments, online validation, load tests, latency percentiles, classifier metrics,
  leakage, sample ratio, minimum duration: prompts/domain/offline_rules.yaml) goes to that
  concept's detector (checks.py), which says whether it applies and whether the document handles
  it; items on one concept and subject make one finding, sourced from the most authoritative item,
  with the fix the winning item prescribes (workstream knowledge before foundational);
* an item that states its own conditions (`applies when`, `addressed by`) is checked on them;
* a range the brief gives for a metric is compared with numbers the document cites as external
  reference points (benchmarks);
* cited research is looked up in the claim-verification table (the offline stand-in for a web
  search): contradicted or unsupported claims are findings, claims found nowhere are listed as
  unverified with no deduction;
* an authoritative item nothing can read is listed as not assessed offline (no finding).

A user's reference supplements the brief: its items are checked the same way, except on a
subject the brief already covers (the brief's item stands). Every finding quotes the document and
cites its source.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from review_harness.core.markdown import parse_sections, section_at, sentences
from review_harness.core.paths import FIXTURES_DIR
from review_harness.core.yamlio import read_yaml
from review_harness.domain.checks import DETECTORS, Concept, Ctx, Outcome, RulesConfig, explicit_check, load_rules
from review_harness.domain.items import BriefSection, Item, brief_sections, items_of, reference_items
from review_harness.domain.reading import read
from review_harness.domain.reviewer import DomainFinding, FindingSource, ReviewerRubric, make_finding

__all__ = ["BriefSection", "DomainReview", "RulesConfig", "brief_sections", "load_rules", "review_document"]

CLAIMS_FILE = FIXTURES_DIR / "domain" / "claim_verifications.yaml"
RANGE_RE = re.compile(r"(?:between\s+)?(?P<lo>\d+(?:\.\d+)?)\s*(?:-|–|to|and)\s*(?P<hi>\d+(?:\.\d+)?)")
NUMBER_RE = re.compile(r"(?<![\w.])(?P<value>\d+(?:\.\d+)?)(?![\w.])")
METRIC_SUFFIX_RE = re.compile(r"@\d+")
OFFLINE_SEARCH = "offline claim table (a search found nothing that supports it)"
CITATION_WORDS = ("research shows", "study", "studies", "according to", "paper", "survey found", "reported by")


class ClaimEntry(BaseModel):
    phrases: list[str]
    verdict: str  # verified | contradicted | unsupported
    source: str
    note: str


@lru_cache(maxsize=2)
def load_claims(path: Path = CLAIMS_FILE) -> list[ClaimEntry]:
    return [ClaimEntry.model_validate(c) for c in (read_yaml(path) or {}).get("claims", [])]


class DomainReview(BaseModel):
    """The domain expert's review (a model, so the member's store entry can hold it)."""

    findings: list[DomainFinding] = Field(default_factory=list)
    unverified: list[str] = Field(default_factory=list)
    verified: list[str] = Field(default_factory=list)
    credits: list[str] = Field(default_factory=list)
    not_assessed: list[str] = Field(default_factory=list, description="knowledge the offline reviewer cannot check")


def _has(text: str, words: list[str]) -> str | None:
    low = text.lower()
    return next((w for w in words if w in low), None)


def _source(item: Item) -> FindingSource:
    if item.origin == "reference":
        return FindingSource(kind="reference", ref=item.key.split(" / ", 1)[-1] if " / " in item.key else item.key)
    return FindingSource(kind="digest", ref=item.key, authority=item.authority)


def _fill(template: str, values: dict[str, str]) -> str:
    out = template
    for name, value in values.items():
        out = out.replace("{" + name + "}", value)
    return re.sub(r"\s*\(\)", "", re.sub(r"\{\w+\}", "", out)).replace("  ", " ").strip()


def _fix(concept: Concept, winner: Item, values: dict[str, str], conflicts: list[Item]) -> str:
    """The concept's fix with what the winning item prescribes; a remedy the brief's conflicts say
    the team replaced is not suggested."""
    remedy = winner.remedy or concept.fix_default
    for conflict in conflicts:
        replaced = re.search(r"names (?P<term>[\w-]+(?: [\w-]+){0,3}?) (?:as|for|\()", conflict.text)
        if replaced and remedy and replaced.group("term").lower() in remedy.lower() and concept.fix_default:
            if not winner.is_workstream:
                remedy = concept.fix_default
    if winner.is_workstream and winner.remedy:
        remedy = f"{winner.remedy}, the team's current standard" + (f" since {winner.date}" if winner.date else "")
    return _fill(concept.fix, {**values, "remedy": remedy or ""})


def advice(item: Item, config: RulesConfig) -> str | None:
    """What the item tells the analyst to do, when it ends on an instruction ("...; fix the sample
    size in advance or use a sequential test")."""
    clause = re.split(r";\s*", item.text.rstrip(". "))[-1].strip()
    first = clause.split(" ", 1)[0].lower()
    if first in config.words("advice_verbs"):
        return clause[0].upper() + clause[1:] + "."
    return None


def run_items(document: str, items: list[Item], rubric: ReviewerRubric, config: RulesConfig,
              review: DomainReview) -> list[DomainFinding]:
    """Every item checked; one finding per (concept, subject), from the item that wins."""
    reading = read(document)
    conflicts = [i for i in items if i.is_conflict]
    by_concept = [(item, config.concept_of(item)) for item in items if not item.is_conflict]
    covered_by_brief: set[tuple[str, str]] = set()
    groups: dict[tuple[str, str], list[tuple[Item, Concept | None, Outcome]]] = {}
    applied_pitfalls: list[bool] = []
    for item, concept in by_concept:
        if item.applies_when:
            outcome = explicit_check(reading, item)
            concept = None
        elif concept is not None:
            outcome = DETECTORS[concept.reading](Ctx(reading, item, concept, config))
        else:
            if item.authority == "authoritative" and item.origin == "digest" and not RANGE_RE.search(item.text):
                review.not_assessed.append(f"{item.label()} (not assessed offline: no reading of this knowledge)")
            continue
        if outcome is None:
            continue
        if outcome.status == "undecided":
            review.not_assessed.append(f"{item.label()} (not assessed offline: {outcome.why})")
            continue
        group = ((concept.id if concept else "explicit"), outcome.key)
        if item.origin == "reference" and group in covered_by_brief:
            continue  # the reference supplements the brief, never overrides it
        if item.origin == "digest":
            covered_by_brief.add(group)
        groups.setdefault(group, []).append((item, concept, outcome))
        if concept is None or concept.lens == "pitfall":
            applied_pitfalls.append(outcome.status == "addressed")
    findings = []
    quoted: set[tuple[str, str | None]] = set()
    for (concept_id, _), entries in groups.items():
        if any(o.status == "addressed" for _, _, o in entries):
            continue
        entries.sort(key=lambda e: e[0].precedence)
        source_item = min(entries, key=lambda e: (e[0].authority != "authoritative", e[0].is_workstream))[0]
        winner = entries[0][0]
        outcome = next(o for i, _, o in entries if i is source_item)
        concept = entries[0][1]
        unit = outcome.unit
        quote, where = (unit.text, unit.heading or None) if unit else (None, None)
        reading_id = entries[0][1].reading if entries[0][1] else "explicit"
        if quote and (reading_id, quote) in quoted:
            continue  # two concepts of one reading on the same sentence: one finding (the first)
        quoted.add((reading_id, quote))
        if concept is None:
            explicit = config.explicit
            issue = source_item.issue or (explicit.critical_issue_type if any(
                w in source_item.low for w in explicit.critical_words) else explicit.default_issue_type)
            lens = next((lens.id for lens in rubric.dimension.lenses if issue in {d.id for d in lens.deductions}),
                        explicit.lens)
            summary = source_item.topic or source_item.text[:120]
            fix = advice(source_item, config) or "Address it, or say why it does not apply here."
        else:
            issue = concept.acknowledged_issue_type if outcome.acknowledged and concept.acknowledged_issue_type \
                else concept.issue_type
            lens = concept.lens
            summary = _fill(concept.summary, outcome.values)
            fix = _fix(concept, winner, outcome.values, conflicts)
        findings.append(make_finding(rubric, f"D{len(findings) + 1}", lens, issue, _source(source_item), summary,
                                     quote=quote, section=where, fix=fix))
    if applied_pitfalls and all(applied_pitfalls):
        review.credits.append("pitfalls_addressed")
    return findings


def digest_ranges(sections: list[BriefSection], metrics: list[str]) -> dict[str, tuple[float, float, BriefSection]]:
    """metric -> (low, high, section) from bullets that state a range for it."""
    out: dict[str, tuple[float, float, BriefSection]] = {}
    for section in sections:
        for bullet in section.bullets:
            for metric in metrics:
                at = bullet.lower().find(metric.lower())
                if at < 0 or metric in out:
                    continue
                match = RANGE_RE.search(bullet, at)
                if match and float(match.group("lo")) < float(match.group("hi")):
                    out[metric] = (float(match.group("lo")), float(match.group("hi")), section)
    return out


def check_benchmarks(document: str, sections: list[BriefSection], rubric: ReviewerRubric, config: RulesConfig,
                     start: int) -> list[DomainFinding]:
    ranges = digest_ranges(sections, config.metrics)
    findings = []
    doc_sections = parse_sections(document)
    for unit in sentences(document):
        if not _has(unit.text, config.benchmark_words):
            continue
        for metric, (lo, hi, section) in sorted(ranges.items(), key=lambda kv: -len(kv[0])):
            at = unit.text.lower().find(metric.lower())
            if at < 0:
                continue
            suffix = METRIC_SUFFIX_RE.match(unit.text, at + len(metric))  # NDCG@10: the 10 is not a value
            number = NUMBER_RE.search(unit.text, suffix.end() if suffix else at + len(metric))
            if not number:
                continue
            value = float(number.group("value"))
            if lo <= value <= hi:
                continue
            width = hi - lo
            far = value > hi + width or value < lo - width
            issue = "benchmark_fabricated" if far else "cited_number_inaccurate"
            where = section_at(doc_sections, unit.line)
            source = FindingSource(kind="digest", ref=section.key, authority=section.authority)
            findings.append(make_finding(
                rubric, f"D{start + len(findings) + 1}", "benchmark", issue, source,
                f"{metric} of {number.group('value')} is cited as a reference point; the team's digest puts {metric} "
                f"between {lo:g} and {hi:g}", quote=unit.text, section=where.heading if where else None,
                fix=f"Cite the source of this {metric} figure or use the range the team measures ({lo:g}-{hi:g})."))
            break
    return findings


def check_claims(document: str, rubric: ReviewerRubric, claims: list[ClaimEntry], review: DomainReview,
                 start: int) -> list[DomainFinding]:
    findings = []
    doc_sections = parse_sections(document)
    for unit in sentences(document):
        if unit.kind == "heading" or not _has(unit.text, list(CITATION_WORDS)):
            continue
        entry = next((c for c in claims if _has(unit.text, [p.lower() for p in c.phrases])), None)
        where = section_at(doc_sections, unit.line)
        if entry is None:
            review.unverified.append(unit.text)
            continue
        web = entry.source.startswith("http")
        if entry.verdict == "unsupported":  # the table records a search that found nothing to support it
            source = FindingSource(kind="web", ref=entry.source if web else OFFLINE_SEARCH)
        else:
            source = FindingSource(kind="web" if web else "general", ref=entry.source if web else None)
        if entry.verdict == "verified":
            review.verified.append(unit.text)
            continue
        issue = "key_claim_false" if entry.verdict == "contradicted" else "claim_unverifiable"
        findings.append(make_finding(rubric, f"D{start + len(findings) + 1}", "benchmark", issue, source,
                                     f"Cited claim does not hold: {entry.note}", quote=unit.text,
                                     section=where.heading if where else None,
                                     fix="Correct the claim or cite a source that supports it."))
    return findings


def review_document(document: str, brief_content: str, rubric: ReviewerRubric,
                    config: RulesConfig | None = None, claims: list[ClaimEntry] | None = None,
                    reference: str | None = None) -> DomainReview:
    """The offline domain review of `document` against a brief's content (and a user's reference,
    which supplements it)."""
    config = config or load_rules()
    claims = load_claims() if claims is None else claims
    sections = brief_sections(brief_content)
    items = items_of(brief_content) + (reference_items(reference) if reference else [])
    review = DomainReview()
    review.findings = run_items(document, items, rubric, config, review)
    review.findings += check_benchmarks(document, sections, rubric, config, len(review.findings))
    review.findings += check_claims(document, rubric, claims, review, len(review.findings))
    if review.verified:
        review.credits.append("claims_cited")
    return review
