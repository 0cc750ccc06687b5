"""Samples of the design review: the gold set (fixtures/design/<case>/), or the user's own
documents. Bad input is a one-line error naming the parameter.

`-T design=` is the first document and `-T requirements=` the second; the stage says which one is
under review (personas.yaml `stages`): the design (or plan) at the design and plan stages, the
requirements document at the requirements stage, where the first document is the brief it
answers (optional there). Either may be a path (a file, a Confluence page URL, or a public http(s) URL
fetched and converted by the core's document readers) or the text itself: a value with a line break, or one
with spaces that does not read as a path (core.params.looks_like_path: no folder separator or file suffix),
is text; a value that reads as a path and does not exist is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from review_harness.core.documents import DocumentError, is_remote, load, read_file
from review_harness.core.documents.web import fetch_public, is_confluence_page
from review_harness.core.gold import GoldError, gold_set_folders, present_gold_files
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.markdown import parse_sections, split_sections
from review_harness.core.files import file_problem
from review_harness.core.params import as_list, choice, looks_like_path, resolve_user_path
from review_harness.design.artifacts import MAX_TOPIC, topic_problem
from review_harness.design.gold import is_real_gold, load_design_gold
from review_harness.design.models import STAGES
from review_harness.design.personas import PersonaConfig, PersonaError

SPLITS = ("all", "dev", "heldout")
INLINE = "(inline text)"


@dataclass
class DocumentInput:
    """One of the two documents as the user gave it."""

    text: str
    origin: str  # the path as given (or resolved), a URL, or INLINE
    path: Path | None = None  # a local file, for git and auto-fix
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.stem if self.path else ""


NO_DOCUMENT = DocumentInput(text="", origin="(none)")


def as_text_value(name: str, value: Any) -> str:
    """The -T value as the user typed it: Inspect reads -T values as YAML and splits plain values
    at commas, so a comma-separated list is joined back; a YAML mapping is an error."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, dict):
        raise PrerequisiteError(
            f"-T {name}=...: Inspect read this value as YAML key/value pairs; give a file path, or put the "
            "text in a --task-config YAML file as a block (design: |)"
        )
    return str(value)


def is_inline(value: str) -> bool:
    """A document given as text rather than as a path."""
    if "\n" in value:
        return True
    stripped = value.strip()
    if is_remote(stripped) or resolve_user_path(stripped).exists():
        return False
    return bool(re.search(r"\s", stripped)) and not looks_like_path(stripped)


def read_document(name: str, value: Any) -> DocumentInput:
    """The document given as -T name=..., as markdown, with the input layer's warnings."""
    value = as_text_value(name, value)
    if not value.strip():
        raise PrerequisiteError(f"-T {name}=: empty; give a path or the document's text")
    if is_inline(value):
        return DocumentInput(text=value.strip("\n") + "\n", origin=INLINE)
    path = value.strip()
    if is_remote(path):  # a Confluence page (read with its credentials), or a public document fetched over HTTP
        confluence = is_confluence_page(path)
        try:
            doc = load(path).documents[0] if confluence else fetch_public(path)
        except DocumentError as ex:
            shown = path if "@" not in path.split("//", 1)[-1].split("/", 1)[0] else "..."  # never print credentials
            raise PrerequisiteError(f"-T {name}={shown}: {ex}") from None
        # a Confluence page is named by its id; a public document by its address
        return DocumentInput(doc.markdown, doc.name if confluence else doc.origin, None, doc.warnings)
    resolved = resolve_user_path(path)
    try:
        exists, is_file = resolved.exists(), resolved.is_file()
    except OSError as ex:  # e.g. a name too long for the file system
        raise PrerequisiteError(f"-T {name}={path[:80]}: not a usable path ({ex.strerror})") from None
    if not exists:
        raise PrerequisiteError(f"-T {name}={path}: {path} does not exist (text given inline has a line break or sentences)")
    if not is_file:
        raise PrerequisiteError(f"-T {name}={path}: {file_problem(resolved) or 'not a file'}")
    try:
        doc = read_file(resolved, path)
    except DocumentError as ex:
        raise PrerequisiteError(f"-T {name}={path}: {ex}") from None
    return DocumentInput(doc.markdown, str(resolved), resolved, doc.warnings)


