"""The code review's state in the Inspect sample store, and the review built from it.

Reviewer solvers write one key per iteration, stage and model; the loop solver records what
each iteration ran; the scorers rebuild the merged review from those records without model
calls, so `inspect score` can redo the merge after a change to the merge rules.
"""

from __future__ import annotations

from typing import Any

from review_harness.code.change import ChangeSet
from review_harness.code.config import ReviewConfig
from review_harness.code.merge import confidence, decide, merge_stage
from review_harness.code.models import ROLES, CodeReview, FixAttempt, IterationRecord, MemberRun, ReviewerAnswer, StageMerge
from review_harness.code.prompts import PROMPT_VERSION, render_change
from review_harness.core.panel import StoreLike

ITERATIONS_KEY = "code:iterations"
FIXES_KEY = "code:fixes"
OUTCOME_KEY = "code:outcome"
CHANGE_KEY = "code:change"
MEMORY_KEY = "code:memory"


def match_key(iteration: int, stage: str) -> str:
    return f"code:matches:{iteration}:{stage}"


def member_key(iteration: int, stage: str, letter: str) -> str:
    return f"code:member:{iteration}:{stage}:{letter}"


def member_name(stage: str, letter: str) -> str:
    return f"{stage}-{letter}"


def stage_from_store(store: StoreLike, iteration: int, stage: str, letters: tuple[str, ...]) -> tuple[StageMerge, list[MemberRun]]:
    reports: dict[str, ReviewerAnswer | None] = {}
    reasons: dict[str, str] = {}
    partial: set[str] = set()
    runs = []
    for letter in letters:
        entry = store.get(member_key(iteration, stage, letter)) or {}
        run = MemberRun.model_validate(entry["run"]) if entry.get("run") else MemberRun(
            member=member_name(stage, letter), role=ROLES[letter], reason="never ran")
        runs.append(run)
        reports[letter] = ReviewerAnswer.model_validate(entry["report"]) if entry.get("report") else None
        if reports[letter] is None or run.reason:
            reasons[letter] = run.reason or "no report"
        if entry.get("partial"):
            partial.add(letter)
    matches = store.get(match_key(iteration, stage)) or {}
    if matches.get("reason"):
        reasons["matcher"] = matches["reason"]
    pairs = [tuple(p) for p in matches["pairs"]] if matches.get("pairs") is not None else None
    merged = merge_stage(stage, reports, letters, reasons, pairs=pairs, matcher=matches.get("matcher", "rules"), partial=partial)
    return merged, runs


def iteration_from_store(store: StoreLike, record: dict[str, Any], config: ReviewConfig) -> IterationRecord:
    """Merge one recorded iteration: spec, then quality (discarded when spec did not pass
    and quality ran speculatively), confidence and decision."""
    iteration = record["iteration"]
    letters = config.letters
    spec, runs = stage_from_store(store, iteration, "spec", letters)
    quality = None
    if "quality" in record["stages_run"]:
        quality, quality_runs = stage_from_store(store, iteration, "quality", letters)
        runs += quality_runs
        if spec.verdict == "FAIL":
            quality.discarded = True
            quality.reasons.append("discarded: the spec review failed, so the speculative quality results do not count")
    return IterationRecord(
        iteration=iteration,
        strategy=record["strategy"],
        spec=spec,
        quality=quality,
        confidence=confidence(spec, quality),
        decision=decide(spec, quality, config),
        human_decision=record.get("human_decision"),
        runs=runs,
        critical_path_calls=record.get("critical_path_calls", 0),
    )


def strategy_label(config: ReviewConfig, speculative: bool) -> str:
    reviewers = 2 * len(config.letters)
    if speculative:
        return f"Speculative parallel ({reviewers} reviewers)"
    return f"Sequential (spec, then quality; {len(config.letters)} model{'s' if len(config.letters) > 1 else ''} per stage)"


def review_from_store(store: StoreLike, metadata: dict[str, Any]) -> CodeReview:
    config = ReviewConfig.model_validate(metadata["config"])
    records = store.get(ITERATIONS_KEY) or []
    iterations = [iteration_from_store(store, r, config) for r in records]
    fixes = [FixAttempt.model_validate(f) for f in store.get(FIXES_KEY) or []]
    outcome = store.get(OUTCOME_KEY) or {}
    current = ChangeSet.model_validate(store.get(CHANGE_KEY) or metadata["change"])
    change = current.summary() | {"cuts": render_change(current, config.max_change_chars).cuts}
    return CodeReview(
        task=str(metadata["task"]), title=metadata["title"], service=metadata["service"],
        strategy=config.strategy, config=config.model_dump(),
        change=change, iterations=iterations, fixes=fixes,
        fix_iterations=len(fixes), final_status=outcome.get("final_status", "escalated" if not iterations else "awaiting-human"),
        escalation=outcome.get("escalation"), prompt_version=PROMPT_VERSION,
        memory=store.get(MEMORY_KEY) or {},
    )
