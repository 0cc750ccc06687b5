"""Prompt lint of the impact review: every version of every built-in YAML template renders both
parts with the variables the engine provides, for a small sample artifact and no knowledge notes
(the notes change with each artifact; the rest of the system prompt is the stable prefix). The
core's lint driver counts instructions and keeps the recorded stable-prefix hashes
(prompts/impact/prefix_hashes.json)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from review_harness.core.lint import PromptPrefixes
from review_harness.core.prompts import PromptError
from review_harness.impact.artifact import validate_envelope
from review_harness.impact.config import IMPACT_DIR
from review_harness.impact.knowledge import EmptyKnowledgeBase
from review_harness.impact.registry import PromptRegistry
from review_harness.impact.review import prepare_request

HASHES_VERSION = "templates"  # each key names its template's own version
_SAMPLE = {
    "schema_version": "2.0",
    "model_type": "interrupted_time_series",
    "data": {
        "model_params": {"intervention_date": "2024-01-08", "dependent_variable": "orders", "frequency": "weekly"},
        "impact_estimates": {"intervention_effect": 10.0, "pre_intervention_mean": 100.0, "post_intervention_mean": 110.0,
                             "absolute_change": 10.0, "percent_change": 10.0, "ci_lower": 4.0, "ci_upper": 16.0,
                             "p_value": 0.01},
        "model_summary": {"n_observations": 60, "pre_period_length": 52, "post_period_length": 8},
    },
    "metadata": {"executed_at": "2024-04-01T00:00:00+00:00", "initiative_id": "lint"},
}


def lint(options: Mapping[str, Any] | None = None, registry: PromptRegistry | None = None) -> PromptPrefixes:
    """The stable prefix of each built-in template version (name@version)."""
    registry = registry or PromptRegistry()
    artifact = validate_envelope(_SAMPLE, "lint sample")
    problems: list[str] = []
    prefixes: dict[str, str] = {}
    for name in registry.names():
        for version, spec in registry.templates[name].items():
            key = f"{name}@{version}"
            try:
                request = prepare_request(artifact, spec, EmptyKnowledgeBase(), top_k=1)
            except PromptError as ex:
                problems.append(f"{key}: {ex}")
                continue
            missing = [d for d in spec.dimensions if d not in request.system + request.user]
            if missing:
                problems.append(f"{key}: the prompt does not name the dimension(s) {', '.join(missing)}")
            prefixes[key] = request.system
    return PromptPrefixes(prefixes, IMPACT_DIR, HASHES_VERSION, problems)
