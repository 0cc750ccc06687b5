"""The first principles challenger: whether the problem is stated and measured, and whether the
design optimises what the requirements ask for rather than something they rule out.
"""

from __future__ import annotations

import re

from review_harness.core.markdown import plain
from review_harness.core.text import NEGATION
from review_harness.design.offline.document import clause, committed_units, quote_of, short
from review_harness.design.offline.reading import OpenItem, open_decisions
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.scope import nongoal_hits, nongoal_terms
from review_harness.design.offline.vocabulary import V, term_set


@detector("problem-statement")
def problem_statement(ctx: Ctx) -> None:
    """The document says what problem it solves, for whom, before the solution (at the
    requirements stage the brief it answers may say it)."""
    doc = ctx.artifact
    if doc.empty:
        return
    # the problem may be framed in either document: a design need not repeat its requirements' motivation
    for framing in ctx.framing_docs:
        goal_secs = framing.headings_matching(V.sec_goal)
        early = [u for u in framing.body_units()[:8]]
        stated = next((u for u in early if V.problem_sentence.search(u.plain) or V.purpose_sentence.search(u.plain)), None)
        if goal_secs or stated is not None:
            where = goal_secs[0].path if goal_secs else framing.path_of(stated.line if stated else early[0].line)
            ctx.ok(f"The {'document' if framing is doc else 'brief'} states its purpose in '{where}'")
            return
    # a problem statement is asked of a document that proposes a change (requirements always do);
    # one that describes how something already works (an architecture overview, a reference, a
    # lifecycle) is read as what it is
    units = [u for framing in ctx.framing_docs for u in framing.body_units() if u.kind != "heading"]
    plans = sum(1 for u in units if V.plan_sentence.search(u.plain))
    proposes = (ctx.stage == "requirements" or bool(ctx.reqset.reqs) or any(V.proposal_marker.search(u.plain) for u in units)
                or plans >= min(PLAN_SENTENCES, PLAN_SHARE * len(units)))
    if not proposes:
        ctx.not_assessed("the problem statement (the documents describe how something works and propose no change, "
                         "so there is no problem for them to state)" if not plans else
                         f"the problem statement ({plans} of {len(units)} passages read as plans, too few to take the "
                         "documents for a proposal; if they propose a change, they do not say what problem it solves)")
        return
    what = "requirements" if doc is ctx.requirements else "design"
    both = len(ctx.framing_docs) > 1
    ctx.add(
        "problem-not-stated",
        title="The problem being solved is never stated", section=doc.title or "(top of document)",
        issue=(f"The {what}{' and the document it answers' if both else ''} {'have' if both else 'has'} no goal, problem or "
               "background section and never say what problem is solved or for whom before describing the solution."),
        why="Reviewers cannot judge whether the approach fits, and the team cannot tell when the work is done; solution-first documents routinely solve the wrong problem.",
        suggestion=f"Open the {what} with the problem, who has it, what it costs today, and the outcome that counts as solved.",
        evidence=None, key="no-problem")


# a document proposes when this many of its passages plan, or this share of them (a short design)
PLAN_SENTENCES, PLAN_SHARE = 3, 0.25


@detector("anecdotal-problem")
def anecdotal_problem(ctx: Ctx) -> None:
    """The problem statement rests on anecdotes, with no measurement of the problem itself."""
    for doc in ctx.framing_docs:
        secs = [s for s in doc.headings_matching(V.sec_goal) if s.level > 1 or len(doc.sections) < 3]
        units = [u for u in doc.units_under(secs) if u.kind != "heading"] or doc.body_units()[:6]
        anecdotes = [(u, m) for u in units for m in [V.anecdote.search(u.plain)] if m]
        if not anecdotes:
            continue
        anecdotes += [(u, m) for u in units for m in [V.anecdote_weak.search(u.plain)] if m and not V.anecdote.search(u.plain)]
        if any(V.measured.search(u.plain) for u in units if not (V.anecdote.search(u.plain) or V.anecdote_weak.search(u.plain))):
            continue
        u, m = anecdotes[0]
        ctx.add(
            "problem-rests-on-anecdotes",
            title="Problem rests on anecdotes, not data", section=doc.path_of(u.line),
            issue=(f"The case for the work is '{clause(u.plain, m, 90)}', and the problem statement gives no measurement of how often "
                   "the problem happens, how much it costs, or where it comes from."),
            why="Without a measured problem the team cannot tell whether the proposed solution addresses the real cause, or whether it worked afterwards.",
            suggestion="Measure the problem before committing to a solution: how often it happens, for whom, and which step causes it; use that as the baseline.",
            evidence=quote_of(u, m.group(0)), key="anecdote")
        return


