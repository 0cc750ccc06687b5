"""Solvers of the code review: four reviewers (spec and quality, each under model roles
reviewer_a and reviewer_b), the review loop (speculative first review, fix attempts by the
implementer role, escalation), and the report as the sample's answer.

A reviewer call that fails or answers unusably is retried once; if it still fails, the member
has no report and the review degrades (that model counts as neither PASS nor agreement).
"""

from __future__ import annotations

import anyio
from inspect_ai.model import CachePolicy, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from review_harness.code.change import ChangeSet, apply_fix
from review_harness.code.config import ReviewConfig
from review_harness.code.matcher import MATCH_SCHEMA, parse_pairs, render_match_prompt
from review_harness.code.memory import memory_for_prompt, update_memory_after_review
from review_harness.code.merge import blocking_issues, escalation_message, fix_message
from review_harness.code.models import ROLES, FixAttempt, MemberRun, ReviewerAnswer
from review_harness.code.panel import (
    CHANGE_KEY, FIXES_KEY, ITERATIONS_KEY, OUTCOME_KEY, iteration_from_store, match_key, member_key, member_name,
    review_from_store, strategy_label,
)
from review_harness.code.parse import FIX_SCHEMA, REVIEWER_SCHEMA, parse_fix, parse_reviewer, unverified_quotes
from review_harness.code.prompts import render_change, render_fix_prompt, render_reviewer_prompt
from review_harness.code.render import render_report
from review_harness.core.panel import generate_structured, run_concurrently, scoped_cache, text_hash

RETRIES = 1
BACKOFF_SECONDS = 0.5
TIMEOUT_SECONDS = 300.0


def _change(state: TaskState) -> ChangeSet:
    return ChangeSet.model_validate(state.store.get(CHANGE_KEY) or state.metadata["change"])


@solver
def code_reviewer(stage: str, letter: str, iteration: int, max_tokens: int | None = None,
                  cache: bool | CachePolicy = False, timeout: float | None = None) -> Solver:
    """One reviewer: `stage` (spec | quality) under model role reviewer_a or reviewer_b."""
    role = ROLES[letter]

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        config = ReviewConfig.model_validate(meta["config"])
        change = render_change(_change(state), config.max_change_chars)
        prompt = render_reviewer_prompt(
            stage, letter, spec=meta["spec"], change=change, task=meta["task"], title=meta["title"],
            service=meta["service"], iteration=iteration, memory=memory_for_prompt(state, stage),
        )
        messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
        run = MemberRun(member=member_name(stage, letter), role=role, prefix_hash=prompt.prefix_hash)
        report, partial = None, False
        model = get_model(role=role)
        scoped = scoped_cache(cache, change_sha=text_hash(change.text), prompt=prompt.version)
        async with span(f"{stage} reviewer {letter} (iteration {iteration})", type="reviewer"):
            for attempt in range(RETRIES + 1):
                if attempt:
                    await anyio.sleep(BACKOFF_SECONDS)
                run.attempts += 1
                call = await generate_structured(messages, REVIEWER_SCHEMA, timeout=timeout or TIMEOUT_SECONDS,
                                                 max_tokens=max_tokens, cache=scoped if attempt == 0 else False, model=model)
                run.input_tokens += call.input_tokens
                run.output_tokens += call.output_tokens
                run.seconds = round(run.seconds + call.seconds, 3)
                if call.completion is None:
                    run.reason = call.reason
                    continue
                parsed = parse_reviewer(call.completion, truncated=call.truncated)
                if parsed.report is None:
                    run.reason = "unusable answer: " + "; ".join(parsed.problems)
                    continue
                if parsed.partial and attempt < RETRIES:
                    run.reason = "partial answer: " + "; ".join(parsed.problems[:3])
                    continue
                report, run.status, partial = parsed.report, "complete", parsed.partial
                # the model can quote only what it was shown: the rendered change and the spec
                problems = parsed.problems + unverified_quotes(report, change.text, meta["spec"])
                run.reason = ("partial answer (no PASS from it): " if partial else "") + "; ".join(problems[:3]) or None
                break
        state.store.set(member_key(iteration, stage, letter), {
            "run": run.model_dump(mode="json"),
            "report": report.model_dump(mode="json") if report is not None else None,
            "partial": partial,
        })
        return state

    return solve


GRADER = "grader"


async def match_with_grader(state: TaskState, iteration: int, stage: str) -> None:
    """When a grader role is bound, let it pair the two models' findings of a stage (the merge
    then uses its pairs); an unusable answer leaves the deterministic matcher, with the reason."""
    if GRADER not in model_roles():
        return
    entries = [state.store.get(member_key(iteration, stage, letter)) or {} for letter in ("A", "B")]
    if not all(e.get("report") for e in entries):
        return
    a, b = (ReviewerAnswer.model_validate(e["report"]).findings for e in entries)
    if not a or not b:
        return
    prompt = render_match_prompt(stage, a, b)
    messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
    async with span(f"matcher {stage} (iteration {iteration})", type="matcher"):
        call = await generate_structured(messages, MATCH_SCHEMA, timeout=TIMEOUT_SECONDS, model=get_model(role=GRADER))
    pairs, reason = (None, call.reason) if call.completion is None else parse_pairs(call.completion, a, b)
    state.store.set(match_key(iteration, stage), {
        "pairs": [list(p) for p in pairs] if pairs is not None else None, "matcher": "llm",
        "reason": f"LLM matcher unusable, rules used: {reason}" if pairs is None else None,
    })


