"""One impact review, as plain functions: prepare the request (checks, retrieval, rendering)
and build the ImpactReview from the stored request and the model's raw answer. The solver
calls the first, the scorer the second (so `inspect score` re-parses a log without calls)."""

from __future__ import annotations

import datetime as dt

import anyio
from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, Model

from pydantic import BaseModel, ConfigDict, Field

from review_harness.core.panel import StoreLike, generate_structured
from review_harness.core.prompts import prefix_hash
from review_harness.impact.artifact import build_payload
from review_harness.impact.checks import render_facts, run_checks
from review_harness.impact.config import ImpactSettings, default_settings
from review_harness.impact.confidence import score_initiative
from review_harness.impact.knowledge import Chunk, KnowledgeBase, knowledge_context
from review_harness.impact.models import (
    ConfidenceScore, ConsistencyCheck, ImpactArtifact, ImpactReview, ReviewResult,
)
from review_harness.impact.parse import answer_schema, format_instructions, parse_answer
from review_harness.impact.registry import PromptSpec, render_part

REQUEST_KEY = "impact:request"
RUN_KEY = "impact:run"


class ReviewRequest(BaseModel):
    """What the solver prepared for one artifact (stored in the sample store)."""

    model_config = ConfigDict(extra="forbid")

    initiative_id: str
    prompt_name: str
    prompt_version: str
    prompt_source: str
    dimensions: list[str]
    system: str = Field(default="", description="not stored: the model event in the log has it")
    user: str = Field(default="", description="not stored: the model event in the log has it")
    checks: list[ConsistencyCheck]
    knowledge_chunks: list[str]
    notes: list[str]
    confidence: ConfidenceScore
    prefix_hash: str


class ReviewRun(BaseModel):
    """What the model call produced (stored in the sample store)."""

    model_config = ConfigDict(extra="forbid")

    backend_name: str
    model: str
    raw_response: str = ""
    reason: str | None = None
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    truncated: bool = False
    structured: bool = False
    timestamp: str = Field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


def retrieval_query(artifact: ImpactArtifact, checks: list[ConsistencyCheck]) -> str:
    """Deterministic: the model type, the outcome, and the topics and ids of the checks."""
    words = [artifact.model_type.replace("_", " "), str(artifact.model_params.get("dependent_variable", ""))]
    words += sorted({c.topic for c in checks if c.topic})
    words += [c.id.replace("_", " ") for c in checks if c.status != "pass"]
    return " ".join(w for w in words if w)


def prepare_request(
    artifact: ImpactArtifact,
    spec: PromptSpec,
    knowledge: KnowledgeBase,
    top_k: int,
    settings: ImpactSettings | None = None,
) -> ReviewRequest:
    settings = settings or default_settings()
    payload = build_payload(artifact)
    checks = run_checks(artifact, settings)
    chunks: list[Chunk] = knowledge.retrieve(retrieval_query(artifact, checks), top_k)
    variables = {
        **payload.model_dump(),
        "artifact": payload.artifact_text,
        "knowledge_context": knowledge_context(chunks),
        "facts": render_facts(checks),
        "notes": list(artifact.notes),
        "dimensions": list(spec.dimensions),
        "response_format": format_instructions(spec.dimensions),
    }
    system = render_part(spec, "system", variables)
    user = render_part(spec, "user", variables)
    if "Dimensions to score:" not in system + user:
        system = system.rstrip() + "\n\n" + variables["response_format"]  # the engine's format instruction
    return ReviewRequest(
        initiative_id=payload.initiative_id, prompt_name=spec.name, prompt_version=spec.version,
        prompt_source=spec.source, dimensions=list(spec.dimensions), system=system, user=user,
        checks=checks, knowledge_chunks=[f"{c.heading} ({c.source})" for c in chunks],
        notes=list(artifact.notes), confidence=score_initiative(payload.initiative_id, artifact.model_type, settings.confidence_map),
        prefix_hash=prefix_hash(system),
    )


STRUCTURED_PROVIDERS = ("anthropic", "openai")


def use_structured(mode: str, provider: str) -> bool:
    """Send a response schema: always ('on'), never ('off'), or for providers with structured
    output ('auto'). The offline reviewer answers in the text format, so the text parser runs."""
    return mode == "on" or (mode == "auto" and provider in STRUCTURED_PROVIDERS)


