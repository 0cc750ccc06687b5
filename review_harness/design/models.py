"""Models of the design review (parallax review of a design against its requirements).

Three families:

* what one persona returns (``PersonaReport``): also the response schema sent to the model;
* what the synthesizer model returns (``SynthesisAnswer``): grouping, phases, contradictions,
  patterns; everything else in the review is computed in code;
* the synthesized review (``DesignReview``): the log contract, stored as JSON in
  ``Score.metadata["review"]`` and read by export, triage and the gate.

Every key of the response schemas is required (nullable where optional), so a strict
structured-output mode holds the model to exactly what the parser accepts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from review_harness.core.member import MemberRun
from review_harness.core.models import SEVERITIES, Severity  # noqa: F401 (the kind's modules import SEVERITIES from here)

KIND_NAME = "design"  # the kind's name in the core's registry, member runs and store keys
SYNTHESIZER = "synthesizer"  # the member that groups the personas' findings
GRADER = "grader"  # the member (and model role) that pairs two iterations' findings; every other member is a persona
# how a reviewer says it reports only part of what it found: the summary repeats such a note
CAP_MARK = "left out of its report"
Stage = Literal["requirements", "design", "plan"]
STAGES: tuple[str, ...] = ("requirements", "design", "plan")
Phase = Literal["survey", "calibrate", "design", "plan"]
PHASES: tuple[str, ...] = ("survey", "calibrate", "design", "plan")
Verdict = Literal["proceed", "revise", "escalate"]
AutoFixKind = Literal["typo", "broken-link", "missing-extension"]  # personas.yaml `auto_fix` names their rules
ReviewStatus = Literal["complete", "partial", "failed"]


# ---------------------------------------------------------------------------- persona output


class PersonaFinding(BaseModel):
    """One finding in the per-reviewer format."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(description="Short title, under 12 words.")
    severity: Severity
    phase: Phase = Field(description="Primary phase: the pipeline phase whose fix is most actionable.")
    contributing_phase: Phase | None = Field(description="Upstream phase that caused it, or null.")
    section: str = Field(description="Which part of the artifact (heading), e.g. 'Design > Retry policy'.")
    issue: str = Field(description="What is wrong, stated directly.")
    why_it_matters: str = Field(description="Impact if unaddressed, with the blast radius quantified.")
    suggestion: str = Field(description="How to fix it or what to reconsider.")
    evidence: str | None = Field(
        description="Verbatim quote from the design or requirements that shows the issue; null for an absence."
    )
    hygiene: bool = Field(
        default=False,
        description="True when the finding is about form only (missing ids or modal verbs, headings, formatting, "
        "wording), not about whether a requirement, the problem framing or the design is right. Form never escalates.",
    )


class PersonaReport(BaseModel):
    """What one persona returns."""

    model_config = ConfigDict(extra="forbid")

    persona: str
    findings: list[PersonaFinding]
    checked_and_fine: list[str] = Field(
        description="Sections or claims this persona checked and found sound (used to spot contradictions)."
    )
    blind_spot_check: str = Field(description="What this persona may have missed given its focus. Never empty.")


# ---------------------------------------------------------------------------- synthesizer output


class FindingGroup(BaseModel):
    """Reviewer findings that describe one issue, with its phase classification."""

    model_config = ConfigDict(extra="forbid")

    members: list[str] = Field(description="Reviewer finding ids, e.g. 'assumption-hunter-001'.")
    title: str
    primary_phase: Phase
    contributing_phase: Phase | None
    phase_rationale: str = Field(description="Why this phase (and contributing phase).")


class ContradictionPosition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    persona: str
    finding: str | None = Field(description="The reviewer finding id holding this position, or null.")
    position: str


class Contradiction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str
    positions: list[ContradictionPosition]
    tension: str = Field(description="The underlying tension, stated neutrally.")
    tie_breakers: list[str] = Field(description="Criteria the user can use to decide. No winner is picked.")


