"""The checks table (prompts/impact/checks.yaml): per model type, the parameters it needs, the
arithmetic identities between its numbers, the diagnostics it should report and their thresholds,
and its deterministic confidence band. A user's `checks:` section (from `-T config=FILE` or
`ReviewConfig`) is merged over the built-in table key by key, so a model type can be added or a
threshold changed without editing the package.

Identities and computed diagnostics are arithmetic expressions over the artifact's field names
(`+ - * /`, parentheses, numbers), read with `ast` and evaluated without `eval`: a table is data,
never code. An expression is also evaluated over ranges (interval arithmetic), so an identity
between rounded numbers holds within their rounding.

Names are compared folded (`fold_name`): the table names a diagnostic once and every spelling a
tool uses (`pretrend_test.pvalue`, `Pretrend test p-value`) reads as that name.
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


# --- names ---------------------------------------------------------------------------------

_FOLD = re.compile(r"[^a-z0-9]+")
_P_SUFFIX = re.compile(r"(?:^|_)(?:p_value|pvalue|pval|p_val|p)$")


@lru_cache(maxsize=8192)
def fold_name(name: str) -> str:
    """How names are compared: lower case, every run of other characters one `_`, and a trailing
    `pvalue` / `pval` / `p_val` / `p` read as `p_value` ('Pretrend Test P-Value' and
    'pretrend_test.pvalue' are both 'pretrend_test_p_value')."""
    folded = _FOLD.sub("_", str(name).strip().lower()).strip("_")
    match = _P_SUFFIX.search(folded)
    if match:
        folded = folded[: match.start()] + ("_" if match.start() and folded[match.start()] == "_" else "") + "p_value"
        folded = folded.lstrip("_")
    return folded


# --- expressions ---------------------------------------------------------------------------

_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
Interval = tuple[float, float]


def _interval_op(op: type, a: Interval, b: Interval) -> Interval:
    """Interval arithmetic: the range of `a op b` over every pair of values of the two ranges."""
    if op is ast.Add:
        return a[0] + b[0], a[1] + b[1]
    if op is ast.Sub:
        return a[0] - b[1], a[1] - b[0]
    if op is ast.Div:
        if b[0] <= 0 <= b[1]:
            raise ZeroDivisionError
        b = (1 / b[1], 1 / b[0])
    products = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(products), max(products)


@lru_cache(maxsize=1024)
def expression(text: str) -> "Expression":
    """The parsed expression of a table entry (parsed once per text)."""
    return Expression(text)


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

    def bounds(self, values: Mapping[str, float], halves: Mapping[str, float]) -> Interval | None:
        """The range of the value when each field may be off by its half-unit of rounding
        (`halves`, 0 for a field not rounded); None when a field is missing or a divisor's range
        holds zero."""
        if any(f not in values for f in self.fields):
            return None
        try:
            return self._range(self._tree, values, halves)
        except ZeroDivisionError:
            return None

    def _name(self, node: ast.Name) -> str:
        return self._back.get(node.id, node.id)

    def _eval(self, node: ast.AST, values: Mapping[str, float]) -> float:
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            return float(values[self._name(node)])
        if isinstance(node, ast.UnaryOp):
            value = self._eval(node.operand, values)
            return -value if isinstance(node.op, ast.USub) else value
        assert isinstance(node, ast.BinOp)
        return _OPS[type(node.op)](self._eval(node.left, values), self._eval(node.right, values))

    def _range(self, node: ast.AST, values: Mapping[str, float], halves: Mapping[str, float]) -> Interval:
        if isinstance(node, ast.Constant):
            return float(node.value), float(node.value)
        if isinstance(node, ast.Name):
            name = self._name(node)
            x, h = float(values[name]), abs(halves.get(name, 0.0))
            return x - h, x + h
        if isinstance(node, ast.UnaryOp):
            lo, hi = self._range(node.operand, values, halves)
            return (-hi, -lo) if isinstance(node.op, ast.USub) else (lo, hi)
        assert isinstance(node, ast.BinOp)
        return _interval_op(type(node.op), self._range(node.left, values, halves), self._range(node.right, values, halves))

    def __str__(self) -> str:
        return self.text


# --- the table -----------------------------------------------------------------------------

class Tolerance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    absolute: float = Field(ge=0)
    relative: float = Field(ge=0)
    close: float = Field(default=0.05, ge=0, description="a relative gap up to this is a warning, beyond it a failure")

    def agree(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.absolute, self.relative * max(abs(a), abs(b)))

    def near(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.absolute, self.close * max(abs(a), abs(b)))


class PAgreement(BaseModel):
    model_config = ConfigDict(extra="forbid")
    method: float = Field(gt=0)
    borderline: float = Field(gt=0)
    floor: float = Field(default=0.001, gt=0, lt=1, description="a reported p at or below this may be a floor")


class Scale(BaseModel):
    """Estimate and interval on different scales: a factor (100: percentage points against a
    fraction) within `band` of the ratio of their sizes."""

    model_config = ConfigDict(extra="forbid")
    factors: list[float] = Field(default_factory=lambda: [100.0])
    band: float = Field(default=1.5, gt=1)


class Plausibility(BaseModel):
    model_config = ConfigDict(extra="forbid")
    small_sample: int = Field(ge=1)
    large_percent_change: float = Field(gt=0)
    extreme_percent_change: float = Field(gt=0)
    implausible_percent_change: float = Field(gt=0)
    fit_error_multiple: float = Field(ge=1)
    pre_gap_share: float = Field(gt=0, le=1)


class Frequency(BaseModel):
    model_config = ConfigDict(extra="forbid")
    aliases: list[str] = Field(default_factory=list)
    days: float = Field(gt=0)
    season: int = Field(ge=1, description="periods in the yearly cycle (1: none within a year)")
    short_season: int | None = Field(default=None, ge=2, description="a shorter cycle (daily data: the week)")


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


class PercentBasis(BaseModel):
    model_config = ConfigDict(extra="forbid")
    basis: Literal["baseline", "counterfactual"]
    equals: str

    @field_validator("equals")
    @classmethod
    def _parse(cls, text: str) -> str:
        Expression(text)
        return text


class Threshold(BaseModel):
    model_config = ConfigDict(extra="forbid")
    at_least: float | None = None
    at_most: float | None = None
    within: tuple[float, float] | None = None

    @model_validator(mode="after")
    def _one(self) -> "Threshold":
        if sum(x is not None for x in (self.at_least, self.at_most, self.within)) != 1:
            raise ValueError("give exactly one of at_least, at_most, within")
        return self

    def holds(self, value: float) -> bool:
        if self.within is not None:
            return self.within[0] <= value <= self.within[1]
        if self.at_least is not None:
            return value >= self.at_least
        assert self.at_most is not None
        return value <= self.at_most

    def text(self) -> str:
        if self.within is not None:
            return f"inside [{self.within[0]:g}, {self.within[1]:g}]"
        return f">= {self.at_least:g}" if self.at_least is not None else f"<= {self.at_most:g}"


class Diagnostic(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dimension: Dimension
    names: list[str] = Field(default_factory=list)
    expression: str | None = None
    compute: Literal["srm", "first_stage_f"] | None = None
    at_least: float | None = None
    at_most: float | None = None
    within: tuple[float, float] | None = None
    fatal: Threshold | None = None
    on_fail: Literal["fail", "warn"] = "fail"
    words_fail: Literal["fail", "warn"] | None = Field(
        default=None, description="what a failure reported in words, with no number to place it, counts as "
        "(default: on_fail)")
    inference: bool = Field(default=False, description="a p-value of the effect itself: small supports it")
    topic: str | None = None
    describe: str
    said: list[str] = Field(default_factory=list, description="phrases that name it in the artifact's words")

    @model_validator(mode="after")
    def _check(self) -> Diagnostic:
        if not (self.names or self.expression or self.compute):
            raise ValueError("give names, an expression or compute")
        bounds = sum(x is not None for x in (self.at_least, self.at_most, self.within))
        if bounds != (0 if self.inference else 1):
            raise ValueError("an inference diagnostic takes no threshold" if self.inference
                             else "give exactly one of at_least, at_most, within")
        if self.expression:
            Expression(self.expression)
        return self

    @property
    def threshold(self) -> Threshold | None:
        if self.inference:
            return None
        return Threshold(at_least=self.at_least, at_most=self.at_most, within=self.within)

    @property
    def folded_names(self) -> list[str]:
        return [fold_name(n) for n in self.names]


class Limits(BaseModel):
    """A limit in periods: beyond `warn` a warning, beyond `fail` a failure."""

    model_config = ConfigDict(extra="forbid")
    warn: float | None = Field(default=None, gt=0)
    fail: float | None = Field(default=None, gt=0)


class Words(BaseModel):
    """The vocabulary the artifact's words are read with (words.py): phrases that say a test
    passed (`passes`, some carrying their own negation) or failed (`fails`), what a sentence about
    assignment names (`assignment`, `equal_split`), the design variants a label leaves open
    (`variants`), and the openings and addresses of an instruction (read as data, never obeyed)."""

    model_config = ConfigDict(extra="forbid")
    passes: list[str] = Field(default_factory=list)
    fails: list[str] = Field(default_factory=list)
    assignment: list[str] = Field(default_factory=list)
    equal_split: list[str] = Field(default_factory=list)
    variants: dict[str, list[str]] = Field(default_factory=dict)
    instructions: list[str] = Field(default_factory=list)
    addressed: list[str] = Field(default_factory=list)
    effect: list[str] = Field(default_factory=list, description="words for the estimate itself")
    proportion: list[str] = Field(default_factory=list, description="an outcome named so is a share of units")
    percent: list[str] = Field(default_factory=list, description="... and given in percent")


TimeShape = Literal["series", "panel", "cross_section", "unknown"]
CODE_NEEDS = ("pre_treatment_gap",)  # needs a check computed in code satisfies


class ModelType(BaseModel):
    model_config = ConfigDict(extra="forbid")
    aliases: list[str] = Field(default_factory=list)
    confidence: tuple[float, float]
    params: list[str] = Field(default_factory=list)
    baseline: list[str] = Field(default_factory=list)
    percent_bases: list[str] = Field(default_factory=list)
    identities: list[str] = Field(default_factory=list)
    diagnostics: list[str] = Field(default_factory=list)
    needs: list[str] = Field(default_factory=list, description="'a|b': either one")
    read_as: dict[str, str] = Field(default_factory=dict)
    inference: list[str] = Field(default_factory=list, description="inference diagnostics that state the uncertainty")
    time: TimeShape = "unknown"
    min_pre_periods: Limits | None = None
    max_post_to_pre: Limits | None = None
    seasonality: bool = False
    planned_share: float | None = Field(default=None, gt=0, lt=1)
    p_sides: Literal["two", "either"] = "two"

    @field_validator("confidence")
    @classmethod
    def _band(cls, band: tuple[float, float]) -> tuple[float, float]:
        low, high = band
        if not 0 <= low <= high <= 1:
            raise ValueError(f"need 0 <= low <= high <= 1, got [{low}, {high}]")
        return band

    @property
    def need_groups(self) -> list[list[str]]:
        return [[part.strip() for part in need.split("|") if part.strip()] for need in self.needs]

    @property
    def diagnostic_groups(self) -> list[list[str]]:
        """The diagnostics it expects, alternatives grouped ('a|b': either one)."""
        return [[part.strip() for part in d.split("|") if part.strip()] for d in self.diagnostics]


def normalize_type(name: str) -> str:
    """'CausalImpact', 'A/B test', 'difference-in-differences' -> lower-case snake words."""
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


class ChecksTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str
    ci_level: float = Field(gt=0, lt=1)
    significance_level: float = Field(gt=0, lt=1)
    tolerance: Tolerance
    p_value_agreement: PAgreement
    scale: Scale = Field(default_factory=Scale)
    plausibility: Plausibility
    frequencies: dict[str, Frequency]
    within_season: float = Field(default=92, gt=0, description="days a post-period may run within one season")
    fields: dict[str, list[str]]
    known_names: list[str] = Field(default_factory=list)
    describing_names: list[str] = Field(default_factory=list)
    identities: dict[str, Identity]
    percent_bases: dict[str, PercentBasis]
    basis_names: dict[Literal["baseline", "counterfactual"], list[str]]
    diagnostics: dict[str, Diagnostic]
    fit_errors: dict[Literal["pre_rmspe", "pre_mspe", "residual_sd"], list[str]]
    param_evidence: dict[str, list[str]] = Field(default_factory=dict)
    describing_params: list[str] = Field(default_factory=list)
    model_types: dict[str, ModelType]
    generic: ModelType
    words: Words = Field(default_factory=Words)
    _lookup: dict[str, str] = PrivateAttr(default_factory=dict)
    _field_lookup: dict[str, str] = PrivateAttr(default_factory=dict)
    _frequency_lookup: dict[str, str] = PrivateAttr(default_factory=dict)

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) else value

    @model_validator(mode="after")
    def _references(self) -> ChecksTable:
        self._frequency_lookup = {}
        for name, freq in self.frequencies.items():
            for key in [name, *freq.aliases]:
                self._frequency_lookup[fold_name(key)] = name
        self._field_lookup = {}
        for canonical, names in self.fields.items():
            for key in [canonical, *names]:
                folded = fold_name(key)
                if self._field_lookup.get(folded, canonical) != canonical:
                    raise ValueError(f"fields: the name {key!r} is also {self._field_lookup[folded]}'s")
                self._field_lookup[folded] = canonical
        seen: dict[str, str] = {}
        for name, spec in [*self.model_types.items(), ("generic", self.generic)]:
            where = "generic" if name == "generic" else f"model_types.{name}"
            for ident in spec.identities:
                if ident not in self.identities:
                    raise ValueError(f"{where}.identities: {ident!r} is not an identity of the table")
            for basis in spec.percent_bases:
                if basis not in self.percent_bases:
                    raise ValueError(f"{where}.percent_bases: {basis!r} is not a percent basis of the table")
            for diag in [*(d for g in spec.diagnostic_groups for d in g), *spec.read_as.values(), *spec.inference]:
                if diag not in self.diagnostics:
                    raise ValueError(f"{where}: {diag!r} is not a diagnostic of the table")
            for group in spec.need_groups:
                for need in group:
                    if need not in self.diagnostics and need not in CODE_NEEDS:
                        raise ValueError(f"{where}.needs: {need!r} is not a diagnostic of the table "
                                         f"(or one of {', '.join(CODE_NEEDS)})")
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

    def canonical_field(self, name: str) -> str | None:
        """The canonical name of a reported number ('std_error' -> 'standard_error'), or None."""
        return self._field_lookup.get(fold_name(name))

    def frequency(self, name: str) -> str | None:
        """The table's calendar frequency for a reported name ('Yearly' -> 'annual'), or None."""
        return self._frequency_lookup.get(fold_name(name))

    def basis(self, name: str) -> str | None:
        """'pre-period mean' -> 'baseline', 'synthetic' -> 'counterfactual', else None."""
        folded = fold_name(name)
        for basis, names in self.basis_names.items():
            if folded in {fold_name(n) for n in names}:
                return basis
        return None

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
