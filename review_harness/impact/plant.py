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
    """`model` (the model type as the table names it, '' when unknown), `min_pre` (its shortest
    pre-period at the artifact's frequency, 0 when it has none), `diagnostics` (the diagnostics it
    should report), `frequency` and `expected_share` (the treatment arm's planned share)."""
    table = default_table()
    found = find_field(data, ["model_type"])
    given = found[1] if found and isinstance(found[1], str) else ""
    resolved = table.resolve(given) if given else None
    frequency = find_field(data, ["frequency"])
    freq = frequency[1] if frequency and frequency[1] in table.frequencies else table.default_frequency
    spec = table.spec(given) if given else None
    share = find_field(data, ["treatment_share"])
    expected = table.diagnostics["sample_ratio"].expected_share if "sample_ratio" in table.diagnostics else 0.5
    return {
        "model": resolved or "",
        "min_pre": (spec.min_pre_period.get(freq, 0) if spec else 0),
        "diagnostics": list(spec.diagnostics) if spec else [],
        "frequency": freq,
        "expected_share": share[1] if share and isinstance(share[1], (int, float)) else expected,
    }


@register_mutator("impact_set")
def impact_set(ctx):
    """`json_set` with the checks table's facts about the artifact's model type as values."""
    return json_set(ctx, extra_values=model_facts, show=fmt)
