"""Detectors of the communication dimension's actionability lens: no recommendation, vague
recommendations, conclusions that overreach their evidence and findings without their
implication.
"""

from __future__ import annotations

import re

from review_harness.core.text import content_words
from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.communication_conciseness import data_dump
from review_harness.ds.offline.checks.helpers import (
    CONDITIONAL, evidence_kind, extended_results, first_words, headline_number, negated_before, primary_nulls, unmarked,
)
from review_harness.ds.offline.purpose import BENCHMARK, DECISION, DEMONSTRATION, EXPLORATORY, MEASUREMENT
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import (
    APPENDIX, BACKGROUND, CONCLUSION, DATA, LIMITATIONS, METHOD, RECOMMENDATION, SUMMARY, Sentence, clean_heading,
)


_DECIDED = lx.rx(
    r"\b(we (?:should|will|plan|propose|suggest)|let's|decision:|we decided|(?:should|must|need to) (?:\w+ )?"
    r"(?:roll|launch|ship|stop|keep|continue|invest|expand|pause|switch))\b"
)


def _no_action_stated(ctx: Context, follow_up: bool = False) -> bool:
    """Nowhere does the document say what to do: no recommendation, decision or next step (with
    `follow_up`, a follow-up it names counts as a next step)."""
    f = ctx.features
    if f.word_count_small or f.recommendations:
        return False
    if follow_up and any(lx.FOLLOW_UP.search(s.text) for s in f.statements):
        return False
    return not any(_DECIDED.search(s.text) for s in f.closing)


@rule("no_recommendation")
def no_recommendation(ctx: Context) -> Hit | None:
    """No recommendation in a document written for a decision (CRITICAL: its reader cannot act).
    Other purposes get next_step_missing instead."""
    f = ctx.features
    if not _no_action_stated(ctx) or f.purpose.kind != DECISION:
        return None
    last = f.closing[-1] if f.closing else None
    return Hit(
        title="No recommendation or next step",
        issue=(
            "The document reports findings but never says what the reader should do with them: no recommendation, decision "
            f"or next step appears anywhere. This matters most here because {f.purpose.because(ctx.view)}: its reader "
            "cannot act on it."
        ),
        evidence="",
        location="whole document" if last is None else "End of document",
        suggested_fix="End with a short 'What we recommend' list: the action, who owns it and by when.",
        absence=True,
        consider="Consider adding what you expect to recommend, even provisionally.",
        strength=2,
    )


_NEXT_STEP_FIX = {
    MEASUREMENT: "Close with one or two lines on what the estimate means for what comes next (repeat, extend or stop what "
                 "was measured) and what you would measure next.",
    BENCHMARK: "Close with who should use which method in which situation, and what would change the ranking.",
    EXPLORATORY: "Close with the two or three patterns that matter most and the question each raises for the next analysis.",
}


@rule("next_step_missing")
def next_step_missing(ctx: Context) -> Hit | None:
    """A measurement, benchmark or exploratory write-up with no next step at all: it informs rather
    than decides, so this weighs less than a missing recommendation in a decision document."""
    f = ctx.features
    purpose = f.purpose
    if purpose.kind in (DECISION, DEMONSTRATION) or f.word_count_small:
        return None  # a worked example teaches a method: it owes no next step
    if purpose.kind == MEASUREMENT:
        # what was measured was a change or an event: the step that matters is what happens to it (kept,
        # reverted, repeated, done differently next time); an idea for a later study, or what we "would need"
        # in a hypothetical one, does not say
        said = [s for s in f.recommendations if not lx.FOLLOW_UP.search(s.text)
                and not re.search(r"\b(?:would|could|might)\b", s.text, re.I)]
        if said or any(_DECIDED.search(s.text) for s in f.closing):
            return None
        what = "what happens to what it measured (kept, reverted, repeated or extended)"
    elif not _no_action_stated(ctx, follow_up=True):
        return None
    else:
        what = "what its result means for what comes next: no decision it informs, no follow-up"
    if so_what_missing(ctx) is not None:
        return None  # the same gap, told once: findings without their implication
    return Hit(
        title="No next step stated",
        issue=(
            f"The document never says {what}. "
            f"This weighs less than a missing recommendation would, because {purpose.because(ctx.view)}, which informs "
            "rather than decides; still, the reader is left to work out the consequence alone."
        ),
        evidence="",
        location="End of document",
        suggested_fix=_NEXT_STEP_FIX[purpose.kind],
        absence=True,
        consider="Consider ending with what the result means for what comes next.",
        strength=1,
    )


_DECISIVE = lx.rx(
    r"\b(?:recommend|propose|suggest|decided?|decision(?: is|:)|should|will|we'll|must)\b[^.;]{0,40}?\b(deploy\w*|ship\w*|launch\w*|"
    r"roll(?:ing)? (?:it |this |\w+ )?out|proceed\w*|keep(?:ing)?|adopt\w*|switch\w*|replac\w+|stop\w*|revert\w*|discontinu\w*|"
    r"make (?:it|this|\w+) (?:the )?default|expand\w*|use[ds]?|using|go(?:ing)? ahead|not (?:ship|launch|deploy|proceed|roll)|"
    r"enabl\w+|disabl\w+|implement\w*|releas\w+|apply\w*|applying|retir\w+|remov\w+|turn(?:ing)? (?:it |this )?(?:on|off))\b")


