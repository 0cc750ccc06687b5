"""Prompt templates of the impact review: YAML files with ``name``, ``version``,
``description``, ``dimensions``, ``system`` and ``user`` (Jinja2).

``PromptRegistry`` reads the built-in templates (prompts/impact/templates/) and then each user
folder in order; a user template with the name of an earlier one replaces it (a log line says
so). Rendering is strict: a template that uses a key the engine does not provide is an error
naming the file and the key. Templates compile through the core's prompt environment and fail
with the core's `PromptError`, like every other kind's prompts. A part with no Jinja syntax
(`{{`, `{%`, `{#`) is rendered with `str.format_map` instead (the seed's fallback), so
`{artifact}` templates work; its fields must be plain names.
"""

from __future__ import annotations

import logging
import re
import string
from pathlib import Path
from typing import Any

from jinja2 import UndefinedError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from review_harness.core.prompts import PromptError, compile_template
from review_harness.core.files import input_folder_problem
from review_harness.core.yamlio import first_error, read_mapping
from review_harness.impact.config import IMPACT_DIR

logger = logging.getLogger(__name__)
BUILTIN_TEMPLATES = IMPACT_DIR / "templates"
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
NAME_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class PromptSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    version: str
    description: str
    dimensions: list[str] = Field(min_length=1)
    system: str
    user: str
    source: str = ""

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) else value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError(f"{value!r}: use lower-case letters, digits and '_'")
        return value

    @field_validator("dimensions")
    @classmethod
    def _dimensions(cls, value: list[str]) -> list[str]:
        bad = [d for d in value if not NAME.match(d)]
        if bad:
            raise ValueError(f"dimension names must be lower-case identifiers: {bad}")
        if len(set(value)) != len(value):
            raise ValueError("dimension names must be unique")
        return value


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\-]", version))


def load_template(path: Path) -> PromptSpec:
    raw = read_mapping(path, PromptError, expected="a mapping with name, version, description, dimensions, system, user")
    try:
        spec = PromptSpec.model_validate({**raw, "source": str(path)})
    except ValidationError as ex:
        where, msg, _ = first_error(ex)
        raise PromptError(f"{path}: {where}: {msg}") from None
    for part in ("system", "user"):
        text = getattr(spec, part)
        try:
            if uses_jinja(text):
                compile_template(text, str(path.parent))
            else:
                format_fields(text)
        except PromptError as ex:
            raise PromptError(f"{path}: {part}: {ex}") from None
    return spec


JINJA_MARKS = ("{{", "{%", "{#")


def uses_jinja(text: str) -> bool:
    return any(mark in text for mark in JINJA_MARKS)


def format_fields(text: str) -> list[str]:
    """The fields of a `str.format_map` template; a malformed one, or a field that is not a plain
    name (attribute or index access), is a PromptError."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as ex:
        raise PromptError(f"not a valid format template ({ex})") from None
    fields = [name for _, name, _, _ in parsed if name is not None]
    bad = [f for f in fields if not NAME_FIELD.match(f)]
    if bad:
        raise PromptError(f"format field {{{bad[0]}}}: use a plain name such as {{artifact}}")
    return fields


class PromptRegistry:
    def __init__(self, template_dirs: list[str | Path] | None = None, builtin: Path = BUILTIN_TEMPLATES):
        self.templates: dict[str, dict[str, PromptSpec]] = {}
        self._load_dir(builtin, user=False)
        for folder in template_dirs or []:
            self._load_dir(Path(folder), user=True)

    def _load_dir(self, folder: Path, user: bool) -> None:
        if input_folder_problem(folder, "template folder"):
            raise PromptError(f"{folder}: {input_folder_problem(folder, 'template folder')}")
        found: dict[str, dict[str, PromptSpec]] = {}
        for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
            spec = load_template(path)
            versions = found.setdefault(spec.name, {})
            if spec.version in versions:
                raise PromptError(f"{path}: name {spec.name!r} version {spec.version} is also in {versions[spec.version].source}")
            versions[spec.version] = spec
        if user and not found:
            raise PromptError(f"{folder}: template folder has no *.yaml templates")
        for name, versions in found.items():
            if name in self.templates:
                replaced = sorted({s.source for s in self.templates[name].values()})
                logger.warning("prompt template %r from %s overrides %s", name, folder, ", ".join(replaced))
            self.templates[name] = versions

    def names(self) -> list[str]:
        return sorted(self.templates)

    def get(self, name: str, version: str | None = None) -> PromptSpec:
        if name not in self.templates:
            raise PromptError(f"prompt {name!r} not found; known: {', '.join(self.names())}")
        versions = self.templates[name]
        if version is None:
            return versions[max(versions, key=_version_key)]
        if str(version) not in versions:
            raise PromptError(f"prompt {name!r} has no version {version}; known: {', '.join(sorted(versions, key=_version_key))}")
        return versions[str(version)]


def render_part(spec: PromptSpec, part: str, variables: dict[str, Any]) -> str:
    folder = str(Path(spec.source).parent) if spec.source else str(BUILTIN_TEMPLATES)
    text = getattr(spec, part)
    if not uses_jinja(text):
        unknown = [f for f in format_fields(text) if f not in variables]
        if unknown:
            raise PromptError(f"{spec.source or spec.name}: {part}: unknown key {unknown[0]!r}; "
                              f"available: {', '.join(sorted(variables))}")
        return text.format_map(variables)
    try:
        return compile_template(getattr(spec, part), folder).render(**variables)
    except UndefinedError as ex:
        match = re.search(r"'([^']+)' is undefined", str(ex))
        key = match.group(1) if match else str(ex)
        raise PromptError(
            f"{spec.source or spec.name}: {part}: unknown key {key!r}; available: {', '.join(sorted(variables))}"
        ) from None
