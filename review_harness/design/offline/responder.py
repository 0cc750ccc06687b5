"""How the offline provider answers the design review's members: a persona's request with the
rule engine (review_harness.design.offline.engine), the synthesizer's with the deterministic
grouping. The call's member says which (see design/kind.py); None when the request lacks its data."""

from __future__ import annotations

import json
import re

from review_harness.core.prompts import data_block
from review_harness.design.models import PersonaFinding, PersonaReport

def _field(text: str, name: str) -> str | None:
    match = re.search(rf"^{re.escape(name)}:\s*(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else None


def reports_from_payload(items: list[dict]) -> dict[str, PersonaReport]:
    """Rebuild the personas' reports from the synthesizer request, keeping finding order (ids
    are positions)."""
    findings: dict[str, list[PersonaFinding]] = {}
    fine: dict[str, list[str]] = {}
    for item in items:
        persona = item.get("persona", "")
        if "checked_and_fine" in item:
            fine[persona] = list(item["checked_and_fine"])
            continue
        fields = {k: v for k, v in item.items() if k in PersonaFinding.model_fields}
        findings.setdefault(persona, []).append(PersonaFinding.model_validate(fields))
    return {
        p: PersonaReport(persona=p, findings=findings.get(p, []), checked_and_fine=fine.get(p, []), blind_spot_check="-")
        for p in dict.fromkeys([*findings, *fine])
    }


def synthesis_answer(prompt: str) -> str | None:
    """The synthesizer's answer: the deterministic grouping of the findings in the request."""
    from review_harness.design.grouping import group_findings

    block = data_block(prompt, "<findings>", "</findings>")
    if block is None:
        return None
    return group_findings(reports_from_payload(json.loads(block))).model_dump_json(indent=1)


def persona_answer(persona: str, prompt: str) -> str | None:
    """`persona`'s answer: the rule engine over the documents of the request at its stage."""
    from review_harness.design.offline.engine import review_as_persona

    stage = _field(prompt, "Stage")
    design = data_block(prompt, "<design>", "</design>")
    requirements = data_block(prompt, "<requirements>", "</requirements>")
    if not stage or design is None or requirements is None:
        return None
    return review_as_persona(persona, stage, design, requirements).model_dump_json(indent=1)
