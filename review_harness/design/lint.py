"""Prompt lint of the design review: every persona's prompt renders for every stage that
dispatches it and names the persona's focus and question; the synthesizer's prompt renders.
The core's lint driver counts instructions and keeps the recorded stable-prefix hashes
(prompts/design/prefix_hashes.json)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from review_harness.core.lint import PromptPrefixes
from review_harness.core.prompts import PromptError
from review_harness.design.personas import PROMPTS_DIR, PersonaConfig, default_personas
from review_harness.design.prompts import PROMPT_VERSION, render_persona_prompt, render_synthesizer_prompt

_DESIGN = "# Design\n\n## Overview\n\nA queue feeds workers.\n"
_REQUIREMENTS = "# Requirements\n\n- R1: deliver every event.\n"


def lint_design_prompts(config: PersonaConfig) -> PromptPrefixes:
    """The stable prefix of each persona@stage and of the synthesizer, and what is missing."""
    problems: list[str] = []
    prefixes: dict[str, str] = {}
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
            prefixes[key] = prompt.system
    try:
        prefixes["synthesizer"] = render_synthesizer_prompt({}, config, topic="lint", stage="design").system
    except PromptError as ex:
        problems.append(f"synthesizer: {ex}")
    return PromptPrefixes(prefixes, PROMPTS_DIR, PROMPT_VERSION, problems)


def lint(options: Mapping[str, Any]) -> PromptPrefixes:
    """The registry's entry: the default personas' prompts."""
    return lint_design_prompts(default_personas())
