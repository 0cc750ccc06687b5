"""Models of the code review.

* what one reviewer returns (``ReviewerAnswer``): also the response schema sent to the model;
* the merge of one stage (``StageMerge``), the confidence scenario and the decision;
* the whole review with its fix loop (``CodeReview``): the log contract, stored as JSON in
  ``Score.metadata["review"]``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from review_harness.core.member import MemberRun
from review_harness.core.models import SEVERITIES, Severity  # noqa: F401 (the kind's modules import SEVERITIES from here)

StageName = Literal["spec", "quality"]
STAGES: tuple[str, ...] = ("spec", "quality")
Letter = Literal["A", "B"]
LETTERS: tuple[str, ...] = ("A", "B")
ROLES = {"A": "reviewer_a", "B": "reviewer_b"}

# member names of the code review (its runs, store keys and offline answers): a reviewer is
# '<stage>-<letter>' ('spec-A', 'quality-B'), the grader pairing a stage's findings 'matcher-<stage>'
KIND_NAME = "code"
IMPLEMENTER = "implementer"
MATCHER_PREFIX = "matcher-"


def reviewer_member(stage: str, letter: str) -> str:
    return f"{stage}-{letter}"


def matcher_member(stage: str) -> str:
    return MATCHER_PREFIX + stage


def reviewer_of(member: str) -> tuple[str, str] | None:
    """(stage, letter) of a reviewer's member name; None for any other member."""
    stage, _, letter = member.partition("-")
    return (stage, letter) if stage in STAGES and letter in LETTERS else None
CATEGORIES: tuple[str, ...] = (
    "missing-requirement", "scope-creep", "spec-mismatch",
    "bug", "security", "error-handling", "concurrency", "resource", "tests", "maintainability",
)
Decision = Literal["AUTO_APPROVE", "AUTO_REJECT_TO_IMPLEMENTER", "PRESENT_TO_HUMAN"]
DECISIONS: tuple[str, ...] = ("AUTO_APPROVE", "AUTO_REJECT_TO_IMPLEMENTER", "PRESENT_TO_HUMAN")
MergeCategory = Literal["agreed", "b_only", "a_only", "contradiction"]
# the decision in the words a reader uses (the review JSON keeps the seed's names)
DECISION_WORDS = {"AUTO_APPROVE": "auto-approve", "AUTO_REJECT_TO_IMPLEMENTER": "auto-reject to the implementer",
                  "PRESENT_TO_HUMAN": "human decides"}


# ---------------------------------------------------------------------------- reviewer output


class CodeFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    severity: Severity
    category: str = Field(description="One of the categories listed in the instructions.")
    file: str = Field(description="Path of the changed file, as shown in the change.")
    line: int | None = Field(description="Line number in the new version of the file; null for a whole-file or absent item.")
    description: str = Field(description="What is wrong, stated directly.")
    suggested_fix: str | None = Field(description="How to fix it, without inventing facts.")
    quote: str | None = Field(description="The offending code or spec sentence, verbatim; null for an absence.")

    @property
    def blocking(self) -> bool:
        return self.severity in (Severity.CRITICAL, Severity.IMPORTANT)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


class CheckedFine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str
    line: int | None = Field(description="First line of the place checked (e.g. a function); null for the whole file.")
    end_line: int | None = Field(description="Last line of the place checked; null for one line or the whole file.")
    note: str = Field(description="What was checked and why it is fine.")

    def covers(self, file: str, line: int | None) -> bool:
        if file != self.file:
            return False
        if self.line is None or line is None:
            return True
        return self.line <= line <= (self.end_line or self.line)


class ReviewerAnswer(BaseModel):
    """The response schema of both reviewer kinds."""

    model_config = ConfigDict(extra="forbid")

    findings: list[CodeFinding]
    checked_fine: list[CheckedFine] = Field(
        description="Places you examined and judged correct (functions, files, requirements met)."
    )
    summary: str


# ---------------------------------------------------------------------------- merge


