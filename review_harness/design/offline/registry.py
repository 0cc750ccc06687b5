"""The detector registry of the offline design reviewer, and what a detector works with.

A detector is a function ``(ctx) -> None`` registered under an id with ``@detector("id")``.
personas.yaml names, per persona, the detectors it runs and in which order; offline_rules.yaml
gives, per detector, the findings it can report with their severity, phase and weight. A
detector reports a finding by its id and says which of the finding's cases hold:

    ctx.add("retries-without-idempotency", when={"duplicates-forbidden": dup is not None},
            title=..., section=..., issue=..., why=..., suggestion=..., evidence=..., key=...)

so it never decides a severity or a phase itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from review_harness.core.registry import Registry
from review_harness.core.yamlio import first_error, read_model
from review_harness.design.models import Phase, PersonaFinding, Severity, Stage
from review_harness.design.offline.document import Doc
from review_harness.design.offline.requirements import Req, ReqSet, extract_requirements
from review_harness.design.offline.vocabulary import HEDGES
from review_harness.design.personas import PROMPTS_DIR

RULES_FILE = PROMPTS_DIR / "offline_rules.yaml"


class RuleDataError(ValueError):
    """The offline rules file is invalid, or a detector names a finding or case it does not declare."""


# ------------------------------------------------------------------ the data (offline_rules.yaml)


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


# what a case changes in a finding; a key left out keeps the finding's value
Override = dict[Literal["severity", "phase", "contributing", "weight", "hygiene"], Any]
ARTIFACT = "artifact"  # the phase of a flaw in the document under review: the stage's own phase


class FindingRule(_Closed):
    severity: Severity
    phase: Phase | Literal["artifact"]
    contributing: Phase | None = None
    weight: int = 0  # orders findings of one severity: higher first
    hygiene: bool = False  # about form only (ids, modal verbs, headings): never escalates or revises
    cases: dict[str, Override] = {}

    @model_validator(mode="after")
    def _every_case_is_a_valid_finding(self) -> FindingRule:
        for name in self.cases:
            try:
                self._with([name])
            except ValidationError as ex:
                where, message, _ = first_error(ex)
                raise ValueError(f"case {name!r}: {where}: {message}") from None
        return self

    def _with(self, cases: list[str]) -> FindingRule:
        values = self.model_dump(exclude={"cases"})
        for name in cases:
            values.update(self.cases[name])
        return FindingRule.model_validate(values)

    def resolve(self, when: Mapping[str, bool], where: str) -> FindingRule:
        """This rule with the overrides of every case that holds applied, in the file's order."""
        unknown = [name for name in when if name not in self.cases]
        if unknown:
            raise RuleDataError(f"{where} declares no case {', '.join(map(repr, unknown))} in {RULES_FILE.name}")
        return self._with([name for name in self.cases if when.get(name)])


class DetectorRules(_Closed):
    stages: list[Stage] | None = None  # None: every stage
    findings: dict[str, FindingRule]


class Limits(_Closed):
    findings: int
    checked_and_fine: int
    open_decisions_critical: int = 6  # open decisions that make the design not ready to plan against ...
    open_sections_critical: int = 3  # ... when they span at least this many sections


class OfflineRules(_Closed):
    version: str
    limits: Limits
    silent_blind_spot: str
    detectors: dict[str, DetectorRules]

    def finding(self, detector_id: str, finding_id: str) -> FindingRule:
        rules = self.detectors.get(detector_id)
        if rules is None or finding_id not in rules.findings:
            raise RuleDataError(f"detector {detector_id!r} has no finding {finding_id!r} in {RULES_FILE.name}")
        return rules.findings[finding_id]


def load_offline_rules(path: str | Path = RULES_FILE) -> OfflineRules:
    return read_model(path, OfflineRules, f"offline rules file {path}", RuleDataError)


@lru_cache(maxsize=1)
def default_offline_rules() -> OfflineRules:
    return load_offline_rules(RULES_FILE)


# ------------------------------------------------------------------ findings and the context


