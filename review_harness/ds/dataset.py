"""Samples for a review task: the fixture set (with gold) or the user's own documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.dataset import Sample

from review_harness.core.gold import GoldError, gold_set_folders, present_gold_files
from review_harness.ds.gold import load_gold
from review_harness.ds.judge import load_meta_fixture
from review_harness.ds.models import AUDIENCES, MODES, WORKFLOWS, ReviewOptions
from review_harness.core.documents import Document, DocumentError, is_remote, load, read_file
from review_harness.ds.prompts import PromptError, check_templates
from review_harness.core.params import as_flag, choice, resolve_user_path
from review_harness.core.paths import FIXTURES_DIR, GOLD_DIR  # noqa: F401  (tasks/judge_meta.py imports FIXTURES_DIR from here)
from review_harness.core.input_errors import input_error_tolerance  # noqa: F401  (ds.task imports it from here)
from review_harness.ds.preflight import task_domains
from review_harness.ds.rubric import Rubric, RubricError, default_rubric, load_rubric, named_rubric


def task_rubric(path: str | None) -> tuple[str | None, Rubric]:
    """The rubric a task runs with: a name (`-T rubric=calibrated`, prompts/ds/rubric.<name>.yaml)
    or a path (resolved like a document), checked up front: a bad rubric or a prompt template it
    cannot fill is a one-line error, not a degraded review."""
    if path is None:
        resolved = None
    elif (named := named_rubric(str(path))) is not None and not Path(str(path)).exists():
        resolved = str(named)
    else:
        resolved = str(resolve_user_path(path))
    try:
        rubric = load_rubric(resolved) if resolved else default_rubric()
        check_templates(rubric)
    except (RubricError, PromptError) as ex:
        raise PrerequisiteError(str(ex)) from None
    return resolved, rubric


def resolve_options(
    overrides: dict[str, Any], fixture_options: dict[str, Any] | None = None
) -> ReviewOptions:
    """Explicit task parameters win, then the fixture's own options, then the defaults
    (full mode; quick mode always reviews a mixed audience unless one is named)."""
    merged = {**(fixture_options or {}), **{k: v for k, v in overrides.items() if v is not None}}
    mode = choice("mode", merged.get("mode"), MODES) or "full"
    domain = merged.get("domain")
    return ReviewOptions(
        requested_mode=mode,
        mode=mode,
        audience=choice("audience", merged.get("audience"), AUDIENCES) or "mixed",
        workflow=choice("workflow", merged.get("workflow"), WORKFLOWS) or "general",
        draft=as_flag("draft", merged.get("draft")) or False,
        domains=task_domains(domain) if domain is not None else None,
    )


def _sample(doc: Document, options: ReviewOptions, gold: Path | None, sample_id: str,
            warnings: list[str] | None = None) -> Sample:
    return Sample(
        id=sample_id,
        input=doc.markdown,
        metadata={
            "source": doc.origin,
            "options": options.model_dump(),
            "gold": str(gold) if gold else None,
            "input_format": doc.format,
            "input_warnings": doc.warnings + (warnings or []),
            # line references in findings are mapped back to the original with it
            "source_map": None if doc.source_map.identity else doc.source_map.model_dump(),
        },
    )


def _failed_sample(path: str, reason: str, options: ReviewOptions, sample_id: str) -> Sample:
    """A file of a folder that cannot be read: the sample fails with its reason, the run goes on."""
    return Sample(id=sample_id, input=f"(unreadable input: {reason})",
                  metadata={"source": path, "options": options.model_dump(), "gold": None, "input_error": reason})


def _set_name(gold_dir: Path) -> str:
    """A gold folder as its set is named: `ds/real` for gold/ds/real, else the folder."""
    try:
        return str(gold_dir.relative_to(GOLD_DIR))
    except ValueError:
        return str(gold_dir)


def _outside_samples(gold_dir: Path, overrides: dict[str, Any]) -> list[Sample]:
    """One sample per gold file of the set that points at a document outside the repository
    (`document: ../shared/real/ds/...`), id = the gold file's name."""
    samples = []
    for gold_path in present_gold_files(_set_name(gold_dir), sorted(gold_dir.glob("*.yaml"))):
        try:
            gold = load_gold(gold_path)
        except GoldError as ex:
            raise PrerequisiteError(str(ex)) from None
        if not gold.document:
            continue
        try:
            doc = read_file(gold.fixture_path)
        except DocumentError as ex:
            raise PrerequisiteError(str(ex)) from None
        samples.append(_sample(doc, resolve_options(overrides, dict(gold.options)), gold_path, gold.id))
    return samples


