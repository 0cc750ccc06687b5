"""Conflicts the requirement auditor finds in figures and fixed wording: two requirements that
cannot both hold (retention against deletion, propagation against a delivery cycle, a tight
latency against synchronous cross-region writes, a latency limit against a synchronous step that
takes longer, a rule for all against a prohibition for some),
and design statements whose worst case breaks a requirement's limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from review_harness.core.markdown import Sentence
from review_harness.design.offline.document import short, skip_context
from review_harness.design.offline.quantities import (
    Qty,
    duration_topics,
    quantities_by_unit,
    same_quantity_pairs,
    stated_durations,
    time_quantities,
)
from review_harness.design.offline.registry import Ctx
from review_harness.design.offline.requirements import Req
from review_harness.design.offline.vocabulary import ID_PREFIX, V, term_set


def subject_terms(text: str) -> set[str]:
    """What a statement is about: its terms without the words of keeping and deleting."""
    drop = {"retent", "delet", "stor", "archiv", "preserv", "held", "hold", "within", "after", "log", "record", "kept"}
    return {t for t in term_set(text) if t not in drop}


def design_scope(a: str, b: str) -> bool:
    """Scope check for a requirement against the design of the same system: shared subject or both about stored data."""
    return scope_overlap(a, b) or bool(V.data_noun.search(a) and V.data_noun.search(b))


def scope_overlap(a: str, b: str) -> bool:
    sa, sb = subject_terms(a), subject_terms(b)
    if sa & sb:
        return True
    return bool(V.universal.search(a) or V.universal.search(b)) and bool(re.search(r"\b(data|records?|information|personal|pii|everything)\b", a + " " + b, re.I))


@dataclass
class Conflict:
    a_req: Req
    a_unit: Sentence
    a_q: Qty | None
    b_unit: Sentence
    b_q: Qty | None
    b_req: Req | None  # None: the other side is the design
    kind: str


def find_conflicts(ctx: Ctx) -> list[Conflict]:
    """Each pair of statements that cannot both hold, once (the requirement first)."""
    rs = ctx.reqset
    req_items: list[tuple[Req, Sentence, Qty, set[str]]] = []
    for r in rs.reqs + rs.success:
        for u, q in quantities_by_unit([r.unit] + r.extra):
            topics = duration_topics(u.plain, q)
            if topics:
                req_items.append((r, u, q, topics))
    out: list[Conflict] = []
    seen: set[tuple] = set()

    def push(c: Conflict) -> None:
        key = (c.a_req.line, c.b_req.line if c.b_req else -c.b_unit.line, c.kind)
        if key not in seen and (c.b_req is None or (c.b_req.line, c.a_req.line, c.kind) not in seen):
            seen.add(key)
            out.append(c)

    # requirement against requirement
    for i, (ra, ua, qa, ta) in enumerate(req_items):
        for rb, ub, qb, tb in req_items[i + 1:]:
            if ra is rb:
                continue
            if "retain" in ta and "delete" in tb and qa.seconds > qb.seconds and scope_overlap(ua.plain, ub.plain):
                push(Conflict(ra, ua, qa, ub, qb, rb, "retention"))
            elif "delete" in ta and "retain" in tb and qb.seconds > qa.seconds and scope_overlap(ua.plain, ub.plain):
                push(Conflict(rb, ub, qb, ua, qa, ra, "retention"))
            elif "propagate" in ta and "delivery" in tb and qb.seconds > qa.seconds:
                push(Conflict(ra, ua, qa, ub, qb, rb, "freshness"))
            elif "delivery" in ta and "propagate" in tb and qa.seconds > qb.seconds:
                push(Conflict(rb, ub, qb, ua, qa, ra, "freshness"))
    for ra, ua, qa, ta in req_items:
        if "latency" in ta and qa.seconds <= 0.1:
            for rb in rs.reqs:
                if rb is ra:
                    continue
                for ub in [rb.unit] + rb.extra:
                    if V.sync_xregion.search(ub.plain):
                        push(Conflict(ra, ua, qa, ub, None, rb, "latency-sync"))
    # a latency limit against a synchronous step that alone takes longer (in another requirement or its own)
    for ra, ua, qa, ta in req_items:
        if "latency" not in ta:
            continue
        for rb in rs.reqs:
            for ub in [rb.unit] + rb.extra:
                if not V.sync_step.search(ub.plain) or V.sync_xregion.search(ub.plain):
                    continue
                slow = [q for q in time_quantities(ub.plain) if q.bound in ("exact", "lower") and q.seconds > qa.seconds
                        and not (ub is ua and q.start == qa.start)]
                if slow:
                    push(Conflict(ra, ua, qa, ub, slow[0], rb, "latency-step"))
                    break
    # one measured thing (a token's expiry, a timeout) stated with two values
    req_stated = stated_durations(u for r in rs.reqs + rs.success for u in [r.unit] + r.extra)
    owner = {id(u): r for r in rs.reqs + rs.success for u in [r.unit] + r.extra}
    for a, b in same_quantity_pairs(req_stated, req_stated):
        if a.unit.line < b.unit.line:
            push(Conflict(owner[id(a.unit)], a.unit, a.qty, b.unit, b.qty, owner[id(b.unit)], "same-quantity"))
    # universal against prohibition
    for ra in rs.reqs:
        if not V.universal.search(ra.text) or V.prohibition.search(ra.text):
            continue
        ta = term_set(ra.text)
        for rb in rs.reqs:
            if rb is ra or not V.prohibition.search(rb.text):
                continue
            if not re.search(r"\b(must not|shall not|never|cannot|no)\b", rb.text, re.I):
                continue
            tb = term_set(rb.text)
            ov = ta & tb
            if len(ov) >= 2 and len(ov) >= 0.6 * min(len(ta), len(tb)) and len(tb - ta) <= 2:
                push(Conflict(ra, ra.unit, None, rb.unit, None, rb, "all-vs-none"))
    # requirement against design
    if ctx.stage != "requirements" and not ctx.artifact.empty and ctx.artifact is not ctx.requirements:
        doc = ctx.artifact
        d_items = []
        for u, q in quantities_by_unit(doc.units):
            if u.kind == "heading" or skip_context(doc, u):
                continue
            t = duration_topics(u.plain, q)
            if t:
                d_items.append((u, q, t))
        for ra, ua, qa, ta in req_items:
            for ub, qb, tb in d_items:
                if "propagate" in ta and "delivery" in tb and qb.seconds > qa.seconds:
                    push(Conflict(ra, ua, qa, ub, qb, None, "freshness"))
                elif "retain" in ta and "delete" in tb and qa.seconds > qb.seconds and design_scope(ua.plain, ub.plain):
                    push(Conflict(ra, ua, qa, ub, qb, None, "retention"))
                elif "delete" in ta and "retain" in tb and qb.seconds > qa.seconds and design_scope(ua.plain, ub.plain):
                    push(Conflict(ra, ua, qa, ub, qb, None, "retention"))
                elif ("delete" in ta and "delete" in tb and qa.bound == "upper" and qb.bound in ("upper", "exact")
                      and qb.seconds > qa.seconds and design_scope(ua.plain, ub.plain)):
                    push(Conflict(ra, ua, qa, ub, qb, None, "deletion"))
                elif "timeout" in ta and "timeout" in tb and qb.seconds > qa.seconds * 1.001:
                    push(Conflict(ra, ua, qa, ub, qb, None, "timeout"))
                elif "rpo" in ta and "backup" in tb and qb.seconds > qa.seconds:
                    push(Conflict(ra, ua, qa, ub, qb, None, "rpo"))
            if "latency" in ta:  # a synchronous step of the design that alone takes longer than the limit
                for ub in doc.units:
                    if ub.kind == "heading" or skip_context(doc, ub) or not (V.sync_step.search(ub.plain) or V.waits_for.search(ub.plain)):
                        continue
                    slow = [q for q in time_quantities(ub.plain) if q.bound in ("exact", "lower") and q.seconds > qa.seconds]
                    if slow:
                        push(Conflict(ra, ua, qa, ub, slow[0], None, "latency-step"))
                        break
            if "latency" in ta and qa.seconds <= 0.1:
                for ub in doc.units:
                    if not skip_context(doc, ub) and V.sync_xregion.search(ub.plain):
                        push(Conflict(ra, ua, qa, ub, None, None, "latency-sync"))
                        break
        design_stated = stated_durations(u for u in doc.units if not skip_context(doc, u))
        for a, b in same_quantity_pairs(req_stated, design_stated):
            push(Conflict(owner[id(a.unit)], a.unit, a.qty, b.unit, b.qty, None, "same-quantity"))
    return out


def fragment(u: Sentence, q: Qty | None) -> str:
    """The words of ``u`` up to its figure, for quoting one side of a conflict in prose."""
    if q is None:
        text = re.sub(r"\s*\|\s*", " ", u.plain).strip()
        return short(ID_PREFIX.sub("", text, count=1) if ID_PREFIX.match(text) else text, 80)
    text = u.plain
    start = max(0, q.start - 45)
    cut = text.find(" ", start) if start else 0
    frag = text[(cut + 1 if cut >= 0 and start else 0): q.end]
    frag = re.sub(r"\s*\|\s*", " ", frag).strip()
    frag = ID_PREFIX.sub("", frag, count=1) if ID_PREFIX.match(frag) else frag
    return short(frag, 90)


# why each kind of conflict breaks one side
CONFLICT_WHY = {
    "retention": "one keeps the data longer than the other allows it to exist, so every record in the overlap breaks one of them on the day it ages past the shorter limit",
    "freshness": "a change waits up to a full cycle before the next pull picks it up, so the worst-case delay is the cycle length, longer than the limit",
    "deletion": "the design's own worst case for removing the data is longer than the deadline, so every case in between misses it",
    "timeout": "every slow call waits longer than the requirement allows before it is abandoned, which ties up workers and delays everything queued behind them",
    "rpo": "a failure just before the next backup loses everything written since the last one, which is more than the recovery point allows",
    "latency-step": "every request waits for the synchronous step, and that step alone takes longer than the whole response may take",
    "latency-sync": "a synchronous write across regions waits for an inter-region round trip on every request, and that round trip alone consumes a budget this small",
    "same-quantity": "both give the value of the same limit and the values differ, so whichever one the implementation follows breaks the other",
    "all-vs-none": "one states a rule for every case and the other forbids it for a subset, so the implementation has to break one of them",
}
