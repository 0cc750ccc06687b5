"""Configuration of the impact review.

* ``ImpactSettings``: the checks' thresholds, CONFIDENCE_MAP and the offline penalties, read
  from prompts/impact/config.yaml (each number lives there once).
* ``ReviewConfig``: the seed's backend / prompt / knowledge configuration, from YAML, a dict or
  ``REVIEW_<SECTION>_<KEY>`` environment variables; precedence env > file > defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from review_harness.core.member import RetryPolicy
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.yamlio import YamlReadError, first_error, read_model, read_yaml

IMPACT_DIR = PROMPTS_DIR / "impact"
SETTINGS_FILE = IMPACT_DIR / "config.yaml"
FREQUENCIES = ("daily", "weekly", "monthly")


class ConfigError(ValueError):
    """A configuration file, dict or variable that cannot be used (one line, names the key)."""


class Tolerance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    absolute: float
    relative: float

    def agree(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.absolute, self.relative * max(abs(a), abs(b)))


class Plausibility(BaseModel):
    model_config = ConfigDict(extra="forbid")
    small_sample: int
    large_percent_change: float
    extreme_percent_change: float


class ImpactSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str
    confidence_map: dict[str, tuple[float, float]]
    model_requirements: dict[str, list[str]]
    min_pre_period: dict[str, dict[str, int]]
    seasonality_controlled_by_design: list[str]
    season_length: dict[str, int]
    days_per_period: dict[str, float]
    default_frequency: str
    tolerance: Tolerance
    ci_level: float
    significance_level: float
    plausibility: Plausibility
    durbin_watson_band: tuple[float, float]
    penalties: dict[Literal["fail", "warn", "not_available"], dict[Literal["major", "minor"], float]]
    score_floor: float
    prompt: dict[str, str]
    knowledge_dir: str
    top_k: int
    reviewer_calls: RetryPolicy

    @model_validator(mode="after")
    def _check(self) -> "ImpactSettings":
        for model_type, (low, high) in self.confidence_map.items():
            if not 0 <= low <= high <= 1:
                raise ValueError(f"confidence_map.{model_type}: need 0 <= low <= high <= 1, got [{low}, {high}]")
        unknown = sorted(set(self.model_requirements) - set(self.confidence_map))
        if unknown:
            raise ValueError(f"model_requirements: model type(s) without a confidence band: {unknown}")
        if self.default_frequency not in FREQUENCIES:
            raise ValueError(f"default_frequency: one of {FREQUENCIES}")
        return self

    @property
    def model_types(self) -> list[str]:
        return list(self.confidence_map)

    def penalty(self, status: str, severity: str) -> float:
        return self.penalties.get(status, {}).get(severity, 0.0)  # type: ignore[call-overload]


def load_settings(path: str | Path = SETTINGS_FILE) -> ImpactSettings:
    return read_model(path, ImpactSettings, f"impact settings {path}", ConfigError)


@lru_cache(maxsize=1)
def default_settings() -> ImpactSettings:
    return load_settings()


# ---------------------------------------------------------------------------------------------
# ReviewConfig (seed 003's configuration)

class BackendConfig(BaseModel):
    """Backends are Inspect model providers: `type` is the provider (anthropic, openai,
    openai-api/<service>, offline, ...), `model` the model name under it."""

    model_config = ConfigDict(extra="forbid")
    type: str | None = None
    model: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = 4096
    structured: Literal["auto", "on", "off"] = "auto"
    timeout: float = 120.0
    retries: int = 1

    @property
    def model_name(self) -> str | None:
        """The Inspect model string, or None for the default (INSPECT_EVAL_MODEL / --model)."""
        if self.model and "/" in self.model and not self.type:
            return self.model
        if self.type and self.model:
            return f"{self.type}/{self.model}"
        if self.type:
            return f"{self.type}/default" if self.type == "offline" else self.type
        return self.model


class PromptConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "impact_results_review"
    version: str | None = None
    template_dirs: list[str] = Field(default_factory=list)


class KnowledgeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["static", "none"] = "static"
    path: str | None = Field(default=None, description="folder of .md/.txt notes; default: the built-in notes")
    top_k: int = 5


class ReviewConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    backend: BackendConfig = Field(default_factory=BackendConfig)
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    knowledge: KnowledgeConfig = Field(default_factory=KnowledgeConfig)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, source: str = "config") -> "ReviewConfig":
        try:
            return cls.model_validate(dict(data or {}))
        except ValidationError as ex:
            where, msg, _ = first_error(ex)
            raise ConfigError(f"{source}: {where}: {msg}") from None

    @classmethod
    def from_yaml(cls, path: str | Path) -> "ReviewConfig":
        return cls.load(path=path, env={})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "ReviewConfig":
        return cls.load(env=env)

    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        data: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> "ReviewConfig":
        """Defaults, then the YAML file (or dict), then REVIEW_* variables (env > file > defaults)."""
        merged: dict[str, Any] = {}
        source = "config"
        if path is not None:
            try:
                loaded = read_yaml(path)
            except YamlReadError as ex:
                raise ConfigError(str(ex)) from None
            if loaded is not None and not isinstance(loaded, dict):
                raise ConfigError(f"{path}: expected a mapping of backend / prompt / knowledge")
            merged = _merge(merged, loaded or {})
            source = str(path)
        if data is not None:
            merged = _merge(merged, dict(data))
        env_values = env_overrides(os.environ if env is None else env)
        if env_values:
            merged = _merge(merged, env_values)
            source += " + REVIEW_* environment"
        return cls.from_dict(merged, source)


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


SECTIONS: dict[str, type[BaseModel]] = {"backend": BackendConfig, "prompt": PromptConfig, "knowledge": KnowledgeConfig}


def env_overrides(env: Mapping[str, str]) -> dict[str, Any]:
    """REVIEW_BACKEND_MODEL=x -> {"backend": {"model": "x"}}; lists are comma-separated. A
    variable naming a section but no field of it is an error (a typo would be ignored)."""
    out: dict[str, dict[str, Any]] = {}
    for name, raw in sorted(env.items()):
        if not name.startswith("REVIEW_"):
            continue
        rest = name[len("REVIEW_"):].lower()
        section = next((s for s in SECTIONS if rest.startswith(s + "_")), None)
        if section is None:
            continue  # not ours (other REVIEW_* settings)
        key = rest[len(section) + 1:]
        fields = SECTIONS[section].model_fields
        if key not in fields:
            raise ConfigError(f"{name}: unknown setting; {section} has: {', '.join(fields)}")
        value: Any = raw
        if key == "template_dirs":
            value = [p.strip() for p in raw.split(",") if p.strip()]
        out.setdefault(section, {})[key] = value
    return out
