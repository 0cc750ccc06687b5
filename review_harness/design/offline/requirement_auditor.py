"""The requirement auditor: traceability both ways (every requirement met, nothing built that no
requirement asks for), requirements that contradict each other or the design, and requirements
no test can check.
"""

from __future__ import annotations

import re

from review_harness.core.markdown import Sentence, plain, subtree_end
from review_harness.core.text import negated_before
from review_harness.design.offline.conflicts import CONFLICT_WHY, find_conflicts, fragment
from review_harness.design.offline.document import all_matches, clause, committed_units, quote_of, short, skip_context, unit_terms
from review_harness.design.offline.quantities import same_quantity_pairs, stated_durations, time_quantities
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.requirements import Req, req_label
from review_harness.design.offline.scope import nongoal_hits
from review_harness.design.offline.shared_checks import check_priorities, vague_requirements
from review_harness.design.offline.vocabulary import (
    ID_PREFIX,
    NEGATION_SPAN,
    STOPWORDS,
    V,
    canon_id,
    cites,
    ids_referenced,
    numbers_in,
    stem,
    surface_words,
    term_set,
    written_words,
)


@detector("conflicting-requirements")
def conflicting_requirements(ctx: Ctx) -> None:
    """Requirements that cannot both hold, and design statements that break a requirement's limit."""
    conflicts = find_conflicts(ctx)
    per_req: dict[int, int] = {}
    for c in conflicts:
        if c.b_req is None:
            per_req[id(c.a_req)] = per_req.get(id(c.a_req), 0) + 1
    reported: set[int] = set()
    ctx.conflicted = {id(c.a_req) for c in conflicts} | {id(c.b_req) for c in conflicts if c.b_req is not None}
    for c in conflicts:
        a_label = c.a_req.rid or "a requirement"
        a_frag = fragment(c.a_unit, c.a_q)
        b_frag = fragment(c.b_unit, c.b_q)
        if c.b_req is not None:
            b_label = (c.b_req.rid or "another requirement") if c.b_req is not c.a_req else "itself"
            ctx.add(
                "requirements-disagree",
                title=(f"Requirement {a_label} contradicts itself" if c.b_req is c.a_req else
                       f"Requirements {a_label} and {b_label} cannot both hold" if c.a_req.rid and c.b_req.rid else "Two requirements cannot both hold"),
                section=ctx.requirements.path_of(c.a_unit.line) if not ctx.requirements.empty else ctx.artifact.path_of(c.a_unit.line),
                issue=f"{a_label} ('{a_frag}') conflicts with {b_label} ('{b_frag}'): {CONFLICT_WHY[c.kind]}.",
                why="The design inherits the conflict: whichever requirement it honours, it fails the other, and no design revision fixes that. Review of the design stalls until the requirements agree.",
                suggestion=f"Resolve the conflict in the requirements before design review continues: decide which of {a_label} and {b_label} wins, or scope one of them so the two no longer overlap, and record the decision.",
                evidence=quote_of(c.a_unit, c.a_q.raw if c.a_q else None), key=f"conf:{c.a_req.line}:{c.b_req.line}",
            )
        else:
            if id(c.a_req) in reported:
                continue
            reported.add(id(c.a_req))
            more = per_req[id(c.a_req)] - 1
            doc = ctx.artifact
            ctx.add(
                "design-contradicts-requirement", when={"must": c.a_req.priority == "must"},
                title=f"Design contradicts {a_label}" if c.a_req.rid else "Design contradicts a stated requirement",
                section=doc.path_of(c.b_unit.line),
                issue=(f"The design states '{b_frag}', but {a_label} requires '{a_frag}': {CONFLICT_WHY[c.kind]}."
                       + (f" {more} other statement{'s' if more > 1 else ''} in the design conflict with {a_label} the same way." if more else "")),
                why=f"The design fails {a_label} as written{' — a must requirement' if c.a_req.priority == 'must' else ''}; every case that hits the limit breaks it.",
                suggestion=f"Change the mechanism so its worst case fits inside {a_label} ('{a_frag}'), and show the worst-case arithmetic in this section.",
                evidence=quote_of(c.b_unit, c.b_q.raw if c.b_q else None), key=f"dconf:{c.a_req.line}:{c.b_unit.line}",
            )
    if not conflicts and len(ctx.reqset.reqs) >= 2:
        ctx.ok(f"Checked {len(ctx.reqset.reqs)} requirements for conflicting limits (retention, propagation, latency, all-versus-none) and found none")


