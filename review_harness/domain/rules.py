"""The offline domain reviewer: real checks of a document against the context brief.

* checks (prompts/domain/offline_rules.yaml): a pitfall or standard technique the brief knows
  about, relevant to the document, that the document does not address;
* benchmarks: a number the document cites as an external reference point for a metric, outside
  the range the brief states for that metric;
* claims: cited research looked up in the claim-verification table (the offline stand-in for a
  web search): contradicted or unsupported claims are findings, claims found nowhere are listed
  as unverified with no deduction.

Every finding quotes the document and cites its source (the brief's section, a web page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from review_harness.core.markdown import parse_sections, section_at, sentences
from review_harness.core.paths import FIXTURES_DIR, PROMPTS_DIR
from review_harness.core.yamlio import read_yaml
from review_harness.domain.reviewer import DomainFinding, FindingSource, ReviewerRubric, make_finding

RULES_FILE = PROMPTS_DIR / "domain" / "offline_rules.yaml"
CLAIMS_FILE = FIXTURES_DIR / "domain" / "claim_verifications.yaml"
HEADING_RE = re.compile(r"^### (?P<key>.+?) \[tier: (?P<tier>\w+)\] \[authority: (?P<authority>\w+)\]\s*$")
RANGE_RE = re.compile(r"(?:between\s+)?(?P<lo>\d+(?:\.\d+)?)\s*(?:-|–|to|and)\s*(?P<hi>\d+(?:\.\d+)?)")
NUMBER_RE = re.compile(r"(?<![\w.])(?P<value>\d+(?:\.\d+)?)(?![\w.])")
METRIC_SUFFIX_RE = re.compile(r"@\d+")
OFFLINE_SEARCH = "offline claim table (a search found nothing that supports it)"
CITATION_WORDS = ("research shows", "study", "studies", "according to", "paper", "survey found", "reported by")


class Check(BaseModel):
    id: str
    lens: str
    issue_type: str
    acknowledged_issue_type: str | None = None
    digest_terms: list[str]
    applies_when: list[str]
    requires_all: list[str] = []
    acknowledged_by: list[str] = []
    addressed_by: list[str]
    summary: str
    fix: str


class RulesConfig(BaseModel):
    checks: list[Check]
    metrics: list[str]
    benchmark_words: list[str]


class ClaimEntry(BaseModel):
    phrases: list[str]
    verdict: str  # verified | contradicted | unsupported
    source: str
    note: str


@lru_cache(maxsize=2)
def load_rules(path: Path = RULES_FILE) -> RulesConfig:
    return RulesConfig.model_validate(read_yaml(path))


@lru_cache(maxsize=2)
def load_claims(path: Path = CLAIMS_FILE) -> list[ClaimEntry]:
    return [ClaimEntry.model_validate(c) for c in (read_yaml(path) or {}).get("claims", [])]


@dataclass
class BriefSection:
    key: str
    tier: str
    authority: str
    bullets: list[str] = field(default_factory=list)


def brief_sections(content: str) -> list[BriefSection]:
    """The sections of a brief's content (as get_domain_context renders them)."""
    out: list[BriefSection] = []
    for line in content.splitlines():
        match = HEADING_RE.match(line)
        if match:
            out.append(BriefSection(match.group("key"), match.group("tier"), match.group("authority")))
        elif line.startswith("- ") and out:
            out[-1].bullets.append(line[2:])
        elif line.startswith("  ") and out and out[-1].bullets:
            out[-1].bullets[-1] += " " + line.strip()
        elif line.startswith("### "):
            out.append(BriefSection(line[4:].strip(), "workstream", "authoritative"))  # conflicts
    return out


def _has(text: str, words: list[str]) -> str | None:
    low = text.lower()
    return next((w for w in words if w in low), None)


NEGATION_RE = r"\b(?:no|not|without|never)\s+(?:\w+\s+)?"


def _hits(sentence: str, words: list[str]) -> int:
    """How many of the words a sentence uses, leaving out negated ones ("no click data")."""
    low = sentence.lower()
    return sum(1 for w in words if w in low and not re.search(NEGATION_RE + re.escape(w), low))


def _mentions(document: str, words: list[str]) -> bool:
    return any(_hits(unit.text, words) for unit in sentences(document) if unit.kind != "heading")


class DomainReview(BaseModel):
    """The domain expert's review (a model, so the member's store entry can hold it)."""

    findings: list[DomainFinding] = Field(default_factory=list)
    unverified: list[str] = Field(default_factory=list)
    verified: list[str] = Field(default_factory=list)
    credits: list[str] = Field(default_factory=list)


def _source_for(check: Check, sections: list[BriefSection]) -> FindingSource | None:
    """The most authoritative section that knows about the check (authoritative before advisory)."""
    hits = [s for s in sections if any(_has(b, check.digest_terms) for b in s.bullets)]
    if not hits:
        return None
    hits.sort(key=lambda s: s.authority != "authoritative")
    return FindingSource(kind="digest", ref=hits[0].key, authority=hits[0].authority)


SUMMARY_HEADING_RE = re.compile(r"summary|tl;?dr|overview|abstract", re.IGNORECASE)


def _locate(document: str, words: list[str]) -> tuple[str | None, str | None]:
    """The sentence of the document that uses most of the words, and its section heading: the
    evidence a finding quotes. Among equals, one in the body (where the method or plan is stated)
    beats one in the summary, then the first."""
    sections = parse_sections(document)
    best, best_score = None, 0.0
    for unit in sentences(document):
        hits = _hits(unit.text, words) if unit.kind != "heading" else 0
        if not hits:
            continue
        section = section_at(sections, unit.line)
        score = hits - (0.5 if section and SUMMARY_HEADING_RE.search(section.heading) else 0.0)
        if score > best_score:
            best, best_score = (unit, section), score
    if best is None:
        return None, None
    unit, section = best
    return unit.text, section.heading if section else None


def run_checks(document: str, sections: list[BriefSection], rubric: ReviewerRubric, config: RulesConfig) -> list[DomainFinding]:
    findings = []
    for check in config.checks:
        source = _source_for(check, sections)
        if source is None or not _mentions(document, check.applies_when):
            continue
        if any(not _has(document, [w]) for w in check.requires_all):
            continue
        if _mentions(document, check.addressed_by):
            continue
        issue = check.issue_type
        if check.acknowledged_issue_type and _mentions(document, check.acknowledged_by):
            issue = check.acknowledged_issue_type
        quote, where = _locate(document, check.acknowledged_by + check.applies_when + check.requires_all)
        findings.append(make_finding(rubric, f"D{len(findings) + 1}", check.lens, issue, source, check.summary,
                                     quote=quote, section=where, fix=check.fix))
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
                    config: RulesConfig | None = None, claims: list[ClaimEntry] | None = None) -> DomainReview:
    config = config or load_rules()
    claims = load_claims() if claims is None else claims
    sections = brief_sections(brief_content)
    review = DomainReview()
    review.findings = run_checks(document, sections, rubric, config)
    review.findings += check_benchmarks(document, sections, rubric, config, len(review.findings))
    review.findings += check_claims(document, rubric, claims, review, len(review.findings))
    if review.verified:
        review.credits.append("claims_cited")
    pitfall_checks = [c for c in config.checks if c.lens == "pitfall" and _source_for(c, sections)
                      and _mentions(document, c.applies_when)]
    if pitfall_checks and all(_mentions(document, c.addressed_by) for c in pitfall_checks):
        review.credits.append("pitfalls_addressed")
    return review
