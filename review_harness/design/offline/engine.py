"""The offline design reviewer's engine: one persona's detectors over the two documents.

``review_as_persona(persona, stage, design, requirements)`` runs the detectors personas.yaml
names for the persona (those offline_rules.yaml allows at the stage), then ranks the findings
(severity, then weight) and keeps the first few, and returns what that persona would report:
findings that quote the documents verbatim (or carry no quote for something absent), what it
checked and found sound, and what it cannot see. Every check reads the input; nothing is canned.

Wording rule for every generated string: direct, active voice, no hedge words, and no number
that does not come from the documents.
"""

from __future__ import annotations

# each persona module registers its detectors when imported
from review_harness.design.offline import (  # noqa: F401
    assumption_hunter,
    code_realist,
    edge_case_prober,
    feasibility_skeptic,
    first_principles,
    hygiene,
    prior_art_scout,
    product_strategist,
    requirement_auditor,
    substance,
    systems_architect,
)
from review_harness.design.models import CAP_MARK, STAGES, PersonaReport
from review_harness.design.offline.document import document
from review_harness.design.offline.registry import ARTIFACT, DETECTORS, Ctx, Detector, OfflineRules, RuleDataError, default_offline_rules
from review_harness.design.personas import PersonaConfig, default_personas


def persona_detectors(persona: str, config: PersonaConfig, rules: OfflineRules) -> list[tuple[str, Detector]]:
    """(id, detector) for each detector personas.yaml names for ``persona``, in order."""
    offline = config.personas[persona].offline
    if offline is None:
        raise RuleDataError(f"persona {persona!r} has no offline block in personas.yaml")
    unknown = [d for d in offline.detectors if d not in DETECTORS or d not in rules.detectors]
    if unknown:
        raise RuleDataError(f"persona {persona!r}: no detector {', '.join(map(repr, unknown))} (registered and in offline_rules.yaml)")
    return [(d, DETECTORS[d]) for d in offline.detectors]


def review_as_persona(persona: str, stage: str, design: str, requirements: str,
                      rules: OfflineRules | None = None, removed: str = "") -> PersonaReport:
    """Run one persona's detectors over the two documents and return its report; `removed` is
    what the previous version of the reviewed document had and this one does not."""
    config = default_personas()
    if persona not in config.personas:
        raise ValueError(f"unknown persona {persona!r}; known: {', '.join(sorted(config.personas))}")
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; known: {', '.join(STAGES)}")
    rules = rules or default_offline_rules()
    ctx = Ctx(persona, stage, document("design", design or ""), document("requirements", requirements or ""), rules,
              removed=removed)
    for detector_id, run in persona_detectors(persona, config, rules):
        allowed = rules.detectors[detector_id].stages
        if allowed is not None and stage not in allowed:
            continue
        ctx.detector = detector_id
        run(ctx)
    phase_order = list(config.phases)
    own_phase = config.stage(stage).own_phase
    for d in ctx.findings:  # a flaw of the reviewed document is the stage's own phase; no other phase changes
        if d.phase == ARTIFACT:
            d.phase = own_phase
        if d.contributing and phase_order.index(d.contributing) >= phase_order.index(d.phase):
            d.contributing = None
    drafts = sorted(enumerate(ctx.findings), key=lambda t: (t[1].severity.rank, -t[1].weight, t[0]))
    findings = [d.to_model() for _, d in drafts[: rules.limits.findings]]
    fine = ctx.fine[: rules.limits.checked_and_fine]
    blind = config.personas[persona].offline.blind_spot  # type: ignore[union-attr]  (persona_detectors checked it)
    if ctx.unassessed:
        blind += " Not assessed offline: " + "; ".join(ctx.unassessed) + "."
    if len(drafts) > rules.limits.findings:
        dropped = [d.title for _, d in drafts[rules.limits.findings:]]
        blind += (f" It reports its {rules.limits.findings} most severe findings; {len(dropped)} more are {CAP_MARK}: "
                  + "; ".join(dropped[:8]) + ("; ..." if len(dropped) > 8 else "") + ".")
    if not findings and not fine:
        blind += " " + rules.silent_blind_spot
    return PersonaReport(persona=persona, findings=findings, checked_and_fine=fine, blind_spot_check=blind)
