"""The design review's state in the Inspect sample store, and the synthesis over it.

Solvers write here (one key per persona, so concurrent personas never overwrite each other);
the scorers read here, so `inspect score` re-synthesizes a log without model calls.
"""

from __future__ import annotations

from review_harness.core.panel import StoreLike
from review_harness.design.models import DesignReview, PersonaReport, PersonaRun, SynthesisAnswer
from review_harness.design.personas import PersonaConfig
from review_harness.design.synthesis import ReviewContext, synthesize_design

REQUEST_KEY = "design:request"
SYNTHESIS_KEY = "design:synthesis"
CALIBRATION_KEY = "design:calibration"


def persona_key(persona: str) -> str:
    return f"design:persona:{persona}"


def load_context(store: StoreLike) -> ReviewContext:
    data = store.get(REQUEST_KEY)
    if data is None:
        raise RuntimeError("no design review request in the sample store: run prepare_design_review() first")
    return ReviewContext(**data)


def load_reports(store: StoreLike, personas: list[str]) -> dict[str, PersonaReport]:
    """The reports of the personas that completed."""
    entries = {p: store.get(persona_key(p)) or {} for p in personas}
    return {p: PersonaReport.model_validate(e["report"]) for p, e in entries.items() if e.get("report")}


def review_from_store(store: StoreLike, config: PersonaConfig, design_text: str) -> DesignReview:
    """Synthesize from what the solvers stored (the design is the sample input, not stored
    twice): no model calls, so `inspect score` can redo it."""
    context = load_context(store)
    context.design_text = design_text
    reports = load_reports(store, context.personas)
    runs: list[PersonaRun] = []
    for persona in context.personas:
        entry = store.get(persona_key(persona)) or {}
        if entry.get("run"):
            runs.append(PersonaRun.model_validate(entry["run"]))
        else:
            runs.append(PersonaRun(member=persona, status="failed", reason="never ran"))
        if entry.get("prefix_hash"):
            context.prompt_prefix_hashes[persona] = entry["prefix_hash"]
    synthesis = store.get(SYNTHESIS_KEY) or {}
    if synthesis.get("run"):
        runs.append(PersonaRun.model_validate(synthesis["run"]))
    answer = SynthesisAnswer.model_validate(synthesis["answer"]) if synthesis.get("answer") else None
    return synthesize_design(context, reports, runs, answer, config, synthesis.get("problems"))
