"""The edge case prober: what happens when dependencies fail, time out or answer twice, when
input is empty, huge or unrecognised, and when workers run side by side.
"""

from __future__ import annotations

import re

from review_harness.core.markdown import Sentence, subtree_end
from review_harness.core.text import negated_before
from review_harness.design.offline.document import all_matches, clause, design_has, quote_of, short, skip_context
from review_harness.design.offline.quantities import duration_topics, quantities_by_unit, time_quantities
from review_harness.design.offline.reading import (
    Dismissal,
    broker_queues,
    diagram_lines,
    dismissals,
    drawn_only,
    remote_calls,
    secret_handling,
    specified,
)
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.shared_checks import ambiguous_outcome, single_instance
from review_harness.design.offline.substance import dropping_failure_paths
from review_harness.design.offline.vocabulary import V


@detector("unknown-outcome-retried")
def unknown_outcome_retried(ctx: Ctx) -> None:
    ambiguous_outcome(ctx, "timeout-retried-as-failure", "edge")


@detector("lifecycle-failure")
def lifecycle_failure(ctx: Ctx) -> None:
    """A lifecycle (a state diagram, or prose that moves something from state to state) whose
    transitions never say what happens when something fails: no error state, event or path."""
    doc = ctx.artifact
    arrows = [m for line in doc.text.split("\n") for m in [V.lifecycle_arrow.match(line)] if m]
    steps = [u for u in doc.body_units() if V.lifecycle_step.search(u.plain)]
    if len(arrows) + len(steps) < 4:
        return
    told = " ".join([" ".join(m.groups(default="")) for m in arrows] + [u.plain for u in steps])
    if V.failure_path.search(told):
        ctx.ok("The lifecycle's transitions include what happens on failure")
        return
    first = steps[0] if steps else None
    ctx.add(
        "lifecycle-without-failure", title="The lifecycle has no path for failure",
        section=doc.path_of(first.line) if first else doc.title or "(top of document)",
        issue=(f"The document moves through {len(arrows) + len(steps)} transitions, and none of them says what happens when "
               "something fails (a connection lost, a step that errors): there is no error state, event or path."),
        why="Failures happen in every state; a lifecycle without them leaves callers guessing which state they are in after one, and what is lost.",
        suggestion="Add the failure transitions: from which states an error can occur, where each goes, and what happens to the work in flight.",
        evidence=quote_of(first) if first else None, key="lifecycle-failure")


def _section_reference(u) -> bool:
    """A table row that only points at a section ('R6 | §7.4 retries and alerting'): a trace, no handling."""
    return u.kind == "table" and bool(re.search(r"(?:§|\bsection\s)\s*\d", u.plain, re.I))


