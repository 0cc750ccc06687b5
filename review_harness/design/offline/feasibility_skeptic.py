"""The feasibility skeptic: whether the design can be built and run as written: stated capacity
against the required peak, the cost of new infrastructure, adjectives instead of figures, bulk
changes run as one statement, and a plan without estimates.
"""

from __future__ import annotations

import re

from review_harness.core.text import negated_before
from review_harness.core.markdown import Sentence, subtree_end
from review_harness.design.offline.document import Doc, all_matches, clause, committed_units, design_has, plan_tasks, quote_of, short
from review_harness.design.offline.quantities import rates
from review_harness.design.offline.reading import effort_estimates
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.scope import nongoal_hits
from review_harness.design.offline.shared_checks import single_instance
from review_harness.design.offline.vocabulary import V, term_set

# infrastructure every team already runs: naming it is no new operating cost
COMMODITY_INFRA = {"postgres", "postgresql", "mysql", "redis", "prometheus", "grafana", "kubernetes", "k8s"}


@detector("capacity-below-peak")
def capacity_below_peak(ctx: Ctx) -> None:
    """The design's own throughput figure is below the peak rate the requirements state."""
    doc = ctx.artifact
    peak = None
    for r in ctx.reqset.reqs:
        for u in [r.unit] + r.extra:
            if not V.load_req.search(u.plain) and not re.search(r"\b(at least|support|handle|absorb|sustain)\b", u.plain, re.I):
                continue
            for val, m in rates(u.plain):
                if peak is None or val > peak[0]:
                    peak = (val, m, r, u)
    if peak is None:
        return
    need, pm, r, _ = peak
    for u in committed_units(doc):
        if u.kind == "heading" or not V.capacity_words.search(u.plain):
            continue
        found = rates(u.plain)
        if not found:
            continue
        have, hm = max(found, key=lambda t: t[0])
        if have >= need * 0.9:
            return
        ctx.add(
            "capacity-below-required-peak", when={"must": r.priority == "must"},
            title="Stated capacity is below the required peak", section=doc.path_of(u.line),
            issue=(f"The design's own figure is '{hm.group(0).strip()}', while {r.label} asks for '{pm.group(0).strip()}'; "
                   "as specified, the system falls behind at peak and the backlog grows for as long as the peak lasts."),
            why=f"Work queues up at exactly the moment {r.label} is about, so every latency and freshness target downstream of it fails too.",
            suggestion=f"Size the system from the peak in {r.label}, show the arithmetic (per-worker rate, worker count, headroom), and test it at that load.",
            evidence=quote_of(u, hm.group(0)), key=f"rate:{u.line}")
        return


@detector("hidden-costs")
def hidden_costs(ctx: Ctx) -> None:
    """New infrastructure with no cost estimate, more components than requirements, effort spent on excluded scope."""
    doc = ctx.artifact
    infra_new = []
    for u, m in all_matches(doc, V.infra):
        if re.search(r"\b(existing|current|already|today)\b", u.plain, re.I):
            continue
        infra_new.append((u, m))
    names = sorted({mm.group(0).lower() for u, _ in infra_new for mm in V.infra.finditer(u.plain)} - COMMODITY_INFRA)
    ops = all_matches(doc, V.operate)
    has_estimate = design_has(doc, V.estimate)
    if (len(names) >= 2 or ops) and not has_estimate:
        u, m = (ops or infra_new)[0]
        ctx.add(
            "no-operating-cost-estimate",
            title="Operating cost of new infrastructure has no estimate", section=doc.path_of(u.line),
            issue=f"The design brings in {', '.join(names) if names else short(m.group(0), 40)} to run and operate, and gives no estimate of hosting cost, build effort or on-call load.",
            why="Running stateful infrastructure costs money and people every month after launch; without an estimate nobody can weigh it against a simpler option.",
            suggestion="Add a cost section: monthly hosting, build effort, and who is on call for each new piece, compared with the managed or simpler alternative.",
            evidence=quote_of(u, m.group(0)), key="cost")
    n_reqs = len([r for r in ctx.reqset.reqs if r.priority != "wont"])
    new_components = all_matches(doc, V.new_component)
    n_comp = len({m.group(0).lower() for _, m in new_components}) + len(names)
    if n_reqs and n_comp >= 5 and n_comp > n_reqs:
        u, m = (new_components or infra_new)[0]
        ctx.add(
            "more-parts-than-requirements",
            title="More moving parts than requirements", section=doc.path_of(u.line),
            issue=f"The design introduces {n_comp} new components or technologies for {n_reqs} requirements.",
            why="Each component adds deployment, monitoring and failure modes; the team pays that cost for as long as the system lives.",
            suggestion="Map each component to the requirement it serves and remove the ones without one; prefer extending an existing system for the rest.",
            evidence=quote_of(u, m.group(0)), key="components")
    for ng, sec, unit, _ in nongoal_hits(ctx):
        end = subtree_end(doc.sections, sec)
        effort = next((u for u in doc.units if V.effort.search(u.plain) and (sec.start_line <= u.line <= end or term_set(u.plain) & term_set(sec.heading))), None)
        if effort is None:
            continue
        em = V.effort.search(effort.plain)
        ctx.add(
            "effort-on-excluded-scope",
            title="Large share of effort goes to excluded scope", section=doc.path_of(effort.line),
            issue=f"The design's own estimate puts a large share of the work ('{short(em.group(0), 50)}') into '{sec.heading}', which the requirements exclude.",
            why="That effort delays the required scope by the same amount, and the excluded part adds infrastructure to build and run.",
            suggestion=f"Drop '{sec.heading}' and re-plan the required scope with the freed effort; if it matters, propose it as a separate change to the requirements.",
            evidence=quote_of(effort, em.group(0)), key=f"effort:{sec.start_line}")
    if has_estimate:
        eu = next((u for u in doc.units if V.estimate.search(u.plain)), None)
        if eu is not None:
            ctx.ok(f"The design gives cost or effort figures in '{doc.path_of(eu.line)}'")


