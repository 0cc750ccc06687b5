"""The deterministic confidence scorer (the seed's ``score_initiative``): a band per model type
(CONFIDENCE_MAP: the `confidence` of each model type in the checks table,
prompts/impact/checks.yaml) and a draw inside it seeded by sha256(initiative_id), so one
initiative gets the same confidence in every process (Python's ``hash()`` is salted per process by
PYTHONHASHSEED). It never reads the results: it is reported beside the review and never mixed into
its scores. No Inspect import."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping

from review_harness.impact.models import ConfidenceScore
from review_harness.impact.table import ChecksTable, default_table


def confidence_map(table: ChecksTable | None = None) -> dict[str, tuple[float, float]]:
    """CONFIDENCE_MAP as configured."""
    return (table or default_table()).confidence_map


def _draw(initiative_id: str, model_type: str, low: float, high: float) -> ConfidenceScore:
    seed = int.from_bytes(hashlib.sha256(initiative_id.encode("utf-8")).digest()[:8], "big")
    draw = random.Random(seed).random()
    return ConfidenceScore(initiative_id=initiative_id, model_type=model_type, low=low, high=high,
                           score=round(low + draw * (high - low), 4))


def score_initiative(
    initiative_id: str,
    model_type: str,
    confidence_map: Mapping[str, tuple[float, float]] | None = None,
) -> ConfidenceScore:
    """The seed's scorer: the band of `model_type` (an alias of the table counts), or a ValueError
    for a type with no band."""
    if confidence_map is not None:
        bands, name = confidence_map, model_type
    else:
        table = default_table()
        bands, name = table.confidence_map, table.resolve(model_type) or model_type
    if name not in bands:
        raise ValueError(f"model_type {model_type!r} has no confidence band; known: {', '.join(bands)}")
    low, high = bands[name]
    return _draw(initiative_id, name, low, high)


def confidence_for(initiative_id: str, model_type: str, table: ChecksTable | None = None) -> ConfidenceScore:
    """What a review reports: the model type's band, or the table's generic band for a type it
    does not know (the checks warn about that)."""
    table = table or default_table()
    name = table.resolve(model_type)
    low, high = table.spec(model_type).confidence
    return _draw(initiative_id, name or model_type, low, high)
