"""One impact review, as plain functions: prepare the request (checks, retrieval, rendering),
ask the reviewer (one member call), and build the ImpactReview from the stored request and the
model's raw answer. The solver calls the first two, the scorer the third (so `inspect score`
re-parses a log without calls).

The reviewer is a member under the kind's retry policy: an answer that lacks a dimension is
malformed (retried once); when it stays malformed, what parsed of the last answer is kept beside
the run (salvaged) and the review is partial, with the reason in its warnings."""

from __future__ import annotations

import datetime as dt

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, Model

from pydantic import BaseModel, ConfigDict, Field

from review_harness.core.member import (
    MemberResult,
    MemberRun,
    ParseOutcome,
    RetryPolicy,
    StoreLike,
    call_member,
    load_result,
    member_key,
    save_result,
)
from review_harness.core.prompts import prefix_hash
from review_harness.impact.artifact import build_payload
from review_harness.impact.checks import checks_and_implied_p, render_facts
from review_harness.impact.config import ImpactSettings, default_settings
from review_harness.impact.confidence import confidence_for
from review_harness.impact.kind import REVIEWER
from review_harness.impact.knowledge import Chunk, KnowledgeBase, knowledge_context
from review_harness.impact.models import (
    VERDICTS, ConfidenceScore, ConsistencyCheck, ImpactArtifact, ImpactReview, ReviewDimension, ReviewResult, Verdict,
)
from review_harness.impact.parse import answer_schema, format_instructions, parse_answer
from review_harness.impact.registry import PromptSpec, render_part
from review_harness.impact.table import ChecksTable, default_table
from review_harness.impact.verdict import checks_verdict, review_verdict

KIND = "impact"
REQUEST_KEY = "impact:request"
RUN_KEY = member_key(KIND, REVIEWER)


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
    checks_verdict: Verdict
    verdict_reasons: list[str]
    score_cap: float = Field(description="the most a dimension with a failed check may score")
    overall_cap: float = Field(default=1.0, description="the most an unusable review's overall score may be")
    model_type: str = Field(description="the table's name for the model type ('' when unknown)")
    implied_p_value: float | None = None
    knowledge_chunks: list[str]
    notes: list[str]
    confidence: ConfidenceScore
    prefix_hash: str


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


class ReviewerAnswer(BaseModel):
    """What the reviewer answered (stored beside its run): the raw text, re-parsed by
    build_review, and when it came."""

    model_config = ConfigDict(extra="forbid")

    raw_response: str
    timestamp: str = Field(default_factory=_now)


def _check_words(checks: list[ConsistencyCheck]) -> str:
    return " ".join(dict.fromkeys(w for c in checks for w in (c.topic or "", c.id.replace("_", " ")) if w))


def retrieval_tiers(artifact: ImpactArtifact, checks: list[ConsistencyCheck], method: str = "") -> list[str]:
    """Queries in the order their notes matter: the topics of the failed checks, then of the
    warnings, then of what the method needs and the artifact lacks, then the method itself (its
    name, the outcome), then the topics of every other check."""
    tiers = [
        _check_words([c for c in checks if c.status == "fail"]),
        _check_words([c for c in checks if c.status == "warn"]),
        _check_words([c for c in checks if c.status == "not_available" and c.severity == "major" and c.scored]),
        " ".join(w for w in ((method or artifact.model_type).replace("_", " "),
                             artifact.model_type.replace("_", " "),
                             str(artifact.model_params.get("dependent_variable", ""))) if w),
        " ".join(sorted({c.topic for c in checks if c.topic})),
    ]
    return [t for t in tiers if t.strip()]


def retrieval_query(artifact: ImpactArtifact, checks: list[ConsistencyCheck]) -> str:
    """Every tier's words in one query (for a knowledge base that is asked once)."""
    return " ".join(retrieval_tiers(artifact, checks))


def retrieve(knowledge: KnowledgeBase, artifact: ImpactArtifact, checks: list[ConsistencyCheck], top_k: int,
             method: str = "") -> list[Chunk]:
    """The notes for this artifact, those on its failing checks first: each tier fills what the
    tiers before it left of `top_k` (a chunk is retrieved once)."""
    chosen: list[Chunk] = []
    seen: set[tuple[str, int, str]] = set()
    for query in retrieval_tiers(artifact, checks, method):
        for chunk in knowledge.retrieve(query, top_k):
            key = (chunk.source, chunk.position, chunk.heading)
            if key not in seen and len(chosen) < top_k:
                seen.add(key)
                chosen.append(chunk)
        if len(chosen) >= top_k:
            break
    return chosen


