"""Solvers of the impact review: one reviewer reads the artifact (with the consistency checks
as facts and the retrieved methodology notes) and answers per dimension; then the report.

The reviewer gets `retries` more tries when its call fails or its answer lacks a dimension;
a reviewer that still fails leaves a failed (or partial) review with the reason, never a
sample error.
"""

from __future__ import annotations

from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.model import CachePolicy, ChatMessageAssistant, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from review_harness.core.panel import scoped_cache, text_hash
from review_harness.core.params import resolve_user_path
from review_harness.impact.config import default_settings
from review_harness.impact.knowledge import EmptyKnowledgeBase, KnowledgeBase, KnowledgeError, StaticKnowledgeBase, default_knowledge_dir
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.registry import PromptSpec
from review_harness.impact.render import render_report
from review_harness.impact.review import REQUEST_KEY, RUN_KEY, call_reviewer, prepare_request, review_from_store

def knowledge_base(knowledge: str | None) -> KnowledgeBase:
    """None: the built-in methodology notes; 'none': no knowledge; else a folder."""
    if knowledge is not None and str(knowledge).strip().lower() == "none":
        return EmptyKnowledgeBase()
    path = default_knowledge_dir() if knowledge is None else resolve_user_path(str(knowledge))
    try:
        return StaticKnowledgeBase(path)
    except KnowledgeError as ex:
        raise PrerequisiteError(f"-T knowledge={knowledge}: {ex}") from None


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
        state.store.set(REQUEST_KEY, request.model_dump(mode="json", exclude={"system", "user"}))
        scoped = scoped_cache(cache, artifact_sha=text_hash(state.input_text), prompt=f"{spec.name}@{spec.version}")
        async with span("impact reviewer", type="reviewer"):
            run = await call_reviewer(
                request, get_model(), structured=structured, timeout=timeout, retries=retries,
                backoff=backoff, max_tokens=max_tokens, cache=scoped,
            )
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
    knowledge_base_obj: KnowledgeBase | None = None,
    top_k: int = 5,
    structured: str = "auto",
    timeout: float = 120.0,
    retries: int = 1,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> list[Solver]:
    return [
        impact_reviewer(spec, knowledge_base_obj or knowledge_base(knowledge), top_k=top_k, structured=structured, timeout=timeout,
                        retries=retries, max_tokens=max_tokens, cache=cache),
        render_impact_review(),
    ]
