"""Gold files of the impact review and the comparison of a review with one.

``gold/impact/<case>.yaml`` describes ``fixtures/impact/<case>.json`` (the core's gold base): a
0-1 window per dimension and for the overall score, the verdict a careful reviewer gives
(usable | caution | unusable), the concerns it raises (its expected findings, with the keywords
the dimension's justification must contain), the dimensions the artifact breaks, and the
expected range of the deterministic confidence.

``gold/impact/published/`` is a second set in the same run: well-known causal studies written as
artifacts from their papers (``fixtures/impact/published/``), each with its source, where every
number comes from (``citations``), and the verdict and reasons an applied econometrician gives,
judged from the paper. Their score windows are left open (only the verdict and the concerns are
judged), so they measure the verdict, not the offline reviewer's arithmetic of scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from review_harness.core.gold import ExpectedFinding, GoldCase, gold_files
from review_harness.core.matching import GoldComparison, Match
from review_harness.core.paths import GOLD_DIR
from review_harness.impact.models import ImpactReview, Verdict

IMPACT_GOLD = GOLD_DIR / "impact"
SETS = ("", "published")  # the gold folders of one run: the kind's own artifacts, then published studies

Window = tuple[float, float]


class GoldConcern(ExpectedFinding):
    """A concern a careful reviewer raises in the justification of one dimension."""

    dimension: str
    keywords: list[str] = Field(min_length=1, description="all must appear in the dimension's justification")


class ImpactGold(GoldCase):
    title: str
    split: Literal["dev", "heldout"]
    fixture: str = Field(description="The artifact (JSON) in fixtures/impact/.")
    breaks: list[str] = Field(default_factory=list, description="dimensions the artifact breaks; empty for a clean one")
    verdict: Verdict | None = Field(default=None, description="the verdict a careful reviewer gives, judged from "
                                    "the artifact; None: not judged (a planted file)")
    windows: dict[str, Window] = Field(default_factory=dict, description="empty: not judged")
    overall: Window | None = None
    confidence: Window | None = None
    expected_findings: list[GoldConcern] = Field(default_factory=list)
    source: str | None = Field(default=None, description="the study the artifact is written from")
    citations: list[str] = Field(default_factory=list, description="where each number of the artifact comes from")
    reasons: list[str] = Field(default_factory=list, description="why the verdict, as the judge wrote it")

    @model_validator(mode="after")
    def _check(self) -> "ImpactGold":
        windows = [*self.windows.items(), ("overall", self.overall), ("confidence", self.confidence)]
        for name, window in windows:
            if window is not None and not 0 <= window[0] <= window[1] <= 1:
                raise ValueError(f"{name}: window must satisfy 0 <= low <= high <= 1, got [{window[0]}, {window[1]}]")
        if self.windows:  # empty: not judged (a planted file, a published study): nothing to tie breaks and concerns to
            for name in self.breaks:
                if name not in self.windows:
                    raise ValueError(f"breaks: {name!r} has no window")
            for concern in self.expected_findings:
                if concern.dimension not in self.windows:
                    raise ValueError(f"expected_findings.{concern.id}: dimension {concern.dimension!r} has no window")
        if self.source is not None and not self.citations:
            raise ValueError("citations: a published study cites where each of its numbers comes from")
        return self

    @property
    def clean(self) -> bool:
        return not self.breaks

    @property
    def published(self) -> bool:
        return self.source is not None


def impact_gold_files(split: str = "all", folder: Path = IMPACT_GOLD, sets: tuple[str, ...] = SETS) -> list[ImpactGold]:
    """The gold cases of every set of `folder` (the kind's own artifacts, then the published
    studies, where the folder has them: a user's gold set may hold only the first)."""
    return [g for name in sets if (folder / name).is_dir() for g in gold_files(folder / name if name else folder, ImpactGold, split)]


def _inside(value: float | None, window: Window | None) -> bool | None:
    """Whether a value is inside its window (None: the window is not judged)."""
    if window is None:
        return None
    return value is not None and window[0] <= value <= window[1]


def _judged(value: float | None, window: Window | None) -> float | None:
    """1/0 for a value inside/outside its gold window; None when gold judges no window."""
    return None if window is None else float(_inside(value, window))


MATCHER = "keywords"


class ImpactGoldComparison(GoldComparison):
    """The core comparison (a concern is caught when the justification of its dimension holds all
    its keywords; impact reviews rate no severity and list no findings, so precision and
    severity agreement are not applicable) plus the windows of the scores and the confidence."""

    matcher: str = MATCHER
    case: str
    dimension_in_window: float | None
    overall_in_window: float | None
    verdict_correct: float | None = Field(description="1 when the review's verdict is the gold verdict (None: not judged)")
    verdict: str = ""
    gold_verdict: str = ""
    confidence_in_range: float | None
    outside: list[str] = Field(default_factory=list)
    scores: dict[str, float | None] = Field(default_factory=dict)
    breaks: list[str] = Field(default_factory=list)


def compare_impact(review: ImpactReview, gold: ImpactGold) -> ImpactGoldComparison:
    scores = {name: review.score(name) for name in gold.windows}
    inside = {name: _inside(scores[name], window) for name, window in gold.windows.items()}
    justification = {d.name: d.justification.lower() for d in review.result.dimensions}
    caught = [
        Match(finding=concern.dimension, gold=concern.id, similarity=1.0)
        for concern in gold.expected_findings
        if all(k.lower() in justification.get(concern.dimension, "") for k in concern.keywords)
    ]
    return ImpactGoldComparison.from_matches(
        [], gold.expected_findings, caught, matcher=MATCHER, precision_without_findings=None,
        case=gold.id,
        dimension_in_window=sum(inside.values()) / len(inside) if inside else None,
        overall_in_window=_judged(review.result.overall_score, gold.overall),
        verdict_correct=None if gold.verdict is None else float(review.verdict == gold.verdict),
        verdict=review.verdict, gold_verdict=gold.verdict or "",
        confidence_in_range=_judged(review.confidence.score, gold.confidence),
        outside=[f"{n} {scores[n]} not in {list(gold.windows[n])}" for n, ok in inside.items() if not ok],
        scores=scores, breaks=list(gold.breaks),
    )


def ranking_agreement(cases: list[ImpactGoldComparison]) -> tuple[float | None, list[str]]:
    """Share of (broken case, dimension it breaks, clean case) triples where the broken case
    scores strictly below the clean one on that dimension; and the triples that disagree."""
    judged = [c for c in cases if c.scores]  # a planted case judges no window: it ranks nothing
    clean = [c for c in judged if not c.breaks]
    agree = total = 0
    wrong: list[str] = []
    for broken in (c for c in judged if c.breaks):
        for dim in broken.breaks:
            for ok in clean:
                b, k = broken.scores.get(dim), ok.scores.get(dim)
                total += 1
                if b is not None and k is not None and b < k:
                    agree += 1
                else:
                    wrong.append(f"{broken.case} {dim} {b} vs {ok.case} {k}")
    return (agree / total if total else None), wrong