@detector("single-instance-capacity")
def single_instance_capacity(ctx: Ctx) -> None:
    """Capacity resting on one instance, not derived from the load the requirements state."""
    hit = single_instance(ctx)
    target = next((r for r in ctx.reqset.reqs if V.load_req.search(r.text) and r.numbers), None) or next(
        (r for r in ctx.reqset.reqs if V.availability_req.search(r.text)), None)
    if hit is None or target is None:
        return
    u, m = hit
    ctx.add(
        "capacity-on-one-instance", title="Capacity rests on a single instance", section=ctx.artifact.path_of(u.line),
        issue=f"The design sizes the system as '{clause(u.plain, m)}' without deriving that from {target.label} ('{short(target.quote, 70)}').",
        why="If the peak exceeds what one instance handles, work falls behind at exactly the moment it matters, and scaling out is untested.",
        suggestion=f"Derive throughput from the figures in {target.label}, including how the work is spread over time, and size the instances from that.",
        evidence=quote_of(u, m.group(0)), key="single-capacity")


def _nearby_text(doc: Doc, u: Sentence) -> str:
    """The text (code blocks included) of the section holding ``u`` and of its sibling sections
    under one parent below the title: where a measurement an adjective sums up would be."""
    s = doc.section_of(u.line)
    if s is None:
        return u.plain
    parent = next((p for p in reversed(doc.sections[: doc.sections.index(s)]) if p.level < s.level), None)
    top = parent if parent is not None and parent.level >= 2 else s
    end = subtree_end(doc.sections, top)
    return " ".join(v.plain for v in doc.units_with_code if top.start_line <= v.line <= end)


@detector("vague-claims")
def vague_claims(ctx: Ctx) -> None:
    """Performance, scale, cost or reliability claimed with an adjective and no figure."""
    doc = ctx.artifact
    for topic, pat in V.vague.items():
        hits = [(u, m) for u, m in all_matches(doc, pat) if not re.search(r"\d", u.plain) and not negated_before(u.plain, m.start(), 25)
                and not doc.in_section_like(u, V.sec_illustrative)
                and not V.benefit_to_others.search(u.plain[max(0, m.start() - 90): m.start()])
                and not V.quality_aimed.search(u.plain[max(0, m.start() - 40): m.start()])]
        measured = [(u, m) for u, m in hits if V.measured_figure[topic].search(_nearby_text(doc, u))]
        for u, _ in measured[:1]:
            ctx.ok(f"The {topic} wording in '{doc.path_of(u.line)}' sums up figures measured beside it")
        hits = [h for h in hits if h not in measured]
        if not hits:
            continue
        u, m = hits[0]
        target = next((r for r in ctx.reqset.reqs if V.vague_req_topic[topic].search(r.text) and r.numbers), None)
        words_used = sorted({mm.group(0).lower() for _, mm in hits})[:4]
        ctx.add(
            "adjective-without-number", when={"requirement-sets-number": target is not None},
            title=f"{topic.capitalize()} claimed without a number", section=doc.path_of(u.line),
            issue=(f"The design calls itself {', '.join(repr(w) for w in words_used)} ({len(hits)} place{'s' if len(hits) > 1 else ''}) without a figure."
                   + (f" {target.label} sets a number ('{short(target.quote, 60)}') that the design never shows it meets." if target else "")),
            why="An adjective cannot be checked against a requirement or a load test, so the gap shows up only in production.",
            suggestion=(f"State the expected figure and how it was derived, and compare it with {target.label}." if target
                        else "Replace the adjective with the expected figure (latency percentile, throughput, cost per month) and how it was derived."),
            evidence=quote_of(u, m.group(0)), key=f"vague:{topic}")


