"""Scope: which design sections build what the requirements rule out (their non-goals).

Several personas read the same answer (the auditor reports the excluded scope, the skeptic its
effort, the challenger the drifted goal, the scout a rebuilt system), so it is computed once per
pair of documents.
"""

from __future__ import annotations

from functools import lru_cache

from review_harness.core.markdown import MdSection, Sentence
from review_harness.core.text import NEGATION
from review_harness.design.offline.document import document
from review_harness.design.offline.registry import Ctx
from review_harness.design.offline.requirements import Req
from review_harness.design.offline.vocabulary import V, term_set


def nongoal_terms(ctx: Ctx, ng: Req) -> tuple[set[str], set[str]]:
    """The distinctive terms of a non-goal (whole item, lead sentence): words the requirements use
    in two or more requirements say nothing about this non-goal."""
    common = {t for t, n in ctx.reqset.df.items() if n >= 2}
    return ng.terms - common, term_set(ng.unit.plain) - common


def _pervasive_terms(doc, share: float = 0.25) -> set[str]:
    """Terms in more than `share` of the design's sections (at least 8 sections, else none)."""
    secs = [s for s in doc.sections if s.level > 0]
    if len(secs) < 8:
        return set()
    counts: dict[str, int] = {}
    for sec in secs:
        units = [u for u in doc.units if sec.start_line <= u.line <= sec.end_line]
        for t in set().union(set(), *(term_set(u.plain) for u in units)):
            counts[t] = counts.get(t, 0) + 1
    return {t for t, n in counts.items() if n > share * len(secs)}


@lru_cache(maxsize=64)
def _nongoal_hits(design_text: str, req_text: str, stage: str) -> tuple[tuple[int, int, int, int], ...]:
    """(non-goal index, section start line, unit index, score) for the best section per non-goal."""
    ctx = Ctx("", stage, document("design", design_text), document("requirements", req_text))
    doc = ctx.artifact
    out = []
    # words the design uses throughout (its subject: 'plugin' in a plugin framework) say nothing
    # about which section builds an excluded item
    pervasive = _pervasive_terms(doc)
    for ng_index, ng in enumerate(ctx.reqset.nongoals):
        full, head = nongoal_terms(ctx, ng)
        full, head = full - pervasive, head - pervasive
        if len(full) < 2:
            continue
        best = None
        for sec in doc.sections:
            if V.sec_nongoal.search(sec.path) or V.sec_future.search(sec.path) or V.sec_alternatives.search(sec.path):
                continue
            units = [u for u in doc.units if sec.start_line <= u.line <= sec.end_line and u.kind != "heading"]
            if not units:
                continue
            head_terms = term_set(sec.heading)
            sec_terms = set().union(head_terms, *(term_set(u.plain) for u in units))
            overlap = len(full & sec_terms)
            heading_hit = bool(head_terms & full)
            ok = ((len(head) >= 2 and head <= sec_terms and overlap >= 3) or (heading_hit and overlap >= 3)
                  or (overlap >= 4 and overlap >= 0.3 * len(full)))
            if not ok:
                continue
            score = overlap + (2 if heading_hit else 0)
            # a sentence that only keeps the door open ('forward-compatible with such a syntax',
            # 'not being proposed here') or points at another document builds nothing
            scored = [(len(term_set(u.plain) & head), len(term_set(u.plain) & full), -u.line, u)
                      for u in units if not NEGATION.search(u.plain[:40]) and not V.leaves_room.search(u.plain)
                      and not V.reference_only.search(u.text)]
            scored = [t for t in scored if t[1] >= (1 if heading_hit else 2)]
            if not scored:
                continue
            unit = max(scored, key=lambda t: t[:3])[3]
            if best is None or score > best[3]:
                best = (ng_index, sec.start_line, doc.position(unit), score)
        if best is None and len(full) <= 3:
            # a short non-goal: one sentence that builds all of it ('we will also build a new
            # monitoring exporter'); a sentence that only points at another document does not
            for u in doc.units:
                sec = doc.section_of(u.line)
                if (u.kind == "heading" or sec is None or V.sec_nongoal.search(sec.path) or V.sec_future.search(sec.path)
                        or V.sec_alternatives.search(sec.path) or NEGATION.search(u.plain[:40])):
                    continue
                if full <= term_set(u.plain) and V.builds_verb.search(u.plain) and not V.reference_only.search(u.text):
                    best = (ng_index, sec.start_line, doc.position(u), len(full))
                    break
        if best:
            out.append(best)
    return tuple(out)


def nongoal_hits(ctx: Ctx) -> list[tuple[Req, MdSection, Sentence, int]]:
    """Design sections that build what a non-goal of the requirements excludes.

    A section hits when it shares at least three distinctive terms with the non-goal and either
    contains the non-goal's whole lead sentence or names it in its heading (or shares many
    terms). Only the best section per non-goal is returned.
    """
    if ctx.stage == "requirements" or ctx.artifact is ctx.requirements:
        return []
    doc = ctx.artifact
    raw = _nongoal_hits(ctx.design.text, ctx.requirements.text, ctx.stage)
    out = []
    for ng_index, sec_line, unit_index, score in raw:
        ng = ctx.reqset.nongoals[ng_index]
        sec = next(s for s in doc.sections if s.start_line == sec_line)
        unit = doc.units[unit_index]
        out.append((ng, sec, unit, score))
    return out