@detector("failure-handling")
def failure_handling(ctx: Ctx) -> None:
    """Remote calls, message queues and batch jobs with no word on failure; remote calls a caller
    waits for with no timeout. A function call is no remote call, and a queue inside one process
    is no message broker."""
    doc = ctx.artifact

    def operations_of(found: list[tuple[Sentence, re.Match[str]]]) -> list[tuple[Sentence, re.Match[str]]]:
        """What the design specifies it does: not a FAQ answer, a use case or an open area, not negated."""
        return [(u, m) for u, m in found if u.kind != "code" and specified(doc, u) and not negated_before(u.plain, m.start(), 25)]

    calls, queues = operations_of(remote_calls(doc)), operations_of(broker_queues(doc))
    batches, operations = operations_of(all_matches(doc, V.batch)), operations_of(all_matches(doc, V.remote_operation))
    triggers = calls + queues + batches + operations
    if not triggers:
        return
    # failure handling is a mechanism or a sentence saying what happens on a failure; a section
    # called Risks, a word about errors, a negated mention ('there is no fallback') or a box in a
    # diagram that no sentence explains is not
    drawn, diagram = drawn_only(doc, V.handling_mechanism), diagram_lines(doc)
    handling_units = [u for u in doc.units_with_code if u.kind != "heading" and not _section_reference(u) and u.line not in diagram and (
        any(not negated_before(u.plain, mm.start(), 25) for mm in V.handling_mechanism.finditer(u.plain))
        or V.failure_condition.search(u.plain))]
    handling_secs = [h for h in doc.headings_matching(V.sec_failure) if (h.level > 1 or len(doc.sections) < 3)
                     and any(h.start_line <= u.line <= subtree_end(doc.sections, h) for u in handling_units)]
    if dropping_failure_paths(doc):
        pass  # a failure path that loses the work is reported by its own check, never called sound
    elif handling_secs or handling_units:
        where = f"'{handling_secs[0].path}'" if handling_secs else f"'{doc.path_of(handling_units[0].line)}'"
        ctx.ok(f"Failure handling is described in {where}")
    else:
        u, m = sorted(triggers, key=lambda t: t[0].line)[0]
        kinds = [k for k, found in (("remote calls", calls), ("queues", queues), ("batch jobs", batches),
                                    ("operations on other systems", operations)) if found]
        ctx.add(
            "no-failure-handling",
            title="No failure handling for remote dependencies", section=doc.title or doc.path_of(u.line),
            issue=(f"The design depends on {', '.join(kinds)} ({len(triggers)} mentions) and has no section or sentence on what happens when they fail, time out or return errors."
                   + (f" Its diagram draws a '{short(drawn[0][1].group(0), 30)}' that no sentence explains." if drawn else "")),
            why="The first dependency outage turns into undefined behaviour: requests hang, work is lost or repeated, and on-call has no documented response.",
            suggestion="Add a failure-handling section: for each dependency state the timeout, the retry policy, the fallback or degraded mode, and the alert.",
            evidence=quote_of(u, m.group(0)), key="no-failure-handling")
    if drawn and (handling_secs or handling_units):
        u, m = drawn[0]
        what = short(m.group(0), 30)
        ctx.add(
            "failure-path-only-drawn",
            title=f"Failure handling drawn but never described: {what}", section=doc.path_of(u.line),
            issue=(f"The design's diagram draws a '{what}' path ('{short(u.plain, 70)}'), and no sentence says which failures take it, "
                   "what is retried or timed out before, or what happens to the work that lands there."),
            why="A failure path nobody specified is built by guess: what is parked, retried or lost on a failure is decided in code, without review.",
            suggestion=(f"Describe the failure handling behind the '{what}': which errors and timeouts send work there, the retries before it, "
                        "the fallback while a dependency is down, and who handles what arrives there and how it is replayed."),
            evidence=quote_of(u, m.group(0)), key="drawn-failure-path")
    # remote calls a caller waits for, with no timeout anywhere
    if not calls or design_has(doc, V.timeout_word) or not (handling_secs or handling_units):
        return
    budget = next((r for r in ctx.reqset.reqs for uu, q in quantities_by_unit([r.unit] + r.extra) if "latency" in duration_topics(uu.plain, q)), None)
    waited = [(u, m) for u, m in calls if V.sync_step.search(u.plain) or V.waits_for.search(u.plain) or V.explicit_network.search(u.plain)]
    if budget is None and not waited:
        ctx.not_assessed("timeouts: the design names calls to other systems, but not how they are made or that a caller waits for them")
        return
    u, m = (waited or calls)[0]
    ctx.add(
        "no-timeout", when={"latency-budget": budget is not None},
        title="Remote calls have no timeout", section=doc.path_of(u.line),
        issue=f"The design makes remote calls ('{clause(u.plain, m, 60)}') and never states a timeout or deadline for any of them.",
        why="One slow dependency holds threads and connections until the caller itself stops answering; the failure spreads upstream.",
        suggestion="Set an explicit timeout per remote call, below the caller's own latency budget, and say what happens when it fires.",
        evidence=quote_of(u, m.group(0)), key="no-timeout")


