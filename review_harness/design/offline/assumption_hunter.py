"""The assumption hunter: beliefs the design states as settled fact with nothing behind them
(certain wording, dependencies on other teams, conclusions from unsourced figures), and a timeout
taken as proof that the call failed.
"""

from __future__ import annotations

import re

from review_harness.core.markdown import Sentence
from review_harness.design.offline.document import Doc, all_matches, clause, document, quote_of, short, skip_context
from review_harness.design.offline.reading import dismissed_risks, unenforced
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.shared_checks import ambiguous_outcome
from review_harness.design.offline.substance import sentence_key
from review_harness.design.offline.vocabulary import V, numbers_in, term_set

# what each kind of unsupported certainty (offline_vocabulary.yaml: certainty) is called, why it
# matters and what to do about it
CERTAINTY_TEXT = {
    "load": ("Load ceiling asserted without evidence",
             "If the real load exceeds the asserted ceiling, the sizing built on it fails at peak.",
             "Derive the load from the requirements' figures or from measurements, and size for the peak, not the average."),
    "dependency": ("Dependency reliability taken as given",
                   "Every dependency fails sometimes; code written for one that never fails has no path for the day it does.",
                   "Replace the certainty with the dependency's documented SLA and design the behaviour for when it is breached."),
    "assume": ("Assumption stated but never validated",
               "The design is only as sound as this assumption, and nothing in the document checks it or says what changes if it is false.",
               "State how the assumption is validated (data, test, owner confirmation) and what the design does if it turns out false."),
    "users": ("User behaviour asserted, not shown",
              "Adoption and behaviour claims decide whether the work pays off; unsupported, they justify scope nobody validated.",
              "Back the claim with user research or usage data, or drop the argument that depends on it."),
    "justification": ("Decision rests on an unsourced generalisation",
                      "The decision in this sentence holds only if the generalisation does; nothing in the document shows it does.",
                      "Cite the data behind the generalisation, or choose the option that stays safe when it is false."),
    "exclusive": ("Claim that data lives only in one place is unchecked",
                  "If the claim is wrong, everything outside the named place escapes the controls the design applies there.",
                  "Show how the claim was verified (schema scan, data classification), and cover the fields it does not name."),
    "self-resolving": ("A case is declared to take care of itself",
                       "The case the design skips still happens; when it does, nothing in the design handles it.",
                       "Describe what happens in that case end to end, including restores and replays, and check it against the requirements."),
    "sufficiency": ("Sufficiency claimed without a check",
                    "A resource called sufficient without arithmetic is the first bottleneck nobody monitors.",
                    "Show the arithmetic behind the claim against the figures in the requirements, and alert before the limit."),
}


def supported(doc: Doc, u: Sentence, reqs: Doc) -> bool:
    """Whether a claim has data, a source, or requirement numbers behind it, in or next to it."""
    for n in doc.neighbours(u, 1):
        if V.support.search(n.plain):
            return True
    nums = numbers_in(u.plain)
    if nums and nums & reqs.numbers:
        return True
    return False


def _subject(text: str, start: int, end: int) -> str:
    """Whom a claim is made of: the words before it in the same clause, and its agent after it
    ('are guaranteed by the broker')."""
    head = text[max(0, start - 80): start]
    cut = max(head.rfind(c) for c in (",", ";", ":", "(", " that ", " which ", " means "))
    agent = re.match(r"\s+by\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){0,3}[\w-]+", text[end:])
    return (head[cut + 1:] if cut >= 0 else head) + (agent.group(0) if agent else "")


@detector("timeout-taken-as-failure")
def timeout_taken_as_failure(ctx: Ctx) -> None:
    ambiguous_outcome(ctx, "timeout-read-as-failure", "assumption")


