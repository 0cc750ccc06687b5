"""Pydantic models shared by solvers, scorers, the offline reviewer and the CLI.

Two families live here:

* what a reviewer returns (``ReviewerReport``): also the response schema sent to the model;
* what the synthesis produces (``Review``): the log contract, stored as JSON in
  ``Score.metadata["review"]`` and read by export, analytics and the gate.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from review_harness.core.member import MemberRun
from review_harness.core.models import RankedEnum
from review_harness.domain.dedup import DedupDecision
from review_harness.domain.reviewer import DomainFinding
from review_harness.domain.topics import DomainFit


class Severity(RankedEnum):
    """Rank 0 is the most severe: sorting by rank puts CRITICAL first."""

    CRITICAL = "CRITICAL"
    MAJOR = "MAJOR"
    MINOR = "MINOR"


class LensRating(RankedEnum):
    """Rank grows as the rating gets worse. NOT ASSESSED: the reviewer could not judge the lens from
    the text (the offline rules say so rather than rate it SOUND)."""

    NOT_ASSESSED = "NOT ASSESSED"
    SOUND = "SOUND"
    MINOR_ISSUES = "MINOR ISSUES"
    MAJOR_ISSUES = "MAJOR ISSUES"
    CRITICAL = "CRITICAL"

    @classmethod
    def for_severity(cls, severity: Severity | None) -> "LensRating":
        return {
            None: cls.SOUND,
            Severity.MINOR: cls.MINOR_ISSUES,
            Severity.MAJOR: cls.MAJOR_ISSUES,
            Severity.CRITICAL: cls.CRITICAL,
        }[severity]


Mode = Literal["full", "quick"]
Audience = Literal["exec", "tech", "ds", "mixed"]
Workflow = Literal["general", "proactive", "reactive"]
MODES: tuple[str, ...] = ("full", "quick")
AUDIENCES: tuple[str, ...] = ("exec", "tech", "ds", "mixed")
WORKFLOWS: tuple[str, ...] = ("general", "proactive", "reactive")


# --------------------------------------------------------------------------------------
# Reviewer output (response schema)
# --------------------------------------------------------------------------------------


class ReviewerFinding(BaseModel):
    """One finding in the compact format a reviewer emits."""

    lens: str = Field(description="Lens id from the rubric, e.g. 'methodology'.")
    severity: Severity
    title: str = Field(description="Short title, under 12 words.")
    location: str = Field(description="Where in the document: section heading and/or line.")
    issue: str = Field(description="2-3 sentences: what is wrong and why it matters.")
    evidence: str = Field(
        default="", description="Verbatim quote from the document that shows the issue."
    )
    suggested_fix: str = Field(description="Concrete change the author can make.")
    issue_type: str | None = Field(
        default=None, description="Id of the matching row in the lens's deduction table."
    )


class LensAssessment(BaseModel):
    lens: str
    rating: LensRating
    note: str | None = Field(
        default=None, description="With NOT ASSESSED: in one line, what a person should check instead; otherwise null.")


class Positive(BaseModel):
    title: str
    detail: str = Field(description="1-2 sentences on what is strong and why.")
    lens: str | None = None
    credit: str | None = Field(
        default=None, description="Id of the matching strength credit in the rubric, if any."
    )


class ReviewerReport(BaseModel):
    """What one reviewer returns. Field order matters: ratings and findings come first so
    a truncated answer loses the least important parts (positives, self-reported score)."""

    dimension: str
    lens_ratings: list[LensAssessment] = Field(default_factory=list)
    findings: list[ReviewerFinding] = Field(default_factory=list)
    positives: list[Positive] = Field(default_factory=list)
    score: int | None = Field(
        default=None,
        description="The reviewer's own 0-100 estimate. Informational: the harness "
        "computes the score from findings.",
    )


# --------------------------------------------------------------------------------------
# Review (log contract)
# --------------------------------------------------------------------------------------

ReviewStatus = Literal["complete", "partial", "deferred", "no_analysis"]
Verdict = Literal["Good to Go", "Minor Fix", "Major Rework"]


class SynthesizedPositive(Positive):
    dimension: str


class Finding(ReviewerFinding):
    """A finding after synthesis: owned by a dimension, with its deduction applied."""

    id: str = Field(description="Stable within the review: A1, A2... for analysis, C1... ")
    dimension: str
    deduction: float = 0.0
    evidence_verified: bool | None = Field(
        default=None, description="Whether the evidence quote is verbatim in the document; None without a quote."
    )
    merged_into: str | None = Field(
        default=None, description="An analysis finding that is the same issue as this domain finding (dedup): the "
        "domain version is the one shown in the top fixes; the pair is deducted once.")
    salvaged: bool = Field(
        default=False, description="Parsed from a reviewer answer that was cut off or malformed (after its retry): "
        "scored like any finding, in a partial review that says what was lost.")


class DimensionResult(BaseModel):
    dimension: str
    title: str
    reviewed: bool
    applicable: bool = Field(default=True, description="False: a domain the document has no content for (not scored).")
    score: float | None = None
    score_in_final: float | None = Field(
        default=None, description="What the final score takes for this dimension: its score, or, when its "
        "deductions weigh double beside a domain and pass 100, a value below 0 (the dimension shows 0).")
    lens_ratings: dict[str, LensRating] = Field(default_factory=dict)
    lens_notes: dict[str, str] = Field(
        default_factory=dict, description="A lens rated NOT ASSESSED: what a person should check, as its reviewer said.")
    raw_deductions: float = 0.0
    effective_deductions: float = 0.0
    credits: float = 0.0
    credits_earned: dict[str, float] = Field(
        default_factory=dict, description="Strength credits the reviewer's positives earned (before cap and offset)."
    )
    self_reported_score: int | None = None
    status_label: Literal["Pass", "Issues Found", "Critical Issues", "Not reviewed", "Not applicable"] = (
        "Not reviewed"
    )


class DashboardRow(BaseModel):
    dimension: str
    lens: str
    lens_title: str
    rating: LensRating | Literal["Not reviewed", "Not applicable", "ADVISORY"]


class DomainSection(BaseModel):
    """The domain knowledge dimension (with `-T domain=`): the brief it was judged against,
    every domain finding with its source (ADVISORY ones only here: they never reach the DS
    findings or a floor rule), the claims, the dedup decisions and the weights used."""

    domains: list[str]
    brief: dict = Field(default_factory=dict, description="The brief's log record: digest versions, tokens, warnings.")
    banner: str | None = None
    reference: str | None = None
    findings: list[DomainFinding] = Field(default_factory=list)
    credits: list[str] = Field(default_factory=list)
    unverified_claims: list[str] = Field(default_factory=list)
    verified_claims: list[str] = Field(default_factory=list)
    dedup: list[DedupDecision] = Field(default_factory=list)
    weights: dict[str, float] = Field(default_factory=dict, description="The deduction weights the score used.")
    applicable: bool = Field(default=True, description="False: the document has no content of these domains.")
    fit: DomainFit | None = None
    charged: dict[str, str] = Field(
        default_factory=dict, description="Domain finding id -> where its dedup pair was deducted: 'domain', or the "
        "analysis finding ids it absorbed (deducted there, once).")


class DocumentInfo(BaseModel):
    title: str
    source: str
    word_count: int
    reading_minutes: float
    token_estimate: int
    tier: int
    structure_inferred: bool = False
    partial_input: bool = False
    status: str | None = Field(default=None, description="What the page says it is (a status macro or line): Draft, Final...")
    parts: dict[str, bool] = Field(default_factory=dict, description="The parts of an analysis the document has: "
                                   "summary, method, results, conclusion.")
    no_analysis: str | None = Field(default=None, description="Why the document holds no analysis to review "
                                    "(None: it does); such a document gets no score and no verdict.")


class Review(BaseModel):
    """The whole synthesized review: the log contract (``Score.metadata['review']``)."""

    model_config = ConfigDict(use_enum_values=False)

    schema_version: Literal[1] = 1
    document: DocumentInfo
    mode: Mode
    requested_mode: Mode
    audience: Audience
    workflow: Workflow
    draft: bool = False
    status: ReviewStatus
    degradation_level: Literal[0, 1, 2] = 0
    tier: int
    dimensions: dict[str, DimensionResult]
    findings: list[Finding] = Field(default_factory=list)
    top_fixes: list[str] = Field(default_factory=list, description="Finding ids, best first.")
    positives: list[SynthesizedPositive] = Field(default_factory=list)
    cross_cutting: list[str] = Field(default_factory=list)
    notes: list[str] = Field(
        default_factory=list, description="What the lead changed in the reviewers' output (e.g. a re-routed finding)."
    )
    dashboard: list[DashboardRow] = Field(default_factory=list)
    final_score: float | None = None
    scored_dimensions: list[str] = Field(
        default_factory=list, description="The dimensions the final score covers (a partial review: fewer).")
    band_verdict: Verdict | None = None
    verdict: Verdict | None = None
    floor_rule: str | None = None
    warnings: list[str] = Field(default_factory=list)
    reviewer_runs: list[MemberRun] = Field(
        default_factory=list, description="Each reviewer's member run: status, attempts, tokens, seconds, reason."
    )
    prompt_version: str = ""
    prompt_prefix_hashes: dict[str, str] = Field(
        default_factory=dict, description="Hash of each reviewer's stable prompt prefix."
    )
    rubric_version: str = ""
    domain: DomainSection | None = Field(default=None, description="Only with -T domain= (absent from the JSON otherwise).")

    def finding(self, finding_id: str) -> Finding:
        for f in self.findings:
            if f.id == finding_id:
                return f
        raise KeyError(finding_id)


# --------------------------------------------------------------------------------------
# Document preparation (seed 000 s2.1 steps 1-6, s4, s5.4, s10)
# --------------------------------------------------------------------------------------

TldrMethod = Literal[
    "panel", "emphasis", "named_section", "first_paragraph", "content_signal", "absent"
]


class Section(BaseModel):
    heading: str
    level: int = Field(description="1 for '#', 2 for '##' ... ; 0 for the text before any heading.")
    start_line: int = Field(description="1-based, inclusive.")
    end_line: int = Field(description="1-based, inclusive.")


class TldrDetection(BaseModel):
    found: bool
    method: TldrMethod
    text: str = ""
    start_line: int | None = None
    end_line: int | None = None


class PartialInputCheck(BaseModel):
    is_partial: bool
    reasons: list[str] = Field(default_factory=list)


class PreparedDocument(BaseModel):
    """Everything the lead steps compute before dispatch; deterministic for a given text."""

    title: str
    source: str
    text: str
    word_count: int
    reading_minutes: float
    token_estimate: int
    tier: Literal[1, 2, 3]
    sections: list[Section] = Field(default_factory=list)
    tldr: TldrDetection
    structure_inferred: bool = False
    partial_input: PartialInputCheck
    status: str | None = Field(default=None, description="The page's own status (status macro or line), if any.")
    audience: str = Field(default="mixed", description="The review's audience (the extraction names it).")
    workflow: str = Field(default="general", description="The review's workflow context (the extraction names it).")
    section_map: str | None = Field(default=None, description="Tier 2 only.")
    extraction: str | None = Field(default=None, description="Tier 3 only.")
    invisible_characters: dict[str, int] = Field(default_factory=dict, description="Invisible characters removed, by kind.")
    parts: dict[str, bool] = Field(default_factory=dict, description="The parts of an analysis the document has.")
    no_analysis: str | None = Field(default=None, description="Why the document holds no analysis (None: it does).")

    @property
    def reviewer_content(self) -> str:
        """What reviewers receive (seed 000 s2.2): tier 3 gets only the extraction."""
        if self.tier == 3 and self.extraction is not None:
            return self.extraction
        return self.text

    def info(self) -> DocumentInfo:
        shared = set(DocumentInfo.model_fields) - {"partial_input"}
        return DocumentInfo(**self.model_dump(include=shared), partial_input=self.partial_input.is_partial)


# --------------------------------------------------------------------------------------
# What the solvers leave in the sample store for the synthesis scorer
# --------------------------------------------------------------------------------------

PANEL_STORE_KEY = "review_panel"


class ReviewOptions(BaseModel):
    """The request after defaults and fixture options were applied."""

    requested_mode: Mode = "full"
    mode: Mode = "full"
    audience: Audience = "mixed"
    workflow: Workflow = "general"
    draft: bool = False
    domains: list[str] | None = Field(default=None, description="The domain dimension's domains (-T domain=, or a "
                                      "fixture's gold options); None: a two-dimension review.")


class PanelRecord(BaseModel):
    """Everything synthesis needs, so `inspect score` can re-synthesize without model calls.
    `reports` holds the report of each dimension whose reviewer completed; `salvaged` what
    parsed of a malformed answer (named in the warnings, never scored)."""

    options: ReviewOptions
    document: DocumentInfo
    degradation_level: Literal[0, 1, 2] = 0
    warnings: list[str] = Field(default_factory=list)
    reports: dict[str, ReviewerReport | None] = Field(default_factory=dict)
    salvaged: dict[str, ReviewerReport] = Field(default_factory=dict)
    runs: list[MemberRun] = Field(default_factory=list)
    prompt_version: str = ""
    prompt_prefix_hashes: dict[str, str] = Field(default_factory=dict)