def check_topic(topic: Any) -> str:
    topic = as_text_value("topic", topic)
    problem = topic_problem(topic)
    if problem:
        shown = topic if len(topic) <= 60 else topic[:60] + "..."
        raise PrerequisiteError(f"-T topic={shown}: {problem}")
    return topic


def default_topic(reviewed: DocumentInput) -> str:
    """The reviewed document's file name, or its first heading for text given inline."""
    if reviewed.path is not None:
        base = reviewed.path.stem
    else:
        heading = re.search(r"^#+\s+(.+)$", reviewed.text, re.MULTILINE)
        base = heading.group(1) if heading else "review"
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", base).strip("-") or "review"
    return slug[:MAX_TOPIC].rstrip("-")


def parse_personas(value: str | list | None, config: PersonaConfig) -> list[str] | None:
    if value is None:
        return None
    names = [p.strip() for p in (value.split(",") if isinstance(value, str) else value) if str(p).strip()]
    if not names:
        raise PrerequisiteError("-T personas=: name at least one persona")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise PrerequisiteError(f"-T personas={','.join(names)}: duplicate persona {', '.join(twice)} (name each persona once)")
    try:
        for name in names:
            config.persona(name)
    except PersonaError as ex:
        raise PrerequisiteError(f"-T personas={','.join(names)}: {ex}") from None
    return names


def _sample(sample_id: str, design: DocumentInput, requirements: DocumentInput, stage: str, topic: str,
            personas: list[str], document: str, gold: Path | None = None, iteration: int = 1) -> Sample:
    return Sample(
        id=sample_id,
        input=design.text,
        metadata={
            "design": design.origin, "requirements": requirements.origin, "requirements_text": requirements.text,
            "design_file": str(design.path) if design.path else None,
            "requirements_file": str(requirements.path) if requirements.path else None,
            "stage": stage, "topic": topic, "personas": personas, "iteration": iteration, "document": document,
            "gold": str(gold) if gold else None,
            "input_warnings": design.warnings + requirements.warnings,
        },
    )


def split_own_requirements(design: DocumentInput, names: list[str]) -> tuple[DocumentInput, DocumentInput]:
    """A design that states its own requirements (a proposal with Goals and Non-Goals sections)
    read as two documents: the named sections (with their subsections) are the requirements, the
    rest is the design."""
    part, rest, missing = split_sections(design.text, names)
    if missing:
        headings = [s.heading for s in parse_sections(design.text) if s.level > 0]
        shown = ", ".join(repr(h) for h in headings[:20]) + (" ..." if len(headings) > 20 else "")
        raise PrerequisiteError(f"-T requirements_sections={','.join(names)}: {design.origin} has no heading "
                                f"{', '.join(repr(m) for m in missing)}; its headings: {shown or 'none'}")
    if not part.strip() or not rest.strip():
        empty = "requirements" if not part.strip() else "design"
        raise PrerequisiteError(f"-T requirements_sections={','.join(names)}: the {empty} part of {design.origin} "
                                "would be empty; name the sections that state what the design must do")
    design_origin, requirements_origin = section_origins(design.origin, names)
    return (DocumentInput(rest, design_origin, design.path, design.warnings), DocumentInput(part, requirements_origin))


def section_origins(where: str, names: list[str]) -> tuple[str, str]:
    """How the two parts of one document read as two are named: (design, requirements)."""
    return f"{where} (design sections)", f"{where} ({', '.join(names)})"