@detector("retries")
def retries(ctx: Ctx) -> None:
    """Retried writes without idempotency, retry state held in memory, retries without end or bound."""
    doc = ctx.artifact
    retries = all_matches(doc, V.retry)
    if not retries:
        return
    writes = [(u, m) for u, m in retries if V.write_op.search(" ".join(v.plain for v in doc.neighbours(u, 1))) and not (V.read_only.search(u.plain) and not V.write_op.search(u.plain))]
    writes.sort(key=lambda t: (doc.in_section_like(t[0], V.sec_goal) or doc.in_section_like(t[0], V.changes_heading), t[0].line))
    dup = ctx.reqset.first_matching(V.dup_sensitive)
    if writes and not design_has(doc, V.idempotent):
        u, m = writes[0]
        ctx.add(
            "retries-without-idempotency", when={"duplicates-forbidden": dup is not None},
            title="Retries without idempotency", section=doc.path_of(u.line),
            issue=f"The design retries a write ('{short(u.plain, 70)}') and never makes the write idempotent or deduplicated.",
            why=("A retry after a lost acknowledgement performs the write twice" + (f", which breaks {dup.label}." if dup else "; duplicates reach users and downstream systems.")),
            suggestion="Attach an idempotency key that stays the same across retries of one logical operation, and deduplicate on it at the receiver.",
            evidence=quote_of(u, m.group(0)), key="retry-idem")
    elif writes:
        iu = next((u for u in doc.units if V.idempotent.search(u.plain)), None)
        if iu is not None:
            ctx.ok(f"Retried writes are paired with idempotency in '{doc.path_of(iu.line)}'")
    volatile = [(u, m) for u, _ in retries for m in [V.retry_in_memory.search(u.plain)] if m and not negated_before(u.plain, m.start(), 30)]
    volatile = [(u, m) for u, m in volatile if not any(V.persisted_retry.search(v.plain) for v in doc.units_under([doc.section_of(u.line)]) if doc.section_of(u.line))]
    if volatile:
        u, m = volatile[0]
        ctx.add(
            "retry-state-in-memory",
            title="Retry state lives only in the worker's memory", section=doc.path_of(u.line),
            issue=f"Retries wait inside the worker ('{short(m.group(0), 40)}'), so the schedule exists only in that process and a restart or deploy resets or loses it.",
            why="Every deploy restarts every pending retry schedule; long retry windows never complete, and a busy worker holds its message the whole time.",
            suggestion="Persist the next attempt time with the message (a table row, a delay queue) and release the worker between attempts.",
            evidence=quote_of(u, V.retry), key="retry-memory")
    forever = all_matches(doc, V.retry_forever)
    if forever:
        u, m = forever[0]
        ctx.add(
            "retries-never-stop",
            title="Retries never stop", section=doc.path_of(u.line),
            issue=f"The design retries without a limit ('{short(m.group(0), 60)}'); a permanent error is retried for ever.",
            why="A poison request consumes capacity indefinitely and hides the failure from alerts; during an outage retries multiply the load.",
            suggestion="Cap the attempts, back off exponentially with jitter, and move exhausted work to a dead-letter store with an alert.",
            evidence=quote_of(u, m.group(0)), key="retry-forever")
    elif not design_has(doc, V.retry_bound):
        u, m = retries[0]
        ctx.add(
            "retries-unbounded",
            title="Retry policy has no bound or backoff", section=doc.path_of(u.line),
            issue="The design retries but states no maximum number of attempts and no backoff.",
            why="Unbounded immediate retries amplify an outage of the dependency they target.",
            suggestion="State the attempt limit, the backoff schedule and what happens after the last attempt.",
            evidence=quote_of(u, m.group(0)), key="retry-bound")


