"""Review configuration: the project YAML's ``review:`` section with ``-T`` overrides.

Defaults follow the seed's defaults table (auto_approve and auto_reject off: a human sees every
verdict until the team trusts the system). Bad values are one-line errors naming the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from review_harness.core.params import flag_value
from review_harness.core.yamlio import read_mapping

STRATEGIES = ("parallel", "single")


class ConfigError(ValueError):
    """A bad configuration value; the message is one line naming the key."""


class ReviewConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    strategy: str = "parallel"
    speculative_quality: bool = True
    max_fix_iterations: int = 2
    fix_timeout_turns: int = 10
    auto_approve: bool = False
    auto_reject: bool = False
    max_change_chars: int = 60_000

    @property
    def letters(self) -> tuple[str, ...]:
        """Model letters that review: both, or the stronger one alone under strategy single."""
        return ("A", "B") if self.strategy == "parallel" else ("B",)


# keys of the seed's v1 config that name models: models come through roles here, so they are
# accepted in a project file and ignored
IGNORED_KEYS = ("parallel_models", "single_model")
KEYS = tuple(ReviewConfig.model_fields)


def _flag(key: str, value: Any) -> bool:
    flag = flag_value(value)
    if flag is None:
        raise ConfigError(f"review.{key}: expected true or false, got {value!r}")
    return flag


def _int(key: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"review.{key}: expected a whole number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"review.{key}: expected a whole number, got {value!r}") from None
    if number != int(number):
        raise ConfigError(f"review.{key}: expected a whole number, got {value!r}")
    return int(number)


def build_config(values: dict[str, Any]) -> ReviewConfig:
    """Validate raw values (from YAML or -T) into a config; the seed's range messages."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in IGNORED_KEYS or value is None:
            continue
        if key not in KEYS:
            raise ConfigError(f"review.{key}: unknown key; known: {', '.join(KEYS)}")
        default = ReviewConfig.model_fields[key].default
        if isinstance(default, bool):
            out[key] = _flag(key, value)
        elif isinstance(default, int):
            out[key] = _int(key, value)
        else:
            out[key] = str(value).strip().lower()
    config = ReviewConfig(**out)
    if config.strategy not in STRATEGIES:
        raise ConfigError(f"review.strategy: unknown strategy {config.strategy!r}; choose parallel or single")
    if not 1 <= config.max_fix_iterations <= 5:
        raise ConfigError("max_fix_iterations must be 1-5")
    if not 5 <= config.fix_timeout_turns <= 30:
        raise ConfigError("fix_timeout_turns must be 5-30")
    if config.max_change_chars < 2_000:
        raise ConfigError("review.max_change_chars: must be at least 2000")
    return config


def load_project_config(path: str | Path | None) -> dict[str, Any]:
    """The raw ``review:`` section of a project YAML file ({} when there is none)."""
    if path is None:
        return {}
    data = read_mapping(path, ConfigError, expected="a mapping with a 'review:' section", allow_empty=True)
    section = data.get("review", {})
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: 'review:' must be a mapping")
    return dict(section)


def resolve_config(project: dict[str, Any], case: dict[str, Any] | None, overrides: dict[str, Any]) -> ReviewConfig:
    """Project file, then the case's own values, then -T overrides (later wins)."""
    return build_config({**project, **(case or {}), **{k: v for k, v in overrides.items() if v is not None}})