async def _implement(state: TaskState, attempt: int, message: str, config: ReviewConfig, fixes_done: int) -> FixAttempt:
    """One fix attempt: the case's next scripted fix (evals), else the implementer role."""
    meta = state.metadata
    record = FixAttempt(attempt=attempt, message=message)
    change = _change(state)
    scripted = meta.get("fixes") or []
    if meta.get("gold") is not None or scripted:
        if fixes_done >= len(scripted):
            record.outcome, record.reason = "no-change", "the case has no further scripted fix"
            return record
        fix = scripted[fixes_done]
        record.turns = int(fix.get("turns", 1))
        if record.turns > config.fix_timeout_turns:
            record.outcome = "timeout"
            record.reason = f"the fix needed {record.turns} turns, over fix_timeout_turns={config.fix_timeout_turns}"
            return record
        record.applied = apply_fix(change, fix["files"])
    else:
        prompt = render_fix_prompt(message=message, spec=meta["spec"], change=render_change(change, config.max_change_chars),
                                   task=meta["task"], title=meta["title"], turns=config.fix_timeout_turns)
        messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
        run = MemberRun(member="implementer", role="implementer", prefix_hash=prompt.prefix_hash)
        answer = None
        async with span(f"implementer (attempt {attempt})", type="implementer"):
            while record.turns < config.fix_timeout_turns and answer is None:
                record.turns += 1
                run.attempts += 1
                call = await generate_structured(messages, FIX_SCHEMA, timeout=TIMEOUT_SECONDS, model=get_model(role="implementer"))
                run.input_tokens += call.input_tokens
                run.output_tokens += call.output_tokens
                if call.completion is None:
                    run.reason = call.reason
                    continue
                answer, problems = parse_fix(call.completion)
                run.reason = "; ".join(problems) or None
        run.status = "complete" if answer is not None else "failed"
        record.run = run
        if answer is None:
            record.outcome, record.reason = "timeout", f"no usable fix within fix_timeout_turns={config.fix_timeout_turns}"
            return record
        record.applied = apply_fix(change, {f.path: f.content for f in answer.files})
        record.reason = answer.note
    if not record.applied:
        record.outcome = "no-change"
        record.reason = record.reason or "the fix changed no file"
    state.store.set(CHANGE_KEY, change.model_dump(mode="json"))
    return record


@solver
def review_loop(max_tokens: int | None = None, cache: bool | CachePolicy = False, timeout: float | None = None) -> Solver:
    """First review (speculative: all reviewers at once), then while rejected: a fix attempt and
    a sequential re-review (spec, then quality unless spec failed), up to max_fix_iterations."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        config = ReviewConfig.model_validate(meta["config"])
        humans = list(meta.get("human") or [])
        records: list[dict] = []
        fixes: list[dict] = []
        outcome: dict = {}

        def members(stage: str, iteration: int) -> list[Solver]:
            return [code_reviewer(stage, letter, iteration, max_tokens, cache, timeout) for letter in config.letters]

        for iteration in range(config.max_fix_iterations + 1):
            speculative = iteration == 0 and config.speculative_quality
            record = {"iteration": iteration, "strategy": strategy_label(config, speculative), "stages_run": ["spec"]}
            if speculative:
                record["stages_run"].append("quality")
                record["critical_path_calls"] = 1
                await run_concurrently(members("spec", iteration) + members("quality", iteration), state, generate)
                await match_with_grader(state, iteration, "spec")
                await match_with_grader(state, iteration, "quality")
            else:
                await run_concurrently(members("spec", iteration), state, generate)
                await match_with_grader(state, iteration, "spec")
                record["critical_path_calls"] = 1
                spec_only = iteration_from_store(state.store, record, config)
                if spec_only.spec.verdict != "FAIL":  # an incomplete spec review still lets quality speak
                    record["stages_run"].append("quality")
                    record["critical_path_calls"] = 2
                    await run_concurrently(members("quality", iteration), state, generate)
                    await match_with_grader(state, iteration, "quality")
            merged = iteration_from_store(state.store, record, config)
            decision = merged.decision
            if decision == "PRESENT_TO_HUMAN":
                if not humans:
                    records.append(record)
                    outcome = {"final_status": "awaiting-human" if iteration == 0 else f"review-fix-{iteration}"}
                    break
                record["human_decision"] = humans.pop(0)
            records.append(record)
            approved = decision == "AUTO_APPROVE" or record.get("human_decision") == "approve"
            if approved:
                outcome = {"final_status": "complete"}
                break
            issues = blocking_issues(merged.spec, merged.quality)
            if iteration == config.max_fix_iterations:
                outcome = {"final_status": "escalated",
                           "escalation": escalation_message(meta["task"], config.max_fix_iterations, issues)}
                break
            attempt = iteration + 1
            fix = await _implement(state, attempt, fix_message(attempt, config.max_fix_iterations, issues), config, len(fixes))
            fixes.append(fix.model_dump(mode="json"))
            state.store.set(FIXES_KEY, fixes)
            if fix.outcome in ("timeout", "failed"):
                outcome = {"final_status": "escalated",
                           "escalation": escalation_message(meta["task"], attempt, issues) + f" ({fix.reason})"}
                break
        state.store.set(ITERATIONS_KEY, records)
        state.store.set(OUTCOME_KEY, outcome)
        update_memory_after_review(state, review_from_store(state.store, meta))
        return state

    return solve


@solver
def render_code_review() -> Solver:
    """The markdown report is the sample's answer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        report = render_report(review_from_store(state.store, state.metadata))
        state.messages.append(ChatMessageAssistant(content=report, source="generate"))
        state.output.completion = report
        return state

    return solve


def code_pipeline(*, timeout: float | None = None, max_tokens: int | None = None,
                  cache: bool | CachePolicy = False) -> list[Solver]:
    """timeout: seconds per reviewer call (None: TIMEOUT_SECONDS)."""
    return [review_loop(max_tokens=max_tokens, cache=cache, timeout=timeout), render_code_review()]