@detector("queues-and-caches")
def queues_and_caches(ctx: Ctx) -> None:
    """Queues with no poison-message or backlog handling; caches with no staleness bound."""
    doc = ctx.artifact
    queues = broker_queues(doc)
    queues.sort(key=lambda t: (doc.in_section_like(t[0], V.changelog_heading), t[0].line))
    if queues and not design_has(doc, V.queue_safety):
        u, m = queues[0]
        ctx.add(
            "queue-without-poison-handling", when={"work-dropped": bool(dropping_failure_paths(doc))},
            title="Queue consumers have no poison-message or backlog handling", section=doc.path_of(u.line),
            issue=f"The design consumes from '{short(m.group(0), 30)}' but says nothing about messages that fail repeatedly, consumer lag, or a growing backlog.",
            why="One malformed message blocks its partition or loops for ever, and a backlog grows unseen until the data is hours late.",
            suggestion="Add a dead-letter path with an alert, and monitor consumer lag against the freshness the requirements need.",
            evidence=quote_of(u, m.group(0)), key="queue")
    caches = all_matches(doc, V.cache)
    cache_secs = {doc.section_of(u.line) for u, _ in caches}
    cache_safe = any((V.cache_safety.search(u.plain) or (V.cache.search(u.plain) and re.search(r"\bfor (?:up to )?\d+\s?(?:ms|s|seconds?|minutes?|hours?|days?)\b", u.plain, re.I)))
                     and (V.cache.search(u.plain) or doc.section_of(u.line) in cache_secs) for u in doc.units)
    if caches and not cache_safe:
        reading = [(u, m) for u, m in caches if re.search(r"\b(poll\w*|read\w*|fetch\w*|serv\w*|through|get\w*|lookup\w*|hit\w*|cached)\b", u.plain, re.I)
                   and not re.search(r"\b(decommission\w*|remov\w*|delet\w*|retir\w*)\b", u.plain, re.I)]
        if not reading:
            return
        u, m = reading[0]
        freshness_req = next((r for r in ctx.reqset.reqs for uu, q in quantities_by_unit([r.unit] + r.extra) if "propagate" in duration_topics(uu.plain, q)), None)
        if freshness_req is None and not V.cache_served.search(" ".join(v.plain for v, _ in reading)):
            ctx.not_assessed("cache staleness: the design caches data, but nothing says stale values reach a reader or a freshness limit")
            return
        ctx.add(
            "cache-without-staleness-bound", when={"freshness-required": freshness_req is not None},
            title="Cached data has no staleness bound", section=doc.path_of(u.line),
            issue=(f"Reads go through a cache ('{short(m.group(0), 30)}') and the design states no TTL, invalidation or cache-control rule, so nothing bounds how old a served value is."
                   + (f" {freshness_req.label} sets a freshness limit that the cache adds delay to." if freshness_req else "")),
            why="Clients keep serving old values after a change for as long as the cache holds them, which is invisible in testing and shows up in incidents.",
            suggestion="State the TTL or invalidation trigger for each cached object and include cache age in the worst-case freshness calculation.",
            evidence=quote_of(u, m.group(0)), key="cache")


@detector("input-bounds")
def input_bounds(ctx: Ctx) -> None:
    """Unbounded input or results, undescribed empty states, concurrent workers without coordination."""
    doc = ctx.artifact
    unb = all_matches(doc, V.unbounded)
    if unb and not design_has(doc, V.limits):
        u, m = unb[0]
        ctx.add(
            "unbounded-input",
            title="Unbounded input or result size", section=doc.path_of(u.line),
            issue=f"The design handles '{short(m.group(0), 40)}' with no pagination, size cap or limit anywhere in the document.",
            why="The largest tenant or file decides memory use and response time; one oversized request degrades the service for everyone.",
            suggestion="Set explicit limits (page size, maximum payload, maximum items per request) and state the behaviour when a request exceeds them.",
            evidence=quote_of(u, m.group(0)), key="unbounded")
    lists = all_matches(doc, V.list_ui)
    if lists and not design_has(doc, V.empty_state):
        u, m = lists[0]
        ctx.add(
            "empty-states-undescribed",
            title="Empty and missing-data states are not described", section=doc.path_of(u.line),
            issue=f"The design shows '{short(m.group(0), 30)}' but never says what happens with no results, missing fields or a first-time user.",
            why="Empty and null cases are the first ones real users hit; undefined behaviour there reads as a broken product.",
            suggestion="Describe the empty, partial and error states for each user-facing list.",
            evidence=quote_of(u, m.group(0)), key="empty")
    conc = all_matches(doc, V.concurrent)
    if conc and not design_has(doc, V.concurrency_safe):
        u, m = conc[0]
        ctx.add(
            "uncoordinated-workers",
            title="Concurrent workers with no coordination", section=doc.path_of(u.line),
            issue=f"The design runs '{short(m.group(0), 40)}' and never says how they avoid processing the same item or overwriting each other.",
            why="Two workers picking the same item double the side effects; lost updates corrupt state without any error.",
            suggestion="State the coordination mechanism: row locks, leases, partitioning by key, or optimistic version checks.",
            evidence=quote_of(u, m.group(0)), key="concurrency")


