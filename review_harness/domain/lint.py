"""Prompt lint of the domain prompts: the reviewer's rubric prefix (rendered with an empty
brief, since the brief changes with every digest version) and the curator's and synthesis system prompts stay
within the instruction limit and keep their recorded hashes (prompts/domain/prefix_hashes.json)."""

from __future__ import annotations

from datetime import datetime, timezone

from review_harness.core.lint import INSTRUCTION_LIMIT, check_prefix_hashes, count_instructions
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.prompts import prefix_hash
from review_harness.domain.importance import PROMPT_VERSION as CURATOR_VERSION
from review_harness.domain.importance import render_curator_prompt
from review_harness.domain.prompt import PROMPT_VERSION, render_reviewer_prompt
from review_harness.domain.reviewer import ReviewerRubric
from review_harness.domain.skill import DomainContextBrief
from review_harness.domain.sources import Page
from review_harness.domain.synthesis import render_synthesis_prompt

EMPTY_BRIEF = DomainContextBrief(content="", domains_included=["lint"], knowledge_tier={}, authority_level={},
                                 version="lint@-", versions={}, warnings=[], tokens=0, budget=0)


def lint_domain_prompts(rubric: ReviewerRubric, update_hashes: bool = False) -> tuple[list[str], dict[str, str], dict[str, int]]:
    """(problems, prefix hash per prompt, instruction counts)."""
    reviewer = render_reviewer_prompt(rubric, EMPTY_BRIEF, "lint")
    page = Page(id="0", title="lint", updated=datetime(2026, 1, 1, tzinfo=timezone.utc), body="lint")
    curator_system, _ = render_curator_prompt("lint", page, "lint")
    synthesis_system, _ = render_synthesis_prompt("lint", [], "all")
    prefixes = {"domain-reviewer": reviewer.system, "curator": curator_system, "synthesis": synthesis_system}
    hashes = {key: prefix_hash(text) for key, text in prefixes.items()}
    counts = {key: count_instructions(text) for key, text in prefixes.items()}
    problems = [f"{key}: {n} instructions, over the limit of {INSTRUCTION_LIMIT}"
                for key, n in counts.items() if n > INSTRUCTION_LIMIT]
    problems += check_prefix_hashes(hashes, PROMPTS_DIR / "domain", f"{PROMPT_VERSION}+{CURATOR_VERSION}",
                                    update=update_hashes)
    return problems, hashes, counts
