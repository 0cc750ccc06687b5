"""The design review's data: personas, the stage activation matrix, phases, verdict rule,
synthesis and failure settings (prompts/design/personas.yaml). Code reads these; it never
restates them."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ValidationError, model_validator

from review_harness.core.models import lookup
from review_harness.core.paths import PROMPTS_DIR as ALL_PROMPTS
from review_harness.core.yamlio import YamlReadError, first_error, read_yaml
from review_harness.design.models import PHASES, STAGES, Severity

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


class VerdictRule(BaseModel):
    escalate_phases: list[str]
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


class PersonaConfig(BaseModel):
    version: str
    personas: dict[str, Persona]
    stages: dict[str, list[str]]
    phases: dict[str, PhaseInfo]
    verdicts: VerdictRule
    synthesis: SynthesisSettings
    failure: FailureSettings
    hedge_words: list[str]

    @model_validator(mode="after")
    def _check(self) -> "PersonaConfig":
        for persona_id, persona in self.personas.items():
            persona.id = persona_id
        if set(self.stages) != set(STAGES):
            raise ValueError(f"stages must be exactly {', '.join(STAGES)}")
        for stage, members in self.stages.items():
            unknown = [m for m in members if m not in self.personas]
            if unknown:
                raise ValueError(f"stage {stage}: unknown persona(s) {', '.join(unknown)}")
        if set(self.phases) != set(PHASES):
            raise ValueError(f"phases must be exactly {', '.join(PHASES)}")
        return self

    def persona(self, persona_id: str) -> Persona:
        return lookup(self.personas, persona_id, "persona", PersonaError)

    def active(self, stage: str, override: list[str] | None = None) -> list[str]:
        """The personas a stage dispatches (the activation matrix), or the override set."""
        if stage not in self.stages:
            raise PersonaError(f"unknown stage '{stage}'; choose one of: {', '.join(STAGES)}")
        if not override:
            return list(self.stages[stage])
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