@detector("permissive-default")
def permissive_default(ctx: Ctx) -> None:
    """Unrecognised input sent down a permissive default path (the first one)."""
    doc = ctx.artifact
    for u, m in all_matches(doc, V.unknown_default):
        ctx.add(
            "unknown-input-permissive",
            title="Unrecognised input takes a permissive default", section=doc.path_of(u.line),
            issue=f"Any value the design does not recognise goes down a default path ('{clause(u.plain, (m.start(), len(u.plain)), 110)}') instead of a safe one.",
            why="New or unexpected values arrive without notice; each one is processed on a path nobody chose for it.",
            suggestion="Send unrecognised values to the most restrictive path, alert on each new value, and make the mapping quick to update.",
            evidence=quote_of(u, m.group(0)), key=f"unknown:{u.line}")
        break


@detector("single-point-of-failure")
def single_point_of_failure(ctx: Ctx) -> None:
    """One instance of something the requirements want available."""
    hit = single_instance(ctx)
    target = next((r for r in ctx.reqset.reqs if V.availability_req.search(r.text)), None)
    if hit is None or target is None:
        return
    u, m = hit
    ctx.add(
        "single-instance", title="Single instance is a single point of failure", section=ctx.artifact.path_of(u.line),
        issue=f"The design runs '{clause(u.plain, m)}', so any crash, deploy or node loss stops the whole function until it restarts; {target.label} sets an availability target.",
        why="Every restart and every bad deploy is a full outage, and the work due during it piles up.",
        suggestion=f"Run at least two instances with the coordination already needed for safety, or show the restart arithmetic against {target.label}.",
        evidence=quote_of(u, m.group(0)), key="spof")


@detector("dismissed-readiness")
def dismissed_readiness(ctx: Ctx) -> None:
    """Readiness questions (failure, rollback, tests, monitoring, skew, outages) answered with a
    dismissal ('None.', 'n/a', 'Not at this time'), one finding per section."""
    doc = ctx.artifact
    by_section: dict[int, list[Dismissal]] = {}
    for d in dismissals(doc):
        by_section.setdefault(d.section.start_line if d.section else 0, []).append(d)
    for start, ds in sorted(by_section.items())[:4]:
        where = ds[0].section.heading if ds[0].section else "the design"
        listed = "; ".join(f"'{short(d.question, 70)}' answered '{short(d.answer, 20)}'" for d in ds[:3])
        ctx.add(
            "readiness-question-dismissed",
            title=f"Readiness question dismissed in '{short(where, 50)}'", section=doc.path_of(ds[0].unit.line),
            issue=f"The design answers {listed}: a dismissal where the question asks how the change fails, is rolled back, tested or watched.",
            why="These answers are what operators rely on when the change misbehaves; a dismissal leaves them to find the failure modes in production.",
            suggestion="Answer each question with the concrete failure modes, signals, tests or steps, or state why it cannot apply to this change.",
            evidence=quote_of(ds[0].unit), key=f"dismissed:{start}")


SECRET_TEXT = {
    "plaintext": ("is kept in plain text", "Anyone who reads the store, a backup or a log copy holds working credentials"),
    "predictable": ("is made from guessable parts", "An attacker who knows or guesses those parts forges a valid one without ever seeing it"),
    "unprotected": ("is stored or logged with no hashing or encryption stated", "Every copy of the store, its backups and its logs carries working credentials"),
}