@detector("bulk-operations")
def bulk_operations(ctx: Ctx) -> None:
    """A bulk change over millions of rows run as one statement or transaction."""
    doc = ctx.artifact
    if not design_has(doc, V.volume):
        return
    for u, m in all_matches(doc, V.bulk_single):
        if V.batched.search(" ".join(v.plain for v in doc.neighbours(u, 1))):
            continue
        ctx.add(
            "bulk-change-unbatched",
            title="Bulk change runs as one statement or transaction", section=doc.path_of(u.line),
            issue=f"The design runs '{clause(u.plain, m, 90)}' over tables the document sizes in millions of rows or terabytes, with no batching.",
            why="One huge statement holds locks for its whole run, bloats the table and its log, and delays replicas; a failure rolls everything back.",
            suggestion="Process the change in bounded batches with a checkpoint, and measure lock time and replication lag on a production-sized copy.",
            evidence=quote_of(u, m.group(0)), key=f"bulk:{u.line}")
        return


@detector("plan-estimates")
def plan_estimates(ctx: Ctx) -> None:
    tasks = plan_tasks(ctx.artifact)
    if len(tasks) < 3:
        return
    if not design_has(ctx.artifact, V.plan_sizing):
        u = tasks[0][1]
        ctx.add(
            "no-estimates",
            title="Plan has no estimates or dates", section=ctx.artifact.path_of(u.line),
            issue=f"The plan lists {len(tasks)} tasks and no estimate, milestone or date for any of them.",
            why="Without sizes nobody can see the critical path or notice slippage until the deadline passes.",
            suggestion="Size each task and mark the tasks on the critical path.",
            evidence=quote_of(u), key="estimates")


@detector("estimate-vs-scope")
def estimate_vs_scope(ctx: Ctx) -> None:
    """An effort estimate below what its own scope takes: at least a person-day per requirement
    and three per new component or service, before testing and rollout."""
    doc = ctx.artifact
    estimates = effort_estimates(doc)
    if not estimates:
        return
    reqs = [r for r in ctx.reqset.reqs if r.priority != "wont"]
    components = {m.group(0).lower() for _, m in all_matches(doc, V.new_component)}
    tasks = plan_tasks(doc) if ctx.stage == "plan" else []
    floor = len(reqs) + 3 * len(components) + 0.5 * len(tasks)
    est = min(estimates, key=lambda e: e.person_days)
    if floor < 3 or est.person_days >= floor:
        ctx.ok(f"The estimate '{short(est.raw, 40)}' leaves room for the scope it covers")
        return
    parts = [f"{n} {what}" for n, what in ((len(reqs), "requirements"), (len(components), "new components"), (len(tasks), "tasks")) if n]
    ctx.add(
        "estimate-below-scope",
        title="Estimate is far below the scope it covers", section=doc.path_of(est.unit.line),
        issue=(f"The estimate is '{est.raw}' ({est.person_days:g} person-days), for {', '.join(parts)}. Even one person-day per "
               f"requirement and three per new component comes to {floor:g} person-days, before testing, review and rollout."),
        why="The schedule is committed on a figure the scope cannot meet; the slip shows late, when cutting scope is most expensive.",
        suggestion="Estimate each requirement and component separately, add testing and rollout, and reconcile the total with the date or cut the scope.",
        evidence=quote_of(est.unit, est.raw), key="estimate")
