"""Samples of the impact review: the gold set, or the user's artifacts (a file, or a folder of
them). A single bad file is a one-line error naming the file and the field; in a folder, each file
that cannot be read becomes a sample that fails with its reason (named on the terminal too) and
the others are reviewed; a folder where no file can be read is a one-line error naming them all."""

from __future__ import annotations

import logging
from pathlib import Path

from inspect_ai.dataset import Sample

from review_harness.core.gold import GoldError, gold_set_folders
from review_harness.core.input_errors import INPUT_ERROR, safe_name
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import choice, resolve_user_path
from review_harness.impact.artifact import ArtifactError, artifact_files, artifact_text, load_artifact
from review_harness.impact.gold import impact_gold_files
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.table import ChecksTable

SPLITS = ("all", "dev", "heldout")
logger = logging.getLogger(__name__)


def artifact_sample(sample_id: str, artifact: ImpactArtifact, gold: Path | None = None) -> Sample:
    return Sample(
        id=sample_id,
        input=artifact_text(artifact),
        metadata={
            "artifact": artifact.model_dump(mode="json"),
            "initiative_id": artifact.contract.initiative_id,
            "model_type": artifact.model_type,
            "gold": str(gold) if gold else None,
        },
    )


def failed_sample(sample_id: str, source: str, reason: str) -> Sample:
    """A file of a folder that cannot be read: the sample fails with its reason."""
    return Sample(id=sample_id, input=f"(unreadable input: {reason})",
                  metadata={"source": source, "gold": None, INPUT_ERROR: reason})


def user_samples(path: str, table: ChecksTable | None = None) -> list[Sample]:
    resolved = resolve_user_path(path)
    try:
        files = artifact_files(resolved)
    except ArtifactError as ex:
        raise PrerequisiteError(f"-T artifact={safe_name(path)}: {safe_name(str(ex))}") from None
    if not resolved.is_dir():
        try:
            artifact = load_artifact(resolved, table, label=path)
        except ArtifactError as ex:
            raise PrerequisiteError(f"-T artifact={safe_name(path)}: {safe_name(str(ex))}") from None
        return [artifact_sample(safe_name(resolved.stem), artifact)]
    samples: list[Sample] = []
    bad: list[str] = []
    for file in files:
        label = safe_name(str(file))
        try:
            samples.append(artifact_sample(safe_name(file.stem), load_artifact(file, table, label=label)))
        except ArtifactError as ex:
            reason = safe_name(str(ex))
            bad.append(reason)
            samples.append(failed_sample(safe_name(file.stem), label, reason))
    if len(bad) == len(files):
        raise PrerequisiteError(f"-T artifact={safe_name(path)}: no file can be reviewed: " + "; ".join(bad))
    for reason in bad:
        logger.warning("impact review: skipped %s", reason)
    return samples


def gold_samples(split: str = "all", table: ChecksTable | None = None, fixtures: str = "impact") -> list[Sample]:
    """The gold set: the project's (fixtures/impact/), or a gold set of the user's own (a folder
    holding fixtures/impact/ and gold/impact/)."""
    split = choice("split", split, SPLITS) or "all"
    _, gold_dir = gold_set_folders("impact", fixtures)
    try:
        golds = impact_gold_files(split, gold_dir)
        return [artifact_sample(g.id, load_artifact(g.fixture_path, table), g.path) for g in golds]
    except (GoldError, ArtifactError) as ex:
        raise PrerequisiteError(f"gold set: {ex}") from None