@dataclass
class Draft:
    """A finding as a detector reports it, before the engine ranks and trims them."""

    title: str
    severity: Severity
    phase: str
    contributing: str | None
    weight: int
    section: str
    issue: str
    why: str
    suggestion: str
    evidence: str | None
    key: str = ""  # at most one finding per key and persona
    hygiene: bool = False

    def to_model(self) -> PersonaFinding:
        return PersonaFinding(
            title=self.title, severity=self.severity, phase=self.phase,  # type: ignore[arg-type]
            contributing_phase=self.contributing, section=self.section or "(whole document)",  # type: ignore[arg-type]
            issue=self.issue, why_it_matters=self.why, suggestion=self.suggestion, evidence=self.evidence,
            hygiene=self.hygiene,
        )


@dataclass
class Ctx:
    """One persona's review of one pair of documents: the inputs every detector reads and what
    the detectors have reported so far."""

    persona: str
    stage: str
    design: Doc
    requirements: Doc
    rules: OfflineRules = field(default_factory=default_offline_rules)
    detector: str = ""  # the detector running now (its findings are looked up under it)
    findings: list[Draft] = field(default_factory=list)
    fine: list[str] = field(default_factory=list)
    # requirements a detector already reported as broken: traceability does not report them again
    conflicted: set[int] = field(default_factory=set)
    # checks that could not decide on these documents: said in the blind spot, never guessed
    unassessed: list[str] = field(default_factory=list)
    # what the previous version had and this one removed (lines of the changed sections), if known
    removed: str = ""

    def not_assessed(self, what: str) -> None:
        """A check that cannot decide on these documents says so instead of guessing."""
        if what not in self.unassessed:
            self.unassessed.append(what)

    @cached_property
    def artifact(self) -> Doc:
        """The document under review: the requirements at the requirements stage."""
        if self.stage == "requirements":
            if not self.requirements.empty:
                return self.requirements
            return self.design
        return self.design if not self.design.empty else self.requirements

    @cached_property
    def framing_docs(self) -> list[Doc]:
        """Documents that state the problem: at the requirements stage, a companion brief too."""
        docs = [self.artifact]
        for other in (self.design, self.requirements):
            if not other.empty and other.text != self.artifact.text and other not in docs:
                docs.append(other)
        return docs

    @cached_property
    def reqset(self) -> ReqSet:
        if not self.requirements.empty:
            return extract_requirements(self.requirements)
        if self.stage == "requirements":
            return extract_requirements(self.artifact)
        return ReqSet([], [], [], [], [])

    def add(self, finding: str, *, when: Mapping[str, bool] | None = None, title: str, section: str, issue: str,
            why: str, suggestion: str, evidence: str | None, key: str = "") -> None:
        """Report a finding of the running detector (its severity, phase and weight come from
        offline_rules.yaml); a second finding with the same key is dropped."""
        rule = self.rules.finding(self.detector, finding).resolve(when or {}, f"finding {finding!r} of {self.detector!r}")
        if key and any(f.key == key for f in self.findings):
            return
        self.findings.append(Draft(
            title=title, severity=rule.severity, phase=rule.phase, contributing=rule.contributing, weight=rule.weight,
            section=section, issue=issue, why=why, suggestion=suggestion, evidence=evidence, key=key,
            hygiene=rule.hygiene,
        ))

    def ok(self, text: str) -> None:
        """Note something checked and found sound."""
        if HEDGES.search(text):  # a quoted heading such as 'Could have' would read as a hedge
            return
        if text not in self.fine:
            self.fine.append(text)

    def req_for_terms(self, terms: set[str], min_overlap: int = 2) -> Req | None:
        best, score = None, 0
        for r in self.reqset.all:
            s = len(terms & r.terms)
            if s > score:
                best, score = r, s
        return best if score >= min_overlap else None

    def req_section(self, r: Req) -> str:
        """Where a requirement sits, for a finding about it."""
        return r.section or self.requirements.title or "Requirements"


# ------------------------------------------------------------------ the registry

Detector = Callable[[Ctx], None]
DETECTORS: Registry[Detector] = Registry("detector")
detector = DETECTORS.register
