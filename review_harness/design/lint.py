"""Prompt lint of the design review: every persona's prompt renders for every stage that
dispatches it, names the persona's focus and question, stays within the instruction limit,
and keeps the recorded stable-prefix hash (prompts/design/prefix_hashes.json)."""

from __future__ import annotations

from review_harness.core.lint import INSTRUCTION_LIMIT, check_prefix_hashes, count_instructions
from review_harness.core.prompts import PromptError
from review_harness.design.personas import PROMPTS_DIR, PersonaConfig
from review_harness.design.prompts import PROMPT_VERSION, render_persona_prompt, render_synthesizer_prompt

_DESIGN = "# Design\n\n## Overview\n\nA queue feeds workers.\n"
_REQUIREMENTS = "# Requirements\n\n- R1: deliver every event.\n"


def lint_design_prompts(config: PersonaConfig, update_hashes: bool = False) -> tuple[list[str], dict[str, str], dict[str, int]]:
    """(problems, prefix hash per persona@stage and the synthesizer, instruction counts)."""
    problems: list[str] = []
    hashes: dict[str, str] = {}
    counts: dict[str, int] = {}
    for stage, members in config.stages.items():
        for persona_id in members:
            key = f"{persona_id}@{stage}"
            try:
                prompt = render_persona_prompt(
                    persona_id, config, stage=stage, design=_DESIGN, requirements=_REQUIREMENTS,
                    topic="lint", calibration="- a rule", calibration_version="cal-1",
                )
            except PromptError as ex:
                problems.append(f"{key}: {ex}")
                continue
            persona = config.personas[persona_id]
            for part in (persona.name, persona.focus_at(stage), persona.question):
                if part not in prompt.system:
                    problems.append(f"{key}: the prompt does not carry {part[:50]!r}")
            hashes[key] = prompt.prefix_hash
            counts[key] = count_instructions(prompt.system)
    synth = render_synthesizer_prompt({}, config, topic="lint", stage="design")
    hashes["synthesizer"] = synth.prefix_hash
    counts["synthesizer"] = count_instructions(synth.system)
    for key, n in counts.items():
        if n > INSTRUCTION_LIMIT:
            problems.append(f"{key}: {n} instructions, over the limit of {INSTRUCTION_LIMIT}")
    problems += check_prefix_hashes(hashes, PROMPTS_DIR, PROMPT_VERSION, update=update_hashes)
    return problems, hashes, counts