@detector("objective-is-non-goal")
def objective_is_non_goal(ctx: Ctx) -> None:
    """The design states as its objective something the requirements list as a non-goal."""
    doc = ctx.artifact
    if ctx.stage == "requirements" or doc is ctx.requirements:
        return
    for u in committed_units(doc):
        if u.kind == "heading" or not (V.objective.search(u.plain) or doc.in_section_like(u, V.sec_goal)):
            continue
        t = term_set(u.plain)
        for ng in ctx.reqset.nongoals:
            _, head = nongoal_terms(ctx, ng)
            if len(head) >= 2 and head <= t and not re.search(r"\b(not (?:a |an |the |our )?(?:goal|aim|objective)|non-goal|out of scope)\b", u.plain, re.I):
                primary = bool(V.primary_objective.search(u.plain))
                ctx.add(
                    "objective-excluded", when={"primary-objective": primary},
                    title="Design's objective is one of the requirements' non-goals",
                    section=doc.path_of(u.line),
                    issue=(f"The design sets out to '{short(u.plain, 90)}', while the requirements list '{short(ng.unit.plain, 60)}' as a non-goal. "
                           "The design answers a different problem from the one the requirements pose, and what they do ask for becomes a side effect."),
                    why="Every later decision follows the stated objective, so the required outcomes are met only where they happen to coincide with it.",
                    suggestion="Restate the objective in the requirements' terms and rework the approach from it; if the non-goal matters, change the requirements first.",
                    evidence=quote_of(u), key=f"objective:{u.line}")
                return


@detector("success-criteria")
def success_criteria(ctx: Ctx) -> None:
    """The requirements' success criteria have a counterpart in the design."""
    if ctx.stage == "requirements":
        return
    doc = ctx.artifact
    misses = []
    for s in ctx.reqset.success:
        lead = re.split(r"[(:—–]| - ", s.unit.plain)[0]
        lead_terms = term_set(" ".join(lead.split()[:5]))
        if len(lead_terms) < 2:
            continue
        if len(lead_terms & doc.terms) / len(lead_terms) < 0.34:
            misses.append(s)
        else:
            ctx.ok(f"Success criterion '{short(s.text, 50)}' is reflected in the design")
    if misses:
        s = misses[0]
        ctx.add(
            "success-criteria-unaddressed",
            title="Design never addresses the requirements' success criteria", section=doc.title or "Design",
            issue=(f"{len(misses)} of {len(ctx.reqset.success)} success criteria have no counterpart in the design, starting with '{short(s.text, 70)}'. "
                   "The design optimises for something other than what the requirements will measure."),
            why="The project is judged on these criteria; a design that never mentions them delivers features and still fails its own goal.",
            suggestion="State in the design's goals how each success criterion is met and measured, and let that decide the priorities of the design.",
            evidence=s.quote, key="success")


@detector("goal-drift")
def goal_drift(ctx: Ctx) -> None:
    """The design's goals take on a non-goal that the design body also builds."""
    doc = ctx.artifact
    hits = nongoal_hits(ctx)
    if not hits or any(f.key.startswith("objective:") for f in ctx.findings):
        return
    goal_units = [u for u in doc.units_under([s for s in doc.headings_matching(V.sec_goal) if s.level > 1 or len(doc.sections) < 3])
                  if u.kind != "heading"] or doc.body_units()[:4]
    for ng, sec, _, _ in hits:
        full, head = nongoal_terms(ctx, ng)
        lead = term_set(" ".join(plain(ng.unit.plain).split()[:3])) & full
        for u in goal_units:
            if sec.start_line <= u.line <= sec.end_line:
                continue
            if term_set(u.plain) & (lead or head) and not NEGATION.search(u.plain):
                ctx.add(
                    "objective-includes-excluded",
                    title="Design's objective includes what the requirements exclude", section=doc.path_of(u.line),
                    issue=(f"The design's stated goal takes on '{short(ng.text, 50)}', which the requirements put out of scope, and '{sec.heading}' builds it. "
                           "The design is solving a broader problem than the one agreed."),
                    why="A different objective pulls every later decision toward scope nobody asked for, and the agreed problem gets the leftover effort.",
                    suggestion="Restate the design's goals in the requirements' terms; if the broader goal is right, take it back to the requirements first.",
                    evidence=quote_of(u), key=f"drift:{u.line}")
                return


