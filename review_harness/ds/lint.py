"""Prompt lint: checks every reviewer prompt template against the rubric before it costs money.

* every template variable is bound (rendering with StrictUndefined for every dimension, mode,
  audience, workflow and draft setting);
* every lens of the rubric, with each checklist item and deduction id, is in its reviewer's
  prompt;
* and, through the core's lint driver, the instruction count stays within the ~150 instructions
  a model follows reliably and the stable prefix's hash matches the recorded one, so a change that
  makes provider prompt caches go cold is visible (accept it with `review-harness lint-prompts
  --update-hashes`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import TemplateError

from review_harness.core.lint import PromptPrefixes
from review_harness.ds.models import AUDIENCES, MODES, WORKFLOWS
from review_harness.ds.prepare import prepare_document
from review_harness.ds.prompts import PROMPT_VERSION, render_reviewer_prompt
from review_harness.ds.rubric import PROMPTS_DIR, Rubric, default_rubric, load_rubric

_SAMPLE_DOC = "# Sample\n\n## TL;DR\n\nConversion rose 2% (95% CI 1 to 3).\n\n## Method\n\nA/B test.\n"


def lint_prompts(rubric: Rubric, prompts_dir: Path = PROMPTS_DIR, version: str = PROMPT_VERSION) -> PromptPrefixes:
    """Each dimension reviewer's stable prefix, rendered for every mode, audience, workflow and
    draft setting, and what is missing from it."""
    problems: list[str] = []
    prefixes: dict[str, str] = {}
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
        if system is None:
            continue
        prefixes[dim_id] = system
        for lens in dimension.lenses:
            if lens.title not in system or lens.id not in system:
                problems.append(f"{dim_id}: lens '{lens.title}' is missing from the prompt")
            for item in lens.checklist:
                if item not in system:
                    problems.append(f"{dim_id}/{lens.id}: checklist item missing from the prompt: {item[:60]!r}")
            for row in lens.deductions:
                if row.id not in system:
                    problems.append(f"{dim_id}/{lens.id}: deduction '{row.id}' missing from the prompt")
    return PromptPrefixes(prefixes, prompts_dir, version, problems)


def lint(options: Mapping[str, Any]) -> PromptPrefixes:
    """The registry's entry: the DS prompts against the rubric of `options["rubric"]` (a path),
    else the default rubric."""
    return lint_prompts(load_rubric(options["rubric"]) if options.get("rubric") else default_rubric())