def _coverage(ctx: Ctx, r: Req) -> tuple[float, bool, float]:
    """(share of the requirement's distinctive terms the design uses, whether its figures appear,
    the best share inside one section)."""
    doc = ctx.artifact
    dist = ctx.reqset.distinctive(r)
    if not dist:
        return 1.0, True, 1.0
    units = committed_units(doc)
    terms_by_unit = [(u.line, unit_terms(u)) for u in units]
    all_terms = set().union(set(), *(t for _, t in terms_by_unit))
    cov = len(dist & all_terms) / len(dist)
    nums = set().union(set(), *(numbers_in(u.plain) for u in units))
    nums_ok = (not r.numbers) or bool(r.numbers & nums)
    best_sec = 0.0
    for sec in doc.sections:
        if not (sec.level > 1 or len(doc.sections) < 4):
            continue
        end = subtree_end(doc.sections, sec)
        sec_terms = set().union(set(), *(t for line, t in terms_by_unit if sec.start_line <= line <= end))
        if sec_terms:
            best_sec = max(best_sec, len(dist & sec_terms) / len(dist))
    return cov, nums_ok, best_sec


_ACTION = re.compile(r"\b(?:must|shall|should|may|can|could|will|needs? to|has to|have to)\s+(?:not\s+)?(?:be\s+able\s+to\s+|be\s+)?([a-z]+)", re.I)


def requirement_action(text: str) -> str | None:
    """The stemmed verb a requirement asks for ('Users must be able to export ...' -> export)."""
    m = _ACTION.search(text)
    if not m:
        return None
    t = term_set(m.group(1))
    return next(iter(t)) if t else None


def _passage_for(ctx: Ctx, r: Req) -> tuple[float, Sentence | None]:
    """The design passage (a sentence with its neighbours in one section) that carries most of the
    requirement's distinctive terms: (the share it carries, its central sentence). Coverage is
    claimed by a passage that does the requirement, never by words scattered over the document."""
    doc = ctx.artifact
    dist = ctx.reqset.distinctive(r)
    if not dist:
        return 1.0, None
    best, best_u = 0.0, None
    action = requirement_action(r.text)
    units = committed_units(doc)
    terms = {id(u): unit_terms(u) for u in units}
    for u in units:
        if u.kind == "heading":
            continue
        pool = set(terms[id(u)])
        for v in doc.neighbours(u, 1):
            pool |= terms.get(id(v), set())
        sec = doc.section_of(u.line)
        if sec is not None:
            pool |= term_set(sec.heading)
        hit = dist & pool
        own = dist & (terms[id(u)] | (term_set(sec.heading) if sec is not None else set()))
        if not (dist & terms[id(u)]) or (action and action in own and not (own - {action})):
            continue  # centred on a sentence that says part of it, with its heading more than the verb alone
        figure = 1 if r.numbers and r.numbers & numbers_in(u.plain) else 0  # the requirement's own figure counts as a term
        share = min(1.0, (len(hit) + figure) / len(dist))
        if share > best and (len(hit) + figure >= 2 or len(dist) <= 2):
            best, best_u = share, u
    return best, best_u


def _deferral_for(ctx: Ctx, r: Req) -> Sentence | None:
    """The design sentence that pushes ``r`` to later work, if any."""
    doc = ctx.artifact
    dist = ctx.reqset.distinctive(r) - {"futur", "iter", "releas", "first", "scop"}
    for u, _ in doc.find(V.deferral):
        pool = [u] + [v for v in doc.neighbours(u, 1) if v is not u]
        sec = doc.section_of(u.line)
        t = set().union(*(term_set(v.plain) for v in pool)) | (term_set(sec.heading) if sec else set())
        t -= {"futur", "iter", "releas", "first", "scop", "add"}
        ov = dist & t
        if r.rid and r.rid in ids_referenced(" ".join(v.plain for v in pool)):
            return u
        if len(ov) >= 2 or (len(ov) >= 1 and len(ov) >= 0.5 * max(1, len(t & set(ctx.reqset.df)))):
            # prefer the unit of the pool that names the deferred thing
            best = max(pool, key=lambda v: len(term_set(v.plain) & dist))
            return best if term_set(best.plain) & dist else u
    return None