class MergedFinding(BaseModel):
    id: str = Field(default="", description="stable within the review: 's2' (spec), 'q1' (quality); 'i1-q1' after fix 1")
    category: MergeCategory
    finding: CodeFinding
    other: CodeFinding | None = None  # the matched finding of the other model (agreed)
    fine_note: str | None = None  # contradictions: the other model's "checked and fine" note
    by: Letter | None = None  # one-model findings and contradictions: whose finding
    salvaged: bool = Field(default=False, description="from what parsed of its model's malformed answer")
    memory: str | None = Field(default=None, description="the memory entry that lowered it to Minor (a dismissal at this place)")
    severity_before: Severity | None = Field(default=None, description="its severity before memory lowered it")
    memory_note: str | None = Field(default=None, description="what memory said about it, applied or not")


class StageMerge(BaseModel):
    stage: StageName
    models: list[str]
    verdicts: dict[str, Literal["PASS", "FAIL"] | None] = Field(
        description="per model letter; None when the model's run is not complete (it has no verdict)"
    )
    findings: list[MergedFinding] = Field(default_factory=list)
    verdict: Literal["PASS", "FAIL", "INCOMPLETE"] = "PASS"
    discarded: bool = False
    reasons: list[str] = Field(default_factory=list)
    matcher: str = "rules"
    summaries: dict[str, str] = Field(default_factory=dict, description="per model letter, its own summary of the stage")

    def in_category(self, category: str) -> list[MergedFinding]:
        return [f for f in self.findings if f.category == category]

    def unreviewed_critical(self) -> list[MergedFinding]:
        """Of discarded results: the Critical and security findings, seen but not yet reviewed."""
        if not self.discarded:
            return []
        return [m for m in self.findings if m.finding.severity == Severity.CRITICAL or m.finding.category == "security"]

    def severity_counts(self) -> dict[str, int]:
        """How many findings of each severity, most severe first (severities with none left out)."""
        counts = {s: sum(1 for m in self.findings if m.finding.severity.value == s) for s in SEVERITIES}
        return {s: n for s, n in counts.items() if n}


class Confidence(BaseModel):
    scenario: str
    label: str
    value: float
    action: str


HumanDecision = Literal["approve", "reject"]


class HumanAnswer(BaseModel):
    """One answer of the human at a decision point: approve or reject, and the ids of findings
    the human dismisses as not real (`-T human=approve:q2+q3`, a case's `human:` list)."""

    model_config = ConfigDict(extra="forbid")

    decision: HumanDecision
    dismiss: list[str] = Field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> HumanAnswer:
        """'approve', 'reject', 'approve:q2+q3' (ValueError naming the answer otherwise)."""
        decision, colon, ids = str(text).strip().partition(":")
        if decision.strip().lower() not in ("approve", "reject"):
            raise ValueError(f"{text!r}: expected approve or reject, optionally with finding ids to dismiss "
                             "(approve:q2+q3)")
        dismiss = [i.strip() for i in ids.replace(" ", "+").split("+") if i.strip()]
        if colon and not dismiss:
            raise ValueError(f"{text!r}: no finding ids after ':'")
        return cls(decision=decision.strip().lower(), dismiss=dismiss)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.decision + (":" + "+".join(self.dismiss) if self.dismiss else "")


class QualityCheck(BaseModel):
    """After a human approved a failed spec stage: the quality review that then counts (the
    speculative results reused when the change is unchanged, else a new run) and its decision."""

    quality: StageMerge
    reused: bool = Field(description="the speculative quality results of this round were reused")
    confidence: Confidence
    decision: Decision
    human_decision: HumanDecision | None = None
    dismissed: list[str] = Field(default_factory=list)


