"""Prompt lint: checks every reviewer prompt template against the rubric before it costs money.

* every template variable is bound (rendering with StrictUndefined for every dimension, mode,
  audience, workflow and draft setting);
* every lens of the rubric, with each checklist item and deduction id, is in its reviewer's
  prompt;
* the instruction count stays within the ~150 instructions a model follows reliably;
* the stable prefix's hash matches the recorded one, so a change that makes provider prompt
  caches go cold is visible (accept it with `review-harness lint-prompts --update-hashes`).
"""

from __future__ import annotations

import itertools
from pathlib import Path

from jinja2 import TemplateError

from review_harness.core.lint import INSTRUCTION_LIMIT, check_prefix_hashes, count_instructions

from review_harness.ds.models import AUDIENCES, MODES, WORKFLOWS
from review_harness.ds.prepare import prepare_document
from review_harness.ds.prompts import PROMPT_VERSION, render_reviewer_prompt
from review_harness.ds.rubric import PROMPTS_DIR, Rubric

_SAMPLE_DOC = "# Sample\n\n## TL;DR\n\nConversion rose 2% (95% CI 1 to 3).\n\n## Method\n\nA/B test.\n"


def lint_prompts(
    rubric: Rubric,
    prompts_dir: Path = PROMPTS_DIR,
    version: str = PROMPT_VERSION,
    update_hashes: bool = False,
) -> tuple[list[str], dict[str, str]]:
    """(problems, prefix hashes per dimension). No problems means the prompts pass."""
    problems: list[str] = []
    hashes: dict[str, str] = {}
    prepared = {mode: prepare_document(_SAMPLE_DOC, source="lint.md", mode=mode) for mode in MODES}
    for dim_id, dimension in rubric.dimensions.items():
        system = None
        for mode, audience, workflow, draft in itertools.product(MODES, AUDIENCES, WORKFLOWS, (False, True)):
            try:
                prompt = render_reviewer_prompt(
                    dimension, rubric, prepared[mode], mode=mode, audience=audience,
                    workflow=workflow, draft=draft, version=version, prompts_dir=prompts_dir,
                )
            except (TemplateError, OSError) as ex:
                problems.append(f"{dim_id}: template does not render ({type(ex).__name__}: {ex})")
                break
            system = prompt.system
            hashes[dim_id] = prompt.prefix_hash
        if system is None:
            continue
        for lens in dimension.lenses:
            if lens.title not in system or lens.id not in system:
                problems.append(f"{dim_id}: lens '{lens.title}' is missing from the prompt")
            for item in lens.checklist:
                if item not in system:
                    problems.append(f"{dim_id}/{lens.id}: checklist item missing from the prompt: {item[:60]!r}")
            for row in lens.deductions:
                if row.id not in system:
                    problems.append(f"{dim_id}/{lens.id}: deduction '{row.id}' missing from the prompt")
        instructions = count_instructions(system)
        if instructions > INSTRUCTION_LIMIT:
            problems.append(f"{dim_id}: {instructions} instructions, over the limit of {INSTRUCTION_LIMIT}")

    problems += check_prefix_hashes(hashes, prompts_dir, version, update=update_hashes)
    return problems, hashes
