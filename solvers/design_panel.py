"""Solvers of the design review: dispatch the stage's personas concurrently, ask the
synthesizer to group their findings, then render the summary (and write the artifact folder).

One persona mechanism (`persona_reviewer(persona_id)`) serves all nine personas; what differs
is persona data. Every call is the core's member call under the personas file's failure
settings: one retry with exponential backoff when a call fails or its answer is malformed; the
review goes on when enough personas complete.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from inspect_ai.model import CachePolicy, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from review_harness.core.member import call_member, save_result
from review_harness.core.panel import run_concurrently, scoped_cache, text_hash
from review_harness.core.schema import response_schema
from review_harness.design.artifacts import next_iteration, topic_dir, write_artifacts
from review_harness.design.models import KIND_NAME, SYNTHESIZER, PersonaReport, SynthesisAnswer
from review_harness.design.panel import (
    CALIBRATION_KEY, REQUEST_KEY, load_context, load_reports, result_key, retry_policy, review_from_store,
)
from review_harness.design.parse import parse_persona_output, parse_synthesis_output
from review_harness.design.personas import default_personas
from review_harness.design.prompts import PROMPT_VERSION, render_persona_prompt, render_synthesizer_prompt
from review_harness.design.render import render_summary
from review_harness.design.synthesis import ReviewContext
from review_harness.design.triage import calibration_block

PERSONA_SCHEMA = response_schema(
    "persona_report", PersonaReport,
    description="Findings with severity, phase, section, issue, impact, suggestion, evidence; a blind spot check.",
)
SYNTHESIS_SCHEMA = response_schema(
    "design_synthesis", SynthesisAnswer,
    description="Groups of duplicate findings with phases, contradictions, patterns.",
)


@solver
def prepare_design_review(output_dir: str | None = None) -> Solver:
    """Record the request: documents, stage, personas, topic, iteration and calibration rules."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        folder = topic_dir(output_dir, meta["topic"]) if output_dir else None
        calibration, calibration_version = calibration_block(folder)
        context = ReviewContext(
            topic=meta["topic"],
            stage=meta["stage"],
            personas=list(meta["personas"]),
            design_path=meta["design"],
            requirements_path=meta["requirements"],
            date=datetime.date.today().isoformat(),
            iteration=next_iteration(folder) if folder else int(meta.get("iteration", 1)),
            design_text=state.input_text,
            requirements_text=meta["requirements_text"],
            prompt_version=PROMPT_VERSION,
            calibration_version=calibration_version,
            warnings=list(meta.get("input_warnings") or []),
        )
        # the design is the sample input: do not copy it into the log twice
        state.store.set(REQUEST_KEY, {k: v for k, v in vars(context).items() if k != "design_text"})
        state.store.set(CALIBRATION_KEY, calibration)
        return state

    return solve


@solver
def persona_reviewer(
    persona: str,
    timeout: float | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> Solver:
    """One persona of the panel (e.g. 'edge-case-prober')."""
    config = default_personas()
    name = config.persona(persona).name  # fail at task creation on an unknown persona
    policy = retry_policy(config.failure, timeout)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = load_context(state.store)
        prompt = render_persona_prompt(
            persona, config, stage=context.stage, design=state.input_text,
            requirements=context.requirements_text, topic=context.topic,
            calibration=state.store.get(CALIBRATION_KEY, ""),
            calibration_version=context.calibration_version,
        )
        messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
        scoped = scoped_cache(cache, design_sha=text_hash(state.input_text), prompt=prompt.version)
        result = await call_member(
            KIND_NAME, persona, messages, PERSONA_SCHEMA, lambda text: parse_persona_output(text, persona),
            policy=policy, cache=scoped, max_tokens=max_tokens, prompt_version=prompt.version,
            prefix_hash=prompt.prefix_hash, span_name=name,
        )
        save_result(state.store, result_key(persona), result)
        return state

    return solve


@solver
def design_panel(members: dict[str, Solver]) -> Solver:
    """Run the personas this sample dispatches (its stage's, or the override set) at once."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        dispatched = load_context(state.store).personas
        await run_concurrently([members[p] for p in dispatched], state, generate)
        return state

    return solve


@solver
def synthesizer(max_tokens: int | None = None, cache: bool | CachePolicy = False) -> Solver:
    """Ask the `synthesizer` model role (the evaluated model when unbound) to group the
    findings; its answer is checked and, if unusable, replaced in code (see synthesis.py)."""
    config = default_personas()
    policy = retry_policy(config.failure)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = load_context(state.store)
        reports = load_reports(state.store, context.personas)
        if len(reports) < config.failure.min_successes(len(context.personas)):
            return state  # no verdict: nothing to synthesize
        if not any(r.findings for r in reports.values()):
            return state  # nothing to group
        prompt = render_synthesizer_prompt(reports, config, topic=context.topic, stage=context.stage)
        messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
        result = await call_member(
            KIND_NAME, SYNTHESIZER, messages, SYNTHESIS_SCHEMA, parse_synthesis_output,
            policy=policy, role="synthesizer", cache=cache, max_tokens=max_tokens,
            prompt_version=prompt.version, prefix_hash=prompt.prefix_hash, span_name="Synthesizer",
        )
        save_result(state.store, result_key(SYNTHESIZER), result)
        return state

    return solve


@solver
def render_design_review(output_dir: str | None = None) -> Solver:
    """Synthesize, make summary.md the sample's answer, and write the artifact folder if asked."""
    config = default_personas()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        review = review_from_store(state.store, config, state.input_text)
        summary = render_summary(review)
        # the summary is the sample's answer: the final assistant message and the output
        state.messages.append(ChatMessageAssistant(content=summary, source="generate"))
        state.output.completion = summary
        if output_dir:
            folder = write_artifacts(review, Path(output_dir))
            state.metadata["artifacts"] = str(folder)
        return state

    return solve


def design_pipeline(
    *,
    output_dir: str | None = None,
    timeout: float | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> list[Solver]:
    """prepare -> personas (concurrently) -> synthesizer -> summary (+ artifacts)."""
    members = {
        p: persona_reviewer(p, timeout=timeout, max_tokens=max_tokens, cache=cache) for p in default_personas().personas
    }
    return [
        prepare_design_review(output_dir=output_dir),
        design_panel(members),
        synthesizer(max_tokens=max_tokens, cache=cache),
        render_design_review(output_dir=output_dir),
    ]
