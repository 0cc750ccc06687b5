"""Solvers of the code review: four reviewers (spec and quality, each under model roles
reviewer_a and reviewer_b), the review loop (speculative first review, fix attempts by the
implementer role, escalation), and the report as the sample's answer.

Every model call is the core's member call: a call that fails or an answer that is malformed
is retried once; if it still does not complete, the member has no verdict and the review degrades
(that model counts as neither PASS nor agreement; what parsed of a malformed answer is kept as
its own findings). The implementer is an agent (review_harness/code/implementer.py) with
fix_timeout_turns as its turn limit; the gold set applies each case's scripted fixes instead.
"""

from __future__ import annotations

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from review_harness.code.change import ChangeSet, apply_fix
from review_harness.code.config import ReviewConfig
from review_harness.code.implementer import agent_fix
from review_harness.code.matcher import MATCH_SCHEMA, parse_match, render_match_prompt
from review_harness.code.memory import memory_for_prompt, read_memory, update_memory_after_review
from review_harness.code.merge import blocking_of, escalation_message, fix_message
from review_harness.code.models import KIND_NAME, ROLES, STAGES, FixAttempt, HumanAnswer, matcher_member, reviewer_member
from review_harness.code.panel import (
    CHANGE_KEY, FIXES_KEY, HUMAN_KEY, ITERATIONS_KEY, MEMORY_READ_KEY, OUTCOME_KEY, WARNINGS_KEY, completed_report,
    implementer_key,
    iteration_from_store, matcher_key, review_from_store, reviewer_key, strategy_label,
)
from review_harness.code.parse import REVIEWER_SCHEMA, parse_reviewer, unverified_quotes
from review_harness.code.plan import plan_fixing, update_plan_after_review
from review_harness.code.prompts import render_change, render_reviewer_prompt
from review_harness.code import record  # noqa: F401 (registers the hook that appends each review's analytics)
from review_harness.code.render import render_report
from review_harness.core.member import MemberResult, RetryPolicy, call_member, save_result
from review_harness.core.viewer import answer_message
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
        change = render_change(_change(state), config.max_change_chars, meta["spec"])
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


async def _implement(state: TaskState, attempt: int, message: str, config: ReviewConfig, fixes_done: int) -> FixAttempt:
    """One fix attempt: the case's next scripted fix (the gold set), else the implementer agent."""
    meta = state.metadata
    record = FixAttempt(attempt=attempt, message=message)
    change = _change(state)
    if meta.get("implementer") == "agent":
        record.applied = await agent_fix(record, change, meta.get("workspace") or {}, message=message, spec=meta["spec"],
                                         task=meta["task"], title=meta["title"], turns=config.fix_timeout_turns)
        if record.run is not None:
            save_result(state.store, implementer_key(attempt), MemberResult(record.run))
        if record.outcome in ("timeout", "failed"):
            return record
    else:
        scripted = meta.get("fixes") or []
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
    if not record.applied:
        record.outcome = "no-change"
        record.reason = record.reason or "the fix changed no file"
        return record
    state.store.set(CHANGE_KEY, change.model_dump(mode="json"))
    return record


def _answer(humans: list[HumanAnswer], used: list[str], known: list[str]) -> tuple[HumanAnswer | None, str | None]:
    """The human's next answer at a decision point whose findings have the ids `known`: (the
    answer, None), (None, None) when the human has not answered yet, or (None, why) when the
    answer dismisses an id no finding of this point has (it is not applied: the review waits)."""
    if not humans:
        return None, None
    answer = humans[0]
    unknown = [i for i in answer.dismiss if i not in known]
    if unknown:
        return None, (f"the human's answer {answer} names {', '.join(unknown)}, which no finding of this decision point has "
                      f"(its findings: {', '.join(known) or 'none'}); the answer was not applied and the review waits "
                      "for one that names findings it has")
    humans.pop(0)
    used.append(str(answer))
    return answer, None