def _decisive(s: Sentence) -> bool:
    """A recommendation that decides: it names the action on the thing tested (deploy, ship, keep,
    stop, replace), unhedged."""
    return bool(_DECISIVE.search(s.text)) and not (lx.VAGUE_ACTION.search(s.text) or _HEDGED_ACTION.search(s.text)
                                                     or re.search(r"\b(?:could|might|may|would)\b", s.text, re.I)
                                                     or s.text.rstrip("*_ )").endswith("?"))


_ACTION_SECTION = lx.rx(r"\b(next steps?|action items?|actions|to-?dos?|owners?|what we(?:'ll| will) do|plan)\b")
_HEDGED_ACTION = lx.rx(
    r"\b(pending (?:alignment|discussion|approval|review|sign-?off)|if there is appetite|at some point|when possible|as needed|"
    r"tbd|to follow|an option|could be considered|open question|possible recommendations?)\b"
)


def _has_owner(s: Sentence) -> bool:
    for m in lx.OWNER.finditer(s.text):
        word = m.group(0).split()[0].strip("(@")
        if lx.OWNER_STOP.match(word):
            continue
        if re.match(r"^[A-Z][a-z]+$", word) and re.search(rf"\b{word} will not\b|\b{word} won't\b", s.text):
            continue
        return True
    return False


