"""The prior art scout: build-your-own decisions made without weighing what exists, designs that
rebuild a capability the company already has, and briefs that decide to build before looking.
"""

from __future__ import annotations

import re

from review_harness.core.markdown import subtree_end
from review_harness.core.text import negated_before
from review_harness.design.offline.document import all_matches, clause, quote_of, short
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.scope import nongoal_hits
from review_harness.design.offline.vocabulary import NEGATION_SPAN, V


def alternatives_named(text: str) -> list[str]:
    """The alternatives a passage actually names after a comparison word ('instead of SendGrid',
    'compared with Postfix or SES'): a claim of having weighed alternatives needs at least one."""
    out: list[str] = []
    for m in V.alternatives.finditer(text):
        window = text[m.end(): m.end() + 60]
        for name in re.findall(r"`([^`]{2,40})`|\b([A-Z][\w.+-]*(?:\s[A-Z][\w.+-]*){0,2})\b", window):
            value = next(n for n in name if n)
            if value.lower() not in ("we", "the", "a", "an", "it", "this", "our", "i") and value not in out:
                out.append(value)
        out += [mm.group(0) for mm in V.infra.finditer(window) if mm.group(0) not in out]
    return out


@detector("rebuilds-existing")
def rebuilds_existing(ctx: Ctx) -> None:
    """Design sections that rebuild what the requirements leave to an existing system."""
    doc = ctx.artifact
    for ng, sec, unit, _ in nongoal_hits(ctx):
        if not V.existing_system.search(ng.text):
            continue
        paren = re.findall(r"\(([A-Z][\w.-]*(?: [A-Z][\w.-]*){0,3})\)", ng.text)
        named = re.findall(r"\b(?:in|by|to) (?:the )?([A-Z][\w-]+(?: [A-Z][\w-]+)*)", ng.text)
        name = (paren or named or ["an existing system"])[0]
        ctx.add(
            "rebuilds-existing-capability",
            title="Design rebuilds a capability the company already has", section=doc.path_of(unit.line),
            issue=f"'{sec.heading}' re-creates work the requirements assign to {name}; the design does not say why that system cannot be used.",
            why="Two systems for one job split the data and the users, and the company pays to build and run the duplicate.",
            suggestion=f"Integrate with {name} (for example by sending it the data it needs) instead of rebuilding its function here.",
            evidence=quote_of(unit), key=f"rebuild:{sec.start_line}")


@detector("build-own")
def build_own(ctx: Ctx) -> None:
    """Building our own (framework, queue, crypto ...) with no alternative weighed nearby."""
    doc = ctx.artifact
    alt_secs = doc.headings_matching(V.sec_alternatives)
    any_research = bool(alt_secs) or any(V.alternatives.search(u.plain) for u in doc.units)
    n = 0
    for u, m in all_matches(doc, V.build_own):
        if negated_before(u.plain, m.start(), NEGATION_SPAN) or doc.in_section_like(u, V.sec_alternatives):
            continue
        near = " ".join(v.plain for v in doc.neighbours(u, 2))
        named = alternatives_named(near)
        if named:
            ctx.ok(f"The build decision '{short(m.group(0), 40)}' is weighed against {', '.join(named[:3])} in '{doc.path_of(u.line)}'")
            continue
        n += 1
        if n > 3:
            break
        crypto = bool(V.crypto.search(u.plain))
        ctx.add(
            "custom-build-unweighed", when={"security-primitive": crypto, "no-research-at-all": not any_research},
            title="Custom build chosen with no alternatives weighed", section=doc.path_of(u.line),
            issue=(f"The design commits to '{clause(u.plain, m, 70)}' and compares it with no existing library, managed service or internal system."
                   + (" Security primitives built in-house are a known source of vulnerabilities." if crypto else "")),
            why="Building what already exists costs the build plus years of maintenance, and usually lands with fewer features and more bugs than the mature option.",
            suggestion="List the existing options (open-source, managed, internal), compare them on the requirements that matter, and record why building wins.",
            evidence=quote_of(u, m.group(0)), key=f"build:{u.line}")
    if alt_secs:
        ctx.ok(f"Alternatives are discussed in '{alt_secs[0].path}'")


