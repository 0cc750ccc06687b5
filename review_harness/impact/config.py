"""Configuration of the impact review.

* ``ImpactSettings``: the offline penalties, the fatal-check score cap, the built-in template and
  knowledge and the reviewer's call policy, read from prompts/impact/config.yaml (each number
  lives there once); the checks and their thresholds are the checks table (table.py).
* ``ReviewConfig``: the seed's backend / prompt / knowledge configuration (plus a `checks` overlay
  of the table), from YAML, a dict or ``REVIEW_<SECTION>_<KEY>`` environment variables;
  precedence env > file > defaults; relative paths in a file resolve against the file.

No Inspect import: the impact pipeline uses these without the harness.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from review_harness.core.runs import RetryPolicy
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.yamlio import first_error, read_mapping, read_model
from review_harness.impact.table import merge

IMPACT_DIR = PROMPTS_DIR / "impact"
SETTINGS_FILE = IMPACT_DIR / "config.yaml"


class ConfigError(ValueError):
    """A configuration file, dict or variable that cannot be used (one line, names the key)."""


class ImpactSettings(BaseModel):
    """prompts/impact/config.yaml: the offline reviewer's penalties, the score cap of a dimension
    with a fatal check, the built-in template and knowledge, the reviewer's call policy. The checks
    and their thresholds are the checks table (table.py, checks.yaml)."""

    model_config = ConfigDict(extra="forbid")

    version: str
    penalties: dict[Literal["fail", "warn", "not_available"], dict[Literal["major", "minor"], float]]
    score_floor: float = Field(ge=0, le=1)
    fatal_score_cap: float = Field(ge=0, le=1)
    fatal_overall_cap: float = Field(ge=0, le=1)
    prompt: dict[str, str]
    knowledge_dir: str
    top_k: int = Field(ge=1)
    reviewer_calls: RetryPolicy

    def penalty(self, status: str, severity: str) -> float:
        return self.penalties.get(status, {}).get(severity, 0.0)  # type: ignore[call-overload]


def load_settings(path: str | Path = SETTINGS_FILE) -> ImpactSettings:
    return read_model(path, ImpactSettings, f"impact settings {path}", ConfigError)


@lru_cache(maxsize=1)
def default_settings() -> ImpactSettings:
    return load_settings()


# ---------------------------------------------------------------------------------------------
# ReviewConfig (seed 003's configuration)

LITELLM_HELP = (
    "Inspect reaches LiteLLM through a LiteLLM proxy: run one, set LITELLM_PROXY_BASE_URL (and "
    "LITELLM_PROXY_API_KEY), or name the provider itself (type: anthropic, openai, ...)"
)


class BackendConfig(BaseModel):
    """Backends are Inspect model providers: `type` is the provider (anthropic, openai,
    openai-api/<service>, litellm-proxy, offline, ...), `model` the model name under it. The
    seed's `litellm` type is Inspect's `litellm-proxy` provider."""

    model_config = ConfigDict(extra="forbid")
    type: str | None = None
    model: str | None = None
    temperature: float | None = Field(default=0.0, ge=0)
    max_tokens: int | None = Field(default=4096, ge=1)
    structured: Literal["auto", "on", "off"] = "auto"
    timeout: float = Field(default=120.0, gt=0)
    retries: int = Field(default=1, ge=0)

    @property
    def model_name(self) -> str | None:
        """The Inspect model string, or None for the default (INSPECT_EVAL_MODEL / --model)."""
        provider = self.type
        if provider == "litellm":
            if not os.environ.get("LITELLM_PROXY_BASE_URL"):
                raise ConfigError(f"backend.type litellm: {LITELLM_HELP}")
            provider = "litellm-proxy"
        if self.model and "/" in self.model and not provider:
            return self.model
        if provider and self.model:
            return f"{provider}/{self.model}"
        if provider:
            return f"{provider}/default" if provider == "offline" else provider
        return self.model


class PromptConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "impact_results_review"
    version: str | None = None
    template_dirs: list[str] = Field(default_factory=list)


class KnowledgeConfig(BaseModel):
    """`type` names a knowledge base of the registry (knowledge.py: `static`, `none`, or a user's
    class registered by decorator or entry point); `options` go to its constructor."""

    model_config = ConfigDict(extra="forbid")
    type: str = "static"
    path: str | None = Field(default=None, description="folder of .md/.txt notes; default: the built-in notes")
    top_k: int = Field(default=5, ge=1)
    options: dict[str, Any] = Field(default_factory=dict)


PATH_KEYS = (("prompt", "template_dirs"), ("knowledge", "path"))


class ReviewConfig(BaseModel):
    """The seed's configuration: backend, prompt, knowledge, and `checks` (an overlay of the
    checks table: model types, identities, diagnostics, thresholds). `source` names where it came
    from, for messages."""

    model_config = ConfigDict(extra="forbid")
    backend: BackendConfig = Field(default_factory=BackendConfig)
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    knowledge: KnowledgeConfig = Field(default_factory=KnowledgeConfig)
    checks: dict[str, Any] = Field(default_factory=dict)
    source: str = "defaults"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, source: str = "config") -> "ReviewConfig":
        try:
            config = cls.model_validate({**dict(data or {}), "source": source})
            config.backend.model_name  # noqa: B018  (an unusable backend type fails here, with one line)
            return config
        except ValidationError as ex:
            where, msg, _ = first_error(ex)
            raise ConfigError(f"{source}: {where}: {msg}") from None
        except ConfigError as ex:
            raise ConfigError(f"{source}: {ex}") from None

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
        """Defaults, then the YAML file (or dict), then REVIEW_* variables (env > file > defaults).
        Relative paths in the file resolve against the file's folder."""
        merged: dict[str, Any] = {}
        source = "config"
        if path is not None:
            loaded = read_mapping(path, ConfigError, expected="a mapping of backend / prompt / knowledge / checks",
                                  allow_empty=True)
            merged = merge(merged, _anchor_paths(loaded, Path(path).resolve().parent))
            source = str(path)
        if data is not None:
            merged = merge(merged, dict(data))
        env_values = env_overrides(os.environ if env is None else env)
        if env_values:
            merged = merge(merged, env_values)
            source += " + REVIEW_* environment"
        return cls.from_dict(merged, source)


def _anchor_paths(data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Relative template folders and knowledge path of a config file, made absolute against it."""
    out = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in data.items()}
    for section, key in PATH_KEYS:
        part = out.get(section)
        if not isinstance(part, dict) or part.get(key) is None:
            continue
        value = part[key]
        if isinstance(value, str):
            part[key] = _anchor(value, folder)
        elif isinstance(value, list):
            part[key] = [_anchor(v, folder) if isinstance(v, str) else v for v in value]
    return out


def _anchor(value: str, folder: Path) -> str:
    given = Path(value).expanduser()
    return str(given if given.is_absolute() else folder / given)


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
        fields = [f for f in SECTIONS[section].model_fields if f != "options"]
        if key not in fields:
            raise ConfigError(f"{name}: unknown setting; {section} has: {', '.join(fields)}")
        value: Any = raw
        if key == "template_dirs":
            value = [p.strip() for p in raw.split(",") if p.strip()]
        out.setdefault(section, {})[key] = value
    return out