@detector("unsupported-certainty")
def unsupported_certainty(ctx: Ctx) -> None:
    """Claims worded as certain (load will stay under, never fails, we assume, users will adopt,
    because most, only in, takes care of itself, is sufficient) with no data or source next to them."""
    doc = ctx.artifact
    req_doc = ctx.requirements if ctx.artifact is not ctx.requirements else document("none", "")
    load_req = next((r for r in ctx.reqset.reqs if V.load_req.search(r.text) and r.numbers), None)
    seen: set[str] = set()  # one finding per sentence (two sentences of one paragraph line are two)
    for kind, pat in V.certainty.items():
        for u, m in all_matches(doc, pat):
            if sentence_key(u) in seen or any(f.key.startswith(f"always:{sentence_key(u)}:") for f in ctx.findings):
                continue  # reported already, or by the check of each always-claim against its failure path
            if V.claim_hedged.search(u.plain[max(0, m.start() - 80): m.start()]) or u.plain.rstrip().endswith("?"):
                continue  # put as a question or a condition, it claims nothing
            if supported(doc, u, req_doc):
                ctx.ok(f"The claim '{short(u.plain, 60)}' cites data or a source in '{doc.path_of(u.line)}'")
                continue
            if kind == "dependency" and not V.outside_party.search(_subject(u.plain, m.start(), m.end())):
                continue  # a guarantee the design makes about its own behaviour, not a dependency's
            if kind == "sufficiency" and not V.resource_subject.search(_subject(u.plain, m.start(), m.end())):
                continue  # sufficiency of something that is no resource ('the implementation is not a problem')
            seen.add(sentence_key(u))
            backs_default = bool(V.unknown_default.search(u.plain))
            silent = ctx.req_for_terms(term_set(u.plain), 2) is None
            claim = clause(u.plain, m)
            title, why, sugg = CERTAINTY_TEXT[kind]
            issue = f"The design states '{claim}' as settled fact, and nothing in or next to the sentence supports it."
            if kind == "load" and load_req is not None:
                issue += f" The requirements give load figures in {load_req.label} ('{short(load_req.quote, 70)}') that the claim does not derive from."
            if backs_default:
                issue += " The generalisation justifies a default path for unrecognised input."
            ctx.add(
                kind, when={"requirements-silent": silent, "backs-default": backs_default},
                title=title, section=doc.path_of(u.line), issue=issue, why=why, suggestion=sugg,
                evidence=quote_of(u, m.group(0)), key=f"claim:{sentence_key(u)}")


@detector("unbacked-dependencies")
def unbacked_dependencies(ctx: Ctx) -> None:
    """Reliance on another team or system with no agreement, owner or SLA (the first one)."""
    doc = ctx.artifact
    req_terms = set().union(set(), *(r.terms for r in ctx.reqset.all + ctx.reqset.goals))
    n = 0
    for u, m in all_matches(doc, V.dependency):
        pool = " ".join(v.plain for v in doc.neighbours(u, 1))
        t = term_set(u.plain)
        if V.commitment.search(pool) or len(t & req_terms) >= max(3, int(0.6 * len(t))):
            ctx.ok(f"The dependency in '{doc.path_of(u.line)}' is backed by the requirements or a stated commitment")
            continue
        if any(f.key in (f"claim:{sentence_key(u)}",) or f.key.startswith(f"always:{sentence_key(u)}:") for f in ctx.findings):
            continue
        n += 1
        if n > 1:
            break
        ctx.add(
            "dependency-taken-as-given",
            title="Dependency on another team or system taken as given", section=doc.path_of(u.line),
            issue=f"The design relies on '{clause(u.plain, m)}' with no agreement, owner or SLA recorded, and the requirements do not state it.",
            why="If the other party's plans, capacity or behaviour differ, this part of the design has nothing to fall back on and the schedule slips with it.",
            suggestion="Record the dependency with its owner and the commitment obtained (API, capacity, dates), or design a fallback.",
            evidence=quote_of(u, m.group(0)), key=f"dep:{u.line}")


@detector("unsourced-numbers")
def unsourced_numbers(ctx: Ctx) -> None:
    """Conclusions ('which gives headroom', 'is enough') drawn from figures with no source."""
    doc = ctx.artifact
    if doc is ctx.requirements:
        return
    n = 0
    for u in doc.body_units():
        if skip_context(doc, u) or u.kind == "code":
            continue
        m = V.number_conclusion.search(u.plain)
        nums = numbers_in(u.plain)
        if not m or not nums or nums & ctx.requirements.numbers or supported(doc, u, ctx.requirements):
            continue
        if any(f.key in (f"claim:{sentence_key(u)}",) or f.key.startswith(f"always:{sentence_key(u)}:") for f in ctx.findings):
            continue
        n += 1
        if n > 2:
            break
        ctx.add(
            "conclusion-from-unsourced-number",
            title="Conclusion drawn from a number with no source", section=doc.path_of(u.line),
            issue=f"The design concludes '{short(m.group(0), 40)}' from figures that appear nowhere in the requirements and carry no source.",
            why="If the figure is wrong, the conclusion and the sizing built on it are wrong too, and nobody knows to re-check them.",
            suggestion="Cite where the figure comes from (measurement, vendor documentation, load test) or mark it as an estimate to verify before launch.",
            evidence=quote_of(u, m.group(0)), key=f"num:{u.line}")


