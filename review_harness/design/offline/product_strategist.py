"""The product strategist: who the user is, how success is measured, what is must-have and what
is explicitly not being done; requirement wording no test can check.
"""

from __future__ import annotations

import re

from review_harness.core.markdown import Sentence
from review_harness.design.offline.document import Doc, document, quote_of, short
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.shared_checks import check_priorities, vague_requirements
from review_harness.design.offline.vocabulary import V


@detector("success-metric")
def success_metric(ctx: Ctx) -> None:
    """A measurable success criterion or outcome (not just a delivery event)."""
    docs = ctx.framing_docs
    doc = docs[0]
    success_units: list[tuple[Doc, Sentence]] = []
    for d in docs:
        success_units += [(d, u) for u in d.units_under(d.headings_matching(V.sec_success)) if u.kind != "heading"]
    measured = [(d, u) for d, u in success_units if V.success_metric.search(u.plain)]
    if measured:
        d, u = measured[0]
        ctx.ok(f"A measurable success criterion is stated in '{d.path_of(u.line)}'")
        return
    for d in docs:
        outcome = [u for u in d.units if re.search(r"\b(increase|reduce|improve|raise|cut|lower|grow|decrease)\w*\b", u.plain, re.I) and V.success_metric.search(u.plain)]
        if outcome:
            ctx.ok(f"A measurable outcome is stated in '{d.path_of(outcome[0].line)}'")
            return
    delivery = next(((d, u) for d in docs for u in d.body_units() if V.delivery_event.search(u.plain) and d.in_section_like(u, V.timeline_heading)), None) or next(
        ((d, u) for d in docs for u in d.body_units() if V.delivery_event.search(u.plain) and d.in_section_like(u, V.sec_goal)), None)
    where = success_units[0] if success_units else delivery
    issue = "The requirements never say which number moves, by how much, or by when, if the project works."
    if delivery is not None:
        issue += f" The only outcome named is a delivery event ('{short(delivery[1].plain, 70)}'), which shows the work shipped, not that it helped."
    ctx.add(
        "no-measurable-success",
        title="No measurable success criterion", section=where[0].path_of(where[1].line) if where else (doc.title or "Requirements"),
        issue=issue,
        why="Without a target nobody can tell after launch whether the work paid off, and scope debates have no tie-breaker.",
        suggestion="Add one to three success metrics with a baseline, a target and a date.",
        evidence=quote_of(where[1], V.delivery_event if where is delivery else None) if where else None, key="no-metric")


@detector("named-user")
def named_user(ctx: Ctx) -> None:
    """The documents name who uses the result."""
    doc = document("framing", "\n\n".join(d.text for d in ctx.framing_docs))
    m = V.named_user.search(doc.lower)
    if m:
        ctx.ok(f"The requirements name who uses the result ('{m.group(0).strip()}')")
        return
    ctx.add(
        "no-user-named",
        title="No user or customer is named", section=doc.title or "Requirements",
        issue="The requirements describe what to build without naming who uses it or what job it does for them.",
        why="Without a named user, priorities and trade-offs have no anchor and the team cannot validate the scope with anyone.",
        suggestion="Name the primary user or customer, the task they are trying to finish, and how they do it today.",
        evidence=None, key="no-user")


@detector("vague-requirement-words")
def vague_requirement_words(ctx: Ctx) -> None:
    vague_requirements(ctx, "untestable-adjective", title="Requirement uses an untestable adjective")


@detector("prioritisation")
def prioritisation(ctx: Ctx) -> None:
    """Everything marked must, or the won't-have list left open."""
    check_priorities(ctx)


@detector("scope-limits")
def scope_limits(ctx: Ctx) -> None:
    """The requirements say what is out of scope, deferred or the minimum first release."""
    doc = ctx.requirements if not ctx.requirements.empty else ctx.artifact
    if ctx.reqset.nongoals or doc.headings_matching(V.sec_nongoal) or re.search(r"\b(out of scope|not in scope|non-goals?|mvp|nice[- ]to[- ]have|won'?t)\b", doc.lower):
        ctx.ok("The requirements state what is out of scope or deferred")
        return
    ctx.add(
        "scope-without-limits",
        title="Scope has no stated limits", section=doc.title or "Requirements",
        issue="The requirements never say what is out of scope, what can wait, or what the minimum first release is.",
        why="Without stated limits every adjacent request looks in scope, and the first release keeps growing.",
        suggestion="Add a non-goals list and mark which requirements form the first release.",
        evidence=None, key="no-scope")
