"""Gold-standard files: what a careful human reviewer expects for each fixture.

``gold/<set>/<fixture>.yaml`` sits beside ``fixtures/<set>/<fixture>.md``. The schema check
rejects a gold file whose evidence quote does not occur in its document, so gold cannot
drift from the fixture it describes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from review_harness.core.matching import normalize_space
from review_harness.core.paths import PROJECT_ROOT
from review_harness.ds.models import Severity
from review_harness.ds.rubric import Rubric, default_rubric

VerdictBand = Literal["Good to Go", "Minor Fix", "Major Rework"]


class GoldError(ValueError):
    """A gold file is missing, malformed, or inconsistent with its document."""


class GoldFinding(BaseModel):
    id: str
    dimension: str
    lens: str
    severity: Severity
    must_catch: bool = False
    summary: str
    evidence: str = Field(
        description="Verbatim quote from the document; empty only when the finding is an absence."
    )
    keywords: list[str] = Field(default_factory=list)


class GoldPositive(BaseModel):
    dimension: str
    summary: str
    credit: str | None = Field(
        default=None, description="The rubric strength credit this positive earns (scoring from gold)."
    )


class GoldFile(BaseModel):
    fixture: str = Field(description="File name of the document, relative to the gold file's fixture folder.")
    title: str = ""
    designed_deficiency: str
    primary_lens: str | None = Field(default=None, description="dimension.lens the fixture is designed to test.")
    verdict_band: VerdictBand
    score_window: tuple[float, float]
    window_basis: Literal["holistic", "computed"] = Field(
        default="computed",
        description="holistic: band and window judged by reading the document before any score was "
        "computed; computed: copied from what a rubric version computes (measures nothing).",
    )
    holistic_note: str = Field(default="", description="Why this band and window, in a sentence or two.")
    split: Literal["dev", "heldout"] = Field(
        default="dev", description="dev: rules may be tuned on it; heldout: measurement only."
    )
    expected_findings: list[GoldFinding] = Field(default_factory=list)
    positives: list[GoldPositive] = Field(default_factory=list)
    options: dict[str, str | bool] = Field(
        default_factory=dict, description="Task options this fixture is reviewed with (e.g. draft)."
    )

    @model_validator(mode="after")
    def _window(self) -> "GoldFile":
        low, high = self.score_window
        if not 0 <= low < high <= 100:
            raise ValueError(f"score_window {self.score_window} must satisfy 0 <= low < high <= 100")
        if high - low > 20:
            raise ValueError(f"score_window {self.score_window} is wider than 20 points")
        if self.window_basis == "holistic" and not self.holistic_note.strip():
            raise ValueError("a holistic window needs a holistic_note saying why")
        ids = [f.id for f in self.expected_findings]
        if len(ids) != len(set(ids)):
            raise ValueError("expected_findings ids must be unique")
        return self


def check_against_document(gold: GoldFile, document_text: str, rubric: Rubric) -> list[str]:
    """Problems that make this gold file untrustworthy for its document (empty list: fine)."""
    problems: list[str] = []
    doc = normalize_space(document_text)
    for finding in gold.expected_findings:
        dim = rubric.dimensions.get(finding.dimension)
        if dim is None:
            problems.append(f"finding {finding.id}: unknown dimension '{finding.dimension}'")
        elif dim.lens(finding.lens) is None:
            problems.append(
                f"finding {finding.id}: lens '{finding.lens}' is not a lens of {finding.dimension}"
            )
        if finding.evidence and normalize_space(finding.evidence) not in doc:
            problems.append(
                f"finding {finding.id}: evidence quote not found in the document: "
                f"{finding.evidence[:80]!r}"
            )
    for n, positive in enumerate(gold.positives, 1):
        dim = rubric.dimensions.get(positive.dimension)
        if positive.credit and (dim is None or dim.credit(positive.credit) is None):
            problems.append(f"positive {n}: '{positive.credit}' is not a strength credit of {positive.dimension}")
    return problems


_loaded: dict[tuple, GoldFile] = {}


def load_gold(path: str | Path, rubric: Rubric | None = None) -> GoldFile:
    """Load and check one gold file against its fixture document (cached until either changes)."""
    path = Path(path)
    rubric = rubric or default_rubric()
    try:
        key = (str(path.resolve()), path.stat().st_mtime_ns, id(rubric))
    except OSError:
        key = None
    if key in _loaded:
        return _loaded[key]
    gold = _load_gold(path, rubric)
    if key is not None:
        _loaded[key] = gold
    return gold


def _load_gold(path: Path, rubric: Rubric) -> GoldFile:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GoldError(f"{path}: gold file not found") from None
    except yaml.YAMLError as ex:
        raise GoldError(f"{path}: not valid YAML ({ex})") from None
    try:
        gold = GoldFile.model_validate(data)
    except ValidationError as ex:
        first = ex.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise GoldError(f"{path}: {where}: {first['msg']}") from None
    document = fixture_path_for(path, gold)
    if not document.is_file():
        raise GoldError(f"{path}: its fixture {document} does not exist")
    problems = check_against_document(gold, document.read_text(encoding="utf-8"), rubric)
    if problems:
        raise GoldError(f"{path}: " + "; ".join(problems))
    return gold


def fixture_path_for(gold_path: Path, gold: GoldFile) -> Path:
    """gold/<set>/x.yaml describes fixtures/<set>/<gold.fixture>."""
    gold_set = gold_path.parent.name
    return gold_path.parent.parent.parent / "fixtures" / gold_set / gold.fixture


def gold_path(metadata: dict) -> Path | None:
    """The sample's gold file (metadata["gold"]); relative paths are relative to the project."""
    path = metadata.get("gold")
    if not path:
        return None
    path = Path(path)
    return path if path.is_absolute() else PROJECT_ROOT / path
