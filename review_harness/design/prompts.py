"""Prompts of the design review: each persona's stable prefix (identity, method, phases,
severity, voice, output), a calibration block that changes without touching the prefix, and
the request with both documents last; the synthesizer's prompt over the reviewer findings."""

from __future__ import annotations

import json
from pathlib import Path

from review_harness.core.prompts import ReviewerPrompt, neutralize_blocks, render_template
from review_harness.design.models import PersonaReport
from review_harness.design.personas import PROMPTS_DIR, PersonaConfig

PROMPT_VERSION = "v1"
STAGE_NOUNS = {"requirements": "requirements brief", "design": "design", "plan": "implementation plan"}
BLOCKS = ("requirements", "design", "findings")


def _safe(text: str) -> str:
    return neutralize_blocks(text, BLOCKS)


def render_persona_prompt(
    persona_id: str,
    config: PersonaConfig,
    *,
    stage: str,
    design: str,
    requirements: str,
    topic: str,
    calibration: str = "",
    calibration_version: str = "",
    version: str = PROMPT_VERSION,
    prompts_dir: Path = PROMPTS_DIR,
) -> ReviewerPrompt:
    persona = config.persona(persona_id)
    common = {"persona": persona, "stage": stage, "stage_noun": STAGE_NOUNS[stage], "phases": config.phases}
    system = render_template(prompts_dir, f"persona_system.{version}.j2", **common)
    request = render_template(
        prompts_dir,
        f"persona_request.{version}.j2",
        **common,
        persona_id=persona_id,
        persona_name=persona.name,
        topic=topic,
        calibration=calibration,
        calibration_version=calibration_version,
        requirements=_safe(requirements),
        design=_safe(design),
    )
    return ReviewerPrompt(system=system, request=request, version=version)


def findings_payload(reports: dict[str, PersonaReport]) -> list[dict]:
    """What the synthesizer sees: every reviewer finding with its id, and what each persona
    checked and found sound (contradictions come from there too)."""
    items: list[dict] = []
    for persona, report in reports.items():
        for n, finding in enumerate(report.findings, 1):
            items.append({"id": f"{persona}-{n:03d}", "persona": persona, **finding.model_dump(mode="json")})
        if report.checked_and_fine:
            items.append({"persona": persona, "checked_and_fine": report.checked_and_fine})
    return items


def render_synthesizer_prompt(
    reports: dict[str, PersonaReport],
    config: PersonaConfig,
    *,
    topic: str,
    stage: str,
    version: str = PROMPT_VERSION,
    prompts_dir: Path = PROMPTS_DIR,
) -> ReviewerPrompt:
    system = render_template(
        prompts_dir, f"synthesizer_system.{version}.j2",
        phases=config.phases, max_patterns=config.synthesis.max_patterns,
    )
    payload = findings_payload(reports)
    request = render_template(
        prompts_dir,
        f"synthesizer_request.{version}.j2",
        topic=topic,
        stage=stage,
        count=sum(1 for item in payload if "id" in item),
        findings_json=_safe(json.dumps(payload, indent=1, ensure_ascii=False)),
    )
    return ReviewerPrompt(system=system, request=request, version=version)
