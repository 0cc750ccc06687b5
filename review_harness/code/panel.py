"""The code review's state in the Inspect sample store, and the review built from it.

Members write their results in the core's layout, one key per member and iteration
(`code:member:spec-A:0`, `code:member:matcher-quality:1`, `code:member:implementer:1` per fix
attempt); the loop solver records what each iteration ran; the scorers rebuild the merged review
from those records without model calls, so `inspect score` can redo the merge after a change to
the merge rules.
"""

from __future__ import annotations

from typing import Any

from review_harness.code.change import ChangeSet
from review_harness.code.config import ReviewConfig
from review_harness.code.memory import MEMORY_KEY, MEMORY_READ_KEY, recall
from review_harness.code.merge import confidence, decide, decide_quality, merge_stage, stage_confidence
from review_harness.code.matcher import pair_indices
from review_harness.code.models import (
    IMPLEMENTER, KIND_NAME, ROLES, CodeReview, FixAttempt, IterationRecord, MatchAnswer, QualityCheck, ReviewerAnswer,
    StageMerge,
    matcher_member, reviewer_member,
)
from review_harness.code.prompts import PROMPT_VERSION, render_change
from review_harness.core.member import MemberResult, MemberRun, StoreLike, load_result, member_key

ITERATIONS_KEY = "code:iterations"
FIXES_KEY = "code:fixes"
OUTCOME_KEY = "code:outcome"
CHANGE_KEY = "code:change"
PLAN_KEY = "code:plan"
HUMAN_KEY = "code:human"
WARNINGS_KEY = "code:warnings"


def reviewer_key(iteration: int, stage: str, letter: str) -> str:
    return member_key(KIND_NAME, reviewer_member(stage, letter), iteration)


def matcher_key(iteration: int, stage: str) -> str:
    return member_key(KIND_NAME, matcher_member(stage), iteration)


def implementer_key(attempt: int) -> str:
    return member_key(KIND_NAME, IMPLEMENTER, attempt)


def reviewer_result(store: StoreLike, iteration: int, stage: str, letter: str) -> MemberResult[ReviewerAnswer]:
    """A reviewer's stored result; one that never ran gets a failed run."""
    result = load_result(store, reviewer_key(iteration, stage, letter), ReviewerAnswer)
    return result or MemberResult(MemberRun(kind=KIND_NAME, member=reviewer_member(stage, letter), role=ROLES[letter],
                                            reason="never ran"))


def completed_report(store: StoreLike, iteration: int, stage: str, letter: str) -> ReviewerAnswer | None:
    """A reviewer's report when its run completed (what parsed of a malformed answer is not one)."""
    result = reviewer_result(store, iteration, stage, letter)
    return result.report if result.run.completed else None


def _not_complete(result: MemberResult[ReviewerAnswer]) -> str:
    text = result.run.describe()
    if result.salvaged is not None and result.salvaged.findings:
        text += (f"; its {len(result.salvaged.findings)} finding(s) that parsed are kept as its own, matched with "
                 "no other: it has no verdict")
    return text


def stage_from_store(store: StoreLike, iteration: int, stage: str, letters: tuple[str, ...]) -> tuple[StageMerge, list[MemberRun]]:
    """One stage's merge: reviewers whose run completed give reports; one that did not has no
    verdict (seed 002: neither PASS nor agreement), and what parsed of its malformed answer still
    counts as its own findings. The memory read when the review started weighs each finding."""
    reports: dict[str, ReviewerAnswer | None] = {}
    salvaged: dict[str, ReviewerAnswer] = {}
    reasons: dict[str, str] = {}
    runs = []
    for letter in letters:
        result = reviewer_result(store, iteration, stage, letter)
        runs.append(result.run)
        reports[letter] = result.report if result.run.completed else None
        if not result.run.completed:
            reasons[letter] = _not_complete(result)
            if result.salvaged is not None:
                salvaged[letter] = result.salvaged
        elif result.run.reason:
            reasons[letter] = result.run.reason
    pairs, matcher = None, "rules"
    matched = load_result(store, matcher_key(iteration, stage), MatchAnswer)
    if matched is not None and matched.run.completed and matched.report is not None:
        pairs, matcher = pair_indices(matched.report), "llm"
    elif matched is not None:
        reasons["matcher"] = f"LLM matcher unusable, rules used: {matched.run.describe()}"
    entries = ((store.get(MEMORY_READ_KEY) or {}).get(stage) or {}).get("entries") or []
    merged = merge_stage(stage, reports, letters, reasons, pairs=pairs, matcher=matcher, salvaged=salvaged,
                         recall=recall(entries))
    merged.summaries = {letter: report.summary for letter, report in reports.items() if report is not None and report.summary}
    return merged, runs


