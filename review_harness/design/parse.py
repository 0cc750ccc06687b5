"""Read what a persona or the synthesizer answered, keeping whatever is usable.

A schema-valid answer is never discarded whole: each finding is validated on its own and one
that cannot be used is dropped with a problem naming it (the answer still counts). An answer
with no JSON object, without its findings list, or cut off or broken part way (only the part
before the break was read) is malformed: the member is asked once more, and what parsed is kept
for the warnings only. A missing blind spot check is reported, not fatal.
"""

from __future__ import annotations

from typing import Any

from review_harness.core.jsonsalvage import load_json_lenient, validate_items
from review_harness.core.member import ParseOutcome
from review_harness.design.models import (
    PHASES,
    AutoFixProposal,
    SEVERITIES,
    Contradiction,
    FindingGroup,
    Pattern,
    PersonaFinding,
    PersonaReport,
    SynthesisAnswer,
)

MISSING_BLIND_SPOT = "(no blind spot check given)"


def _choose(value: Any, allowed: tuple[str, ...]) -> Any:
    """Accept a known value in any case ('critical', 'CALIBRATE'); leave others to fail validation."""
    if isinstance(value, str):
        for option in allowed:
            if value.strip().lower() == option.lower():
                return option
    return value


def _normalize_finding(item: Any, label: str) -> tuple[dict | None, str | None]:
    if not isinstance(item, dict):
        return None, f"{label}: not an object"
    item = dict(item)
    item["severity"] = _choose(item.get("severity"), SEVERITIES)
    for key in ("phase", "contributing_phase"):
        item[key] = _choose(item.get(key), PHASES)
    if item.get("contributing_phase") in ("", "none", "null"):
        item["contributing_phase"] = None
    item.setdefault("contributing_phase", None)
    item.setdefault("evidence", None)
    item["hygiene"] = bool(item.get("hygiene") is True or str(item.get("hygiene")).lower() == "true")
    return item, None


def _load(text: str) -> tuple[dict | None, list[str], bool]:
    """(the JSON object, problems, whether only part of the answer was read)."""
    if not text or not text.strip():
        return None, ["the model returned empty output"], True
    data, repaired, problem, cut_off = load_json_lenient(text)
    if not isinstance(data, dict):
        return None, [f"output could not be parsed: {problem or 'not a JSON object'}"], True
    notes = []
    if repaired:
        notes.append("output was cut off; kept the complete part" if cut_off else f"{problem}; kept the part before the error")
    return data, notes, repaired


def parse_persona_output(text: str, persona: str) -> ParseOutcome[PersonaReport]:
    data, problems, partly = _load(text)
    if data is None:
        return ParseOutcome(None, problems, malformed=True)
    findings, finding_problems = validate_items(data, "findings", PersonaFinding, "finding", _normalize_finding)
    problems += finding_problems
    if "findings" not in data:
        return ParseOutcome(None, problems + ["the answer has no findings list"], malformed=True)
    fine = [str(x) for x in data.get("checked_and_fine") or [] if str(x).strip()]
    blind_spot = str(data.get("blind_spot_check") or "").strip()
    if not blind_spot:
        problems.append("the blind spot check is missing or empty")
        blind_spot = MISSING_BLIND_SPOT
    named = data.get("persona")
    if named and named != persona:
        problems.append(f"the answer names persona '{named}', expected '{persona}'")
    report = PersonaReport(persona=persona, findings=findings, checked_and_fine=fine, blind_spot_check=blind_spot)
    return ParseOutcome(report, problems, malformed=partly)


def _normalize_group(item: Any, label: str) -> tuple[dict | None, str | None]:
    if not isinstance(item, dict):
        return None, f"{label}: not an object"
    item = dict(item)
    for key in ("primary_phase", "contributing_phase"):
        item[key] = _choose(item.get(key), PHASES)
    item.setdefault("contributing_phase", None)
    item.setdefault("phase_rationale", "")
    return item, None


def parse_synthesis_output(text: str) -> ParseOutcome[SynthesisAnswer]:
    data, problems, partly = _load(text)
    if data is None:
        return ParseOutcome(None, problems, malformed=True)
    groups, group_problems = validate_items(data, "groups", FindingGroup, "group", _normalize_group)
    contradictions, c_problems = validate_items(data, "contradictions", Contradiction, "contradiction")
    patterns, p_problems = validate_items(data, "patterns", Pattern, "pattern")
    fixes, f_problems = validate_items(data, "auto_fixes", AutoFixProposal, "auto-fix") if "auto_fixes" in data else ([], [])
    problems += group_problems + c_problems + p_problems + f_problems
    answer = SynthesisAnswer(groups=groups, contradictions=contradictions, patterns=patterns, auto_fixes=fixes)
    return ParseOutcome(answer, problems, malformed=partly)