@detector("traceability")
def traceability(ctx: Ctx) -> None:
    """Each requirement traced to the design by id or by its key terms; untraced ones reported
    (deferred without agreement, or missing)."""
    if ctx.stage == "requirements":
        return
    rs = ctx.reqset
    doc = ctx.artifact
    if not rs.reqs:
        if rs.narrative and not ctx.requirements.empty:
            ctx.not_assessed("traceability: the requirements are prose (a summary, a motivation, goals) with no "
                             "requirement items, so coverage is not traced item by item")
            return
        if not ctx.requirements.empty:
            ctx.add(
                "no-checkable-requirements", title="Requirements state nothing the design can trace",
                section=ctx.requirements.title or "Requirements",
                issue="The requirements document has no requirement ids and no statements with must, shall, should or needs to, so no part of the design can be traced to a requirement.",
                why="Without checkable requirements every coverage judgement is opinion; gaps and gold-plating go unnoticed for the whole design.",
                suggestion="Number the requirements (R1, R2, …) and state each one as a verifiable must or should statement.",
                evidence=None, key="noreqs")
        return
    referenced = ids_referenced(doc.text) | {
        canon_id(r.rid) for r in rs.reqs if r.rid and cites(doc.text, r.rid)}
    conflicted = ctx.conflicted
    untraced: list[tuple[Req, str]] = []
    traced = 0
    for r in rs.reqs:
        if r.priority == "wont":
            continue
        if r.rid and canon_id(r.rid) in referenced:
            traced += 1
            u = next((u for u in doc.units if cites(u.plain, r.rid)), None)
            if u is not None and len(ctx.fine) < ctx.rules.limits.checked_and_fine:
                ctx.ok(f"Requirement {r.rid} is referenced in '{doc.path_of(u.line)}'")
            continue
        cov, nums_ok, best_sec = _coverage(ctx, r)
        lead = req_label(r)
        compounds = {w.lower() for w in re.findall(r"\b[a-z]+(?:-[a-z]+){1,3}\b", lead, re.I)}
        missing_key = {c for c in compounds if c not in doc.lower and c.replace("-", " ") not in doc.lower}
        if missing_key and cov < 0.85:
            cov, best_sec = min(cov, 0.3), min(best_sec, 0.3)
        share, passage = _passage_for(ctx, r)
        # a passage that does most of it covers it (a missing part or figure is partial coverage's)
        # or the design's wording covers it and a passage or one section carries it (never words
        # scattered over the document alone)
        wording = (cov >= 0.6 and nums_ok) or (cov >= 0.45 and r.numbers and nums_ok)
        if share >= 0.5 or ((wording or best_sec >= 0.5) and (share >= 0.15 or best_sec >= 0.5)):
            traced += 1
            if len(ctx.fine) < ctx.rules.limits.checked_and_fine:
                what = f"{r.rid} ('{short(r.quote, 50)}')" if r.rid else r.label
                ctx.ok(f"{what} is covered by '{short(quote_of(passage), 90)}' ({doc.path_of(passage.line)})" if passage is not None
                       else f"{what} is covered by the section that carries {int(round(best_sec * 100))}% of its key terms")
            continue
        if id(r) in conflicted:
            continue
        untraced.append((r, "deferred" if _deferral_for(ctx, r) else "missing"))
        ctx.conflicted.add(id(r))
    total = sum(1 for r in rs.reqs if r.priority != "wont")
    missing = [r for r, how in untraced if how == "missing"]
    order = {"must": 0, "should": 1, "could": 2}
    for r, how in sorted(untraced, key=lambda t: (order.get(t[0].priority, 1), t[0].line)):
        if how == "deferred":
            u = _deferral_for(ctx, r)
            assert u is not None
            ctx.add(
                "deferred-without-agreement", when={"must": r.priority == "must"},
                title=f"{r.rid or 'A requirement'} deferred without agreement",
                section=doc.path_of(u.line),
                issue=f"The design pushes {r.label} to a later release, but the requirements list it as {r.priority} and do not mark it optional; the design gives no reason and no owner for the deferral.",
                why=f"{r.label} ships missing with nobody having agreed to drop it; its stakeholders find out at launch.",
                suggestion=f"Either design {r.label} now, or record the descoping as an agreed change to the requirements with an owner and a date.",
                evidence=quote_of(u), key=f"defer:{r.line}")
            continue
        where = "the plan" if ctx.stage == "plan" else "the design"
        ctx.add(
            "untraced-requirement", when={"must": r.priority == "must", "should": r.priority == "should"},
            title=f"{r.rid} is not addressed by {where.split()[-1]}" if r.rid else f"Requirement not addressed: {short(r.text, 50)}",
            section=ctx.req_section(r),
            issue=(f"{where.capitalize()} never references {r.label} and covers few of its key terms "
                   f"({', '.join(surface_words(r.text, ctx.reqset.distinctive(r) - doc.terms)[:5]) or 'none matched'} are absent)."),
            why=(f"{len(missing)} of {total} requirements have no trace in {where}; "
                 f"{r.label} is {'a must requirement, so the design fails acceptance without it' if r.priority == 'must' else 'left to chance in implementation'}."),
            suggestion=f"Add the part of {where} that satisfies {r.label}, and cite {r.rid or 'the requirement'} in that section so the trace is explicit.",
            evidence=r.quote, key=f"untraced:{r.line}")
    if traced and total:
        ctx.ok(f"{traced} of {total} requirements trace to the design by id or wording")


