"""Prompt lint of the code review: every reviewer prompt renders for both stages and both model
letters with the identity line the offline reviewer reads, and the system prefix does not depend
on the model letter (both models share one cacheable prefix per stage); the implementer's and
matcher's prompts render. The core's lint driver counts instructions and keeps the recorded
stable-prefix hashes (prompts/code/prefix_hashes.json)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from review_harness.code.change import ChangeSet, file_from_versions
from review_harness.code.matcher import render_match_prompt
from review_harness.code.models import LETTERS, STAGES
from review_harness.code.prompts import PROMPT_VERSION, PROMPTS_DIR, render_change, render_fix_prompt, render_reviewer_prompt
from review_harness.core.lint import PromptPrefixes
from review_harness.core.prompts import PromptError

_SPEC = "# Task 1\n\n## Requirements\n\n- Add `f`.\n"


def lint(options: Mapping[str, Any] | None = None) -> PromptPrefixes:
    """The stable prefix of each stage's reviewers, the implementer and the matcher."""
    problems: list[str] = []
    prefixes: dict[str, str] = {}
    change = render_change(ChangeSet(source="lint", files=[file_from_versions("a.py", b"", b"def f():\n    return 1\n", None, [])]), 10_000)
    try:
        for stage in STAGES:
            systems = set()
            for letter in LETTERS:
                prompt = render_reviewer_prompt(stage, letter, spec=_SPEC, change=change, task="1", title="t",
                                                service="svc", iteration=0, memory="Known issues:\n- x")
                if f"Stage: {stage}\nModel: {letter}\n" not in prompt.request:
                    problems.append(f"{stage}-{letter}: the request lacks the identity line the offline reviewer reads")
                systems.add(prompt.system)
                prefixes[stage] = prompt.system
            if len(systems) != 1:
                problems.append(f"{stage}: the system prefix differs between the two models")
        fix = render_fix_prompt(message="Fix attempt 1/2: x", spec=_SPEC, workspace="/tmp/work", files=["a.py"], task="1",
                                title="t", turns=10)
        prefixes["implementer"] = fix.system
        prefixes["matcher"] = render_match_prompt("quality", [], []).system
    except PromptError as ex:
        problems.append(str(ex))
    return PromptPrefixes(prefixes, PROMPTS_DIR, PROMPT_VERSION, problems)