@detector("secret-handling")
def secret_handling_detector(ctx: Ctx) -> None:
    """Secrets and tokens stored in plain text, stored or logged unprotected, or predictable."""
    doc = ctx.artifact
    seen: set[str] = set()
    for s in secret_handling(doc):
        if s.kind in seen:
            continue
        seen.add(s.kind)
        what, consequence = SECRET_TEXT[s.kind]
        ctx.add(
            "secret-exposed", when={"grants-access": s.access and s.kind != "unprotected"},
            title=f"The {short(s.noun, 30)} {what}", section=doc.path_of(s.unit.line),
            issue=f"The design says '{short(s.unit.plain, 120)}': the {s.noun} {what} ('{short(s.match.group(0), 40)}').",
            why=f"{consequence}{', and this one grants access to an account' if s.access else ''}.",
            suggestion=("Generate it from a cryptographically secure random source with at least 128 bits, store only a salted hash "
                        "(or encrypt it with a managed key), never log it, and give it a short expiry with single use."),
            evidence=quote_of(s.unit, s.match.group(0)), key=f"secret:{s.kind}")


@detector("outage-stops-everything")
def outage_stops_everything(ctx: Ctx) -> None:
    """A dependency's outage that stops the user's work outright, with no fallback or degraded mode
    described beside it."""
    doc = ctx.artifact
    for u in doc.units:
        if u.kind == "heading" or skip_context(doc, u):
            continue
        cond, stop = V.outage_condition.search(u.plain), V.hard_stop.search(u.plain)
        near = " ".join(v.plain for v in doc.neighbours(u, 1))
        if not (cond and stop) or V.fallback.search(near):
            continue
        ctx.add(
            "outage-is-a-hard-stop", title="An outage of a dependency stops the work outright", section=doc.path_of(u.line),
            issue=(f"The design says '{short(u.plain, 120)}': when the dependency cannot answer, everything that needs it stops, "
                   "and the design gives no availability target, fallback or degraded mode for that case."),
            why="Every outage, network block or slow response of that one dependency becomes an outage for all its users at once.",
            suggestion="State the dependency's availability target and what users can still do while it is down (a cached answer, a queue, an explicit override), and how the outage is noticed.",
            evidence=quote_of(u, stop.group(0)), key="outage")
        return


@detector("timeout-without-value")
def timeout_without_value(ctx: Ctx) -> None:
    """A wait or timeout the design relies on without saying how long it is or who sets it."""
    doc = ctx.artifact
    for u, m in all_matches(doc, V.timeout_named):
        block = " ".join(v.plain for v in doc.neighbours(u, 2))
        if time_quantities(block) or re.search(r"\b(configur\w+|default|set by|settable|chosen by)\b", block, re.I):
            continue
        ctx.add(
            "timeout-unsized", title="A wait with no stated bound", section=doc.path_of(u.line),
            issue=f"The design relies on '{clause(u.plain, m, 90)}' and never says how long the wait may last, who sets it, or what it holds meanwhile.",
            why="An unbounded or unspecified wait holds whatever it reserved for as long as it lasts; under load, waiting work piles up and can block the work it waits for.",
            suggestion="State the maximum wait (or its default and who configures it), what resources are held while waiting, and what happens when it expires.",
            evidence=quote_of(u, m.group(0)), key="timeout-unsized")
        return


@detector("key-lifecycle")
def key_lifecycle(ctx: Ctx) -> None:
    """Keys the design relies on with no word on rotating them or recovering from their compromise."""
    doc = ctx.artifact
    keys = all_matches(doc, V.key_noun)
    if not keys or design_has(doc, V.key_lifecycle):
        return
    u, m = keys[0]
    ctx.add(
        "keys-without-rotation", title="No rotation or compromise plan for its keys", section=doc.path_of(u.line),
        issue=f"The design relies on '{short(m.group(0), 40)}' and never says how keys are rotated, revoked or replaced after a compromise or loss.",
        why="Every key leaks or is lost eventually; without a planned rotation the first incident forces an improvised one on every client at once.",
        suggestion="Describe key rotation (how clients learn the new key and for how long both are valid), revocation, and the recovery after a compromise.",
        evidence=quote_of(u, m.group(0)), key="keys")