def user_samples(design: Any, requirements: Any, stage: str | None, topic: str | None,
                 personas: list[str] | None, config: PersonaConfig, requirements_sections: Any = None,
                 auto_fix: bool = False) -> list[Sample]:
    stage = choice("stage", stage, STAGES) or "design"
    info = config.stage(stage)
    reviewed_name, reference_name = info.reviews, info.reference
    given = {"design": design, "requirements": requirements}
    if given[reviewed_name] is None:
        raise PrerequisiteError(f"-T {reviewed_name}=PATH is required at the {stage} stage: it is the "
                                f"{info.reviewed_noun} under review")
    own_sections = (as_list("requirements_sections", requirements_sections,
                            "name at least one heading of the design, e.g. Goals")
                    if requirements_sections is not None else None)
    if own_sections is not None:
        if stage == "requirements" or requirements is not None or design is None:
            raise PrerequisiteError("-T requirements_sections= takes the requirements from headings of -T design=PATH: "
                                    "give it with -T design= alone (no -T requirements=, not at stage=requirements)")
        if auto_fix:
            raise PrerequisiteError("-T auto_fix=true edits the design file, which here also holds the requirements "
                                    "(-T requirements_sections=); leave one of them out")
    elif given[reference_name] is None and stage != "requirements":
        raise PrerequisiteError(f"-T {reference_name}=PATH is required with -T {reviewed_name}=PATH: the "
                                f"{info.reference_noun} the {info.reviewed_noun} is reviewed against (or, when "
                                f"the design states its own goals, -T requirements_sections=HEADING,... names them)")
    docs = {slot: read_document(slot, value) if value is not None else NO_DOCUMENT for slot, value in given.items()}
    if own_sections is not None:
        docs["design"], docs["requirements"] = split_own_requirements(docs["design"], own_sections)
    reviewed = docs[reviewed_name]
    topic = check_topic(topic) if topic is not None else default_topic(reviewed)
    sample = _sample(topic, docs["design"], docs["requirements"], stage, topic, personas or config.active(stage),
                     document=reviewed.origin if reviewed.origin != INLINE else "inline")
    if docs["design"].text.strip() and docs["design"].text.strip() == docs["requirements"].text.strip():
        sample.metadata["input_warnings"].append(
            f"The {info.nouns['design']} and the {info.nouns['requirements']} are the same text: the review checks the "
            "document against itself, so traceability findings mean nothing; give the document it answers."
        )
    return [sample]


def gold_samples(fixtures: str, split: str, stage: str | None, personas: list[str] | None,
                 config: PersonaConfig) -> list[Sample]:
    """The gold set `fixtures`: each case folder of fixtures/<set>/ with its gold file, then the
    real documents whose gold files point outside the repository (gold/<set>/real/, or the set
    itself when it holds only those, e.g. `design/real`)."""
    split = choice("split", split, SPLITS) or "all"
    folder, gold_dir = gold_set_folders("design", fixtures)
    real = real_gold_files(gold_dir)
    if not folder.is_dir() and not real:
        raise PrerequisiteError(f"fixture set '{fixtures}' not found: {folder} is not a folder")
    real = present_gold_files(str(fixtures), real)
    cases: list[tuple[Path | None, Path]] = []
    for case in sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []:
        gold_path = gold_dir / f"{case.name}.yaml"
        if not gold_path.is_file():
            raise PrerequisiteError(f"{case}: no gold file {gold_path}")
        cases.append((case, gold_path))
    samples = []
    for case, gold_path in cases + [(None, p) for p in real]:
        try:
            gold = load_design_gold(gold_path)
        except GoldError as ex:
            raise PrerequisiteError(str(ex)) from None
        if split != "all" and gold.split != split:
            continue
        design, requirements, _ = gold.parts()
        if case is not None:
            origins, document = (str(case / "design.md"), str(case / "requirements.md")), f"gold:{fixtures}/{gold.topic}"
        else:  # a real document read as two by its headings
            origins = section_origins(str(gold.document_path), gold.requirements_sections)
            document = f"gold:real/{gold.topic}"
        case_stage = choice("stage", stage, STAGES) or gold.stage
        samples.append(_sample(
            gold.id, DocumentInput(design, origins[0]), DocumentInput(requirements, origins[1]), case_stage, gold.topic,
            personas or config.active(case_stage), document=document, gold=gold_path, iteration=gold.iteration,
        ))
    if not samples:
        raise PrerequisiteError(f"fixture set '{fixtures}' has no cases for split '{split}'")
    return samples


def real_gold_files(gold_dir: Path) -> list[Path]:
    """Gold files of real documents kept outside the repository (a `document:` key) of a set's
    gold folder (in its real/ subfolder, or the folder itself)."""
    folders = [gold_dir / "real", gold_dir]
    return [p for f in folders if f.is_dir() for p in sorted(f.glob("*.yaml")) if is_real_gold(p)]
