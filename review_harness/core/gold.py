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
import sys
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from review_harness.core.matching import normalize_space
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.yamlio import YamlReadError, read_model, read_yaml

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


class Planted(BaseModel):
    """How a planted gold file was made (`review-harness plant`): the operator, the input it
    changed (the path given and a hash of its text), the seed, and what the change put in or
    took out. A planted file lists only the flaw it planted: the input's other flaws are not
    known, so the review's precision and the kind's expected outcome (verdict, score window) are
    not judged on it."""

    model_config = ConfigDict(extra="forbid")

    operator: str
    description: str = ""
    table: str = ""
    source: str
    source_sha256: str = ""
    seed: int = 0
    change: Literal["insert", "replace", "delete"]
    planted: str = Field(default="", description="The text put in (it occurs in the planted copy).")
    removed: str = Field(default="", description="The text taken out (gone from the planted copy).")
    where: str = ""


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
    planted: Planted | None = Field(default=None, description="Set when the file was planted, not judged by hand.")
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
    def findings_complete(self) -> bool:
        """Whether the expected findings are all a careful reviewer raises (hand-judged gold), so
        that a reported finding gold lacks is a false positive. A planted file knows only its flaw."""
        return self.planted is None

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
    if gold.planted is not None and gold.planted.planted and gold.expected_findings:
        inputs = [p for p in gold.evidence_inputs(gold.expected_findings[0]) if p.is_file()]
        if not any(normalize_space(gold.planted.planted) in read(p) for p in inputs):
            problems.append(f"planted.planted: the planted text is not in the planted copy: {gold.planted.planted[:80]!r}")
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


def check_gold_file(kind_name: str, path: str | Path) -> GoldCase:
    """One gold file of a kind read and checked as its task reads it: the kind's gold model, the
    evidence against its fixture, and the kind's own checks (its `gold_problems` hook: the DS
    rubric's lenses). Any problem is a one-line `GoldError`."""
    from review_harness.core.kinds import get_kind

    kind = get_kind(kind_name)
    if kind.gold_model is None:
        raise GoldError(f"kind {kind_name} has no gold files")
    return load_gold(path, kind.gold_model, kind.gold_problems)


def gold_document(path: Path) -> str | None:
    """The `document:` a gold file gives (a document kept outside the repository, `../shared/...`);
    None when it gives none or cannot be read (its loader then says why)."""
    try:
        raw = read_yaml(path)
    except YamlReadError:
        return None
    document = raw.get("document") if isinstance(raw, dict) else None
    return document if isinstance(document, str) else None


def present_gold_files(set_name: str, paths: Sequence[Path]) -> list[Path]:
    """The gold files of a set whose documents are here: one pointing at an absent shared document
    is left out with one line (core.paths.leave_out_absent; an error where they are required)."""
    from review_harness.core.paths import leave_out_absent

    return leave_out_absent(f"gold set '{set_name}'", paths, gold_document)


def gold_set_folders(kind: str, fixtures: str) -> tuple[Path, Path]:
    """(fixtures folder, gold folder) of `-T fixtures=VALUE`: a set of the project
    (fixtures/<VALUE>/ and gold/<VALUE>/, e.g. `ds`, `domain/search`), or a gold set of the user's
    own outside the project: a folder holding fixtures/<kind>/ and gold/<kind>/ (what
    `review-harness plant --out` and `review-harness gold new` write). A value that is neither is
    a one-line error naming both."""
    from review_harness.core.inspect_adapter import PrerequisiteError
    from review_harness.core.params import resolve_user_path
    from review_harness.core.paths import FIXTURES_DIR, GOLD_DIR

    value = str(fixtures)
    inside = FIXTURES_DIR / value
    # a set of the project: its fixtures folder, or only its gold folder when every gold file points
    # at a document kept outside the repository (the real write-ups and designs: `ds/real`)
    if not Path(value).is_absolute() and (inside.is_dir() or (GOLD_DIR / value).is_dir()) \
            and not value.startswith((".", "~")):
        if resolve_user_path(value).is_dir():  # a folder of that name here too: say which was taken
            print(f"review-harness: -T fixtures={value} names the project's set '{value}' and the folder "
                  f"{resolve_user_path(value)} here; the project's set is reviewed (give ./{value} for the folder)",
                  file=sys.stderr, flush=True)
        return inside, GOLD_DIR / value
    user = resolve_user_path(value)
    if user.is_dir() and ((user / "fixtures").is_dir() or (user / "gold").is_dir()):
        folder = user / "fixtures" / kind
        if not folder.is_dir():
            raise PrerequisiteError(f"-T fixtures={value}: {folder} is not a folder (a gold set holds "
                                    f"fixtures/{kind}/ and gold/{kind}/)")
        return folder, user / "gold" / kind
    raise PrerequisiteError(f"fixture set '{value}' not found: {inside} is not a folder, and {value} is no gold "
                            f"set (a folder holding fixtures/{kind}/ and gold/{kind}/)")