@detector("unenforced-properties")
def unenforced_properties(ctx: Ctx) -> None:
    """Properties the design relies on and says it does not enforce, check or guarantee, or leaves
    to its users ('does not prevent', 'cannot currently enforce', 'it is up to the owner to');
    sentences of one paragraph are one finding."""
    doc = ctx.artifact
    by_block: dict[int, list] = {}
    for u, m in unenforced(doc):
        by_block.setdefault(u.block, []).append((u, m))
    for block, hits in sorted(by_block.items(), key=lambda kv: kv[1][0][0].line)[:3]:
        u, m = max(hits, key=lambda t: len(t[0].plain))
        said = " ".join(f"'{short(v.plain, 90)}'" for v, _ in hits[:2])
        ctx.add(
            "property-not-enforced",
            title="Relies on a property nothing enforces", section=doc.path_of(u.line),
            issue=f"The design states {said}: the property holds only as long as every user gets it right, and nothing notices when one does not.",
            why="The first component or user that breaks the rule breaks its neighbours too, and the failure shows far from its cause.",
            suggestion="Enforce the property where it is relied on (validation, isolation, a check at the boundary), or make its violation visible and say what happens then.",
            evidence=quote_of(u, m.group(0)), key=f"unenforced:{block}")


@detector("dismissed-risks")
def dismissed_risks_detector(ctx: Ctx) -> None:
    """A risk (security, privacy, compatibility, performance) waved away without a reason."""
    doc = ctx.artifact
    for u, m in dismissed_risks(doc)[:2]:
        ctx.add(
            "risk-dismissed",
            title="A risk is dismissed, not addressed", section=doc.path_of(u.line),
            issue=f"The design waves a risk away ('{clause(u.plain, m, 110)}') instead of showing why it cannot occur or how it is contained.",
            why="A dismissed risk gets no owner, no test and no monitoring, so it is discovered by an incident.",
            suggestion="Name the concrete ways the risk can occur in this design and the control for each, or the evidence that it cannot.",
            evidence=quote_of(u, m.group(0)), key=f"dismissed-risk:{u.line}")


@detector("required-changes-elsewhere")
def required_changes_elsewhere(ctx: Ctx) -> None:
    """Another component that has to change for the design to work, named in passing: no owner,
    no plan, no compatibility story."""
    doc = ctx.artifact
    n = 0
    for u, m in all_matches(doc, V.required_change):
        before = u.plain[: m.start()]
        names = re.findall(r"\b(?:[A-Z][\w-]+(?:\s+[A-Z][\w-]+)*|`[^`]+`)", before)
        if not names or doc.in_section_like(u, V.sec_illustrative):
            continue
        name = re.sub(r"^(?:The|A|An|Our|This|That|Each|Every)\s+", "", names[-1].strip("`"))
        if doc.lower.count(name.lower()) > 3:  # a component the design itself describes
            continue
        n += 1
        if n > 2:
            return
        ctx.add(
            "change-to-another-component", title=f"Needs a change to {short(name, 40)}, planned in one sentence",
            section=doc.path_of(u.line),
            issue=f"The design depends on '{clause(u.plain, m, 110)}', and says nothing more about it: who changes it, when, and what happens while the two disagree.",
            why="The design works only once that other component changes; until then (and for every version that has not) the two behave differently.",
            suggestion=f"Plan the change to {name}: its owner and schedule, how versions of the two stay compatible, and how their agreement is tested.",
            evidence=quote_of(u, m.group(0)), key=f"change-elsewhere:{u.line}")


@detector("small-trial-generalised")
def small_trial_generalised(ctx: Ctx) -> None:
    """A result measured on a small trial (one page, a few users, a pilot) carried to the whole."""
    doc = ctx.artifact
    for u, m in all_matches(doc, V.small_trial):
        if not V.result_figure.search(u.plain):
            continue
        ctx.add(
            "result-from-small-trial", title="A benefit rests on a small trial", section=doc.path_of(u.line),
            issue=f"The evidence is '{short(u.plain, 120)}': a result from {short(m.group(0), 40)}, which the design's general claims rest on.",
            why="Results from a small, hand-picked trial rarely carry over whole; the real gain is unknown until measured where it will be used.",
            suggestion="Say how representative the trial is, and measure the benefit on a larger or more typical sample before relying on the figure.",
            evidence=quote_of(u, m.group(0)), key="small-trial")
        return