@detector("builds-non-goal")
def builds_non_goal(ctx: Ctx) -> None:
    """Design sections that build what the requirements rule out of scope."""
    hits = nongoal_hits(ctx)
    doc = ctx.artifact
    for ng, sec, unit, _ in hits:
        effort = next((u for u in doc.units if sec.start_line <= u.line <= subtree_end(doc.sections, sec) and V.effort.search(u.plain)), None)
        effort = effort or next((u for u in doc.units if V.effort.search(u.plain) and term_set(u.plain) & term_set(sec.heading)), None)
        ctx.add(
            "builds-excluded-scope", title="Design builds what the requirements rule out of scope", section=doc.path_of(unit.line),
            issue=(f"The design's section '{sec.heading}' takes on '{short(ng.unit.plain, 60)}', which the requirements list under "
                   f"'{ng.section.split(' > ')[-1]}'; no requirement asks for it."),
            why=("Effort goes to excluded work instead of the required scope" +
                 (f"; the design itself sizes it ('{short(effort.plain, 80)}')" if effort else "") + ", and the excluded feature adds components to build and run."),
            suggestion=f"Remove '{sec.heading}' from this design, or get the requirements changed first if the scope decision is wrong.",
            evidence=quote_of(unit), key=f"nongoal:{sec.start_line}")
    if ctx.reqset.nongoals and not hits and ctx.stage != "requirements":
        ctx.ok(f"The design stays clear of the {len(ctx.reqset.nongoals)} out-of-scope items in '{ctx.reqset.nongoals[0].section}'")


@detector("gold-plating")
def gold_plating(ctx: Ctx) -> None:
    """Extras the design adds 'while we are at it' with no requirement behind them."""
    if ctx.stage == "requirements" or ctx.requirements.empty:
        return
    doc = ctx.artifact
    # requirements written as prose (a summary, goals) are read by all their words
    req_terms = set().union(set(), *(r.terms for r in ctx.reqset.all)) if ctx.reqset.reqs else ctx.requirements.terms
    for u, m in all_matches(doc, V.gold_plating):
        if negated_before(u.plain, m.start(), NEGATION_SPAN):
            continue
        t = term_set(u.plain) - {"futur", "proof", "bonus", "nice"}
        if not t or (not ctx.reqset.reqs and not V.extra_addition.search(u.plain)):
            continue  # against prose requirements, only an addition announced as one counts
        cov = len(t & req_terms) / len(t)
        if cov >= 0.5:
            continue
        component = bool(V.new_component.search(u.plain) or V.infra.search(u.plain)
                         or re.search(r"\b(engines?|services?|clusters?|pipelines?|platforms?|frameworks?|databases?|modules?|dashboards?)\b", u.plain, re.I)
                         or len(t - req_terms) >= 8)  # a feature of its own, many things no requirement names
        ctx.add(
            "unrequested-scope", when={"adds-components": component},
            title="Extra scope with no requirement behind it", section=doc.path_of(u.line),
            issue=f"The design adds '{short(u.plain, 70)}', and no requirement asks for it ({int(round(cov * 100))}% of its key terms appear in the requirements).",
            why="Every unrequested feature costs build time, test time and upkeep that the required scope needs, and widens what can fail.",
            suggestion="Cut it from this design, or add it to the requirements with a priority and a reason so it is weighed against the rest.",
            evidence=quote_of(u, m.group(0)), key=f"gold:{u.line}")