@solver
def review_loop(max_tokens: int | None = None, cache: bool | CachePolicy = False,
                policy: RetryPolicy = MEMBER_POLICY) -> Solver:
    """First review (speculative: all reviewers at once), then while rejected: a fix attempt and
    a sequential re-review (spec, then quality unless spec failed), up to max_fix_iterations.
    A human's approval of a failed spec stage never ends the review: quality then runs (its
    speculative results reused when the change is unchanged) and decides."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        config = ReviewConfig.model_validate(meta["config"])
        humans = [HumanAnswer.parse(a) for a in meta.get("human") or []]
        state.store.set(MEMORY_READ_KEY, read_memory(meta))  # memory as it stands when the review starts
        used: list[str] = []
        records: list[dict] = []
        fixes: list[FixAttempt] = []
        fix_warnings: list[str | None] = []
        outcome: dict = {}

        async def run_stage(stage: str, iteration: int) -> None:
            await run_concurrently([code_reviewer(stage, letter, iteration, max_tokens, cache, policy)
                                    for letter in config.letters], state, generate)
            await match_with_grader(state, iteration, stage, policy)

        def waiting(iteration: int) -> dict:
            return {"final_status": "awaiting-human" if iteration == 0 else f"review-fix-{iteration}"}

        iteration = 0
        while True:
            speculative = iteration == 0 and config.speculative_quality
            record = {"iteration": iteration, "strategy": strategy_label(config, speculative), "stages_run": ["spec"],
                      "critical_path_calls": 1}
            records.append(record)
            if speculative:
                record["stages_run"].append("quality")
                await run_concurrently([code_reviewer(stage, letter, iteration, max_tokens, cache, policy)
                                        for stage in STAGES for letter in config.letters], state, generate)
                await match_with_grader(state, iteration, "spec", policy)
                await match_with_grader(state, iteration, "quality", policy)
            else:
                await run_stage("spec", iteration)
                if iteration_from_store(state.store, record, config).spec.verdict != "FAIL":
                    # an incomplete spec review still lets quality speak
                    record["stages_run"].append("quality")
                    record["critical_path_calls"] = 2
                    await run_stage("quality", iteration)
            merged = iteration_from_store(state.store, record, config)
            if merged.decision == "PRESENT_TO_HUMAN":
                answer, refused = _answer(humans, used, [m.id for s in merged.counted() for m in s.findings])
                if answer is None:
                    outcome = waiting(iteration) | ({"answer_error": refused} if refused else {})
                    break
                record["human_decision"], record["dismissed"] = answer.decision, answer.dismiss
            if merged.spec.verdict == "FAIL" and record.get("human_decision") == "approve":
                # the human overrules the spec stage: quality is never skipped
                reused = "quality" in record["stages_run"]
                record["spec_approval"] = {"reused": reused}
                if not reused:
                    record["critical_path_calls"] += 1
                    await run_stage("quality", iteration)
                check = iteration_from_store(state.store, record, config).after_approval
                if check is not None and check.decision == "PRESENT_TO_HUMAN":
                    answer, refused = _answer(humans, used, [m.id for m in check.quality.findings])
                    if answer is None:
                        outcome = waiting(iteration) | ({"answer_error": refused} if refused else {})
                        break
                    record["spec_approval"].update(human_decision=answer.decision, dismissed=answer.dismiss)
            merged = iteration_from_store(state.store, record, config)
            if merged.approved:
                outcome = {"final_status": "complete"}
                break
            issues = blocking_of(merged.counted(), merged.all_dismissed)
            fix = None
            shown = merged.after_approval.quality if merged.after_approval else merged.quality
            quality_mark = None if shown is None or shown.discarded else shown.verdict
            # discarded Critical or security findings are named to the implementer, never lost
            unreviewed = merged.quality.unreviewed_critical() if merged.quality and not merged.after_approval else []
            while len(fixes) < config.max_fix_iterations:
                attempt = len(fixes) + 1
                fix_warnings.append(plan_fixing(state, meta["task"], attempt, merged.spec.verdict, quality_mark))
                message = fix_message(attempt, config.max_fix_iterations, issues, unreviewed)
                fix = await _implement(state, attempt, message, config, sum(1 for f in fixes if f.implementer == "scripted"))
                fixes.append(fix)
                state.store.set(FIXES_KEY, [f.model_dump(mode="json") for f in fixes])
                if fix.outcome != "no-change":  # a fix that changed nothing is not reviewed again
                    break
            if fix is None or fix.outcome != "applied":
                why = f" ({fix.reason})" if fix is not None and fix.outcome != "applied" and fix.reason else ""
                outcome = {"final_status": "escalated", "escalation": escalation_message(meta["task"], len(fixes), issues) + why}
                break
            iteration = fix.reviewed_in = fix.attempt
            state.store.set(FIXES_KEY, [f.model_dump(mode="json") for f in fixes])
        state.store.set(ITERATIONS_KEY, records)
        state.store.set(OUTCOME_KEY, outcome)
        state.store.set(HUMAN_KEY, used)
        review = review_from_store(state.store, meta)
        unused = [str(a) for a in humans]
        warnings = [f"{len(unused)} of the human's answers were not needed: {', '.join(unused)}"
                    if unused and not outcome.get("answer_error") else None]
        warnings += fix_warnings + [update_memory_after_review(state, review), update_plan_after_review(state, review)]
        state.store.set(WARNINGS_KEY, [w for w in warnings if w])
        return state

    return solve


@solver
def render_code_review() -> Solver:
    """The markdown report is the sample's answer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return answer_message(state, render_report(review_from_store(state.store, state.metadata)))

    return solve


def code_pipeline(*, timeout: float | None = None, max_tokens: int | None = None,
                  cache: bool | CachePolicy = False) -> list[Solver]:
    """The review loop, then the report. `timeout`: seconds per member call (default 300)."""
    return [review_loop(max_tokens=max_tokens, cache=cache, policy=MEMBER_POLICY.with_timeout(timeout)),
            render_code_review()]