class Pattern(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Short slug, e.g. 'p1-unhandled-failure-modes'.")
    theme: str
    members: list[str] = Field(description="Reviewer finding ids in this pattern.")


class AutoFixProposal(BaseModel):
    """A mechanical fix of the reviewed document that the synthesizer proposes for one finding:
    replace `find` (verbatim, once in the document) with `replace`. Code applies it only when the
    kind's auto-fix rules (personas.yaml `auto_fix`) accept it."""

    model_config = ConfigDict(extra="forbid")

    finding: str = Field(description="The reviewer finding id the fix resolves, e.g. 'requirement-auditor-002'.")
    kind: AutoFixKind
    find: str = Field(description="The exact text in the document to replace (occurs once).")
    replace: str = Field(description="The text that replaces it.")


class SynthesisAnswer(BaseModel):
    """What the synthesizer model returns."""

    model_config = ConfigDict(extra="forbid")

    groups: list[FindingGroup]
    contradictions: list[Contradiction]
    patterns: list[Pattern] = Field(description="At most 15 actionable themes.")
    auto_fixes: list[AutoFixProposal] = Field(
        default_factory=list,
        description="Mechanical fixes only (typos, broken internal links, missing file extensions); empty when none.",
    )


# ---------------------------------------------------------------------------- the grader's delta answer


class DeltaPair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    previous: str = Field(description="A finding id of the previous iteration.")
    current: str = Field(description="The finding id of this iteration that describes the same problem.")
    reason: str = Field(description="Why the two describe one problem: the requirement, section or defect they share.")


class DeltaAnswer(BaseModel):
    """What the grader returns when it compares two iterations' findings."""

    model_config = ConfigDict(extra="forbid")

    pairs: list[DeltaPair] = Field(description="Each previous finding that persists, with its current counterpart.")


# ---------------------------------------------------------------------------- the review (log contract)


class SeverityVote(BaseModel):
    persona: str
    severity: Severity


class DesignFinding(BaseModel):
    """A synthesized finding: one issue, every reviewer that flagged it."""

    id: str = Field(description="v{iteration}-{persona}-{seq} of its first reviewer finding.")
    title: str
    section: str
    issue: str
    why_it_matters: str
    suggestion: str
    evidence: str | None = None
    evidence_verified: bool | None = Field(
        default=None, description="Whether the evidence quote occurs in the documents (None: no quote)."
    )
    severity: Severity = Field(description="Highest severity in the range: it drives the verdict.")
    severity_range: list[SeverityVote]
    reviewers: list[str]
    primary_phase: Phase
    contributing_phase: Phase | None = None
    phase_rationale: str = ""
    member_ids: list[str] = Field(description="Ids of the reviewer findings grouped here.")
    hygiene: bool = Field(default=False, description="Every reviewer calls it a matter of form: it never escalates or revises.")
    disposition: Literal["accepted", "rejected", "fixed"] | None = None
    disposition_note: str | None = None


class SystemicIssue(BaseModel):
    phase: Phase
    count: int
    of: int = Field(description="Findings that have a contributing phase.")
    share: float


class DeltaItem(BaseModel):
    id: str
    title: str = ""
    note: str = Field(default="", description="How the matcher decided: the closest counterpart it saw and why it fell short.")


class PersistingItem(BaseModel):
    previous: str
    current: str
    previous_title: str = ""
    current_title: str = ""
    score: float | None = Field(default=None, description="The offline matcher's similarity; None for the grader's pairs.")
    reason: str = Field(default="", description="The grader's reason for the pair.")


class DeltaPart(BaseModel):
    """A partition: every previous id is resolved, persisting or rejected (the author rejected it
    and no reviewer reports it again: it was not fixed, it stays rejected), every current id
    persisting or new."""

    resolved: list[DeltaItem] = Field(default_factory=list)
    persisting: list[PersistingItem] = Field(default_factory=list)
    new: list[DeltaItem] = Field(default_factory=list)
    rejected: list[DeltaItem] = Field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {"resolved": len(self.resolved), "persisting": len(self.persisting), "new": len(self.new),
                "rejected": len(self.rejected)}


class IterationDelta(BaseModel):
    """What changed since an earlier iteration of the topic (seed: delta detection)."""

    from_iteration: int
    to_iteration: int
    method: Literal["grader", "offline"] = Field(
        description="grader: the `grader` model role paired the findings; offline: the deterministic matcher."
    )
    matcher: str
    grader_model: str = Field(default="", description="With method grader: the model bound to the grader role.")
    findings: DeltaPart
    patterns: DeltaPart


class AutoFix(BaseModel):
    """A proposed mechanical fix and what became of it."""

    finding: str = Field(description="The synthesized finding it resolves (v{N}-... id).")
    kind: str
    find: str
    replace: str
    status: Literal["applied", "proposed", "rejected"] = Field(
        description="applied: committed to the design; proposed: valid, not applied (no -T auto_fix=true, or no "
        "repository); rejected: the auto-fix rules refuse it."
    )
    reason: str = ""


class DesignReview(BaseModel):
    """The whole synthesized design review: the log contract (``Score.metadata['review']``)."""

    schema_version: Literal[1] = 1
    kind: Literal["design"] = "design"
    topic: str
    stage: Stage
    iteration: int = 1
    design_path: str
    requirements_path: str
    reviewed: Literal["design", "requirements"] = Field(
        default="design", description="Which of the two documents is under review (the requirements at the requirements stage)."
    )
    document: str = Field(default="", description="What the topic reviews (a path, or 'inline'): a different one gets its own folder.")
    reviewed_blob: str = Field(default="", description="Git blob id of the reviewed file's text ('' : not a file).")
    changed_sections: list[str] = Field(
        default_factory=list, description="Sections changed since the last reviewed version, which the reviewers saw."
    )
    changes_since: str = ""
    date: str
    status: ReviewStatus
    verdict: Verdict | None = None
    escalation_target: Phase | None = Field(
        default=None, description="The upstream phase to revisit on escalate (the stage's escalation targets)."
    )
    verdict_reasoning: str = ""
    personas: list[str] = Field(description="The personas dispatched.")
    reviewers_completed: list[str] = Field(default_factory=list)
    completion_note: str = ""
    findings: list[DesignFinding] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)
    patterns: list[Pattern] = Field(default_factory=list)
    systemic: list[SystemicIssue] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict, description="Findings by severity, plus Contradictions.")
    phase_counts: dict[str, int] = Field(default_factory=dict)
    blind_spots: dict[str, str] = Field(default_factory=dict)
    persona_reports: dict[str, PersonaReport] = Field(
        default_factory=dict, description="Each completed persona's own report, as it answered (after validation)."
    )
    synthesis: Literal["model", "deterministic"] = "model"
    hedge_rate: float = Field(0.0, description="Hedge words per 100 words of reviewer output.")
    warnings: list[str] = Field(default_factory=list)
    reviewer_runs: list[MemberRun] = Field(
        default_factory=list,
        description="One run per dispatched persona, then the synthesizer's and the grader's when they were asked.",
    )
    delta: IterationDelta | None = Field(default=None, description="Against the latest earlier iteration of the topic.")
    auto_fixes: list[AutoFix] = Field(default_factory=list)
    fixed_findings: list[DesignFinding] = Field(
        default_factory=list,
        description="Findings of the first round that auto-fix resolved (disposition 'fixed'): the fixed document was "
        "reviewed again, and these are neither pending nor counted.")
    rounds: int = Field(default=1, description="2 when the document was re-reviewed after auto-fix.")
    prompt_version: str = ""
    calibration_version: str = ""
    prompt_prefix_hashes: dict[str, str] = Field(default_factory=dict)
