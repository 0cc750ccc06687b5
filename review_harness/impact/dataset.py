"""Samples of the impact review: the gold set, or the user's impact_results.json (a file or a
folder of them). Bad input is a one-line error naming the file and the field."""

from __future__ import annotations

from pathlib import Path

from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.dataset import Sample

from review_harness.core.params import choice, resolve_user_path
from review_harness.impact.artifact import ArtifactError, artifact_files, artifact_text, load_artifact
from review_harness.core.gold import GoldError
from review_harness.impact.gold import impact_gold_files
from review_harness.impact.models import ImpactArtifact

SPLITS = ("all", "dev", "heldout")


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


def user_samples(path: str) -> list[Sample]:
    resolved = resolve_user_path(path)
    try:
        files = artifact_files(resolved)
        artifacts = [(f, load_artifact(f, label=str(f) if resolved.is_dir() else path)) for f in files]
    except ArtifactError as ex:
        raise PrerequisiteError(f"-T artifact={path}: {ex}") from None
    return [artifact_sample(f.stem, a) for f, a in artifacts]


def gold_samples(split: str = "all") -> list[Sample]:
    split = choice("split", split, SPLITS) or "all"
    try:
        golds = impact_gold_files(split)
        return [artifact_sample(g.id, load_artifact(g.fixture_path), g.path) for g in golds]
    except (GoldError, ArtifactError) as ex:
        raise PrerequisiteError(f"gold set: {ex}") from None
