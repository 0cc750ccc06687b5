"""The deterministic confidence scorer (the seed's ``score_initiative``): a band per model type
from CONFIDENCE_MAP (prompts/impact/config.yaml) and a draw inside it seeded by
sha256(initiative_id), so one initiative gets the same confidence in every process (Python's
``hash()`` is salted per process by PYTHONHASHSEED). It never reads the results: it is
reported beside the review and never mixed into its scores."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping

from review_harness.impact.config import default_settings
from review_harness.impact.models import ConfidenceScore


def confidence_map() -> dict[str, tuple[float, float]]:
    """CONFIDENCE_MAP as configured."""
    return dict(default_settings().confidence_map)


def score_initiative(
    initiative_id: str,
    model_type: str,
    confidence_map: Mapping[str, tuple[float, float]] | None = None,
) -> ConfidenceScore:
    bands = confidence_map if confidence_map is not None else default_settings().confidence_map
    if model_type not in bands:
        raise ValueError(f"model_type {model_type!r} has no confidence band; known: {', '.join(bands)}")
    low, high = bands[model_type]
    seed = int.from_bytes(hashlib.sha256(initiative_id.encode("utf-8")).digest()[:8], "big")
    draw = random.Random(seed).random()
    return ConfidenceScore(
        initiative_id=initiative_id, model_type=model_type, low=low, high=high,
        score=round(low + draw * (high - low), 4),
    )
