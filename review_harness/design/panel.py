"""The design review's state in the Inspect sample store, and the synthesis over it.

Solvers write here (one key per member in the core's layout, so concurrent personas never
overwrite each other); the scorers read here, so `inspect score` re-synthesizes a log without
model calls.
"""

from __future__ import annotations

from review_harness.core.member import MemberResult, MemberRun, RetryPolicy, StoreLike, load_result, member_key
from review_harness.design.models import KIND_NAME, SYNTHESIZER, DesignReview, PersonaReport, SynthesisAnswer
from review_harness.design.personas import FailureSettings, PersonaConfig
from review_harness.design.synthesis import ReviewContext, synthesize_design

REQUEST_KEY = "design:request"
CALIBRATION_KEY = "design:calibration"


def result_key(member: str) -> str:
    """The store key of a persona's (or the synthesizer's) result."""
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
    results = load_persona_results(store, context.personas)
    for persona in context.personas:
        prefix = results[persona].run.prefix_hash
        if prefix:
            context.prompt_prefix_hashes[persona] = prefix
    synthesis = load_result(store, result_key(SYNTHESIZER), SynthesisAnswer)
    return synthesize_design(context, results, synthesis, config)
