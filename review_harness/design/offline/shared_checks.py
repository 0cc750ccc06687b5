"""Checks two personas run, each from its own angle: a timeout read as a definite outcome (the
edge case prober and the assumption hunter), a single instance (the prober sees a single point
of failure, the feasibility skeptic unproven capacity), requirement wording no test can check and
priorities that do not rank anything (the requirement auditor and the product strategist).
"""

from __future__ import annotations

import re

from review_harness.core.markdown import Sentence
from review_harness.design.offline.document import Doc, all_matches, cap, clause, quote_of, short
from review_harness.design.offline.registry import Ctx
from review_harness.design.offline.requirements import without_ids
from review_harness.design.offline.vocabulary import V


def ambiguous_outcome(ctx: Ctx, finding: str, persona_view: str) -> None:
    """A timeout or lost response read as a definite failure, then retried."""
    doc = ctx.artifact
    dup = ctx.reqset.first_matching(V.dup_sensitive)
    for u, m in all_matches(doc, V.timeout_definite):
        block = " ".join(v.plain for v in doc.neighbours(u, 1))
        retried = bool(V.retry.search(u.plain) or V.retry.search(block))
        new_key = re.search(r"\bnew (?:attempt|key|id|request id|idempotency key)|\battempt (?:number|no)\b", block + " " + doc.lower, re.I)
        req_note = f" {dup.label} forbids exactly that." if dup else ""
        if persona_view == "assumption":
            title = "Timeout taken as proof the operation failed"
            issue = (f"The design treats '{clause(u.plain, m)}' as a known outcome. A timeout says only that no answer arrived: "
                     f"the other side has often completed the work.{' The retry then repeats it.' if retried else ''}{req_note}")
        else:
            title = "Unknown outcome after a timeout is retried as a failure"
            issue = (f"When the call times out the design {'retries' if retried else 'gives up'} as if nothing happened, with no step that checks whether the first call took effect."
                     f"{' The retry runs under a new attempt identity, so the receiver cannot deduplicate it.' if new_key and retried else ''}{req_note}")
        ctx.add(
            finding, when={"retried": retried, "retried-against-requirement": retried and dup is not None},
            title=title, section=doc.path_of(u.line), issue=issue,
            why=("Each timed-out call that succeeded on the far side is executed twice; at any non-zero timeout rate this repeats every cycle"
                 + (f", breaking {dup.label}." if dup else ".")),
            suggestion=("Treat a timeout as unknown: retry with the same idempotency key as the original call, or query the operation's status before "
                        "scheduling another attempt, and only then count it as failed."),
            evidence=quote_of(u, m.group(0)), key=f"timeout-outcome:{u.line}")


def single_instance(ctx: Ctx) -> tuple[Sentence, re.Match[str]] | None:
    """The first sentence that runs the work on one instance (not one of several)."""
    hits = [(u, m) for u, m in all_matches(ctx.artifact, V.single_instance)
            if not re.search(r"\b\d+\s+(?:workers|instances|replicas|pods|nodes|servers)\b", u.plain, re.I)
            and not re.match(r"\s+(?:delivers|handles|processes|can|does|takes|serves|at a time)", u.plain[m.end():])]
    return hits[0] if hits else None


def vague_requirements(ctx: Ctx, finding: str, title: str) -> None:
    """Requirements that rest on an adjective with no threshold (at most four)."""
    reqs = ctx.reqset.reqs
    count = 0
    for r in reqs:
        for u in [r.unit] + r.extra:
            m = V.vague_req_words.search(u.plain)
            if not m or re.search(r"\d", without_ids(u.plain)):  # a figure, not the digits of an id ('R1:')
                continue
            count += 1
            if count > 4:
                break
            ctx.add(
                finding, when={"must": r.priority == "must"}, title=title, section=ctx.req_section(r),
                issue=f"{cap(r.label)} relies on '{m.group(0)}', which has no threshold, so no test can pass or fail it.",
                why="An unmeasurable requirement is accepted by opinion: the design cannot be checked against it and disputes surface at launch.",
                suggestion=f"Replace '{m.group(0)}' with a measurable target (a number, a percentile, a task-completion rate) and say how it is measured.",
                evidence=quote_of(u, m.group(0)), key=f"vague:{u.line}")
            break


def explicit_priorities(doc: Doc) -> bool:
    """Whether the document labels priorities (MoSCoW or P0-P3 headings, a priority column, or
    labels inside the requirements such as '(Should)')."""
    return any(pat.search(s.heading) for s in doc.sections for pat in V.priority_section.values()) or any(
        u.kind == "table" and any(p.match(c) for c in u.cells for p in V.priority_cell.values()) for u in doc.units) or any(
        pat.search(u.plain) for u in doc.units for pat in V.priority_inline.values())


def check_priorities(ctx: Ctx, missing: str | None = None) -> None:
    """Everything marked must, or the won't-have list left open ('scope-not-prioritised'); with
    `missing`, also four or more requirements none of which carries a priority of its own."""
    rs = ctx.reqset
    live = [r for r in rs.reqs if r.priority != "wont"]
    musts = [r for r in live if r.priority == "must"]
    doc = ctx.requirements if not ctx.requirements.empty else ctx.artifact
    wont_secs = [s for s in doc.sections if V.priority_section.wont.search(s.heading) or V.sec_nongoal.search(s.heading)]
    wont_units = [u for u in doc.units_under(wont_secs) if u.kind != "heading"]
    open_wont = next((u for u in wont_units if V.tbd.search(u.plain)), None)
    explicit = explicit_priorities(doc)
    too_many = explicit and len(musts) >= 6 and len(musts) >= 0.6 * len(live)
    if missing and not explicit and len(live) >= 4 and len({r.priority for r in live}) == 1:
        ctx.add(
            missing, title="Requirements carry no priority", section=ctx.req_section(live[0]),
            issue=f"None of the {len(live)} requirements is ranked: there is no must / should / could split and no priority column.",
            why="Without priorities the design cannot trade one requirement against another, and the first cut is made under schedule pressure.",
            suggestion="Rank each requirement (for example must, should, could, won't) and say what the first release cannot ship without.",
            evidence=live[0].quote, key="no-priorities")
        return
    if not (too_many or open_wont):
        if explicit and live:
            ctx.ok(f"Priorities are assigned: {len(musts)} of {len(live)} requirements are must-haves")
        return
    parts = []
    if too_many:
        parts.append(f"{len(musts)} of {len(live)} requirements are must-haves, so the priority labels do not separate anything")
    if open_wont is not None:
        parts.append(f"the won't-have list is left open ('{short(open_wont.plain, 40)}')")
    ctx.add(
        "scope-not-prioritised",
        title="Scope is not prioritised", section=doc.path_of((open_wont or musts[0].unit).line),
        issue=cap("; ".join(parts)) + ".",
        why="When everything is required, the team discovers the real priorities when the schedule slips, and the cut is made under pressure instead of by choice.",
        suggestion="Keep must-have for what the first release cannot ship without, move the rest down, and list what is explicitly not being done and why.",
        evidence=quote_of(open_wont) if open_wont is not None else musts[0].quote, key="priorities")
