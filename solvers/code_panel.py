"""Solvers of the code review: four reviewers (spec and quality, each under model roles
reviewer_a and reviewer_b), the review loop (speculative first review, fix attempts by the
implementer role, escalation), and the report as the sample's answer.

Every model call is the core's member call: a call that fails or an answer that is malformed
is retried once; if it still does not complete, the member has no verdict and the review degrades
(that model counts as neither PASS nor agreement; what parsed of a malformed answer is kept as
its own findings). The implementer gets one call per turn, up to fix_timeout_turns.
"""

from __future__ import annotations

from inspect_ai.model import CachePolicy, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from review_harness.code.change import ChangeSet, apply_fix
from review_harness.code.config import ReviewConfig
from review_harness.code.matcher import MATCH_SCHEMA, parse_match, render_match_prompt
from review_harness.code.memory import memory_for_prompt, update_memory_after_review
from review_harness.code.merge import blocking_issues, escalation_message, fix_message
from review_harness.code.models import IMPLEMENTER, KIND_NAME, ROLES, FixAttempt, matcher_member, reviewer_member
from review_harness.code.panel import (
    CHANGE_KEY, FIXES_KEY, ITERATIONS_KEY, OUTCOME_KEY, completed_report, implementer_key, iteration_from_store,
    matcher_key, review_from_store, reviewer_key, strategy_label,
)
from review_harness.code.parse import FIX_SCHEMA, REVIEWER_SCHEMA, parse_fix, parse_reviewer, unverified_quotes
from review_harness.code.prompts import render_change, render_fix_prompt, render_reviewer_prompt
from review_harness.code.render import render_report
from review_harness.core.member import RetryPolicy, call_member, save_result
from review_harness.core.panel import run_concurrently, scoped_cache, text_hash

# two attempts, 0.5 s backoff, 300 s per call unless the task sets a timeout
MEMBER_POLICY = RetryPolicy(attempts=2, backoff_seconds=0.5, timeout_seconds=300.0)
GRADER = "grader"


def _change(state: TaskState) -> ChangeSet:
    return ChangeSet.model_validate(state.store.get(CHANGE_KEY) or state.metadata["change"])


@solver
def code_reviewer(stage: str, letter: str, iteration: int, max_tokens: int | None = None,
                  cache: bool | CachePolicy = False, policy: RetryPolicy = MEMBER_POLICY) -> Solver:
    """One reviewer: `stage` (spec | quality) under model role reviewer_a or reviewer_b."""
    member = reviewer_member(stage, letter)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        config = ReviewConfig.model_validate(meta["config"])
        change = render_change(_change(state), config.max_change_chars)
        prompt = render_reviewer_prompt(
            stage, letter, spec=meta["spec"], change=change, task=meta["task"], title=meta["title"],
            service=meta["service"], iteration=iteration, memory=memory_for_prompt(state, stage),
        )
        messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
        scoped = scoped_cache(cache, change_sha=text_hash(change.text), prompt=prompt.version)
        result = await call_member(
            KIND_NAME, member, messages, REVIEWER_SCHEMA, parse_reviewer, policy=policy, role=ROLES[letter],
            cache=scoped, max_tokens=max_tokens, prompt_version=prompt.version, prefix_hash=prompt.prefix_hash,
            span_name=f"{stage} reviewer {letter} (iteration {iteration})",
        )
        if result.run.completed and result.report is not None:
            # the model can quote only what it was shown: the rendered change and the spec
            result.run.problems += unverified_quotes(result.report, change.text, meta["spec"])
            result.run.reason = "; ".join(result.run.problems[:3]) or None
        save_result(state.store, reviewer_key(iteration, stage, letter), result)
        return state

    return solve