def findings_model(model: type[GoldCase]) -> type[ExpectedFinding]:
    """The model of one expected finding of a kind's gold file."""
    annotation = model.model_fields["expected_findings"].annotation
    inner = [a for a in get_args(annotation) if isinstance(a, type) and issubclass(a, ExpectedFinding)]
    return inner[0] if inner else ExpectedFinding


PLACEHOLDER = "TODO"


def _placeholders(raw: Any, where: str = "") -> list[str]:
    if isinstance(raw, str):
        return [f"{where}: still a placeholder ({raw[:60]!r})"] if raw.strip().startswith(PLACEHOLDER) else []
    if isinstance(raw, dict):
        return [p for k, v in raw.items() for p in _placeholders(v, f"{where}.{k}" if where else str(k))]
    if isinstance(raw, list):
        return [p for n, v in enumerate(raw) for p in _placeholders(v, f"{where}.{n}")]
    return []


def gold_file_problems(kind_name: str, path: str | Path) -> list[str]:
    """Every problem of one gold file ('<key path>: <problem>'), not only the first: fields the
    kind's model refuses, evidence quotes not in the input, ids not unique, placeholders left
    ('TODO'), and the kind's own checks. [] when the file is good."""
    from review_harness.core.kinds import get_kind

    kind = get_kind(kind_name)
    model = kind.gold_model
    if model is None:
        return [f"kind {kind_name} has no gold files"]
    path = Path(path)
    try:
        raw = read_yaml(path)
    except YamlReadError as ex:
        return [f"(file): {ex.problem}" + (f" at line {ex.line}" if ex.line else "")]
    if not isinstance(raw, dict):
        return ["(top level): expected a mapping of fields"]
    expected = model.id_for(path)
    problems = []
    if raw.get("id", expected) != expected:
        problems.append(f"id: {raw['id']!r} does not match the file name ({expected})")
    problems += _placeholders(raw)
    raw = {**raw, "id": expected}
    findings = raw.get("expected_findings")
    if isinstance(findings, list):  # a repeated id is one problem; the findings are still checked
        ids = [f.get("id") for f in findings if isinstance(f, dict)]
        repeated = sorted({str(i) for i in ids if ids.count(i) > 1})
        if repeated:
            problems.append(f"expected_findings: ids must be unique ({', '.join(repeated)} repeated)")
            seen: dict[str, int] = {}
            renamed = []
            for f in findings:
                if isinstance(f, dict) and f.get("id") in repeated:
                    seen[f["id"]] = seen.get(f["id"], 0) + 1
                    f = {**f, "id": f"{f['id']}#{seen[f['id']]}"}
                renamed.append(f)
            raw["expected_findings"] = renamed
    try:
        gold = model.model_validate(raw)
    except ValidationError as ex:
        return problems + [f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: "
                           f"{e['msg'].removeprefix('Value error, ')}" for e in ex.errors()]
    gold._path = path
    if not gold.fixture_path.exists():
        return problems + [f"fixture: {gold.fixture_path} does not exist"]
    problems += _problems(gold)
    if kind.gold_problems is not None:
        problems += kind.gold_problems(gold)
    return problems
