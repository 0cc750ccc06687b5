"""The design review's state in the Inspect sample store, and the synthesis over it.

Solvers write here (one key per member in the core's layout, so concurrent personas never
overwrite each other); the scorers read here, so `inspect score` re-synthesizes a log without
model calls. Besides the members' results the store holds the request (documents' metadata,
stage, iteration, where the review is written), the documents as cut to the input budget (only
when they were cut), the delta against the earlier iteration, what became of auto-fixes, and
notes of the solvers that belong in the review's warnings (a topic folder that changed, an
earlier iteration that could not be read, a file that could not be written).
"""

from __future__ import annotations

from typing import Any

from review_harness.core.member import MemberResult, MemberRun, RetryPolicy, StoreLike, load_result, member_key
from review_harness.design.models import (
    GRADER,
    KIND_NAME,
    SYNTHESIZER,
    DeltaAnswer,
    DesignReview,
    IterationDelta,
    PersonaReport,
    SynthesisAnswer,
)
from review_harness.design.personas import FailureSettings, PersonaConfig
from review_harness.design.synthesis import ReviewContext, synthesize_design

REQUEST_KEY = "design:request"
CALIBRATION_KEY = "design:calibration"
DOCUMENTS_KEY = "design:documents"  # the documents as cut to the input budget (absent: not cut)
DELTA_KEY = "design:delta"
AUTO_FIX_KEY = "design:auto_fix"  # finding id -> [status, reason] set by the auto-fix solver
NOTES_KEY = "design:notes"  # solver notes for the review's warnings
FIXED_KEY = "design:fixed"  # after auto-fix: the fixed text of the reviewed document and the first round's review


def result_key(member: str) -> str:
    """The store key of a persona's (or the synthesizer's, or the grader's) result."""
    return member_key(KIND_NAME, member)


def retry_policy(failure: FailureSettings, timeout: float | None = None) -> RetryPolicy:
    """The personas file's failure settings as the core's retry policy (`timeout` overrides its
    seconds per call)."""
    policy = RetryPolicy(attempts=failure.retries + 1, backoff_seconds=failure.backoff_seconds,
                         timeout_seconds=failure.timeout_seconds)
    return policy.with_timeout(timeout)


def load_context(store: StoreLike) -> ReviewContext:
    data = store.get(REQUEST_KEY)
    if data is None:
        raise RuntimeError("no design review request in the sample store: run prepare_design_review() first")
    return ReviewContext(**data)


def add_note(store: StoreLike, note: str) -> None:
    """A note for the review's warnings (kept in order, once)."""
    notes = list(store.get(NOTES_KEY) or [])
    if note not in notes:
        store.set(NOTES_KEY, notes + [note])


def documents(store: StoreLike, design_text: str, context: ReviewContext) -> tuple[str, str]:
    """(design, requirements) as the personas get them: cut to the input budget when they were."""
    cut: dict[str, Any] = store.get(DOCUMENTS_KEY) or {}
    return cut.get("design") or design_text, cut.get("requirements") or context.requirements_text


def load_persona_results(store: StoreLike, personas: list[str]) -> dict[str, MemberResult[PersonaReport]]:
    """The stored result of each dispatched persona; one that never ran gets a failed run."""
    results = {}
    for persona in personas:
        result = load_result(store, result_key(persona), PersonaReport)
        results[persona] = result or MemberResult(MemberRun(kind=KIND_NAME, member=persona, reason="never ran"))
    return results


def load_reports(store: StoreLike, personas: list[str]) -> dict[str, PersonaReport]:
    """The reports of the personas that completed."""
    results = load_persona_results(store, personas)
    return {p: r.report for p, r in results.items() if r.run.completed and r.report is not None}


def review_from_store(store: StoreLike, config: PersonaConfig, design_text: str) -> DesignReview:
    """Synthesize from what the solvers stored (the design is the sample input, not stored
    twice): no model calls, so `inspect score` can redo it."""
    context = load_context(store)
    context.design_text = design_text
    fixed = store.get(FIXED_KEY) or {}
    if fixed.get("second_round"):  # the document was fixed and reviewed again: the review is of the fixed text
        if context.reviewed == "requirements":
            context.requirements_text = fixed["text"]
        else:
            context.design_text = fixed["text"]
    results = load_persona_results(store, context.personas)
    for persona in context.personas:
        prefix = results[persona].run.prefix_hash
        if prefix:
            context.prompt_prefix_hashes[persona] = prefix
    synthesis = load_result(store, result_key(SYNTHESIZER), SynthesisAnswer)
    review = synthesize_design(context, results, synthesis, config)
    grader = load_result(store, result_key(GRADER), DeltaAnswer)
    if grader is not None:
        review.reviewer_runs.append(grader.run)
    if store.get(DELTA_KEY):
        review.delta = IterationDelta.model_validate(store.get(DELTA_KEY))
    decided = store.get(AUTO_FIX_KEY) or {}
    review.auto_fixes = [
        fix.model_copy(update={"status": decided[fix.finding][0], "reason": decided[fix.finding][1]})
        if fix.finding in decided and fix.status == "proposed" else fix
        for fix in review.auto_fixes
    ]
    review.warnings += [note for note in store.get(NOTES_KEY) or [] if note not in review.warnings]
    if fixed.get("second_round"):
        first = DesignReview.model_validate(fixed["first_review"])
        applied = {f.finding for f in first.auto_fixes if f.status == "applied"}
        review.fixed_findings = [f.model_copy(update={"disposition": "fixed", "disposition_note": "auto-fix, then re-reviewed"})
                                 for f in first.findings if f.id in applied]
        review.auto_fixes = [f for f in first.auto_fixes if f.status == "applied"] + [
            f for f in review.auto_fixes if f.status != "applied"]
        review.reviewer_runs = first.reviewer_runs + review.reviewer_runs
        review.rounds = 2
    return review