@detector("hidden-not-deleted")
def hidden_not_deleted(ctx: Ctx) -> None:
    """A requirement demands deletion and the design hides, suppresses or deactivates instead."""
    doc = ctx.artifact
    if ctx.stage == "requirements":
        return
    for r in ctx.reqset.reqs:
        demands = [m for m in V.delete.finditer(r.text) if not negated_before(r.text, m.start(), 30)
                   and m.group(0).lower() not in ("gone", "expire", "expires", "expired", "ages out")]
        if not demands or r.priority == "wont":
            continue
        dist = ctx.reqset.distinctive(r)
        candidates = []
        for u in committed_units(doc):
            m = V.hide_instead.search(u.plain)
            if not m or u.kind == "heading":
                continue
            sec = doc.section_of(u.line)
            near = term_set(u.plain) | (term_set(sec.heading) if sec else set())
            cited = bool(r.rid and sec and cites(sec.heading + " " + u.plain, r.rid))
            if cited or len(near & dist) >= 2:
                candidates.append((not cited, -len(near & dist), -len(V.hide_instead.findall(u.plain)), u.line, u, m))
        for *_, u, m in sorted(candidates, key=lambda t: t[:4])[:1]:
            ctx.add(
                "hides-instead-of-deleting", when={"must": r.priority == "must"},
                title=f"Design hides data that {r.rid or 'a requirement'} requires deleted", section=doc.path_of(u.line),
                issue=(f"{r.label} requires the data to be deleted, but the design '{clause(u.plain, m, 100)}': "
                       "the data still exists, and every copy, export and access path outside this filter still reaches it."),
                why=f"Hiding is not deletion: {r.label} is not met, and the first audit or breach shows the data is still held.",
                suggestion=f"Delete (or irreversibly destroy access to) the data itself to satisfy {r.label}, or get the requirement changed if hiding is acceptable.",
                evidence=quote_of(u, m.group(0)), key=f"hidden:{r.line}")
            ctx.conflicted.add(id(r))
            return


@detector("skipped-preconditions")
def skipped_preconditions(ctx: Ctx) -> None:
    """A requirement allows an action only after a condition; the design or plan does the action without it."""
    if ctx.stage == "requirements":
        return
    doc = ctx.artifact
    for r in ctx.reqset.reqs:
        for ru in [r.unit] + r.extra:
            m = V.precondition.search(ru.plain)
            if not m:
                continue
            text = re.sub(r"\s*\|\s*", " ", ru.plain)
            m = V.precondition.search(text)
            before, after = text[:m.start()], re.split(r"(?<!\d)[.;](?!\d)", text[m.end():])[0]
            clause_before = re.split(r"[.;:]", before)[-1].strip()
            clause_before = ID_PREFIX.sub("", clause_before, count=1).strip() if ID_PREFIX.match(clause_before) else clause_before
            tail = [w for w in written_words(clause_before) if w.lower() not in STOPWORDS and w.lower() not in ("is", "are", "be")]
            if not tail:
                continue
            verb = stem(tail[-1])
            condition = term_set(after)
            if len(condition) < 2 or len(verb) < 4:
                continue
            for u in committed_units(doc):
                if u.kind == "heading" or verb not in term_set(u.plain):
                    continue
                pool = term_set(" ".join(v.plain for v in doc.neighbours(u, 2)))
                if len(pool & condition) >= 0.5 * len(condition):
                    continue
                word = next((w for w in written_words(u.plain) if stem(w) == verb), "")
                ctx.add(
                    "precondition-skipped", when={"must": r.priority == "must"},
                    title=f"Action taken without the precondition {r.rid or 'a requirement'} sets", section=doc.path_of(u.line),
                    issue=(f"{r.label} allows '{short(clause_before, 50)}' only {short(m.group(0)[5:] + ' ' + after, 70)}; "
                           f"the {'plan' if ctx.stage == 'plan' else 'design'} does it ('{short(u.plain, 70)}') with no step that meets that condition."),
                    why=f"The safeguard {r.label} demands is skipped, so the first problem it exists to catch reaches production with no way back.",
                    suggestion=f"Add the step that satisfies the condition of {r.label} before '{word or 'this step'}', and make it the gate for that step.",
                    evidence=quote_of(u, word or None), key=f"pre:{r.line}")
                ctx.conflicted.add(id(r))
                break


