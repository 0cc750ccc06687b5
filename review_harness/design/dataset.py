"""Samples of the design review: the gold set (fixtures/design/<case>/), or the user's own
design and requirements documents. Bad input is a one-line error naming the parameter."""

from __future__ import annotations

import re
from pathlib import Path

from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.dataset import Sample

from review_harness.core.documents import DocumentError, is_remote, load, read_file
from review_harness.core.params import choice, resolve_user_path
from review_harness.core.paths import FIXTURES_DIR, GOLD_DIR
from review_harness.core.gold import GoldError
from review_harness.design.gold import load_design_gold
from review_harness.design.models import STAGES
from review_harness.design.personas import PersonaConfig, PersonaError

SAFE_TOPIC = re.compile(r"^[A-Za-z0-9_-]+$")
SPLITS = ("all", "dev", "heldout")


def read_markdown(name: str, path: str) -> tuple[Path, str, list[str]]:
    """The document given as -T name=path, in any supported format, as markdown, with the
    input layer's warnings (an encoding detected, a lossy conversion)."""
    path = str(path)
    if is_remote(path):  # a Confluence page URL
        try:
            doc = load(path).documents[0]
        except DocumentError as ex:
            raise PrerequisiteError(f"-T {name}={path}: {ex}") from None
        return Path(doc.name), doc.markdown, doc.warnings
    resolved = resolve_user_path(path)
    if not resolved.exists():
        raise PrerequisiteError(f"-T {name}={path}: {path} does not exist")
    if not resolved.is_file():
        raise PrerequisiteError(f"-T {name}={path}: not a file")
    try:
        doc = read_file(resolved, path)
    except DocumentError as ex:
        raise PrerequisiteError(f"-T {name}={path}: {ex}") from None
    return resolved, doc.markdown, doc.warnings


def check_topic(topic: str) -> str:
    if not SAFE_TOPIC.match(topic or ""):
        raise PrerequisiteError(f"-T topic={topic}: use letters, digits, '-' and '_' only")
    return topic


def parse_personas(value: str | list | None, config: PersonaConfig) -> list[str] | None:
    if value is None:
        return None
    names = [p.strip() for p in (value.split(",") if isinstance(value, str) else value) if str(p).strip()]
    if not names:
        raise PrerequisiteError("-T personas=: name at least one persona")
    try:
        for name in names:
            config.persona(name)
    except PersonaError as ex:
        raise PrerequisiteError(f"-T personas={','.join(names)}: {ex}") from None
    return names


def _sample(sample_id: str, design: Path, design_text: str, requirements: Path, requirements_text: str,
            stage: str, topic: str, personas: list[str], gold: Path | None = None, iteration: int = 1) -> Sample:
    return Sample(
        id=sample_id,
        input=design_text,
        metadata={
            "design": str(design), "requirements": str(requirements), "requirements_text": requirements_text,
            "stage": stage, "topic": topic, "personas": personas, "iteration": iteration,
            "gold": str(gold) if gold else None,
        },
    )


def user_samples(design: str, requirements: str | None, stage: str | None, topic: str | None,
                 personas: list[str] | None, config: PersonaConfig) -> list[Sample]:
    if not requirements:
        raise PrerequisiteError("-T requirements=PATH is required with -T design=PATH")
    design_path, design_text, design_warnings = read_markdown("design", design)
    req_path, req_text, req_warnings = read_markdown("requirements", requirements)
    stage = choice("stage", stage, STAGES) or "design"
    topic = check_topic(topic if topic is not None else re.sub(r"[^A-Za-z0-9_-]+", "-", design_path.stem))
    sample = _sample(topic, design_path, design_text, req_path, req_text, stage, topic,
                     personas or config.active(stage))
    sample.metadata["input_warnings"] = design_warnings + req_warnings
    return [sample]


def gold_samples(fixtures: str, split: str, stage: str | None, personas: list[str] | None,
                 config: PersonaConfig) -> list[Sample]:
    split = choice("split", split, SPLITS) or "all"
    folder = FIXTURES_DIR / fixtures
    if not folder.is_dir():
        raise PrerequisiteError(f"fixture set '{fixtures}' not found: {folder} is not a folder")
    samples = []
    for case in sorted(p for p in folder.iterdir() if p.is_dir()):
        gold_path = GOLD_DIR / fixtures / f"{case.name}.yaml"
        if not gold_path.is_file():
            raise PrerequisiteError(f"{case}: no gold file {gold_path}")
        try:
            gold = load_design_gold(gold_path)
        except GoldError as ex:
            raise PrerequisiteError(str(ex)) from None
        if split != "all" and gold.split != split:
            continue
        case_stage = choice("stage", stage, STAGES) or gold.stage
        design, requirements = case / "design.md", case / "requirements.md"
        samples.append(_sample(
            case.name, design, design.read_text(encoding="utf-8"), requirements,
            requirements.read_text(encoding="utf-8"), case_stage, gold.topic,
            personas or config.active(case_stage), gold_path, gold.iteration,
        ))
    if not samples:
        raise PrerequisiteError(f"fixture set '{fixtures}' has no cases for split '{split}'")
    return samples
