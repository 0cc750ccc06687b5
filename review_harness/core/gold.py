"""Gold files, one base for every kind: what a careful reviewer expects of each fixture.

``gold/<set>/<id>.yaml`` describes the fixture ``fixtures/<set>/<fixture>`` (a file, or the folder
named by the id). Every kind's gold model extends `GoldCase`: an id (the file name), a split
(dev: rules may be tuned on it; heldout: measurement only), the expected findings with their
must-catch flag and an evidence quote, and the fixture. `load_gold` reads one file into a
kind's model, checks that every evidence quote occurs verbatim (whitespace folded) in the input
it names, runs the kind's own checks, and caches the result by path and modification time.
Every problem is a `GoldError` of one line: '<file> is invalid: <key path>: <problem>'.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from review_harness.core.matching import normalize_space
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.yamlio import read_model

Split = Literal["dev", "heldout"]


class GoldError(ValueError):
    """A gold file that is missing, malformed or inconsistent with its fixture (one line)."""


class ExpectedFinding(BaseModel):
    """One finding a careful reviewer raises. Kinds add where it is and how severe."""

    model_config = ConfigDict(extra="forbid")

    id: str
    must_catch: bool = False
    summary: str
    evidence: str = Field(
        default="", description="Verbatim quote from the input; empty when the finding is an absence."
    )
    keywords: list[str] = Field(default_factory=list)


class GoldCase(BaseModel):
    """The base of every kind's gold file."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="The gold file's name without .yaml (the sample id).")
    split: Split = "dev"
    fixture: str | None = Field(
        default=None,
        description="The fixture file or folder, relative to fixtures/<set>/; default: the folder named by the id.",
    )
    expected_findings: Sequence[ExpectedFinding] = Field(default_factory=list)
    _path: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _unique_ids(self) -> "GoldCase":
        ids = [f.id for f in self.expected_findings]
        if len(ids) != len(set(ids)):
            raise ValueError("expected_findings ids must be unique")
        return self

    @classmethod
    def id_for(cls, path: Path) -> str:
        """The id of the gold file at `path`: its name."""
        return path.stem

    @property
    def path(self) -> Path:
        """The gold file this case was read from."""
        if self._path is None:
            raise GoldError(f"gold case {self.id} was not read from a file: it has no fixture folder")
        return self._path

    @property
    def fixture_path(self) -> Path:
        """gold/<set>/<id>.yaml describes fixtures/<set>/<fixture or id>."""
        return fixtures_dir(self.path) / (self.fixture or self.id)

    def evidence_inputs(self, finding: ExpectedFinding) -> list[Path]:
        """The files a finding's evidence quote may come from (any one of them); the fixture by default."""
        return [self.fixture_path]

    def check_inputs(self) -> list[str]:
        """The kind's own checks of its fixture files, as '<key path>: <problem>'."""
        return []


G = TypeVar("G", bound=GoldCase)


def fixtures_dir(gold_path: Path) -> Path:
    """gold/<set>/ mirrors fixtures/<set>/ (two folders up from the gold file); a nested set
    gold/<set>/<subset>/ mirrors fixtures/<set>/<subset>/."""
    folder = gold_path.parent
    if folder.parent.name != "gold" and folder.parent.parent.name == "gold":
        return folder.parent.parent.parent / "fixtures" / folder.parent.name / folder.name
    return folder.parent.parent / "fixtures" / folder.name


def invalid_gold(path: str | Path, problems: Sequence[str]) -> GoldError:
    """The one-line error of a gold file with problems ('<key path>: <problem>' each)."""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return GoldError(f"gold file {path} is invalid: {problems[0]}{more}")


def _problems(gold: GoldCase) -> list[str]:
    fixture = gold.fixture_path
    if not fixture.exists():
        return [f"fixture: {fixture} does not exist"]
    texts: dict[Path, str] = {}

    def read(path: Path) -> str:
        if path not in texts:
            texts[path] = normalize_space(path.read_text(encoding="utf-8"))
        return texts[path]

    problems = gold.check_inputs()
    for n, finding in enumerate(gold.expected_findings):
        if not finding.evidence:
            continue
        inputs = [p for p in gold.evidence_inputs(finding) if p.is_file()]
        quote = normalize_space(finding.evidence)
        if not any(quote in read(p) for p in inputs):
            names = ", ".join(p.name for p in inputs) or "its inputs (none exist)"
            problems.append(f"expected_findings.{n}.evidence: quote of {finding.id} not found in {names}: "
                            f"{finding.evidence[:80]!r}")
    return problems


# (path, modification time, size, model): an edited file is read again
_cache: dict[tuple[str, int, int, type], GoldCase] = {}


def load_gold(path: str | Path, model: type[G], check: Callable[[G], list[str]] | None = None) -> G:
    """One gold file read into `model` and checked against its fixture. Cached by path and
    modification time (and size): scorers read it once per sample. `check` adds problems that depend on
    more than the file (e.g. a rubric the caller chose), as '<key path>: <problem>'."""
    path = Path(path)
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size, model)
    except OSError:
        raise GoldError(f"gold file {path}: not found") from None
    if key not in _cache:
        _cache[key] = _read(path, model)
    gold: G = _cache[key]  # type: ignore[assignment]
    problems = check(gold) if check else []
    if problems:
        raise invalid_gold(path, problems)
    return gold


def _read(path: Path, model: type[G]) -> G:
    label = f"gold file {path}"

    def with_id(raw: Any) -> Any:
        # the id is the file's name; a file that states it must agree
        if isinstance(raw, dict):
            expected = model.id_for(path)
            if raw.setdefault("id", expected) != expected:
                raise GoldError(f"{label} is invalid: id: {raw['id']!r} does not match the file name ({expected})")
        return raw

    gold = read_model(path, model, label, GoldError, wrap=with_id)
    gold._path = path
    problems = _problems(gold)
    if problems:
        raise invalid_gold(path, problems)
    return gold


def gold_files(folder: Path, model: type[G], split: str = "all") -> list[G]:
    """Every gold file of a folder (sorted by name), optionally one split only."""
    golds = [load_gold(p, model) for p in sorted(folder.glob("*.yaml"))]
    return [g for g in golds if split == "all" or g.split == split]


def sample_gold_path(metadata: Mapping[str, Any]) -> Path | None:
    """A sample's gold file (metadata["gold"]); a relative path is relative to the project."""
    value = metadata.get("gold")
    if not value:
        return None
    path = Path(value)
    return path if path.is_absolute() else PROJECT_ROOT / path


def sample_gold(
    metadata: Mapping[str, Any], model: type[G], check: Callable[[G], list[str]] | None = None
) -> tuple[G | None, str]:
    """(gold, '') for a sample with a readable gold file, else (None, why not): a gold scorer
    records the reason and NaN values."""
    path = sample_gold_path(metadata)
    if path is None:
        return None, "no gold file for this sample"
    try:
        return load_gold(path, model, check), ""
    except GoldError as ex:
        return None, str(ex)
