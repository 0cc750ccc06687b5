"""The domain expert reviewer's data and pure logic: its rubric (prompts/domain/reviewer.yaml),
findings that cite their source, authority-aware severity (a finding drawn from an advisory
section is ADVISORY at -2, whatever its issue type), and the dimension's raw deductions and
credits (the DS kind applies its diminishing-returns curve to them like any dimension)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from review_harness.core.models import lookup
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.yamlio import read_model

RUBRIC_FILE = PROMPTS_DIR / "domain" / "reviewer.yaml"
Severity = Literal["CRITICAL", "MAJOR", "MINOR", "ADVISORY"]
SourceKind = Literal["digest", "web", "general", "reference"]


class ReviewerRubricError(ValueError):
    """The domain reviewer's rubric is missing or malformed, or names something unknown."""


class Deduction(BaseModel):
    id: str
    severity: Severity
    points: int
    description: str


class Credit(BaseModel):
    id: str
    points: int
    description: str


class Lens(BaseModel):
    id: str
    title: str
    checklist: list[str]
    deductions: list[Deduction]
    credits: list[Credit]


class DimensionSpec(BaseModel):
    id: str
    title: str
    reviewer: str
    focus: str
    lenses: list[Lens]


class Scoring(BaseModel):
    """The dimension's own credit cap; its weight, bands and floors are the DS rubric's."""

    credit_cap: float


class DedupSettings(BaseModel):
    signals_to_merge: int
    alternative_similarity: float


class ReviewerRubric(BaseModel):
    version: str
    severities: dict[str, dict]
    advisory_points: int
    dimension: DimensionSpec
    scoring: Scoring
    analysis_guardrail: str
    dedup: DedupSettings

    def lens(self, lens_id: str) -> Lens:
        return lookup({lens.id: lens for lens in self.dimension.lenses}, lens_id, "domain lens", ReviewerRubricError)

    def deduction(self, lens_id: str, issue_type: str) -> Deduction:
        rows = {d.id: d for d in self.lens(lens_id).deductions}
        return lookup(rows, issue_type, f"issue type of lens {lens_id}", ReviewerRubricError)

    def credit(self, credit_id: str) -> Credit:
        rows = {c.id: c for lens in self.dimension.lenses for c in lens.credits}
        return lookup(rows, credit_id, "domain credit", ReviewerRubricError)

    def issue_types(self) -> list[str]:
        return [d.id for lens in self.dimension.lenses for d in lens.deductions]


def load_reviewer_rubric(path: str | Path = RUBRIC_FILE) -> ReviewerRubric:
    return read_model(path, ReviewerRubric, f"domain reviewer rubric {path}", ReviewerRubricError)


@lru_cache(maxsize=1)
def default_reviewer_rubric() -> ReviewerRubric:
    return load_reviewer_rubric(RUBRIC_FILE)


class FindingSource(BaseModel):
    """Where a finding's knowledge comes from: a digest section (its key in the brief), a web
    page (its URL), the user's reference (it supplements the brief) or the reviewer's general
    knowledge."""

    kind: SourceKind
    ref: str | None = None
    authority: Literal["authoritative", "advisory"] | None = None

    def cite(self) -> str:
        if self.kind == "digest":
            return f"digest: {self.ref} [{self.authority or 'authoritative'}]"
        if self.kind == "web":
            return f"web: {self.ref}"
        if self.kind == "reference":
            return f"reference: {self.ref or 'the user reference'}"
        return "general domain knowledge"


class DomainFinding(BaseModel):
    id: str
    lens: str
    issue_type: str
    severity: Severity
    points: int
    summary: str
    quote: str | None = None
    section: str | None = None
    fix: str | None = None
    source: FindingSource


def make_finding(rubric: ReviewerRubric, finding_id: str, lens: str, issue_type: str, source: FindingSource,
                 summary: str, quote: str | None = None, section: str | None = None,
                 fix: str | None = None) -> DomainFinding:
    """A finding at its deduction-table severity and points, capped at ADVISORY when its source is
    an advisory digest section."""
    row = rubric.deduction(lens, issue_type)
    severity, points = advisory_cap(row.severity, row.points, source, rubric)
    return DomainFinding(id=finding_id, lens=lens, issue_type=issue_type, severity=severity, points=points,
                         summary=summary, quote=quote, section=section, fix=fix, source=source)


def advisory_cap(severity: Severity, points: int, source: FindingSource, rubric: ReviewerRubric) -> tuple[Severity, int]:
    if source.kind == "digest" and source.authority == "advisory":
        return "ADVISORY", rubric.advisory_points
    return severity, points


def raw_deductions(findings: list[DomainFinding]) -> list[int]:
    return [f.points for f in findings]


def credit_points(credit_ids: list[str], rubric: ReviewerRubric) -> list[int]:
    """Each credit once, capped at the dimension's credit cap in total."""
    points, total = [], 0
    for credit_id in dict.fromkeys(credit_ids):
        value = rubric.credit(credit_id).points
        value = min(value, int(rubric.scoring.credit_cap) - total)
        if value <= 0:
            break
        points.append(value)
        total += value
    return points


SEVERITY_ORDER = ("CRITICAL", "MAJOR", "MINOR", "ADVISORY")


def lens_worst(findings: list[DomainFinding], rubric: ReviewerRubric) -> dict[str, str | None]:
    """Each lens's worst severity (None: no finding), in rubric order: the domain rows of the
    dashboard."""
    out: dict[str, str | None] = {lens.id: None for lens in rubric.dimension.lenses}
    for finding in findings:
        current = out.get(finding.lens)
        if current is None or SEVERITY_ORDER.index(finding.severity) < SEVERITY_ORDER.index(current):
            out[finding.lens] = finding.severity
    return out