class IterationRecord(BaseModel):
    """One review round: the first (speculative) review or a review after a fix."""

    iteration: int = Field(description="0 for the first review, N after fix attempt N")
    strategy: str
    spec: StageMerge
    quality: StageMerge | None = None
    confidence: Confidence
    decision: Decision
    human_decision: HumanDecision | None = None
    dismissed: list[str] = Field(default_factory=list, description="ids of findings the human dismissed")
    after_approval: QualityCheck | None = Field(
        default=None, description="the quality review run after the human approved a failed spec stage")
    runs: list[MemberRun] = Field(default_factory=list)
    critical_path_calls: int = 0

    @property
    def final_decision(self) -> str:
        """The decision the round ended on: the quality check's after a spec approval."""
        return self.after_approval.decision if self.after_approval else self.decision

    @property
    def final_human(self) -> str | None:
        return self.after_approval.human_decision if self.after_approval else self.human_decision

    @property
    def approved(self) -> bool:
        return self.final_decision == "AUTO_APPROVE" or self.final_human == "approve"

    @property
    def all_dismissed(self) -> list[str]:
        return self.dismissed + (self.after_approval.dismissed if self.after_approval else [])

    def stages(self) -> list[StageMerge]:
        """Every stage of the round that has a result, the discarded one included."""
        return [s for s in (self.spec, self.quality) if s is not None] + (
            [self.after_approval.quality] if self.after_approval and not self.after_approval.reused else [])

    def counted(self) -> list[StageMerge]:
        """The stages whose findings count: spec (unless the human approved it despite its
        findings), and quality unless discarded or not run; after a spec approval, the quality
        check's."""
        if self.after_approval is not None:
            return [self.after_approval.quality]
        return [self.spec] + ([self.quality] if self.quality is not None and not self.quality.discarded else [])

    def reviewed(self) -> list[StageMerge]:
        """The stages whose findings stand as the round's review: the counted ones, and spec also
        when a human approved it despite its findings (approving dismisses nothing)."""
        counted = self.counted()
        return counted if self.spec in counted else [self.spec] + counted

    def finding(self, finding_id: str) -> MergedFinding | None:
        return next((m for s in self.stages() + self.counted() for m in s.findings if m.id == finding_id), None)

    @property
    def degraded(self) -> list[str]:
        """Reviewers of this round without a verdict (their run is not complete)."""
        return [f"{s.stage}-{letter}" for s in (self.spec, self.quality) if s is not None
                for letter, verdict in s.verdicts.items() if verdict is None]


class FixAttempt(BaseModel):
    attempt: int
    message: str
    implementer: Literal["scripted", "agent"] = "scripted"
    turns: int = 0
    applied: list[str] = Field(default_factory=list)
    outcome: Literal["applied", "no-change", "timeout", "failed"] = "applied"
    reason: str | None = None
    diff: str | None = Field(default=None, description="the fix as a unified diff (cut at 20,000 characters)")
    reviewed_in: int | None = Field(default=None, description="the round that reviewed the fixed change; None: not re-reviewed")
    run: MemberRun | None = None


class CodeReview(BaseModel):
    """The log contract: ``Score.metadata["review"]``."""

    task: str
    title: str
    service: str
    strategy: str
    feature: str | None = Field(default=None, description="the feature the task belongs to: the plan's title (-T plan=)")
    config: dict
    change: dict = Field(description="files, cut notes and warnings of the reviewed change")
    iterations: list[IterationRecord]
    fixes: list[FixAttempt] = Field(default_factory=list)
    fix_iterations: int = 0
    final_status: str = Field(description="complete | review-fix-{N} | escalated | awaiting-human")
    escalation: str | None = None
    answer_error: str | None = Field(default=None, description="a human's answer the review could not apply, and why")
    prompt_version: str = "v1"
    memory: dict = Field(default_factory=dict, description="mode, root, files updated, and any write error")
    human_answers: list[str] = Field(default_factory=list, description="the human's answers given for this review")
    plan: dict = Field(default_factory=dict, description="with -T plan=: the file, the living state table, blocked tasks")
    warnings: list[str] = Field(default_factory=list)

    @property
    def first(self) -> IterationRecord:
        return self.iterations[0]

    @property
    def last(self) -> IterationRecord:
        return self.iterations[-1]


class MatchPair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: str = Field(description="id of reviewer A's finding, e.g. a1")
    b: str = Field(description="id of reviewer B's finding, e.g. b2")


class MatchAnswer(BaseModel):
    """The grader's response schema when it matches findings."""

    model_config = ConfigDict(extra="forbid")

    pairs: list[MatchPair]