@detector("discarded-data")
def discarded_data(ctx: Ctx) -> None:
    """The design throws away data that a requirement says must be kept or delivered."""
    doc = ctx.artifact
    if ctx.stage == "requirements":
        return
    guards = [r for r in ctx.reqset.reqs if V.keep_guarantee.search(r.text)]
    if not guards:
        return
    for u in committed_units(doc):
        m = V.discard.search(u.plain)
        if not m or u.kind == "heading" or negated_before(u.plain, m.start(), 40):
            continue
        if re.search(r"\b(otherwise|unless|if not|in case)\b", u.plain[max(0, m.start() - 60): m.end() + 30], re.I):
            continue
        if re.search(r"\b(catch\w*|detect\w*|alert\w*|monitor\w*|measur\w*)\b", u.plain, re.I):
            continue
        sec = doc.section_of(u.line)
        t = term_set(u.plain) | (term_set(sec.heading) if sec else set())
        best = max(guards, key=lambda r: len(t & ctx.reqset.distinctive(r)))
        if not t & ctx.reqset.distinctive(best):
            continue
        ctx.add(
            "discards-kept-data", when={"must": best.priority == "must"},
            title=f"Design discards data that {best.rid or 'a requirement'} requires kept", section=doc.path_of(u.line),
            issue=f"The design states '{clause(u.plain, m, 100)}', while {best.label} requires '{short(best.quote, 80)}'.",
            why=f"Every discarded item is lost for good: {best.label} fails silently, and the loss surfaces only when a customer notices what never arrived.",
            suggestion=f"Keep the data on that path (store it, delay it or dead-letter it) for as long as {best.label} requires, and alert when the path is taken.",
            evidence=quote_of(u, m.group(0)), key=f"discard:{u.line}")
        ctx.conflicted.add(id(best))
        return


@detector("partial-coverage")
def partial_coverage(ctx: Ctx) -> None:
    """A requirement the design addresses in part: one of its sentences has no counterpart."""
    if ctx.stage == "requirements":
        return
    doc = ctx.artifact
    units = committed_units(doc)
    design_terms = set().union(set(), *(unit_terms(u) for u in units))
    referenced = ids_referenced(doc.text)
    design_durs = {round(q.seconds) for u in units for q in time_quantities(u.plain) if not V.period_word.fullmatch(q.raw)}
    common = {t for t, n in ctx.reqset.df.items() if n >= 3}
    n = 0
    for r in ctx.reqset.reqs:
        if r.priority == "wont" or not r.extra or id(r) in ctx.conflicted:
            continue
        parts = [r.unit] + r.extra
        for s in parts:
            others = set().union(set(), *(term_set(o.plain) for o in parts if o is not s))
            t = term_set(s.plain) - common - others
            if len(t) < 2:
                continue
            cov = len(t & design_terms) / len(t)
            nums = {round(q.seconds) for q in time_quantities(s.plain) if not V.period_word.fullmatch(q.raw)}
            cited = bool(r.rid and (canon_id(r.rid) in referenced or cites(doc.text, r.rid)))
            if cited and cov >= 0.2:
                continue
            if cov < 0.34 or (cov <= 0.5 and nums and not nums & design_durs):
                n += 1
                ctx.add(
                    "partly-addressed", title=f"{r.rid or 'A requirement'} is only partly addressed", section=ctx.req_section(r),
                    issue=(f"The design covers part of {r.label}, but nothing in it answers '{short(s.plain, 90)}' "
                           f"({', '.join(surface_words(s.plain, t - design_terms)[:4])}: not in the design)."),
                    why=f"The missing part of {r.label} ships unbuilt while the requirement looks covered at a glance.",
                    suggestion=f"Add the design for that part of {r.label} and cite {r.rid or 'the requirement'} where it is handled.",
                    evidence=quote_of(s), key=f"partial:{r.line}")
                break
        if n >= 3:
            return


