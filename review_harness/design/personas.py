"""The design review's data: personas, the stage activation matrix, phases, verdict rule,
synthesis and failure settings (prompts/design/personas.yaml). Code reads these; it never
restates them."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError, model_validator

from review_harness.core.models import lookup
from review_harness.core.paths import PROMPTS_DIR as ALL_PROMPTS
from review_harness.core.yamlio import YamlReadError, first_error, read_yaml
from review_harness.design.models import PHASES, STAGES, AutoFixKind, Severity

PROMPTS_DIR = ALL_PROMPTS / "design"
PERSONAS_FILE = PROMPTS_DIR / "personas.yaml"


class PersonaError(ValueError):
    """The personas file is missing or malformed, or a persona or stage is unknown."""


class OfflinePersona(BaseModel):
    """What the offline reviewer runs for a persona: detector ids (prompts/design/offline_rules.yaml)
    in order, and what those detectors cannot see."""

    detectors: list[str]
    blind_spot: str


class Persona(BaseModel):
    id: str = ""
    name: str
    focus: str
    question: str
    stage_focus: dict[str, str] = {}
    offline: OfflinePersona | None = None  # None: the offline reviewer cannot play this persona

    def focus_at(self, stage: str) -> str:
        return self.stage_focus.get(stage, self.focus)


class PhaseInfo(BaseModel):
    label: str
    action: str


class StageInfo(BaseModel):
    """One stage of the pipeline: who reviews, which document is under review, what the two
    documents are called, and which phases escalate."""

    personas: list[str]
    reviews: Literal["design", "requirements"]  # the -T parameter whose document is under review
    nouns: dict[Literal["design", "requirements"], str]
    tags: dict[Literal["design", "requirements"], str]  # the data block of each document in the prompts
    own_phase: str  # a flaw of the reviewed document
    escalate: list[str]  # upstream phases, earliest first: a gap there escalates

    @property
    def reference(self) -> str:
        """The parameter whose document the reviewed one is checked against."""
        return "design" if self.reviews == "requirements" else "requirements"

    @property
    def reviewed_tag(self) -> str:
        return self.tags[self.reviews]

    @property
    def reviewed_noun(self) -> str:
        return self.nouns[self.reviews]

    @property
    def reference_noun(self) -> str:
        return self.nouns[self.reference]


class VerdictRule(BaseModel):
    revise_severity: Severity


class SynthesisSettings(BaseModel):
    systemic_share: float
    max_patterns: int
    interactive_limit: int


class FailureSettings(BaseModel):
    timeout_seconds: float
    timeout_range: tuple[float, float]
    retries: int
    backoff_seconds: float
    min_success_fraction: tuple[int, int]

    def min_successes(self, dispatched: int) -> int:
        """ceil(n * a/b) in integers: with 2/3, 4 of 6 and 4 of 5."""
        numerator, denominator = self.min_success_fraction
        return -(-dispatched * numerator // denominator)


class AutoFixRule(BaseModel):
    description: str
    max_edits: int | None = None
    max_length: int | None = None
    extensions: list[str] = []


class InputBudget(BaseModel):
    budget_tokens: int
    reference_share: float


class PersonaConfig(BaseModel):
    version: str
    personas: dict[str, Persona]
    stages: dict[str, StageInfo]
    phases: dict[str, PhaseInfo]
    verdicts: VerdictRule
    synthesis: SynthesisSettings
    failure: FailureSettings
    hedge_words: list[str]
    auto_fix: dict[AutoFixKind, AutoFixRule]
    input: InputBudget

    @model_validator(mode="after")
    def _check(self) -> "PersonaConfig":
        for persona_id, persona in self.personas.items():
            persona.id = persona_id
        if set(self.stages) != set(STAGES):
            raise ValueError(f"stages must be exactly {', '.join(STAGES)}")
        if set(self.phases) != set(PHASES):
            raise ValueError(f"phases must be exactly {', '.join(PHASES)}")
        for stage, info in self.stages.items():
            unknown = [m for m in info.personas if m not in self.personas]
            if unknown:
                raise ValueError(f"stage {stage}: unknown persona(s) {', '.join(unknown)}")
            for what in ("nouns", "tags"):
                if set(getattr(info, what)) != {"design", "requirements"}:
                    raise ValueError(f"stage {stage}: {what} must name exactly 'design' and 'requirements'")
            if len(set(info.tags.values())) != 2 or not all(t.isalpha() for t in info.tags.values()):
                raise ValueError(f"stage {stage}: tags must be two different words")
            if info.own_phase not in PHASES:
                raise ValueError(f"stage {stage}: own_phase {info.own_phase!r} is not a phase")
            upstream = PHASES[: PHASES.index(info.own_phase)]
            wrong = [p for p in info.escalate if p not in upstream]
            if wrong or info.escalate != sorted(info.escalate, key=PHASES.index):
                raise ValueError(f"stage {stage}: escalate must list phases upstream of {info.own_phase}, "
                                 f"earliest first ({', '.join(upstream) or 'none'})")
        return self

    def stage(self, stage: str) -> StageInfo:
        if stage not in self.stages:
            raise PersonaError(f"unknown stage '{stage}'; choose one of: {', '.join(STAGES)}")
        return self.stages[stage]

    def persona(self, persona_id: str) -> Persona:
        return lookup(self.personas, persona_id, "persona", PersonaError)

    def active(self, stage: str, override: list[str] | None = None) -> list[str]:
        """The personas a stage dispatches (the activation matrix), or the override set."""
        info = self.stage(stage)
        if not override:
            return list(info.personas)
        for persona_id in override:
            self.persona(persona_id)
        return list(dict.fromkeys(override))


def load_personas(path: str | Path = PERSONAS_FILE) -> PersonaConfig:
    try:
        return PersonaConfig.model_validate(read_yaml(path))
    except YamlReadError as ex:
        raise PersonaError(f"personas file {ex}") from None
    except ValidationError as ex:
        where, message, more = first_error(ex)
        raise PersonaError(
            f"personas file {path} is invalid: {where}: {message}" + (f" (and {more} more)" if more else "")
        ) from None


@lru_cache(maxsize=1)
def default_personas() -> PersonaConfig:
    return load_personas(PERSONAS_FILE)
