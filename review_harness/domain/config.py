"""The domain index (domain-index.yaml) and the senior author roster (team-roster.yaml).

Both files keep the seed's schema (hyphenated keys). They are read through core.yamlio and
validated by pydantic, so a mistake is reported on one line naming the file and key path:

    domain-index.yaml is invalid: search-ranking.pages.0.tier: Input should be 'foundational' or 'workstream'

Relative `digest-path` values are resolved against the folder of domain-index.yaml.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.yamlio import read_model

KNOWLEDGE_DIR = PROJECT_ROOT / "knowledge" / "domain"
INDEX_FILE = KNOWLEDGE_DIR / "domain-index.yaml"
# a team's own domain index (its digests beside it), for reviews and the domain commands
INDEX_ENV = "REVIEW_DOMAIN_INDEX"
ROSTER_FILE = KNOWLEDGE_DIR / "team-roster.yaml"

Tier = Literal["foundational", "workstream"]
Cadence = Literal["daily", "weekly", "monthly", "quarterly"]


class DomainConfigError(ValueError):
    """A configuration file is missing or malformed, or a domain is unknown (one line)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Discovery(_Strict):
    spaces: list[str] = []
    labels: list[str] = []
    default_tier: Tier = Field("workstream", alias="default-tier")
    lookback_days: int = Field(14, alias="lookback-days", ge=1)

    @model_validator(mode="after")
    def _something_to_discover(self) -> "Discovery":
        if not self.spaces and not self.labels:
            raise ValueError("discovery needs at least one space or label")
        return self


class IndexedPage(_Strict):
    id: str
    title: str
    tier: Tier
    space: str | None = None


class ExternalReference(_Strict):
    url: str
    description: str
    ttl_days: int = Field(alias="ttl-days", ge=1)


class RefreshSettings(_Strict):
    foundational_cadence: Cadence = Field("monthly", alias="foundational-cadence")
    workstream_cadence: Cadence | None = Field(None, alias="workstream-cadence")
    digest_path: str = Field(alias="digest-path")
    retain_versions: int = Field(4, alias="retain-versions", ge=1)
    # a refresh that could not read more than this share of the indexed pages (missing, hidden or
    # failed) is degraded: it keeps the previous digest, or publishes with a warning in every brief
    max_unavailable: float = Field(0.5, alias="max-unavailable", ge=0, le=1)
    when_degraded: Literal["keep", "publish"] = Field("keep", alias="when-degraded")


class Scope(_Strict):
    """What a domain reviews, as data: the kinds of system, data and decision it covers. Each
    concept is a list of terms (matched at a word start; a plural is allowed); `systems`, `data`
    and `decisions` list combinations of concepts that must all be named in what the document does
    (its title, summary, method and results: not its background or references). A document fits
    when it names a system of the domain and its data or a decision about it (scope.py)."""

    covers: str
    concepts: dict[str, list[str]]
    systems: list[list[str]]
    data: list[list[str]] = []
    decisions: list[list[str]] = []
    # a sentence naming one of these is not about the domain at all ("the SQL query below")
    exclude: list[str] = []

    @model_validator(mode="after")
    def _known_concepts(self) -> "Scope":
        for key in ("systems", "data", "decisions"):
            for n, combo in enumerate(getattr(self, key)):
                unknown = [c for c in combo if c not in self.concepts]
                if unknown or not combo:
                    raise ValueError(f"scope.{key}.{n}: " + (f"unknown concept(s) {', '.join(unknown)}; "
                                     f"concepts: {', '.join(self.concepts)}" if unknown else "empty"))
        if not self.systems:
            raise ValueError("scope.systems: name at least one kind of system the domain covers")
        return self


class DomainEntry(_Strict):
    name: str = ""
    discovery: Discovery | None = None
    pages: list[IndexedPage] = []
    external_references: list[ExternalReference] = Field([], alias="external-references")
    refresh: RefreshSettings
    applies_to: list[str] = Field([], alias="applies-to")
    # share of each requesting domain's budget the cross-domain digest may take (cross-domain only)
    budget_share: float = Field(0.3, alias="budget-share", gt=0, lt=1)
    # what the domain reviews (systems, data, decisions): whether a document fits (scope.py); a
    # domain with no scope is offered every document
    scope: Scope | None = None
    # extra topic hints: terms that order the brief when a document names them
    topics: list[str] = []

    @property
    def is_cross_domain(self) -> bool:
        return bool(self.applies_to)