@detector("default-breaks-prohibition")
def default_breaks_prohibition(ctx: Ctx) -> None:
    """A permissive default for unrecognised input where a requirement forbids that path for some values."""
    doc = ctx.artifact
    for u, m in all_matches(doc, V.unknown_default):
        action = term_set(u.plain[m.start():])
        for r in ctx.reqset.reqs:
            if not V.prohibition.search(r.text):
                continue
            ov = (action & r.terms) - {"code", "default"}
            if len(ov) >= 1 and (len(term_set(u.plain) & r.terms) >= 2):
                ctx.add(
                    "permissive-default-breaks-prohibition",
                    title=f"Default for unrecognised input can break {r.rid or 'a prohibition'}", section=doc.path_of(u.line),
                    issue=f"Unrecognised values take the permissive path ('{clause(u.plain, (m.start(), len(u.plain)), 110)}'), while {r.label} forbids that path for some values; any new value that belongs to the forbidden class breaks {r.rid or 'it'}.",
                    why=f"The breach happens silently, on exactly the inputs nobody planned for, and {r.label} is {r.priority}.",
                    suggestion=f"Default unrecognised values to the restrictive path that {r.label} allows, alert on each new value, and make the mapping fast to update.",
                    evidence=quote_of(u, m.group(0)), key=f"default:{u.line}")
                ctx.conflicted.add(id(r))
                break


@detector("untestable-requirements")
def untestable_requirements(ctx: Ctx) -> None:
    vague_requirements(ctx, "untestable-wording", title="Requirement cannot be verified as written")


@detector("requirement-priorities")
def requirement_priorities(ctx: Ctx) -> None:
    """At the requirements stage: requirements that are not ranked, or all ranked must."""
    check_priorities(ctx, missing="no-priorities")


@detector("duplicate-ids")
def duplicate_ids(ctx: Ctx) -> None:
    for rid, a, b in ctx.reqset.duplicate_ids:
        if plain(a.text) == plain(b.text):
            continue
        ctx.add(
            "id-used-twice", title=f"Requirement id {rid} is used twice", section=ctx.req_section(b),
            issue=f"{rid} names two different requirements ('{short(a.text, 50)}' and '{short(b.text, 50)}').",
            why="Every trace, test and review comment that cites the id is ambiguous.",
            suggestion=f"Give the second requirement its own id and update references to {rid}.",
            evidence=b.quote, key=f"dup:{rid}")


@detector("inconsistent-figures")
def inconsistent_figures(ctx: Ctx) -> None:
    """The document under review states one measured thing (a token's expiry, a timeout, a latency
    limit) with two values far apart."""
    doc = ctx.artifact
    stated = stated_durations(u for u in doc.units if not skip_context(doc, u))
    for a, b in same_quantity_pairs(stated, stated)[:2]:
        if a.unit.line > b.unit.line:
            continue
        ctx.add(
            "figures-disagree", title=f"The {'document' if doc is ctx.requirements else 'design'} gives one {a.topic} two values",
            section=doc.path_of(b.unit.line),
            issue=(f"'{short(a.unit.plain, 90)}' ({a.qty.raw}) and '{short(b.unit.plain, 90)}' ({b.qty.raw}) state the same "
                   f"{a.topic} for {', '.join(sorted(surface_words(a.unit.plain + ' ' + b.unit.plain, a.about & b.about))[:3]) or 'the same thing'}."),
            why="Whichever value the implementation follows, the other statement is wrong, and the reader cannot tell which one was meant.",
            suggestion=f"Decide the {a.topic} once, state it in one place, and refer to it elsewhere.",
            evidence=quote_of(b.unit, b.qty.raw), key=f"figures:{a.unit.line}:{b.unit.line}")
