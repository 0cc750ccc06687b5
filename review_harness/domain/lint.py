"""Prompt lint of the domain prompts: the reviewer's rubric prefix (rendered with an empty
brief, since the brief changes with every digest version) and the curator's and synthesis system
prompts. The core's lint driver counts instructions and keeps the recorded hashes
(prompts/domain/prefix_hashes.json)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from review_harness.core.lint import PromptPrefixes
from review_harness.core.paths import PROMPTS_DIR
from review_harness.domain.importance import PROMPT_VERSION as CURATOR_VERSION
from review_harness.domain.importance import render_curator_prompt
from review_harness.domain.prompt import PROMPT_VERSION, render_reviewer_prompt
from review_harness.domain.reviewer import ReviewerRubric, default_reviewer_rubric
from review_harness.domain.skill import DomainContextBrief
from review_harness.domain.sources import Page
from review_harness.domain.synthesis import render_synthesis_prompt

EMPTY_BRIEF = DomainContextBrief(content="", domains_included=["lint"], knowledge_tier={}, authority_level={},
                                 version="lint@-", versions={}, warnings=[], tokens=0, budget=0)


def lint_domain_prompts(rubric: ReviewerRubric) -> PromptPrefixes:
    """The stable prefix of the domain reviewer, the curator and the digest synthesis."""
    reviewer = render_reviewer_prompt(rubric, EMPTY_BRIEF, "lint")
    page = Page(id="0", title="lint", updated=datetime(2026, 1, 1, tzinfo=timezone.utc), body="lint")
    curator_system, _ = render_curator_prompt("lint", page, "lint")
    synthesis_system, _ = render_synthesis_prompt("lint", [], "all")
    prefixes = {"domain-reviewer": reviewer.system, "curator": curator_system, "synthesis": synthesis_system}
    return PromptPrefixes(prefixes, PROMPTS_DIR / "domain", f"{PROMPT_VERSION}+{CURATOR_VERSION}")


def lint(options: Mapping[str, Any]) -> PromptPrefixes:
    """The registry's entry: the domain prompts with the default reviewer rubric."""
    return lint_domain_prompts(default_reviewer_rubric())
