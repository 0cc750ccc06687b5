"""Render reviewer prompts from the versioned templates in ``prompts/``.

The system message is the stable, cacheable part (role, rubric, output format); the request
carries the per-document payload with the document last (seed 000 s2.2).
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import TemplateError

from review_harness.core.prompts import (  # noqa: F401 (PromptError is the DS review's name for it too)
    PromptError,
    ReviewerPrompt,
    neutralize_delimiters,
    template_environment,
)

from review_harness.ds.models import PreparedDocument
from review_harness.ds.rubric import PROMPTS_DIR, Dimension, Rubric

PROMPT_VERSION = "v1"


def template_names(version: str = PROMPT_VERSION) -> tuple[str, str]:
    return f"reviewer_system.{version}.j2", f"reviewer_request.{version}.j2"


def render_system(
    dimension: Dimension, rubric: Rubric, *, version: str = PROMPT_VERSION, prompts_dir: Path = PROMPTS_DIR
) -> str:
    template = template_environment(str(prompts_dir)).get_template(template_names(version)[0])
    return template.render(
        dimension=dimension,
        severities=rubric.severities,
        routing=rubric.routing,
        personas=rubric.personas,
        workflows=rubric.workflows,
        caps=rubric.scoring.finding_caps,
    )


def render_reviewer_prompt(
    dimension: Dimension,
    rubric: Rubric,
    prepared: PreparedDocument,
    *,
    mode: str,
    audience: str,
    workflow: str,
    draft: bool,
    version: str = PROMPT_VERSION,
    prompts_dir: Path = PROMPTS_DIR,
    guardrail: str | None = None,
) -> ReviewerPrompt:
    """`guardrail`: a sentence added at the end of the system message (the analysis reviewer's
    domain boundary, only when a domain reviewer runs too); None leaves the prompt as it is."""
    system = render_system(dimension, rubric, version=version, prompts_dir=prompts_dir)
    if guardrail:
        system = system.rstrip("\n") + "\n\n## Domain boundary\n" + guardrail.strip() + "\n"
    template = template_environment(str(prompts_dir)).get_template(template_names(version)[1])
    request = template.render(
        dimension=dimension,
        mode=mode,
        audience=audience,
        workflow=workflow,
        tier=prepared.tier,
        draft=draft,
        cap=rubric.scoring.finding_caps[mode],
        title=prepared.title,
        word_count=prepared.word_count,
        section_map=prepared.section_map if prepared.tier == 2 else None,
        content=neutralize_delimiters(prepared.reviewer_content),
    )
    return ReviewerPrompt(system=system, request=request, version=version)


def check_templates(rubric: Rubric, *, version: str = PROMPT_VERSION, prompts_dir: Path = PROMPTS_DIR) -> None:
    """Render every reviewer's prompt once with placeholder content; raise PromptError naming
    the template and the problem (e.g. an unbound variable)."""
    probe = PreparedDocument(
        title="probe", source="probe.md", text="# probe\n", word_count=1, reading_minutes=0.0,
        token_estimate=1, tier=1, tldr={"found": False, "method": "absent"},
        partial_input={"is_partial": False},
    )
    for dimension in rubric.dimensions.values():
        for name in template_names(version):
            if not (prompts_dir / name).is_file():
                raise PromptError(f"prompt template {prompts_dir / name} not found")
        try:
            render_reviewer_prompt(dimension, rubric, probe, mode="full", audience="mixed",
                                   workflow="general", draft=False, version=version, prompts_dir=prompts_dir)
        except TemplateError as ex:
            raise PromptError(
                f"prompt templates {', '.join(template_names(version))} in {prompts_dir} cannot be filled "
                f"for the {dimension.id} reviewer: {ex}"
            ) from None