async def match_with_grader(state: TaskState, iteration: int, stage: str, policy: RetryPolicy) -> None:
    """When a grader role is bound, let it pair the two models' findings of a stage (the merge
    then uses its pairs); an answer that is not usable leaves the deterministic matcher, with the
    reason."""
    if GRADER not in model_roles():
        return
    a, b = (completed_report(state.store, iteration, stage, letter) for letter in ("A", "B"))
    if a is None or b is None or not a.findings or not b.findings:
        return
    prompt = render_match_prompt(stage, a.findings, b.findings)
    messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
    result = await call_member(
        KIND_NAME, matcher_member(stage), messages, MATCH_SCHEMA, lambda text: parse_match(text, a.findings, b.findings),
        policy=policy, role=GRADER, prompt_version=prompt.version, prefix_hash=prompt.prefix_hash,
        span_name=f"matcher {stage} (iteration {iteration})",
    )
    save_result(state.store, matcher_key(iteration, stage), result)


async def _implement(state: TaskState, attempt: int, message: str, config: ReviewConfig, fixes_done: int,
                     policy: RetryPolicy) -> FixAttempt:
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
        # each call is one turn: the turn budget is the number of attempts, with no pause between them
        turns = RetryPolicy(attempts=config.fix_timeout_turns, backoff_seconds=0.0, timeout_seconds=policy.timeout_seconds)
        result = await call_member(
            KIND_NAME, IMPLEMENTER, messages, FIX_SCHEMA, parse_fix, policy=turns, role=IMPLEMENTER,
            prompt_version=prompt.version, prefix_hash=prompt.prefix_hash, span_name=f"implementer (attempt {attempt})",
        )
        save_result(state.store, implementer_key(attempt), result)
        record.run, record.turns = result.run, result.run.attempts
        if not result.run.completed or result.report is None:
            record.outcome = "failed" if result.run.status == "refused" else "timeout"
            record.reason = f"no usable fix within fix_timeout_turns={config.fix_timeout_turns} (the implementer {result.run.describe()})"
            return record
        record.applied = apply_fix(change, {f.path: f.content for f in result.report.files})
        record.reason = result.report.note
    if not record.applied:
        record.outcome = "no-change"
        record.reason = record.reason or "the fix changed no file"
    state.store.set(CHANGE_KEY, change.model_dump(mode="json"))
    return record


@solver
def review_loop(max_tokens: int | None = None, cache: bool | CachePolicy = False,
                policy: RetryPolicy = MEMBER_POLICY) -> Solver:
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
            return [code_reviewer(stage, letter, iteration, max_tokens, cache, policy) for letter in config.letters]

        for iteration in range(config.max_fix_iterations + 1):
            speculative = iteration == 0 and config.speculative_quality
            record = {"iteration": iteration, "strategy": strategy_label(config, speculative), "stages_run": ["spec"]}
            if speculative:
                record["stages_run"].append("quality")
                record["critical_path_calls"] = 1
                await run_concurrently(members("spec", iteration) + members("quality", iteration), state, generate)
                await match_with_grader(state, iteration, "spec", policy)
                await match_with_grader(state, iteration, "quality", policy)
            else:
                await run_concurrently(members("spec", iteration), state, generate)
                await match_with_grader(state, iteration, "spec", policy)
                record["critical_path_calls"] = 1
                spec_only = iteration_from_store(state.store, record, config)
                if spec_only.spec.verdict != "FAIL":  # an incomplete spec review still lets quality speak
                    record["stages_run"].append("quality")
                    record["critical_path_calls"] = 2
                    await run_concurrently(members("quality", iteration), state, generate)
                    await match_with_grader(state, iteration, "quality", policy)
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
            fix = await _implement(state, attempt, fix_message(attempt, config.max_fix_iterations, issues), config, len(fixes),
                                   policy)
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
    """The review loop, then the report. `timeout`: seconds per member call (default 300)."""
    return [review_loop(max_tokens=max_tokens, cache=cache, policy=MEMBER_POLICY.with_timeout(timeout)),
            render_code_review()]
