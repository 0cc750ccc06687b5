"""The checks table (prompts/impact/checks.yaml): per model type, the parameters it needs, the
arithmetic identities between its numbers, the diagnostics it should report and their thresholds,
and its deterministic confidence band. A user's `checks:` section (from `-T config=FILE` or
`ReviewConfig`) is merged over the built-in table key by key, so a model type can be added or a
threshold changed without editing the package.

Identities and computed diagnostics are arithmetic expressions over the artifact's field names
(`+ - * /`, parentheses, numbers), read with `ast` and evaluated without `eval`: a table is data,
never code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.pysource import parse_python
from review_harness.core.yamlio import YamlReadError, invalid_message, read_mapping, read_yaml

CHECKS_FILE = PROMPTS_DIR / "impact" / "checks.yaml"
DIMENSIONS = ("estimate_plausibility", "statistical_rigor", "methodology_fit")
Dimension = Literal["estimate_plausibility", "statistical_rigor", "methodology_fit"]


class TableError(ValueError):
    """A checks table (built-in or a user's) that cannot be used: one line naming the key."""


# --- expressions ---------------------------------------------------------------------------

_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class Expression:
    """`a - (b + c) / 100` over field names (dotted names allowed: `placebo.p_value`)."""

    def __init__(self, text: str):
        self.text = text.strip()
        # dotted names become single identifiers for ast
        self._names: dict[str, str] = {}

        def alias(match: re.Match[str]) -> str:
            name = match.group(0)
            return self._names.setdefault(name, f"_v{len(self._names)}") if "." in name else name

        source = _NAME.sub(alias, self.text)
        try:
            tree = parse_python(source, mode="eval")
        except SyntaxError:
            raise TableError(f"expression {self.text!r}: not an arithmetic expression") from None
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant, ast.Load,
                                     ast.USub, ast.UAdd, *_OPS)):
                raise TableError(f"expression {self.text!r}: only + - * / , parentheses, numbers and field names")
            if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
                raise TableError(f"expression {self.text!r}: {node.value!r} is not a number")
        self._tree = tree.body
        back = {v: k for k, v in self._names.items()}
        self.fields = sorted({back.get(n.id, n.id) for n in ast.walk(tree) if isinstance(n, ast.Name)})
        self._back = back

    def evaluate(self, values: Mapping[str, float]) -> float | None:
        """The value, or None when a field is missing or a division is by zero."""
        if any(f not in values for f in self.fields):
            return None
        try:
            return float(self._eval(self._tree, values))
        except ZeroDivisionError:
            return None

    def _eval(self, node: ast.AST, values: Mapping[str, float]) -> float:
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            return float(values[self._back.get(node.id, node.id)])
        if isinstance(node, ast.UnaryOp):
            value = self._eval(node.operand, values)
            return -value if isinstance(node.op, ast.USub) else value
        assert isinstance(node, ast.BinOp)
        return _OPS[type(node.op)](self._eval(node.left, values), self._eval(node.right, values))

    def __str__(self) -> str:
        return self.text


# --- the table -----------------------------------------------------------------------------

class Tolerance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    absolute: float = Field(ge=0)
    relative: float = Field(ge=0)

    def agree(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.absolute, self.relative * max(abs(a), abs(b)))


class Plausibility(BaseModel):
    model_config = ConfigDict(extra="forbid")
    small_sample: int = Field(ge=1)
    large_percent_change: float = Field(gt=0)
    extreme_percent_change: float = Field(gt=0)


class Identity(BaseModel):
    """`value` must equal `equals` (within the tolerance)."""

    model_config = ConfigDict(extra="forbid")
    dimension: Dimension
    value: str
    equals: str

    @field_validator("equals", "value")
    @classmethod
    def _parse(cls, text: str) -> str:
        Expression(text)  # raises with the expression named
        return text