def fixture_samples(fixture_set: str, overrides: dict[str, Any]) -> list[Sample]:
    """One sample per fixture document, id = file stem, options from its gold file. The set is
    the project's (fixtures/<set>/) or a gold set of the user's own (a folder holding fixtures/ds/
    and gold/ds/); a set whose gold files point at documents kept outside the repository
    (gold/ds/real) reads them there."""
    folder, gold_dir = gold_set_folders("ds", fixture_set)
    outside = _outside_samples(gold_dir, overrides)
    if not folder.is_dir():
        if outside:
            return outside
        if gold_dir.is_dir() and any(gold_dir.glob("*.yaml")):  # every case's document is absent (said above)
            raise PrerequisiteError(f"fixture set '{fixture_set}': no case to run, the documents it points at are absent")
        raise PrerequisiteError(f"fixture set '{fixture_set}' not found: {folder} is not a folder")
    samples = []
    for path in sorted(folder.glob("*.md")):
        gold_path = gold_dir / f"{path.stem}.yaml"
        fixture_options: dict[str, Any] = {}
        if gold_path.is_file():
            try:
                fixture_options = dict(load_gold(gold_path).options)
            except GoldError as ex:
                raise PrerequisiteError(str(ex)) from None
        options = resolve_options(overrides, fixture_options)
        try:
            doc = read_file(path)
        except DocumentError as ex:
            raise PrerequisiteError(str(ex)) from None
        samples.append(_sample(doc, options, gold_path if gold_path.is_file() else None, path.stem))
    samples += outside
    if not samples:
        raise PrerequisiteError(f"fixture set '{fixture_set}' has no markdown documents in {folder}")
    return samples


def document_samples(document: str, overrides: dict[str, Any], confluence: str | None = None) -> list[Sample]:
    """The user's document: a file of any supported format, every supported file of a folder,
    or a Confluence page (URL, or page id with `confluence` = the site's URL)."""
    options = resolve_options(overrides)
    document = str(document)  # -T document=2293761 arrives as an int
    try:
        resolved = None if is_remote(document) else resolve_user_path(document)
        result = load(document, resolved=resolved, confluence_site=confluence)
    except DocumentError as ex:
        raise PrerequisiteError(str(ex)) from None
    seen: dict[str, int] = {}

    def sample_id(name: str) -> str:
        n = seen[name] = seen.get(name, 0) + 1
        return name if n == 1 else f"{name}-{n}"

    samples = [_sample(doc, options, None, sample_id(doc.name), result.warnings) for doc in result.documents]
    samples += [_failed_sample(path, reason, options, sample_id(Path(path).stem))
                for path, reason in result.failures.items()]
    return samples


def judge_meta_samples(folder: Path) -> list[Sample]:
    """One sample per meta fixture: the document it reviews is the input."""
    samples = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            fixture = load_meta_fixture(path)
            gold_path = GOLD_DIR / fixture.gold
            document = load_gold(gold_path).fixture_path
        except (ValueError, GoldError) as ex:
            raise PrerequisiteError(str(ex)) from None
        samples.append(
            Sample(
                id=path.stem,
                input=document.read_text(encoding="utf-8"),
                metadata={"meta_file": str(path), "gold": str(gold_path), "source": str(document)},
            )
        )
    if not samples:
        raise PrerequisiteError(f"no judge meta fixtures (*.yaml) in {folder}")
    return samples


def many_document_samples(
    documents: list[str], overrides: dict[str, Any], confluence: str | None = None
) -> list[Sample]:
    """Samples for several documents (`-T document=a.md,b.md`), ids kept unique."""
    samples: list[Sample] = []
    seen: set[str] = set()
    for document in documents:
        for sample in document_samples(document, overrides, confluence):
            base, n = str(sample.id), 1
            while str(sample.id) in seen:
                n += 1
                sample.id = f"{base}-{n}"
            seen.add(str(sample.id))
            samples.append(sample)
    return samples
