"""Prompt lint of the code review: every reviewer prompt renders for both stages and both model
letters with the identity line the offline reviewer reads, the system prefix does not depend on
the model letter (both models share one cacheable prefix per stage), instruction counts stay in
the limit, and the stable-prefix hashes match prompts/code/prefix_hashes.json."""

from __future__ import annotations

from review_harness.code.change import ChangeSet, file_from_versions
from review_harness.code.matcher import render_match_prompt
from review_harness.code.prompts import PROMPT_VERSION, PROMPTS_DIR, render_change, render_fix_prompt, render_reviewer_prompt
from review_harness.core.lint import INSTRUCTION_LIMIT, check_prefix_hashes, count_instructions
from review_harness.core.prompts import PromptError

_SPEC = "# Task 1\n\n## Requirements\n\n- Add `f`.\n"


def lint_code_prompts(update_hashes: bool = False) -> tuple[list[str], dict[str, str], dict[str, int]]:
    problems: list[str] = []
    hashes: dict[str, str] = {}
    counts: dict[str, int] = {}
    change = render_change(ChangeSet(source="lint", files=[file_from_versions("a.py", b"", b"def f():\n    return 1\n", None, [])]), 10_000)
    try:
        for stage in ("spec", "quality"):
            systems = set()
            for letter in ("A", "B"):
                prompt = render_reviewer_prompt(stage, letter, spec=_SPEC, change=change, task="1", title="t",
                                                service="svc", iteration=0, memory="Known issues:\n- x")
                if f"Stage: {stage}\nModel: {letter}\n" not in prompt.request:
                    problems.append(f"{stage}-{letter}: the request lacks the identity line the offline reviewer reads")
                systems.add(prompt.system)
                hashes[stage] = prompt.prefix_hash
                counts[stage] = count_instructions(prompt.system)
            if len(systems) != 1:
                problems.append(f"{stage}: the system prefix differs between the two models")
        fix = render_fix_prompt(message="Fix attempt 1/2: x", spec=_SPEC, change=change, task="1", title="t", turns=10)
        match = render_match_prompt("quality", [], [])
        for key, prompt in (("implementer", fix), ("matcher", match)):
            hashes[key] = prompt.prefix_hash
            counts[key] = count_instructions(prompt.system)
    except PromptError as ex:
        return [str(ex)], hashes, counts
    for key, n in counts.items():
        if n > INSTRUCTION_LIMIT:
            problems.append(f"{key}: {n} instructions, over the limit of {INSTRUCTION_LIMIT}")
    problems += check_prefix_hashes(hashes, PROMPTS_DIR, PROMPT_VERSION, update=update_hashes)
    return problems, hashes, counts