class Diagnostic(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dimension: Dimension
    fields: list[str] = Field(default_factory=list)
    expression: str | None = None
    compute: Literal["srm"] | None = None
    expected_share: float | None = Field(default=None, gt=0, lt=1)
    at_least: float | None = None
    at_most: float | None = None
    within: tuple[float, float] | None = None
    on_fail: Literal["fail", "warn"] = "fail"
    missing: Literal["major", "minor", "skip"] = "minor"
    topic: str | None = None
    describe: str

    @model_validator(mode="after")
    def _check(self) -> Diagnostic:
        if not (self.fields or self.expression or self.compute):
            raise ValueError("give fields, an expression or compute")
        if sum(x is not None for x in (self.at_least, self.at_most, self.within)) != 1:
            raise ValueError("give exactly one of at_least, at_most, within")
        if self.expression:
            Expression(self.expression)
        return self

    def holds(self, value: float) -> bool:
        if self.within is not None:
            return self.within[0] <= value <= self.within[1]
        if self.at_least is not None:
            return value >= self.at_least
        assert self.at_most is not None
        return value <= self.at_most

    def threshold(self) -> str:
        if self.within is not None:
            return f"inside [{self.within[0]:g}, {self.within[1]:g}]"
        return f">= {self.at_least:g}" if self.at_least is not None else f"<= {self.at_most:g}"


class ModelType(BaseModel):
    model_config = ConfigDict(extra="forbid")
    aliases: list[str] = Field(default_factory=list)
    confidence: tuple[float, float]
    params: list[str] = Field(default_factory=list)
    baseline: list[str] = Field(default_factory=list)
    identities: list[str] = Field(default_factory=list)
    diagnostics: list[str] = Field(default_factory=list)
    min_pre_period: dict[str, int] = Field(default_factory=dict)
    max_post_to_pre: float | None = Field(default=None, gt=0)
    seasonality: bool = False

    @field_validator("confidence")
    @classmethod
    def _band(cls, band: tuple[float, float]) -> tuple[float, float]:
        low, high = band
        if not 0 <= low <= high <= 1:
            raise ValueError(f"need 0 <= low <= high <= 1, got [{low}, {high}]")
        return band


def normalize_type(name: str) -> str:
    """'CausalImpact', 'A/B test', 'difference-in-differences' -> lower-case snake words."""
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


class ChecksTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str
    ci_level: float = Field(gt=0, lt=1)
    significance_level: float = Field(gt=0, lt=1)
    tolerance: Tolerance
    plausibility: Plausibility
    default_frequency: str
    frequencies: list[str]
    season_length: dict[str, int]
    days_per_period: dict[str, float]
    identities: dict[str, Identity]
    diagnostics: dict[str, Diagnostic]
    model_types: dict[str, ModelType]
    generic: ModelType
    _lookup: dict[str, str] = PrivateAttr(default_factory=dict)

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) else value

    @model_validator(mode="after")
    def _references(self) -> ChecksTable:
        for freq in self.frequencies:
            for table in ("season_length", "days_per_period"):
                if freq not in getattr(self, table):
                    raise ValueError(f"{table}: no value for the frequency {freq!r}")
        if self.default_frequency not in self.frequencies:
            raise ValueError(f"default_frequency: {self.default_frequency!r} is not one of {self.frequencies}")
        seen: dict[str, str] = {}
        for name, spec in [*self.model_types.items(), ("generic", self.generic)]:
            where = "generic" if name == "generic" else f"model_types.{name}"
            for ident in spec.identities:
                if ident not in self.identities:
                    raise ValueError(f"{where}.identities: {ident!r} is not an identity of the table")
            for diag in spec.diagnostics:
                if diag not in self.diagnostics:
                    raise ValueError(f"{where}.diagnostics: {diag!r} is not a diagnostic of the table")
            for freq in spec.min_pre_period:
                if freq not in self.frequencies:
                    raise ValueError(f"{where}.min_pre_period: {freq!r} is not a frequency ({', '.join(self.frequencies)})")
            if name == "generic":
                continue
            for key in [normalize_type(name), *map(normalize_type, spec.aliases)]:
                if key in seen and seen[key] != name:
                    raise ValueError(f"{where}: the name {key!r} is also {seen[key]}'s")
                seen[key] = name
        self._lookup = seen
        return self

    def resolve(self, model_type: str) -> str | None:
        """The table's name for a reported model type (aliases and spelling folded), or None."""
        return self._lookup.get(normalize_type(model_type))

    def spec(self, model_type: str) -> ModelType:
        name = self.resolve(model_type)
        return self.model_types[name] if name else self.generic

    @property
    def confidence_map(self) -> dict[str, tuple[float, float]]:
        return {name: spec.confidence for name, spec in self.model_types.items()}

    @property
    def model_type_names(self) -> list[str]:
        return list(self.model_types)


def merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`extra` over `base`, mappings merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


@lru_cache(maxsize=1)
def _builtin_raw() -> dict[str, Any]:
    return read_mapping(CHECKS_FILE, TableError, label="checks table")


def build_table(overlay: Mapping[str, Any] | None = None, source: str = "checks") -> ChecksTable:
    """The built-in table with a user's overlay merged over it (one-line errors naming the key)."""
    raw = _builtin_raw()
    if overlay:
        if not isinstance(overlay, Mapping):
            raise TableError(f"{source}: expected a mapping of the checks table's keys")
        raw = merge(raw, overlay)
    try:
        return ChecksTable.model_validate(raw)
    except ValidationError as ex:
        raise TableError(invalid_message(source, ex)) from None
    except TableError as ex:
        raise TableError(f"{source}: {ex}") from None


@lru_cache(maxsize=1)
def default_table() -> ChecksTable:
    return build_table(source=f"checks table {CHECKS_FILE}")


def table_from_file(path: str | Path) -> ChecksTable:
    try:
        raw = read_yaml(path)
    except YamlReadError as ex:
        raise TableError(str(ex)) from None
    return build_table(raw or {}, source=str(path))