def prepare_request(
    artifact: ImpactArtifact,
    spec: PromptSpec,
    knowledge: KnowledgeBase,
    top_k: int,
    settings: ImpactSettings | None = None,
    table: ChecksTable | None = None,
) -> ReviewRequest:
    settings = settings or default_settings()
    table = table or default_table()
    payload = build_payload(artifact)
    checks, implied = checks_and_implied_p(artifact, table)
    verdict, reasons = checks_verdict(checks)
    chunks: list[Chunk] = retrieve(knowledge, artifact, checks, top_k, table.resolve(artifact.model_type) or "")
    variables = {
        **payload.model_dump(),
        "artifact": payload.artifact_text,
        "knowledge_context": knowledge_context(chunks),
        "facts": render_facts(checks),
        "notes": list(artifact.notes),
        "dimensions": list(spec.dimensions),
        "response_format": format_instructions(spec.dimensions),
        "checks_verdict": verdict,
        "score_cap": settings.fatal_score_cap,
    }
    system = render_part(spec, "system", variables)
    user = render_part(spec, "user", variables)
    if "Dimensions to score:" not in system + user:
        system = system.rstrip() + "\n\n" + variables["response_format"]  # the engine's format instruction
    return ReviewRequest(
        initiative_id=payload.initiative_id, prompt_name=spec.name, prompt_version=spec.version,
        prompt_source=spec.source, dimensions=list(spec.dimensions), system=system, user=user,
        checks=checks, checks_verdict=verdict, verdict_reasons=reasons, score_cap=settings.fatal_score_cap,
        overall_cap=settings.fatal_overall_cap,
        model_type=table.resolve(artifact.model_type) or "", implied_p_value=implied,
        knowledge_chunks=[f"{c.heading} ({c.source})" for c in chunks],
        notes=list(artifact.notes), confidence=confidence_for(payload.initiative_id, artifact.model_type, table),
        prefix_hash=prefix_hash(system),
    )


STRUCTURED_PROVIDERS = ("anthropic", "openai")


def use_structured(mode: str, provider: str) -> bool:
    """Send a response schema: always ('on'), never ('off'), or for providers with structured
    output ('auto'). The offline reviewer answers in the text format, so the text parser runs."""
    return mode == "on" or (mode == "auto" and provider in STRUCTURED_PROVIDERS)


def reviewer_policy(settings: ImpactSettings | None = None, timeout: float | None = None,
                    retries: int | None = None) -> RetryPolicy:
    """The kind's reviewer call policy (`reviewer_calls` in the settings); `timeout` seconds and
    `retries` (tries after the first) override it."""
    policy = (settings or default_settings()).reviewer_calls.with_timeout(timeout)
    if retries is None:
        return policy
    return RetryPolicy(attempts=retries + 1, backoff_seconds=policy.backoff_seconds, timeout_seconds=policy.timeout_seconds)


def answer_outcome(text: str, dimensions: list[str]) -> ParseOutcome[ReviewerAnswer]:
    """An answer with every dimension is complete; one that lacks a dimension is malformed (kept
    when at least one dimension parsed)."""
    parsed = parse_answer(text, dimensions)
    answer = ReviewerAnswer(raw_response=text) if parsed.dimensions else None
    return ParseOutcome(answer, list(parsed.warnings), malformed=bool(parsed.missing(dimensions)))


