"""The seed's `Evaluate` pipeline component around the deterministic scorer (`score_initiative`),
beside `ArtifactReview` (engine.py), which adds the agentic review. No Inspect import: an impact
pipeline can run this stage without the harness.

    stage = Evaluate()
    event = stage.execute({"initiative_id": "checkout-2024", "model_type": "interrupted_time_series", ...})
    event["confidence"]  # {"initiative_id", "model_type", "low", "high", "score"}

The event is the orchestrator's Measure -> Evaluate contract (or any dict with `initiative_id` and
`model_type`); an `impact_results` entry (a path, the envelope, a payload) is read for them instead.
`strict=True` refuses a model type without a band, as the seed's scorer does; by default such a
type gets the checks table's generic band and `confidence_note` says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from review_harness.impact.artifact import ArtifactError, load_artifact, read_artifact
from review_harness.impact.confidence import confidence_for, score_initiative
from review_harness.impact.table import ChecksTable, default_table


class Evaluate:
    """EVALUATE-stage component: adds the deterministic confidence to the event."""

    name = "evaluate"

    def __init__(self, table: ChecksTable | None = None, strict: bool = False):
        self.table = table or default_table()
        self.strict = strict

    def _identity(self, event: dict[str, Any]) -> tuple[str, str]:
        source = event.get("impact_results")
        if source is not None:
            artifact = (load_artifact(source, self.table) if isinstance(source, (str, Path))
                        else read_artifact(source, "event: impact_results", self.table))
            return artifact.contract.initiative_id, artifact.model_type
        missing = [k for k in ("initiative_id", "model_type") if not isinstance(event.get(k), str) or not event[k].strip()]
        if missing:
            raise ArtifactError(f"event: {', '.join(missing)}: missing (the contract's initiative_id and model_type)")
        return event["initiative_id"].strip(), event["model_type"].strip()

    def execute(self, event: dict[str, Any]) -> dict[str, Any]:
        initiative_id, model_type = self._identity(event)
        if self.strict and self.table.resolve(model_type) is None:
            score_initiative(initiative_id, model_type, self.table.confidence_map)  # the seed's ValueError
        score = confidence_for(initiative_id, model_type, self.table)
        out = {**event, "confidence": score.model_dump(mode="json")}
        if self.table.resolve(model_type) is None:
            out["confidence_note"] = f"model type {model_type!r} has no band of its own: the generic band was used"
        return out

    __call__ = execute


__all__ = ["Evaluate"]