def _with_ids(stage: StageMerge, iteration: int) -> StageMerge:
    """Number the stage's findings: 's1', 'q2' in the first round, 'i1-s1' after fix 1."""
    prefix = f"i{iteration}-" if iteration else ""
    for n, m in enumerate(stage.findings, 1):
        m.id = f"{prefix}{stage.stage[0]}{n}"
    return stage


def iteration_from_store(store: StoreLike, record: dict[str, Any], config: ReviewConfig) -> IterationRecord:
    """Merge one recorded iteration: spec, then quality (discarded when spec did not pass
    and quality ran speculatively), confidence and decision; after a human approved a failed
    spec stage, the quality check that then decides."""
    iteration = record["iteration"]
    letters = config.letters
    spec, runs = stage_from_store(store, iteration, "spec", letters)
    _with_ids(spec, iteration)
    quality = None
    if "quality" in record["stages_run"]:  # quality ran before the decision (speculatively, or after spec passed)
        quality, quality_runs = stage_from_store(store, iteration, "quality", letters)
        _with_ids(quality, iteration)
        runs += quality_runs
        if spec.verdict == "FAIL":
            quality.discarded = True
            counts = ", ".join(f"{n} {s}" for s, n in quality.severity_counts().items()) or "no findings"
            quality.reasons.append(f"discarded: the spec review failed, so the speculative quality results do not count "
                                   f"({counts}); they are re-checked once spec passes")
    after = None
    approval = record.get("spec_approval")
    if approval is not None:  # a human approved the failed spec stage: quality decides now
        checked, checked_runs = stage_from_store(store, iteration, "quality", letters)
        _with_ids(checked, iteration)
        if not approval.get("reused"):
            runs += checked_runs
        after = QualityCheck(quality=checked, reused=bool(approval.get("reused")), confidence=stage_confidence([checked]),
                             decision=decide_quality(checked, config), human_decision=approval.get("human_decision"),
                             dismissed=approval.get("dismissed", []))
    return IterationRecord(
        iteration=iteration,
        strategy=record["strategy"],
        spec=spec,
        quality=quality,
        confidence=confidence(spec, quality),
        decision=decide(spec, quality, config),
        human_decision=record.get("human_decision"),
        dismissed=record.get("dismissed", []),
        after_approval=after,
        runs=runs,
        critical_path_calls=record.get("critical_path_calls", 0),
    )


def strategy_label(config: ReviewConfig, speculative: bool) -> str:
    reviewers = 2 * len(config.letters)
    if speculative:
        return f"Speculative parallel ({reviewers} reviewers)"
    return f"Sequential (spec, then quality; {len(config.letters)} model{'s' if len(config.letters) > 1 else ''} per stage)"


def memory_applied(iterations: list[IterationRecord], read: dict) -> dict:
    """Which memory entries the review applied (each with the findings it lowered) and how much
    memory it read."""
    entries = {e["id"]: e for stage in read.values() for e in stage.get("entries", [])}
    applied: dict[str, dict] = {}
    for it in iterations:
        for stage in it.stages() + it.counted():
            for m in stage.findings:
                if m.memory and m.memory in entries:
                    entry = applied.setdefault(m.memory, {**entries[m.memory], "stage": stage.stage, "findings": []})
                    if m.id not in entry["findings"]:
                        entry["findings"].append(m.id)
    out: dict = {"applied": list(applied.values())}
    if read:
        out["read"] = {stage: {"issues": r.get("issues", 0), "false_positives": len(r.get("entries", []))}
                       for stage, r in read.items()}
    return out


def review_from_store(store: StoreLike, metadata: dict[str, Any]) -> CodeReview:
    config = ReviewConfig.model_validate(metadata["config"])
    records = store.get(ITERATIONS_KEY) or []
    iterations = [iteration_from_store(store, r, config) for r in records]
    fixes = [FixAttempt.model_validate(f) for f in store.get(FIXES_KEY) or []]
    outcome = store.get(OUTCOME_KEY) or {}
    current = ChangeSet.model_validate(store.get(CHANGE_KEY) or metadata["change"])
    change = current.summary() | {"cuts": render_change(current, config.max_change_chars, metadata.get("spec", "")).cuts}
    return CodeReview(
        task=str(metadata["task"]), title=metadata["title"], service=metadata["service"], feature=metadata.get("feature"),
        strategy=config.strategy, config=config.model_dump(),
        change=change, iterations=iterations, fixes=fixes,
        fix_iterations=len(fixes), final_status=outcome.get("final_status", "escalated" if not iterations else "awaiting-human"),
        escalation=outcome.get("escalation"), answer_error=outcome.get("answer_error"), prompt_version=PROMPT_VERSION,
        memory=(store.get(MEMORY_KEY) or {}) | memory_applied(iterations, store.get(MEMORY_READ_KEY) or {}),
        human_answers=store.get(HUMAN_KEY) or [], plan=store.get(PLAN_KEY) or {},
        warnings=store.get(WARNINGS_KEY) or [],
    )
