"""Gold files of the DS review: what a careful human reviewer expects for each fixture.

``gold/<set>/<fixture>.yaml`` sits beside ``fixtures/<set>/<fixture>.md`` (the core's gold base:
id, split, expected findings with evidence checked against the document, cached load). On top,
the DS file carries the verdict band and score window, and its findings name a rubric
dimension and lens, which `load_gold` checks against the rubric.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from review_harness.core.gold import ExpectedFinding, GoldCase
from review_harness.core.gold import load_gold as load_gold_case
from review_harness.core.paths import repo_path
from review_harness.ds.models import Severity
from review_harness.domain.reviewer import default_reviewer_rubric
from review_harness.ds.rubric import Rubric, default_rubric

DOMAIN_DIMENSION = "domain"

VerdictBand = Literal["Good to Go", "Minor Fix", "Major Rework"]


class GoldFinding(ExpectedFinding):
    dimension: str
    lens: str
    severity: Severity
    evidence: str = Field(
        description="Verbatim quote from the document; empty only when the finding is an absence."
    )


class GoldPositive(BaseModel):
    dimension: str
    summary: str
    credit: str | None = Field(
        default=None, description="The rubric strength credit this positive earns (scoring from gold)."
    )


class GoldFile(GoldCase):
    fixture: str = Field(description="File name of the document, relative to the gold file's fixture folder.")
    document: str | None = Field(
        default=None,
        description="A document kept outside the repository, relative to the repository root "
        "(../shared/real/ds/...): the gold file points at it instead of a copy under fixtures/.",
    )
    title: str = ""
    designed_deficiency: str
    primary_lens: str | None = Field(default=None, description="dimension.lens the fixture is designed to test.")
    verdict_band: VerdictBand | None = Field(default=None, description="None: not judged (a planted file)")
    score_window: tuple[float, float] | None = Field(default=None, description="None: not judged")
    window_basis: Literal["holistic", "computed"] = Field(
        default="computed",
        description="holistic: band and window judged by reading the document before any score was "
        "computed; computed: copied from what a rubric version computes (measures nothing).",
    )
    holistic_note: str = Field(default="", description="Why this band and window, in a sentence or two.")
    expected_findings: list[GoldFinding] = Field(default_factory=list)
    positives: list[GoldPositive] = Field(default_factory=list)
    options: dict[str, str | bool] = Field(
        default_factory=dict, description="Task options this fixture is reviewed with (e.g. draft)."
    )

    @property
    def fixture_path(self) -> Path:
        """The document: `document` when the gold file points outside the repository, else the fixture."""
        return repo_path(self.document) if self.document else super().fixture_path

    @model_validator(mode="after")
    def _window(self) -> "GoldFile":
        if self.score_window is None:
            return self
        low, high = self.score_window
        if not 0 <= low < high <= 100:
            raise ValueError(f"score_window {self.score_window} must satisfy 0 <= low < high <= 100")
        if high - low > 20:
            raise ValueError(f"score_window {self.score_window} is wider than 20 points")
        if self.window_basis == "holistic" and not self.holistic_note.strip():
            raise ValueError("a holistic window needs a holistic_note saying why")
        return self


def _lenses_and_credits(dimension: str, rubric: Rubric) -> tuple[set[str], set[str]] | None:
    """The lens and credit ids of a dimension: the rubric's own, or the domain reviewer's."""
    dim = rubric.dimensions.get(dimension)
    if dim is not None:
        return {lens.id for lens in dim.lenses}, {c.id for c in dim.credits}
    if dimension == DOMAIN_DIMENSION:
        spec = default_reviewer_rubric().dimension
        return {lens.id for lens in spec.lenses}, {c.id for lens in spec.lenses for c in lens.credits}
    return None


def rubric_problems(gold: GoldFile, rubric: Rubric) -> list[str]:
    """Dimensions, lenses and credits the rubric (and the domain reviewer's rubric, for the
    domain dimension) does not have, and domain findings in a file with no domain option."""
    problems: list[str] = []
    for n, finding in enumerate(gold.expected_findings):
        known = _lenses_and_credits(finding.dimension, rubric)
        if known is None:
            problems.append(f"expected_findings.{n}.dimension: unknown dimension '{finding.dimension}'")
        elif finding.lens not in known[0]:
            problems.append(f"expected_findings.{n}.lens: lens '{finding.lens}' is not a lens of {finding.dimension}")
        elif finding.dimension == DOMAIN_DIMENSION and not gold.options.get("domain"):
            problems.append(f"expected_findings.{n}.dimension: a domain finding needs options: {{domain: ...}}")
    for n, positive in enumerate(gold.positives):
        known = _lenses_and_credits(positive.dimension, rubric)
        if positive.credit and (known is None or positive.credit not in known[1]):
            problems.append(f"positives.{n}.credit: '{positive.credit}' is not a strength credit of {positive.dimension}")
    return problems


def rubric_check(rubric: Rubric | None = None) -> Callable[[GoldFile], list[str]]:
    """The check of a gold file against a rubric (the default one unless given)."""
    return lambda gold: rubric_problems(gold, rubric or default_rubric())


def load_gold(path: str | Path, rubric: Rubric | None = None) -> GoldFile:
    """One DS gold file, checked against its document and the rubric."""
    return load_gold_case(path, GoldFile, rubric_check(rubric))