@detector("open-decisions")
def open_decisions_left(ctx: Ctx) -> None:
    """Decisions the design itself says are still open. Many of them across its sections mean it
    is not ready to plan against (Critical); a few are reported where they sit."""
    doc = ctx.artifact
    if doc.empty or ctx.stage == "requirements":
        return
    said = [(u, m) for u in doc.body_units() for m in [V.self_unfinished.search(u.plain)] if m]
    if said:
        u, m = said[0]
        where = doc.section_of(u.line)
        opening = where is None or where.level <= 1  # above its first section: said of the whole text
        ctx.add(
            "document-unfinished", when={"opening": opening},
            title="The document says it is unfinished or out of date", section=doc.path_of(u.line),
            issue=(f"The document says '{clause(u.plain, m)}'{' at its top, of the whole text' if opening else ''}: what it "
                   "describes may no longer be what is built, or may stop short of it."),
            why="Reviewing, planning or building against text its own authors call incomplete or stale means deciding on what they have not settled.",
            suggestion="Finish or update the text (or mark exactly which parts are current) before it is reviewed as the design.",
            evidence=quote_of(u, m.group(0)), key="unfinished")
    items = open_decisions(doc)
    if not items:
        return
    rule = ctx.rules.limits
    groups: dict[int, list[OpenItem]] = {}
    for it in items:
        groups.setdefault(it.group.start_line if it.group else 0, []).append(it)
    distinct = {(k, it.unit.block) for k, g in groups.items() for it in g}
    areas = [g[0].group.heading if g[0].group else (doc.title or "the design") for g in groups.values()]

    def pick(its: list[OpenItem]) -> OpenItem:
        """The plainest admission: 'we don't know yet' before 'still investigating' before a question."""
        return sorted(its, key=lambda it: (not V.open_undecided.search(it.unit.plain), not it.decisive, it.match is None,
                                           it.unit.line))[0]

    if len(distinct) >= rule.open_decisions_critical and len(groups) >= rule.open_sections_critical:
        lead = pick(items)
        shown = ", ".join(f"'{a}'" for a in areas[:6]) + (f" and {len(areas) - 6} more" if len(areas) > 6 else "")
        ctx.add(
            "design-left-open", when={"many": True},
            title="The design leaves its own decisions open", section=doc.path_of(lead.unit.line),
            issue=(f"The design says {len(distinct)} of its decisions are still open, across {len(groups)} sections ({shown}); "
                   f"for example '{short(lead.unit.plain, 90)}'. What is open is part of how the design works, not later work."),
            why="A plan built on it has to make these decisions itself, in code, without review; every open decision is rework risk for whoever builds on the design.",
            suggestion="Decide the open points (or state the chosen option and its fallback) before planning, or cut the scope to what is decided and move the rest to a later design.",
            evidence=quote_of(lead.unit), key="open:all")
        return
    for start, its in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:3]:
        lead = pick(its)
        where = its[0].group.heading if its[0].group else "the design"
        listed = "; ".join(f"'{short(it.unit.plain, 60)}'" for it in its[:4])
        ctx.add(
            "design-left-open", when={"several": len({it.unit.block for it in its}) >= 2 or lead.decisive},
            title=f"Open decision in '{short(where, 50)}'", section=doc.path_of(lead.unit.line),
            issue=f"The design leaves {len({it.unit.block for it in its})} point(s) in '{where}' open: {listed}.",
            why="Whatever is built around an open point is built on a guess; the decision gets made later, in code, without review.",
            suggestion=f"Decide the open point(s) in '{where}' before planning, or state the option the plan assumes and what would change it.",
            evidence=quote_of(lead.unit), key=f"open:{start}")