async def call_reviewer(
    request: ReviewRequest,
    model: Model,
    *,
    structured: str = "auto",
    timeout: float = 120.0,
    retries: int = 1,
    backoff: float = 1.0,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> ReviewRun:
    """The reviewer's model call: `retries` more tries after a failed call or an answer that
    lacks a dimension (exponential backoff); the most complete answer is kept. Never raises for
    model failures."""
    provider, _, name = str(model).partition("/")
    schema = answer_schema(request.dimensions) if use_structured(structured, provider) else None
    messages = [ChatMessageSystem(content=request.system), ChatMessageUser(content=request.user)]
    run = ReviewRun(backend_name=provider, model=name or provider, structured=schema is not None)
    best = 0
    for attempt in range(retries + 1):
        if attempt:
            await anyio.sleep(backoff * 2 ** (attempt - 1))
        run.attempts += 1
        call = await generate_structured(
            messages, schema, timeout=timeout, max_tokens=max_tokens,  # type: ignore[arg-type]
            cache=cache if attempt == 0 else False, model=model,
        )
        run.input_tokens += call.input_tokens
        run.output_tokens += call.output_tokens
        if call.completion is None:
            run.reason = call.reason
            continue
        parsed = parse_answer(call.completion, request.dimensions)
        if len(parsed.dimensions) > best:  # keep the most complete answer of the tries
            best = len(parsed.dimensions)
            run.raw_response, run.truncated = call.completion, call.truncated
        if len(parsed.dimensions) == len(request.dimensions):
            run.reason = None
            break
        run.reason = ("incomplete answer: " if parsed.dimensions else "unusable answer: ") + "; ".join(parsed.warnings[:3])
    if 0 < best < len(request.dimensions):
        run.reason = f"{run.reason} (kept the answer with {best} of {len(request.dimensions)} dimensions)"
    run.timestamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    return run


def build_review(request: ReviewRequest, run: ReviewRun | None) -> ImpactReview:
    """Parse the raw answer into the ReviewResult; a failed call or an unusable answer gives a
    failed review with the reason, a partial answer a partial one."""
    warnings: list[str] = []
    run = run or ReviewRun(backend_name="-", model="-", reason="the reviewer never ran")
    parsed = parse_answer(run.raw_response, request.dimensions) if run.raw_response else None
    if run.reason:
        warnings.append(f"reviewer call: {run.reason}")
    if run.truncated:
        warnings.append("the answer was cut off at the output limit")
    dimensions = parsed.dimensions if parsed else []
    if parsed:
        warnings += parsed.warnings
    # keep the template's order
    order = {name: i for i, name in enumerate(request.dimensions)}
    dimensions = sorted(dimensions, key=lambda d: order[d.name])
    status = "failed" if not dimensions else ("complete" if len(dimensions) == len(request.dimensions) else "partial")
    result = ReviewResult(
        initiative_id=request.initiative_id,
        prompt_name=request.prompt_name,
        prompt_version=request.prompt_version,
        backend_name=run.backend_name,
        model=run.model,
        dimensions=dimensions,
        overall_score=parsed.overall if parsed and dimensions else None,
        raw_response=run.raw_response,
        timestamp=run.timestamp,
    )
    return ImpactReview(
        result=result, status=status, expected_dimensions=list(request.dimensions),
        model_overall=parsed.model_overall if parsed else None,
        answer_format=parsed.format if parsed else "none",  # type: ignore[arg-type]
        confidence=request.confidence, checks=request.checks, knowledge_chunks=request.knowledge_chunks,
        notes=request.notes, warnings=warnings, attempts=run.attempts,
        input_tokens=run.input_tokens, output_tokens=run.output_tokens,
    )


def review_from_store(store: StoreLike) -> ImpactReview:
    data = store.get(REQUEST_KEY)
    if data is None:
        raise RuntimeError("no impact review request in the sample store: run impact_reviewer() first")
    run = store.get(RUN_KEY)
    return build_review(ReviewRequest.model_validate(data), ReviewRun.model_validate(run) if run else None)
