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
import json
import re
from pathlib import Path

from jinja2 import TemplateError

from review_harness.models import AUDIENCES, MODES, WORKFLOWS
from review_harness.prepare import prepare_document
from review_harness.prompts import PROMPT_VERSION, render_reviewer_prompt
from review_harness.rubric import PROMPTS_DIR, Rubric

INSTRUCTION_LIMIT = 150
HASHES_FILE = "prefix_hashes.json"
_SAMPLE_DOC = "# Sample\n\n## TL;DR\n\nConversion rose 2% (95% CI 1 to 3).\n\n## Method\n\nA/B test.\n"


def count_instructions(prompt: str) -> int:
    """Bullets and numbered lines count one each; other prose lines count their sentences.
    Headings, blank lines and the JSON answer skeleton do not count."""
    count = 0
    for line in prompt.splitlines():
        text = line.strip()
        if not text or text.startswith("#") or text[0] in '{"':
            continue
        if re.match(r"^([-*]|\d+\.)\s", text):
            count += 1
        else:
            count += max(1, len(re.findall(r"[.!?](\s|$)", text)))
    return count


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

    recorded_path = prompts_dir / HASHES_FILE
    recorded = json.loads(recorded_path.read_text()) if recorded_path.exists() else {}
    if update_hashes:
        recorded[version] = hashes
        recorded_path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    else:
        for dim_id, digest in hashes.items():
            before = recorded.get(version, {}).get(dim_id)
            if before != digest:
                problems.append(
                    f"{dim_id}: stable prefix changed ({before} -> {digest}): provider prompt caches "
                    "go cold; if intended, run `review-harness lint-prompts --update-hashes`"
                )
    return problems, hashes
