"""Gold files of the impact review and the comparison of a review with one.

``gold/impact/<case>.yaml`` describes ``fixtures/impact/<case>.json``: a 0-1 window per
dimension and for the overall score, the concerns a careful reviewer raises (with the keywords
its justification must contain), the dimensions the artifact breaks, and the expected range of
the deterministic confidence.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from review_harness.core.paths import FIXTURES_DIR, GOLD_DIR
from review_harness.core.yamlio import YamlReadError, first_error, read_yaml
from review_harness.impact.models import ImpactReview

IMPACT_GOLD = GOLD_DIR / "impact"
IMPACT_FIXTURES = FIXTURES_DIR / "impact"


class ImpactGoldError(ValueError):
    """A gold file that is missing, malformed or inconsistent."""


Window = tuple[float, float]


class GoldConcern(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    dimension: str
    summary: str
    keywords: list[str] = Field(min_length=1, description="all must appear in the dimension's justification")


class ImpactGold(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: str
    title: str
    split: Literal["dev", "heldout"]
    artifact: str
    breaks: list[str] = Field(default_factory=list, description="dimensions the artifact breaks; empty for a clean one")
    windows: dict[str, Window]
    overall: Window
    confidence: Window
    concerns: list[GoldConcern] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> "ImpactGold":
        for name, (low, high) in [*self.windows.items(), ("overall", self.overall), ("confidence", self.confidence)]:
            if not 0 <= low <= high <= 1:
                raise ValueError(f"{name}: window must satisfy 0 <= low <= high <= 1, got [{low}, {high}]")
        for name in self.breaks:
            if name not in self.windows:
                raise ValueError(f"breaks: {name!r} has no window")
        for concern in self.concerns:
            if concern.dimension not in self.windows:
                raise ValueError(f"concerns.{concern.id}: dimension {concern.dimension!r} has no window")
        return self

    @property
    def clean(self) -> bool:
        return not self.breaks

    @property
    def artifact_path(self) -> Path:
        return IMPACT_FIXTURES / self.artifact


def load_impact_gold(path: Path) -> ImpactGold:
    """Read and check a gold file (cached by path and modification time: scorers read it per sample)."""
    path = Path(path)
    return _load_gold(path, path.stat().st_mtime_ns if path.exists() else 0)


@lru_cache(maxsize=256)
def _load_gold(path: Path, mtime: int) -> ImpactGold:
    try:
        gold = ImpactGold.model_validate(read_yaml(path))
    except YamlReadError as ex:
        raise ImpactGoldError(str(ex)) from None
    except ValidationError as ex:
        where, msg, _ = first_error(ex)
        raise ImpactGoldError(f"{path}: {where}: {msg}") from None
    if gold.case != path.stem:
        raise ImpactGoldError(f"{path}: case {gold.case!r} does not match the file name")
    if not gold.artifact_path.is_file():
        raise ImpactGoldError(f"{path}: artifact {gold.artifact} not found in {IMPACT_FIXTURES}")
    return gold


def gold_files(split: str = "all") -> list[ImpactGold]:
    golds = [load_impact_gold(p) for p in sorted(IMPACT_GOLD.glob("*.yaml"))]
    return [g for g in golds if split == "all" or g.split == split]


def _inside(value: float | None, window: Window) -> bool:
    return value is not None and window[0] <= value <= window[1]


class GoldComparison(BaseModel):
    case: str
    dimension_in_window: float | None
    overall_in_window: float
    concern_recall: float | None
    confidence_in_range: float
    outside: list[str] = Field(default_factory=list)
    caught: list[str] = Field(default_factory=list)
    missed: list[str] = Field(default_factory=list)
    scores: dict[str, float | None] = Field(default_factory=dict)
    breaks: list[str] = Field(default_factory=list)


def compare_impact(review: ImpactReview, gold: ImpactGold) -> GoldComparison:
    scores = {name: review.score(name) for name in gold.windows}
    inside = {name: _inside(scores[name], window) for name, window in gold.windows.items()}
    justification = {d.name: d.justification.lower() for d in review.result.dimensions}
    caught, missed = [], []
    for concern in gold.concerns:
        text = justification.get(concern.dimension, "")
        (caught if all(k.lower() in text for k in concern.keywords) else missed).append(concern.id)
    return GoldComparison(
        case=gold.case,
        dimension_in_window=sum(inside.values()) / len(inside) if inside else None,
        overall_in_window=float(_inside(review.result.overall_score, gold.overall)),
        concern_recall=len(caught) / len(gold.concerns) if gold.concerns else None,
        confidence_in_range=float(_inside(review.confidence.score, gold.confidence)),
        outside=[f"{n} {scores[n]} not in {list(gold.windows[n])}" for n, ok in inside.items() if not ok],
        caught=caught, missed=missed, scores=scores, breaks=list(gold.breaks),
    )


def ranking_agreement(cases: list[GoldComparison]) -> tuple[float | None, list[str]]:
    """Share of (broken case, dimension it breaks, clean case) triples where the broken case
    scores strictly below the clean one on that dimension; and the triples that disagree."""
    clean = [c for c in cases if not c.breaks]
    agree = total = 0
    wrong: list[str] = []
    for broken in (c for c in cases if c.breaks):
        for dim in broken.breaks:
            for ok in clean:
                b, k = broken.scores.get(dim), ok.scores.get(dim)
                total += 1
                if b is not None and k is not None and b < k:
                    agree += 1
                else:
                    wrong.append(f"{broken.case} {dim} {b} vs {ok.case} {k}")
    return (agree / total if total else None), wrong