@rule("recommendation_vague")
def recommendation_vague(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    recos = [s for s in f.recommendations if s.kind != "heading"]
    if not recos:
        return None
    if ctx.workflow != "proactive" and not any(lx.TEAM_ACTION.search(s.text) or _ACTION_SECTION.search(s.section) for s in recos):
        return None  # advice to any reader ("choose your models wisely"): an owner and a date do not apply
    if ctx.workflow != "proactive" and f.purpose.kind != DECISION:
        return None  # a measurement, benchmark or exploration names its follow-ups as such; owners are for decisions
    if ctx.workflow != "proactive" and any(_decisive(s) for s in recos):
        return None  # "We recommend deploying longer snippets": a decision with its next step; owners are for proactive work
    owners = [s for s in recos if _has_owner(s)]
    timed = [s for s in recos if lx.TIMING.search(s.text)]
    # extraction input: an action table replaced by its column list still shows owners and dates
    for ph in f.placeholders:
        if ph.role in (RECOMMENDATION, CONCLUSION) and ph.text.startswith("[table"):
            if re.search(r"\b(owner|who|responsible|dri)\b", ph.text, re.I):
                owners.append(ph)
            if re.search(r"\b(due|date|deadline|when|by)\b", ph.text, re.I):
                timed.append(ph)
    vague = [(s, m) for s in recos for m in [lx.VAGUE_ACTION.search(s.text)] if m]
    hedged = [(s, m) for s in recos for m in [_HEDGED_ACTION.search(s.text + " " + s.section)] if m]
    questions = [(s, None) for s in recos if s.text.rstrip("*_ )").endswith("?")]
    problem = None
    if ctx.workflow == "proactive" and not owners:
        problem = "names no owner"
    elif len(questions) >= 2 and len(questions) >= len(recos) / 3:
        problem = "is posed as an open question, with no owner or decision"
    elif not owners and len(timed) < max(1, len(recos) / 2):
        problem = "has no owner and, like most of the list, no date"
    elif not owners and (vague or hedged) and len(vague) + len(hedged) >= len(recos) / 2:
        problem = "has no owner and a vague or conditional action"
    if problem is None:
        return None
    pick = (questions if problem.startswith("is posed") else []) or hedged or vague or [(recos[0], None)]
    if ctx.workflow == "proactive" and problem == "names no owner":
        problem = "names no owner (proactive work needs an owner for each recommendation)"
    s, m = pick[0]
    if m is not None and m.start() >= len(s.text):
        m = None  # the hedge was in the section name
    return Hit(
        title="Recommendations have no owner or next step",
        issue=(
            f"The recommendation \"{first_words(unmarked(s.text), 20)}\" {problem}"
            + (f" (\"{unmarked(m.group(0))}\")" if m is not None else "")
            + ". Without a named owner, a date and a concrete first step it is unlikely to happen."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Turn each recommendation into an action with a named owner, a priority and a date or decision forum.",
    )


@rule("overreach_unbounded")
def overreach_unbounded(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    # (a) a result pushed beyond what was measured, where the document does state limits
    #     (with no limits at all, limitations_missing owns the problem: routing table)
    if f.limitation is not None and not v.has(lx.BOUNDARY, [s for s in f.text_sentences if s.role == LIMITATIONS]):
        for s, m in extended_results(ctx, lx.GENERALIZE)[:1]:
            return Hit(
                title="Result extended beyond what the data covers",
                issue=(
                    f"\"{first_words(unmarked(s.text), 20)}\" extends the finding (\"{unmarked(m.group(0))}\") beyond the population and "
                    f"period that were measured, and the caveats never say where the result stops applying."
                ),
                evidence=v.quote(s, m),
                location=v.location(s),
                suggested_fix="Say explicitly what the data does and does not support: the population, period and channel it was measured on, and what needs its own test before rollout.",
            )
    # (b) a rollout argued for while the primary result is null, and the caveats are silent on it
    null_primary = primary_nulls(ctx, [
        s for s in f.body
        if s.role not in (LIMITATIONS, APPENDIX, METHOD) and s.kind != "heading" and evidence_kind(s.text) == "neg"
    ])
    if null_primary:
        caveats = [s for s in f.text_sentences if s.role == LIMITATIONS]
        silent = not any(re.search(r"signific|interval|\bCI\b|uncertain|noise|did not (?:improve|change)|not improve|no (?:detectable|significant)", c.text, re.I) for c in caveats)
        pushes = [
            (s, m) for s in f.text_sentences
            if s.role in (RECOMMENDATION, CONCLUSION, SUMMARY) or s.pos > 0.85
            for m in [lx.ROLLOUT.search(s.text)] if m and not negated_before(s.text, m.start(), 30)
            and not CONDITIONAL.search(s.text[max(0, m.start() - 60) : m.start()])
        ]
        if silent and pushes:
            s, m = pushes[-1]
            return Hit(
                title="Nothing bounds what the test can support",
                issue=(
                    f"The primary result is null (\"{first_words(unmarked(null_primary[0].text), 14)}\"), yet the caveats never say so "
                    f"and the document argues for acting now (\"{first_words(unmarked(s.text), 16)}\"). Readers are not told what the "
                    f"data cannot support, such as a loss within the interval."
                ),
                evidence=v.quote(s, m),
                location=v.location(s),
                suggested_fix="Add to the caveats what the test cannot support (including the worst case its interval allows), and tie any rollout to a guardrail or follow-up test.",
            )
    if ctx.workflow == "reactive" and f.uncertainty is None:
        head = headline_number(ctx)
        if head is not None:
            s, m = head
            return Hit(
                title="Answer given without a range to act on",
                issue=(
                    f"The stakeholder's answer (\"{first_words(unmarked(s.text), 16)}\") is a single number with no interval, so they "
                    f"cannot tell how much of it they can rely on when deciding."
                ),
                evidence=v.quote(s, m),
                location=v.location(s),
                suggested_fix="Give the answer as a range with its confidence (the estimate and its 95% interval), and say what it does not cover.",
            )
    return None



@rule("so_what_missing")
def so_what_missing(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    implication = lx.rx(
        r"\b(this means|which means|means (?:that|we|about)|impl(?:ies|ication)|so (?:we|the business)|therefore|as a result|matters?|"
        r"worth|in (?:plain|practical|business) terms|translat\w+ (?:to|into)|for the business|we recommend|should|"
        r"decision|impact on|cost of|saves?|so what|supports? the|suggests?|consistent with|reassuring|rely on)\b"
    )
    # a key finding the document itself headlines, stated with numbers but without its consequence
    for h in v.content_headings:
        name = clean_heading(h.text)
        if lx.GENERIC_HEADING.match(name) or lx.NON_CONTENT_HEADING.match(name) or len(name.split()) < 4:
            continue
        words = content_words(name)
        section = [s for s in f.prose if s.section == h.text and s.kind != "heading"]
        paras: dict[int, list[Sentence]] = {}
        for s in section:
            paras.setdefault(s.line, []).append(s)
        for line, sents in paras.items():
            text = " ".join(x.text for x in sents)
            if len([n for x in sents for n in f.nums(x) if n.notable]) < 2:
                continue
            if len(words & content_words(text)) < 2:
                continue
            if implication.search(text) or lx.INTERPRET.search(text):
                continue
            if not lx.COMPARISON.search(text):
                continue
            s = sents[0]
            return Hit(
                title="Key finding reported without its implication",
                issue=(
                    f"The finding \"{first_words(unmarked(text), 18)}\" (headlined in '{h.text}') is stated with numbers but without "
                    f"saying what it means for the decision, for example whether it changes who should get the feature."
                ),
                evidence=v.quote(s),
                location=v.location(s),
                suggested_fix="Add one sentence after the finding on its consequence, e.g. 'so the rollout should prioritise longer-tenure customers' or 'no change to the plan'.",
            )
    # a document whose results never say what they mean (unless the data-dump rule covers it)
    findings = [s for s in f.results if s.kind != "table" and any(n.notable for n in f.nums(s))]
    if v.is_extraction or len(findings) < 3 or v.has(implication, f.text_sentences):
        return None
    if data_dump(ctx) is not None:
        return None
    s = findings[0]
    return Hit(
        title="Findings reported without their implication",
        issue=(
            f"Results such as \"{first_words(unmarked(s.text), 16)}\" are stated without saying what they mean for the reader: "
            f"no 'so what', no consequence, no decision they inform."
        ),
        evidence=v.quote(s),
        location=v.location(s),
        suggested_fix="After each key number add one sentence on its consequence for the reader: what it changes, for whom, and roughly what it is worth.",
    )
