"""The rubric as data: lenses, checklists, deduction and credit tables, scoring settings.

One reviewer mechanism serves every dimension; what differs between reviewers lives here.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from review_harness.core.commands import KindFileError
from review_harness.core.member import RetryPolicy
from review_harness.core.paths import PROMPTS_DIR as ALL_PROMPTS
from review_harness.core.yamlio import YamlReadError, read_yaml
from review_harness.ds.models import Severity

PROMPTS_DIR = ALL_PROMPTS / "ds"
DEFAULT_RUBRIC = PROMPTS_DIR / "rubric.yaml"
# a rubric chosen by name (-T rubric=seed-v1) is prompts/ds/rubric.<name>.yaml
CALIBRATED_RUBRIC = PROMPTS_DIR / "rubric.calibrated.yaml"
# the seed's starting values in the same formula (the default before its values were fitted)
SEED_RUBRIC = PROMPTS_DIR / "rubric.seed-v1.yaml"
# dimensions a review may add beside the rubric's own (the domain knowledge dimension, -T domain=)
OPTIONAL_DIMENSIONS = ("domain",)


class RubricError(KindFileError):
    """The rubric file is missing or malformed."""


class DeductionRule(BaseModel):
    id: str
    severity: Severity
    points: float
    description: str


class Credit(BaseModel):
    id: str
    points: float
    description: str


class Lens(BaseModel):
    id: str
    title: str
    checklist: list[str]
    deductions: list[DeductionRule]

    def deduction(self, issue_type: str | None) -> DeductionRule | None:
        return next((d for d in self.deductions if d.id == issue_type), None)


class Dimension(BaseModel):
    id: str = ""
    title: str
    reviewer: str
    focus: str
    lenses: list[Lens]
    credits: list[Credit] = Field(default_factory=list)

    def lens(self, lens_id: str) -> Lens | None:
        return next((lens for lens in self.lenses if lens.id == lens_id), None)

    def credit(self, credit_id: str | None) -> Credit | None:
        return next((c for c in self.credits if c.id == credit_id), None)


class SeverityDefinition(BaseModel):
    range: tuple[float, float]
    default_points: float
    meaning: str


class WithDomain(BaseModel):
    """Weighted-mean scoring when the domain dimension is scored (seed 001 s8: 50/25/25), and its
    recalibration (the seed's plan adjusts the diminishing-returns curve or the credit caps so a
    document keeps its band when the domain reviewer finds nothing serious)."""

    weights: dict[str, float]
    curve_scale: dict[str, float] = Field(
        default_factory=dict,
        description="a dimension whose effective deductions weigh this many times over with a domain "
        "(communication 2: it keeps its two-dimension share of the final score at half its weight)")
    minor_allowance: dict[str, float] = Field(
        default_factory=dict,
        description="MINOR (and ADVISORY) deduction points a dimension absorbs before they lower its score")


class Scoring(BaseModel):
    diminishing_returns: list[tuple[float | None, float]]
    credit_cap: float
    # "minor": credits only offset MINOR deductions (never a MAJOR or CRITICAL); "all": v1
    credits_offset: Literal["minor", "all"] = "all"
    # weighted_mean: final = the weighted mean of the scored dimensions (the seed's formula);
    # shortfall: final = 100 - each scored dimension's shortfall from 100 at its weight (calibrated)
    combine: Literal["weighted_mean", "shortfall"] = "shortfall"
    weights: dict[str, float]
    with_domain: WithDomain | None = None
    bands: dict[str, float]
    finding_caps: dict[str, int]
    full_mode_word_limit: int
    draft_status_polish: list[str] = Field(default_factory=list)


class FloorRule(BaseModel):
    """A cap on the verdict (never the number). `criticals`: at least N CRITICAL findings;
    `serious`: at least N MAJOR-or-worse findings; `critical_with_serious`: a CRITICAL and at
    least N more MAJOR-or-worse findings. `dimension` limits the count to one dimension."""

    rule: Literal["criticals", "serious", "critical_with_serious"]
    at_least: int
    cap: Literal["Minor Fix", "Major Rework"]
    dimension: str | None = None
    why: str

    def explain(self, count: int) -> str:
        return self.why.format(count=count, at_least=self.at_least, cap=self.cap, dimension=self.dimension or "")


class RoutingRule(BaseModel):
    topic: str
    owner: str


class AntiPattern(BaseModel):
    name: str
    lens: str


class Rubric(BaseModel):
    version: str
    severities: dict[Severity, SeverityDefinition]
    scoring: Scoring
    reviewer_calls: RetryPolicy = Field(description="attempts, backoff and timeout of each reviewer's model call")
    dimensions: dict[str, Dimension]
    floor_rules: list[FloorRule] = Field(default_factory=list)
    routing: list[RoutingRule]
    personas: dict[str, str]
    workflows: dict[str, str]
    anti_patterns: list[AntiPattern] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> "Rubric":
        for dim_id, dim in self.dimensions.items():
            dim.id = dim_id
            for lens in dim.lenses:
                for rule in lens.deductions:
                    low, high = self.severities[rule.severity].range
                    if not low <= rule.points <= high:
                        raise ValueError(
                            f"deduction {dim_id}.{lens.id}.{rule.id}: {rule.points:g} points is "
                            f"outside the {rule.severity.value} range {low:g}-{high:g}"
                        )
        for rule in self.floor_rules:
            if rule.dimension is not None and rule.dimension not in self.dimensions:
                raise ValueError(f"floor rule names an unknown dimension '{rule.dimension}'")
        missing = set(self.dimensions) - set(self.scoring.weights)
        extra = set(self.scoring.weights) - set(self.dimensions) - set(OPTIONAL_DIMENSIONS)
        if missing or extra:
            raise ValueError("scoring.weights must name the rubric's dimensions (and may name "
                             + ", ".join(OPTIONAL_DIMENSIONS) + "); "
                             + (f"missing: {', '.join(sorted(missing))}" if missing else f"unknown: {', '.join(sorted(extra))}"))
        if any(w < 0 for w in self.scoring.weights.values()):
            raise ValueError("scoring.weights must not be negative (a dimension only ever lowers the score)")
        extra = self.scoring.with_domain and (set(self.scoring.with_domain.weights) - set(self.dimensions) - set(OPTIONAL_DIMENSIONS))
        if extra:
            raise ValueError(f"scoring.with_domain.weights: unknown dimension(s): {', '.join(sorted(extra))}")
        return self

    def weight(self, dimension_id: str) -> float:
        """The deduction weight of a dimension (an optional one the rubric does not weigh: 0)."""
        return self.scoring.weights.get(dimension_id, 0.0)

    def dimension(self, dimension_id: str) -> Dimension:
        try:
            return self.dimensions[dimension_id]
        except KeyError:
            raise RubricError(
                f"unknown dimension '{dimension_id}'; the rubric has: "
                + ", ".join(self.dimensions)
            ) from None

    def severity_points(self, severity: Severity) -> float:
        return self.severities[severity].default_points


def load_rubric(path: str | Path = DEFAULT_RUBRIC) -> Rubric:
    path = Path(path)
    try:
        data = read_yaml(path)
    except YamlReadError as ex:
        if ex.missing:
            raise RubricError(f"rubric file not found: {path}") from None
        where = f" at line {ex.line}" if ex.line else ""
        raise RubricError(f"rubric file {path} is not valid YAML: {ex.problem}{where}" if ex.syntax
                          else f"rubric file {ex}") from None
    try:
        return Rubric.model_validate(data)
    except ValidationError as ex:
        first = ex.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = first["msg"].removeprefix("Value error, ")
        more = f" (and {len(ex.errors()) - 1} more)" if len(ex.errors()) > 1 else ""
        raise RubricError(f"rubric file {path} is invalid: {where}: {message}{more}") from None


@lru_cache(maxsize=8)
def default_rubric() -> Rubric:
    return load_rubric(DEFAULT_RUBRIC)


def named_rubric(name: str) -> Path | None:
    """The rubric file a bare name stands for (`seed-v1` -> prompts/ds/rubric.seed-v1.yaml, also
    `seed`; `default` -> the default rubric, the fitted one), or None when the name is no rubric of
    the project."""
    if name == "default":
        return DEFAULT_RUBRIC
    if name == "seed":
        return SEED_RUBRIC
    if not name or "/" in name or "\\" in name or name.endswith((".yaml", ".yml")):
        return None
    path = PROMPTS_DIR / f"rubric.{name}.yaml"
    return path if path.is_file() else None


def rubric_names() -> list[str]:
    """The rubrics a user can choose by name."""
    return ["default"] + sorted(p.name[len("rubric."):-len(".yaml")] for p in PROMPTS_DIR.glob("rubric.*.yaml")
                                if p.name != "rubric.v1.yaml")
