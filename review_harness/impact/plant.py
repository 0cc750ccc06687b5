"""What the impact operators of `prompts/impact/plant.yaml` need beyond the core's `json_set`:
facts of the checks table about the artifact's model type (the shortest pre-period for its
frequency, the diagnostics it should report, the planned treatment share), so an operator plants
a flaw the table itself defines, with no threshold restated in the operator table."""

from __future__ import annotations

from typing import Any

from review_harness.core.plant.jsonops import find_field, json_set
from review_harness.core.plant.mutators import register_mutator
from review_harness.impact.checks import fmt
from review_harness.impact.table import default_table


def model_facts(data: dict) -> dict[str, Any]:
    """`model` (the model type as the table names it, '' when unknown), `min_pre` (the fewest
    pre-periods below which its review fails, 0 when it has no such limit), `diagnostics` (the
    diagnostics it should report, alternatives flattened), `frequency` (the artifact's, as the
    table names it; 'frequency not stated' when it states none) and `expected_share` (the treatment arm's
    planned share: the artifact's, else the one the method assumes, else one half)."""
    table = default_table()
    found = find_field(data, ["model_type"])
    given = found[1] if found and isinstance(found[1], str) else ""
    resolved = table.resolve(given) if given else None
    frequency = find_field(data, ["frequency"])
    freq = (table.frequency(frequency[1]) if frequency and isinstance(frequency[1], str) else None) or "frequency not stated"
    spec = table.spec(given) if given else None
    limits = spec.min_pre_periods if spec else None
    share = find_field(data, ["treatment_share"])
    planned = spec.planned_share if spec and spec.planned_share is not None else 0.5
    return {
        "model": resolved or "",
        "min_pre": int((limits.fail or limits.warn or 0) if limits else 0),
        "diagnostics": [d for group in spec.diagnostic_groups for d in group] if spec else [],
        "frequency": freq,
        "expected_share": share[1] if share and isinstance(share[1], (int, float)) else planned,
    }


@register_mutator("impact_set")
def impact_set(ctx):
    """`json_set` with the checks table's facts about the artifact's model type as values."""
    return json_set(ctx, extra_values=model_facts, show=fmt)