async def call_reviewer(
    request: ReviewRequest,
    model: Model,
    *,
    policy: RetryPolicy,
    structured: str = "auto",
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> MemberResult[ReviewerAnswer]:
    """The reviewer's member call. Never raises for model failures."""
    provider = str(model).partition("/")[0]
    schema = answer_schema(request.dimensions) if use_structured(structured, provider) else None
    return await call_member(
        KIND, REVIEWER, [ChatMessageSystem(content=request.system), ChatMessageUser(content=request.user)], schema,
        lambda text: answer_outcome(text, request.dimensions), policy=policy, model=model, cache=cache,
        max_tokens=max_tokens, prompt_version=f"{request.prompt_name}@{request.prompt_version}",
        prefix_hash=request.prefix_hash,
    )


def build_review(request: ReviewRequest, result: MemberResult[ReviewerAnswer] | None) -> ImpactReview:
    """Parse the raw answer into the ReviewResult: a complete member gives a complete review; a
    malformed one leaves what parsed of its answer, a partial review (failed when nothing parsed);
    a failed, timed-out or refused call a failed review. The reason is in the warnings."""
    run = result.run if result else MemberRun(kind=KIND, member=REVIEWER, reason="the reviewer never ran")
    answer = (result.report or result.salvaged) if result else None
    parsed = parse_answer(answer.raw_response, request.dimensions) if answer else None
    warnings: list[str] = []
    if not run.completed:
        warnings.append(f"reviewer {run.describe()}")
    if run.truncated:
        warnings.append("the answer was cut off at the output limit")
    dimensions = parsed.dimensions if parsed else []
    if parsed:
        warnings += parsed.warnings
    if dimensions and not run.completed:
        warnings.append(f"kept the {len(dimensions)} of {len(request.dimensions)} dimensions that parsed "
                        "from the last answer: a partial review")
    # keep the template's order
    order = {name: i for i, name in enumerate(request.dimensions)}
    dimensions, capped = cap_scores(sorted(dimensions, key=lambda d: order[d.name]), request)
    warnings += capped
    status = "failed" if not dimensions else ("complete" if run.completed else "partial")
    model_verdict = parsed.verdict if parsed and dimensions else None
    verdict, why = review_verdict(request.checks_verdict, model_verdict, status)
    if model_verdict is not None and verdict != model_verdict and VERDICTS.index(model_verdict) < VERDICTS.index(verdict):
        warnings.append(f"the reviewer's verdict {model_verdict} is more lenient than the checks allow: {verdict} "
                        f"({'; '.join(request.verdict_reasons)})")
    if why:
        warnings.append(why)
    mean = round(sum(d.score for d in dimensions) / len(dimensions), 4) if dimensions else None
    overall, cap = mean, ""
    if mean is not None and verdict == "unusable" and mean > request.overall_cap:
        overall = request.overall_cap
        cap = (f"capped at {request.overall_cap:g} (the dimensions' mean is {mean:g}): a fatal check failed "
               f"({'; '.join(request.verdict_reasons) or 'the reviewer'})")
    backend, _, model = run.model.partition("/")
    review_result = ReviewResult(
        **request.model_dump(include={"initiative_id", "prompt_name", "prompt_version"}),
        backend_name=backend or "-", model=model or backend or "-", dimensions=dimensions,
        overall_score=overall, verdict=verdict,
        raw_response=answer.raw_response if answer else "", timestamp=answer.timestamp if answer else _now(),
    )
    assessed = [c for c in request.checks if c.scored and c.status != "not_available"]
    missing = [c for c in request.checks if c.scored and c.status == "not_available"]
    unknown = sum(len(c.fields) for c in request.checks if c.id == "diagnostics_understood" and c.status == "not_available")
    total = len(assessed) + len(missing) + unknown
    return ImpactReview(
        result=review_result, status=status, status_reason="" if status == "complete" else run.describe(),
        dimension_mean=mean, overall_cap=cap,
        evidence_coverage=round(len(assessed) / total, 4) if total else None,
        not_assessed=[f"{c.id}: {c.message}" for c in missing],
        verdict=verdict, checks_verdict=request.checks_verdict,
        model_verdict=model_verdict, verdict_reasons=list(request.verdict_reasons), model_type=request.model_type,
        implied_p_value=request.implied_p_value, expected_dimensions=list(request.dimensions),
        model_overall=parsed.model_overall if parsed else None,
        answer_format=parsed.format if parsed else "none",  # type: ignore[arg-type]
        confidence=request.confidence, checks=request.checks, knowledge_chunks=request.knowledge_chunks,
        notes=request.notes, warnings=warnings, reviewer_run=run,
    )


def cap_scores(dimensions: list[ReviewDimension], request: ReviewRequest) -> tuple[list[ReviewDimension], list[str]]:
    """A dimension with a failed (fatal) check keeps at most the cap, whatever the model said;
    each lowered score is a warning naming the check."""
    out, warnings = [], []
    for d in dimensions:
        failed = [c.id for c in request.checks if c.dimension == d.name and c.status == "fail"]
        if failed and d.score > request.score_cap:
            warnings.append(f"{d.name}: the reviewer scored {d.score:g} although {', '.join(failed)} failed; "
                            f"capped at {request.score_cap:g}")
            d = d.model_copy(update={"score": request.score_cap})
        out.append(d)
    return out, warnings


def save_reviewer_result(store: StoreLike, result: MemberResult[ReviewerAnswer]) -> None:
    save_result(store, RUN_KEY, result)


def review_from_store(store: StoreLike) -> ImpactReview:
    data = store.get(REQUEST_KEY)
    if data is None:
        raise RuntimeError("no impact review request in the sample store: run impact_reviewer() first")
    return build_review(ReviewRequest.model_validate(data), load_result(store, RUN_KEY, ReviewerAnswer))
