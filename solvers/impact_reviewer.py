"""Solvers of the impact review: one reviewer reads the artifact (with the consistency checks
as facts and the retrieved methodology notes) and answers per dimension; then the report.

The reviewer gets `retries` more tries when its call fails or its answer has no usable
dimension; a reviewer that still fails leaves a failed review with the reason (never a
sample error).
"""

from __future__ import annotations

from pathlib import Path

import anyio
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import CachePolicy, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from review_harness.core.panel import generate_structured, scoped_cache, text_hash
from review_harness.core.params import resolve_user_path
from review_harness.impact.config import ConfigError, default_settings
from review_harness.impact.knowledge import EmptyKnowledgeBase, KnowledgeBase, KnowledgeError, StaticKnowledgeBase, default_knowledge_dir
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.parse import answer_schema, parse_answer
from review_harness.impact.registry import PromptError, PromptRegistry, PromptSpec
from review_harness.impact.render import render_report
from review_harness.impact.review import REQUEST_KEY, RUN_KEY, ReviewRun, prepare_request, review_from_store

STRUCTURED_PROVIDERS = ("anthropic", "openai")


def knowledge_base(knowledge: str | None) -> KnowledgeBase:
    """None: the built-in methodology notes; 'none': no knowledge; else a folder."""
    if knowledge is not None and str(knowledge).strip().lower() == "none":
        return EmptyKnowledgeBase()
    path = default_knowledge_dir() if knowledge is None else resolve_user_path(str(knowledge))
    try:
        return StaticKnowledgeBase(path)
    except KnowledgeError as ex:
        raise PrerequisiteError(f"-T knowledge={knowledge}: {ex}") from None


def prompt_spec(prompt: str | None, prompt_version: str | None, template_dirs: list[str] | None) -> PromptSpec:
    try:
        dirs = [resolve_user_path(d) for d in template_dirs or []]
        return PromptRegistry(dirs).get(prompt or default_settings().prompt["name"], prompt_version)
    except (PromptError, ConfigError) as ex:
        raise PrerequisiteError(f"prompt: {ex}") from None


def use_structured(mode: str, provider: str) -> bool:
    return mode == "on" or (mode == "auto" and provider in STRUCTURED_PROVIDERS)


@solver
def impact_reviewer(
    spec: PromptSpec,
    knowledge: KnowledgeBase,
    top_k: int = 5,
    structured: str = "auto",
    timeout: float = 120.0,
    retries: int = 1,
    backoff: float = 1.0,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> Solver:
    """Render the template for this artifact, call the model, store the request and the run."""
    settings = default_settings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        artifact = ImpactArtifact.model_validate(state.metadata["artifact"])
        request = prepare_request(artifact, spec, knowledge, top_k, settings)
        state.store.set(REQUEST_KEY, request.model_dump(mode="json"))
        model = get_model()
        provider, _, name = str(model).partition("/")
        schema = answer_schema(spec.dimensions) if use_structured(structured, provider) else None
        messages = [ChatMessageSystem(content=request.system), ChatMessageUser(content=request.user)]
        run = ReviewRun(backend_name=provider, model=name or provider, structured=schema is not None)
        scoped = scoped_cache(cache, artifact_sha=text_hash(state.input_text), prompt=f"{spec.name}@{spec.version}")
        async with span("impact reviewer", type="reviewer"):
            for attempt in range(retries + 1):
                if attempt:
                    await anyio.sleep(backoff * 2 ** (attempt - 1))
                run.attempts += 1
                call = await generate_structured(
                    messages, schema, timeout=timeout, max_tokens=max_tokens,  # type: ignore[arg-type]
                    cache=scoped if attempt == 0 else False, model=model,
                )
                run.input_tokens += call.input_tokens
                run.output_tokens += call.output_tokens
                if call.completion is None:
                    run.reason = call.reason
                    continue
                run.raw_response, run.truncated = call.completion, call.truncated
                parsed = parse_answer(call.completion, spec.dimensions)
                if parsed.dimensions:
                    run.reason = None
                    break
                run.reason = "unusable answer: " + "; ".join(parsed.warnings[:3])
        state.store.set(RUN_KEY, run.model_dump(mode="json"))
        return state

    return solve


@solver
def render_impact_review() -> Solver:
    """The markdown report is the sample's answer (final assistant message and output)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        report = render_report(review_from_store(state.store))
        state.messages.append(ChatMessageAssistant(content=report, source="generate"))
        state.output.completion = report
        return state

    return solve


def impact_pipeline(
    spec: PromptSpec,
    *,
    knowledge: str | None = None,
    top_k: int = 5,
    structured: str = "auto",
    timeout: float = 120.0,
    retries: int = 1,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> list[Solver]:
    return [
        impact_reviewer(spec, knowledge_base(knowledge), top_k=top_k, structured=structured, timeout=timeout,
                        retries=retries, max_tokens=max_tokens, cache=cache),
        render_impact_review(),
    ]