@detector("no-alternatives")
def no_alternatives(ctx: Ctx) -> None:
    """Technology choices named with no alternative mentioned anywhere (not at the plan stage)."""
    doc = ctx.artifact
    if ctx.stage == "plan":
        return
    if doc.empty or doc.headings_matching(V.sec_alternatives) or any(V.alternatives.search(u.plain) for u in doc.units):
        return
    infra = all_matches(doc, V.infra) + all_matches(doc, V.new_component)
    if len(infra) < 2:
        return
    u, m = infra[0]
    ctx.add(
        "no-alternatives-considered",
        title="No alternatives considered anywhere", section=doc.title or doc.path_of(u.line),
        issue="The design names its technology choices but never mentions an alternative, an existing product or a reason for the choice.",
        why="Without the comparison, reviewers cannot tell a deliberate choice from a default, and cheaper options go unexamined.",
        suggestion="Add an alternatives section covering at least one existing product or managed service and why the chosen approach beats it.",
        evidence=quote_of(u, m.group(0)), key="no-alternatives")


_APPROACH = re.compile(r"\b(propos\w*|approach\w*|options?|solutions?)\b", re.I)


@detector("alternatives-unweighed")
def alternatives_unweighed(ctx: Ctx) -> None:
    """A proposal that sets an alternative beside its proposed approach but never compares them or
    says which one it chooses and why."""
    doc = ctx.artifact
    alt_secs = doc.headings_matching(V.sec_alternative_approach)
    if doc.empty or not alt_secs:
        return
    weighed = next((u for u in doc.body_units() if V.weighing.search(u.plain)
                    and (any(a.start_line <= u.line <= subtree_end(doc.sections, a) for a in alt_secs)
                         or V.alternatives.search(u.plain) or _APPROACH.search(u.plain))), None)
    if weighed is not None:
        ctx.ok(f"The alternatives are weighed against the proposal in '{doc.path_of(weighed.line)}'")
        return
    sec = alt_secs[0]
    first = next((u for u in doc.units_under([sec]) if u.kind != "heading"), None)
    ctx.add(
        "alternatives-without-choice", title="Alternatives are listed but never weighed", section=sec.path,
        issue=(f"'{sec.heading}' sets another approach beside the proposed one, and the document never compares them "
               "or says which one it chooses and why."),
        why="Without the comparison reviewers cannot tell which approach they are approving, nor what the choice costs.",
        suggestion="Compare the approaches on what matters here (behaviour, compatibility, cost to users and maintainers) and record the choice and the reason.",
        evidence=quote_of(first) if first is not None else None, key="alternatives-unweighed")


@detector("requirements-research")
def requirements_research(ctx: Ctx) -> None:
    """At the requirements stage: a plan to build something with no look at what exists."""
    if ctx.stage != "requirements":
        return
    docs = ctx.framing_docs
    hit = next(((d, u, m) for d in docs for u in d.units for m in [V.build_new.search(u.plain)] if m), None)
    if hit is None:
        return
    if any(V.research.search(u.plain) for d in docs for u in d.units):
        ctx.ok("The documents compare the proposal with existing options")
        return
    d, u, m = hit
    ctx.add(
        "no-look-at-existing-tools",
        title="No look at existing tools before deciding to build", section=d.path_of(u.line),
        issue="The documents decide to build a new tool and never mention an existing product, open-source project or internal system that does the job.",
        why="The requirements get written around one solution; if an existing tool covers most of them, the build spends its effort on what the team can adopt instead.",
        suggestion="Survey the existing tools for this job, note what each covers against the requirements, and record why building wins.",
        evidence=None, key="req-research")