class DomainIndex(BaseModel):
    """domain name -> entry; `base` is the folder relative digest paths are resolved against."""

    domains: dict[str, DomainEntry]
    base: Path = KNOWLEDGE_DIR

    @model_validator(mode="after")
    def _check(self) -> "DomainIndex":
        for name, entry in self.domains.items():
            entry.name = name
            unknown = [d for d in entry.applies_to if d not in self.domains or d == name]
            if unknown:
                raise ValueError(f"{name}.applies-to: unknown domain(s) {', '.join(unknown)}")
        return self

    @property
    def names(self) -> list[str]:
        return list(self.domains)

    def reviewable(self) -> list[str]:
        """Domains a user may ask for (cross-domain digests come along by themselves)."""
        return [n for n, e in self.domains.items() if not e.is_cross_domain]

    def entry(self, name: str) -> DomainEntry:
        if name not in self.domains:
            raise DomainConfigError(f"unknown domain '{name}'; known: {', '.join(self.names)}")
        return self.domains[name]

    def digest_path(self, name: str) -> Path:
        path = Path(self.entry(name).refresh.digest_path)
        return path if path.is_absolute() else self.base / path

    def cross_domains_for(self, names: list[str]) -> list[str]:
        return [n for n, e in self.domains.items() if e.is_cross_domain and set(e.applies_to) & set(names)]


class RosterMember(_Strict):
    confluence_username: str = Field(alias="confluence-username")
    role: str
    primary_domain: str = Field(alias="primary-domain")
    active_projects: list[str] = Field([], alias="active-projects")


class TeamRoster(_Strict):
    team: list[RosterMember] = []

    def member(self, username: str | None) -> RosterMember | None:
        return next((m for m in self.team if m.confluence_username == username), None)


def _index_data(path: Path) -> Callable[[object], dict]:
    def wrap(raw: object) -> dict:
        if not isinstance(raw, dict) or not raw:
            raise DomainConfigError(f"{path.name} is invalid: expected a mapping of domain names to entries")
        return {"domains": raw, "base": path.parent}
    return wrap


def load_index(path: str | Path = INDEX_FILE) -> DomainIndex:
    path = Path(path)
    return read_model(path, DomainIndex, path.name, DomainConfigError, wrap=_index_data(path), strip="domains.")


def load_roster(path: str | Path = ROSTER_FILE) -> TeamRoster:
    path = Path(path)
    return read_model(path, TeamRoster, path.name, DomainConfigError, wrap=lambda raw: raw or {})


def index_file() -> Path:
    """The domain index in use: $REVIEW_DOMAIN_INDEX when set, else knowledge/domain/domain-index.yaml."""
    from review_harness.core.params import resolve_user_path

    chosen = os.environ.get(INDEX_ENV)
    return resolve_user_path(chosen) if chosen else INDEX_FILE


@lru_cache(maxsize=4)
def _index_at(path: Path, stamp: float) -> DomainIndex:
    return load_index(path)


def default_index() -> DomainIndex:
    """The index in use (index_file()), read once per file version."""
    path = index_file()
    try:
        stamp = path.stat().st_mtime
    except OSError:
        raise DomainConfigError(f"{path}: no domain index there" + (f" (from ${INDEX_ENV})" if os.environ.get(INDEX_ENV)
                                                                     else "")) from None
    return _index_at(path, stamp)


def parse_domain_list(value: str | list[str] | None, index: DomainIndex | None = None) -> list[str]:
    """`-T domain=a,b` -> ["a", "b"], checked against the index. An unknown name is a one-line
    error listing the domains a review can ask for. None or empty -> [] (no domain review)."""
    if value is None:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    names = [n.strip() for n in items if n and n.strip()]
    if not names:
        return []
    index = index or default_index()
    choices = index.reviewable()
    for name in names:
        if name not in choices:
            raise DomainConfigError(
                f"-T domain={value if isinstance(value, str) else ','.join(items)}: unknown domain "
                f"'{name}'; choose from: {', '.join(choices)}"
            )
    return list(dict.fromkeys(names))


def domain_task_param(value: str | list[str] | None, index: DomainIndex | None = None) -> list[str]:
    """`-T domain=...` for a task: the domains, or Inspect's one-line prerequisite error (no
    traceback) listing the domains a review can ask for."""
    from review_harness.core.inspect_adapter import PrerequisiteError

    try:
        return parse_domain_list(value, index)
    except DomainConfigError as ex:
        raise PrerequisiteError(str(ex)) from None
