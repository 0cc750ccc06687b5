"""How the offline provider answers the design review's members: a persona's request with the
rule engine (review_harness.design.offline.engine), the synthesizer's with the deterministic
grouping, the grader's with the deterministic delta matcher. The call's member says which (see
design/kind.py); None when the request lacks its data.

A persona honours the calibration rules of its request as a real model is told to: a finding the
author rejected (same title, and the same evidence quote when the rule recorded one) is not
reported again while the document still says what it said; the blind spot check names what was
held back.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from review_harness.core.markdown import normalize
from review_harness.core.prompts import data_block
from review_harness.design.models import DeltaAnswer, DeltaPair, PersonaFinding, PersonaReport

# one rule line of the calibration block (triage.calibration_block writes it)
RULE_LINE = re.compile(r'^- (?P<id>cal-\d+): "(?P<title>.*)"(?: \[(?P<section>[^\]]*)\])?, raised by .*?'
                       r'(?:; quoting "(?P<evidence>.*)")?\. Author\'s note: ', re.MULTILINE)


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


@dataclass(frozen=True)
class RejectedRule:
    id: str
    title: str
    evidence: str | None


def rejected_rules(prompt: str) -> list[RejectedRule]:
    """The calibration rules of a persona request."""
    return [RejectedRule(m["id"], m["title"], m["evidence"]) for m in RULE_LINE.finditer(prompt)]


def _same(a: str | None, b: str | None) -> bool:
    return normalize(a or "").strip(" .\"'") == normalize(b or "").strip(" .\"'")


def honour_calibration(report: PersonaReport, rules: list[RejectedRule]) -> PersonaReport:
    """The report without the findings the author rejected, unchanged (same title; same quote
    when the rule has one), and a blind spot check that says which were held back."""
    if not rules:
        return report
    kept: list[PersonaFinding] = []
    held: list[str] = []
    for finding in report.findings:
        rule = next((r for r in rules if _same(r.title, finding.title)
                     and (r.evidence is None or _same(r.evidence, finding.evidence))), None)
        if rule is None:
            kept.append(finding)
        else:
            held.append(rule.id)
    if not held:
        return report
    note = (f" Not reported again, as the calibration rules ask: {len(held)} finding(s) the author rejected "
            f"({', '.join(dict.fromkeys(held))}), on text that has not changed.")
    return report.model_copy(update={"findings": kept, "blind_spot_check": report.blind_spot_check + note})


def persona_answer(persona: str, prompt: str) -> str | None:
    """`persona`'s answer: the rule engine over the documents of the request at its stage."""
    from review_harness.design.offline.engine import review_as_persona
    from review_harness.design.personas import PersonaError, default_personas

    stage = _field(prompt, "Stage")
    if not stage:
        return None
    try:
        info = default_personas().stage(stage)
    except PersonaError:
        return None
    texts = {slot: data_block_before_lens(prompt, tag) for slot, tag in info.tags.items()}
    if texts["design"] is None or texts["requirements"] is None:
        return None
    report = review_as_persona(persona, stage, texts["design"], texts["requirements"], removed=removed_lines(prompt))
    return honour_calibration(report, rejected_rules(prompt)).model_dump_json(indent=1)


def removed_lines(prompt: str) -> str:
    """What the changed sections of a persona request removed: their '-' lines, one per line."""
    changes = data_block(prompt, "<changes>", "</changes>") or ""
    return "\n".join(line[1:] for line in changes.splitlines() if line.startswith("-") and not line.startswith("---"))


def data_block_before_lens(prompt: str, tag: str) -> str | None:
    """A document block of a persona request (the documents come before the lens and the
    changed sections, whose diff text never holds a block of its own)."""
    end = prompt.find("\n<changes>\n")
    return data_block(prompt if end < 0 else prompt[:end], f"<{tag}>", f"</{tag}>")


def grader_answer(prompt: str) -> str | None:
    """The grader's answer: the deterministic delta matcher's pairs over the two iterations'
    findings of the request."""
    from review_harness.design.delta import offline_pairs

    previous = data_block(prompt, "<previous>", "</previous>")
    current = data_block(prompt, "<current>", "</current>")
    if previous is None or current is None:
        return None
    before, after = json.loads(previous), json.loads(current)
    pairs = [DeltaPair(previous=before[i]["id"], current=after[j]["id"],
                       reason=f"Same requirement, section or quoted text (similarity {score:.2f}).")
             for i, j, score in offline_pairs(before, after)]
    return DeltaAnswer(pairs=pairs).model_dump_json(indent=1)
