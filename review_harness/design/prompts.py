"""Prompts of the design review, ordered for provider prompt caching across the panel.

A persona's request has three parts, in this order:

1. the system message, shared by every persona of a stage: panel role, method, phases (with the
   stage's own phase and escalations), severity, voice, output format;
2. the documents, shared by every persona of one review: stage, topic, iteration, the reference
   document, the document under review, and the sections changed since the last reviewed version;
   the cache mark (`cache_breakpoint`) goes after this part, so the second to sixth personas of a
   review read parts 1-2 from the provider's cache;
3. the persona's lens: its identity, focus and question, then its calibration block (rules from
   rejected findings, versioned separately), then the instruction to review.

The stable prefix of a persona (what `lint-prompts` hashes) is parts 1 and 3 without the
calibration block: it changes only when a template or the persona's data changes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, ContentText

from review_harness.core.prompts import ReviewerPrompt, neutralize_blocks, prefix_hash, render_template
from review_harness.design.models import PersonaReport
from review_harness.design.personas import PROMPTS_DIR, PersonaConfig

PROMPT_VERSION = "v3"  # v3: findings say whether they are about form only (hygiene), which never escalates
GRADER_VERSION = "v1"
DATA_TAGS = ("requirements", "design", "brief", "plan", "changes", "findings", "previous", "current")


def safe(text: str) -> str:
    """Text pasted into a data block: it can open or close no block of any design prompt."""
    return neutralize_blocks(text, DATA_TAGS)


@dataclass(frozen=True)
class PersonaPrompt:
    """One persona's request in its three parts (see the module docstring)."""

    system: str
    documents: str
    lens: str
    stable_lens: str  # the lens without the calibration block
    version: str

    @property
    def prefix_hash(self) -> str:
        """Hash of the persona's stable prefix: the shared system part and its lens."""
        return prefix_hash(self.system + "\n" + self.stable_lens)

    @property
    def shared(self) -> str:
        """What every persona of the review sends first: the system part and the documents."""
        return self.system + "\n\n" + self.documents

    @property
    def text(self) -> str:
        return self.shared + "\n" + self.lens

    def messages(self) -> list[ChatMessage]:
        """The system message, then one user message: the documents (cache mark after them),
        then the lens."""
        return [
            ChatMessageSystem(content=self.system),
            ChatMessageUser(content=[ContentText(text=self.documents, cache_breakpoint=True), ContentText(text=self.lens)]),
        ]


def render_persona_prompt(
    persona_id: str,
    config: PersonaConfig,
    *,
    stage: str,
    design: str,
    requirements: str,
    topic: str,
    iteration: int = 1,
    revised_from: int | None = None,
    changes: str = "",
    changes_since: str = "",
    budget_note: str = "",
    calibration: str = "",
    calibration_version: str = "",
    version: str = PROMPT_VERSION,
    prompts_dir: Path = PROMPTS_DIR,
) -> PersonaPrompt:
    """`design` and `requirements` are the -T design= and -T requirements= documents; the stage
    says which one is under review (personas.yaml `stages`). The iteration is named when the
    document was revised since an earlier iteration (`revised_from`): a re-run over the same text
    sends the same request, so the response cache answers the personas that completed."""
    persona = config.persona(persona_id)
    info = config.stage(stage)
    texts = {"design": design, "requirements": requirements}
    common = {"info": info, "stage": stage, "phases": config.phases}
    system = render_template(prompts_dir, f"persona_system.{version}.j2", **common)
    documents = render_template(
        prompts_dir, f"persona_documents.{version}.j2", **common, topic=topic, iteration=iteration,
        revised_from=revised_from,
        reference=safe(texts[info.reference]), reviewed=safe(texts[info.reviews]),
        changes=safe(changes), changes_since=changes_since, budget_note=budget_note,
    )
    lens_values = {**common, "persona": persona, "persona_id": persona_id, "calibration_version": calibration_version}
    lens = render_template(prompts_dir, f"persona_lens.{version}.j2", **lens_values, calibration=calibration)
    stable = render_template(prompts_dir, f"persona_lens.{version}.j2", **lens_values, calibration="")
    return PersonaPrompt(system=system, documents=documents, lens=lens, stable_lens=stable, version=version)


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
        phases=config.phases, max_patterns=config.synthesis.max_patterns, auto_fix=config.auto_fix,
    )
    payload = findings_payload(reports)
    request = render_template(
        prompts_dir,
        f"synthesizer_request.{version}.j2",
        topic=topic,
        stage=stage,
        info=config.stage(stage),
        count=sum(1 for item in payload if "id" in item),
        findings_json=safe(json.dumps(payload, indent=1, ensure_ascii=False)),
    )
    return ReviewerPrompt(system=system, request=request, version=version)


def render_grader_prompt(
    previous: list[dict],
    current: list[dict],
    *,
    topic: str,
    previous_iteration: int,
    current_iteration: int,
    version: str = GRADER_VERSION,
    prompts_dir: Path = PROMPTS_DIR,
) -> ReviewerPrompt:
    """The grader's request: both iterations' findings (id, title, section, issue, evidence)."""
    system = render_template(prompts_dir, f"grader_system.{version}.j2")
    request = render_template(
        prompts_dir, f"grader_request.{version}.j2", topic=topic,
        previous_iteration=previous_iteration, current_iteration=current_iteration,
        previous_json=safe(json.dumps(previous, indent=1, ensure_ascii=False)),
        current_json=safe(json.dumps(current, indent=1, ensure_ascii=False)),
    )
    return ReviewerPrompt(system=system, request=request, version=version)
