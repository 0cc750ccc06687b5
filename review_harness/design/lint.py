"""Prompt lint of the design review. For every stage and every persona it dispatches:

- the prompt renders and its lens names the persona's focus and question;
- the part every persona of a review sends first (the system message and the documents) is the
  same for all of them, so the provider's cache serves it from the second persona on;
- the calibration block sits in the lens after the persona's identity and never in its stable
  prefix: changing the calibration rules (versioned separately) leaves every prefix hash as it is.

The synthesizer's and the grader's prompts render. The core's lint driver counts instructions and
keeps the recorded stable-prefix hashes (prompts/design/prefix_hashes.json): a persona's stable
prefix is the shared system message plus its lens without calibration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from review_harness.core.lint import PromptPrefixes
from review_harness.core.prompts import PromptError
from review_harness.design.personas import PROMPTS_DIR, PersonaConfig, default_personas
from review_harness.design.prompts import (
    PROMPT_VERSION,
    render_grader_prompt,
    render_persona_prompt,
    render_synthesizer_prompt,
)

_DESIGN = "# Design\n\n## Overview\n\nA queue feeds workers.\n"
_REQUIREMENTS = "# Requirements\n\n- R1: deliver every event.\n"
_RULE = "- cal-001: \"Queue unbounded\" [Design], raised by Edge Case Prober. Author's note: the broker bounds it."


def lint_design_prompts(config: PersonaConfig) -> PromptPrefixes:
    """The stable prefix of each persona@stage, the synthesizer and the grader, and what is wrong."""
    problems: list[str] = []
    prefixes: dict[str, str] = {}
    for stage, info in config.stages.items():
        shared: dict[str, str] = {}
        for persona_id in info.personas:
            key = f"{persona_id}@{stage}"
            try:
                prompt = render_persona_prompt(
                    persona_id, config, stage=stage, design=_DESIGN, requirements=_REQUIREMENTS,
                    topic="lint", calibration=_RULE, calibration_version="cal-1",
                )
                plain = render_persona_prompt(persona_id, config, stage=stage, design=_DESIGN,
                                              requirements=_REQUIREMENTS, topic="lint")
            except PromptError as ex:
                problems.append(f"{key}: {ex}")
                continue
            persona = config.personas[persona_id]
            for part in (persona.name, persona.focus_at(stage), persona.question):
                if part not in prompt.stable_lens:
                    problems.append(f"{key}: the lens does not carry {part[:50]!r}")
            if _RULE in prompt.system + prompt.documents + prompt.stable_lens or _RULE not in prompt.lens \
                    or prompt.lens.index(_RULE) < prompt.lens.find(persona.question):
                problems.append(f"{key}: the calibration block must come in the lens, after the persona's identity")
            elif plain.prefix_hash != prompt.prefix_hash:
                problems.append(f"{key}: the calibration rules change the stable prefix")
            shared[persona_id] = prompt.shared
            prefixes[key] = prompt.system + "\n" + prompt.stable_lens
        if len(set(shared.values())) > 1:
            problems.append(f"stage {stage}: the system message and documents differ between personas, "
                            "so the provider cache cannot serve them across the panel")
    try:
        prefixes["synthesizer"] = render_synthesizer_prompt({}, config, topic="lint", stage="design").system
        prefixes["grader"] = render_grader_prompt([], [], topic="lint", previous_iteration=1,
                                                  current_iteration=2).system
    except PromptError as ex:
        problems.append(f"synthesizer or grader: {ex}")
    return PromptPrefixes(prefixes, PROMPTS_DIR, PROMPT_VERSION, problems)


def lint(options: Mapping[str, Any]) -> PromptPrefixes:
    """The registry's entry: the default personas' prompts."""
    return lint_design_prompts(default_personas())
