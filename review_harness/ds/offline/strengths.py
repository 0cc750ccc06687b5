"""Strength detectors, one per rubric credit id: what the document does well, named concretely."""

from __future__ import annotations

import re

from review_harness.core.mood import prospective_at

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import is_parameter
from review_harness.ds.offline.features import interval_with_bounds
from review_harness.ds.offline.registry import Context, Strength, strength
from review_harness.ds.offline.view import LIMITATIONS, clean_heading


def _q(ctx: Context, s, m=None, words: int = 20) -> str:
    return ctx.view.quote(s, m, max_words=words)


# ---------------------------------------------------------------------- analysis


_RANDOM_ASSIGNMENT = lx.rx(
    r"\b(randomi[sz]ed|randomly (?:assigned|allocated|split|selected)|random (?:assignment|allocation)|assigned at random|"
    r"split (?:\d+\s*/\s*\d+|at random|evenly)|a/b(?:/n)? test\w*|ab test\w*|hold[- ]?out)")
_COUNTERFACTUAL = lx.rx(
    r"\b(causal ?impact|structural time[- ]series|synthetic control|difference[- ]in[- ]differences?|diff[- ]in[- ]diff|"
    r"regression discontinuity|instrumental variables?|natural experiment|interrupted time series|counterfactual|"
    r"comparison (?:series|group|groups|region|regions|market|markets|cities|stores)|control (?:series|regions?|markets?|"
    r"cities|stores|districts?)|matched (?:cohort|sample|control|pairs?|users|stores|cities|regions))\b")
# the document says its own comparison is not causal: a positive must not claim a causal reading for it
_DISCLAIMS_CAUSAL = lx.rx(
    r"\b(not (?:a )?causal|correlation(?:al)?\b|(?:is|are) associated|not what would happen|self[- ]selected|"
    r"(?:they|who|customers|users|people) chose (?:the|each|their|it)|describes? the (?:customers|users|people|accounts) who|"
    r"cannot (?:say|conclude|tell) (?:that|whether) [^.]{0,40}caus)")


@strength("sound_design")
def sound_design(ctx: Context) -> Strength | None:
    """A design that lets the comparison carry a causal reading, quoted where the document states it:
    random assignment, or a comparison the change did not reach (a counterfactual series, a
    difference-in-differences, a synthetic control, matched units). Adjusting for covariates alone
    is not credited, nor a comparison the document itself says is not causal."""
    f = ctx.features
    statements = [s for s in f.statements if s.kind not in ("heading", "table") and s.role not in (LIMITATIONS,)]
    by_role = sorted(statements, key=lambda s: (s.role not in ("method", "data"), s.line))
    # a design the document announces, recommends or wishes for ("we should randomise", "we recommend an A/B test")
    # is not the design its results came from
    hits = [(s, m) for s in by_role for m in [_RANDOM_ASSIGNMENT.search(s.text)] if m and not prospective_at(s.text, m.start())]
    # "users were randomly assigned" says how the groups were made; "randomly selected into the test" or "the A/B
    # test ran from ..." only says who took part, or names it
    def rank(hit) -> int:
        word = hit[1].group(0).lower()
        return 0 if re.search(r"assign|allocat|split|randomi[sz]ed", word) else 1 if "random" in word else 2
    random = min(hits, key=rank) if hits else None
    if random is not None:
        s, m = random
        return Strength(
            title="Comparison design fits the claim",
            detail=f"Units were assigned at random (\"{_q(ctx, s, m)}\"), so the difference between the groups can be read "
                   "as the effect of the change.",
            strength=3,
        )
    if any(_DISCLAIMS_CAUSAL.search(s.text) for s in f.statements):
        return None
    other = next(((s, m) for s in by_role for m in [_COUNTERFACTUAL.search(s.text)] if m and not prospective_at(s.text, m.start())),
                 None)
    if other is None:
        return None
    s, m = other
    return Strength(
        title="Comparison design fits the claim",
        detail=f"The effect is estimated against a comparison the change did not reach (\"{_q(ctx, s, m)}\"), so it can "
               "carry a causal reading as long as that comparison holds.",
        strength=3,
    )


@strength("uncertainty_reported")
def uncertainty_reported(ctx: Context) -> Strength | None:
    f = ctx.features
    results_first = sorted(f.statements, key=lambda s: (s.role not in ("results", "summary"), s.line))
    # an estimate with its interval, margin or standard error (a bare p-value is a test, and "95%
    # intervals in parentheses" a caption: neither shows an uncertainty)
    for s in results_first:
        if s.kind == "table" or s.role in ("method", "data"):
            continue
        m = interval_with_bounds(s.text)
        if m and any(n.notable for n in f.nums(s)):
            return Strength(
                title="Uncertainty reported with the numbers",
                detail=f"Results carry their intervals, e.g. \"{_q(ctx, s, m)}\", so readers can tell signal from noise.",
                strength=2.5,
            )
    return None


@strength("assumptions_explicit")
def assumptions_explicit(ctx: Context) -> Strength | None:
    f = ctx.features
    heading = next((h for h in ctx.view.content_headings if re.search(r"\bassumptions?\b", h.text, re.I)), None)
    if heading is not None:
        items = [s for s in f.statements if s.section == heading.text and s.kind != "heading"]
        if items:
            return Strength(
                title="Assumptions written down",
                detail=f"The '{heading.text}' section lists what the analysis relies on, e.g. \"{_q(ctx, items[0], None, 16)}\".",
                strength=2,
            )
    hit = ctx.view.first(lx.rx(r"\b(assum\w+)\b"), f.statements) or ctx.view.first(
        lx.rx(r"\b(sensitivity (?:check|analysis)|robustness)\b"), f.statements
    )
    if hit is None:
        return None
    s, m = hit
    return Strength(
        title="Assumptions written down",
        detail=f"The analysis names what it relies on or how it was stress-tested: \"{_q(ctx, s, m)}\".",
        strength=1.5,
    )


# a setting changed by the author ("the price of the plan was raised from ..."): the treatment, not a result
_SETTING_CHANGED = lx.rx(r"\b(prices?|pricing|discounts?|fees?|thresholds?|caps?|limits?|budgets?|spend|bids?|frequency)\b[^.]{0,60}"
                         r"\b(?:was|were|is|are|got)?\s*(?:raised|lowered|increased|decreased|changed|moved|set|cut|doubled|halved)\s*$")


_DATE_RANGE = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\b", re.I)


@strength("baselines_given")
def baselines_given(ctx: Context) -> Strength | None:
    f = ctx.features
    pattern = lx.rx(r"\bfrom [$€£]?\d[\d.,]*\s?%?\s?(?:\w+ )?to [$€£]?\d|\b(?:vs\.?|versus|compared (?:with|to)|against)\s+[$€£]?\d")
    for s in sorted(f.statements, key=lambda s: (s.role not in ("results", "summary"), s.line)):
        if s.kind in ("heading", "table") or s.role in ("method", "data"):
            continue
        m = pattern.search(s.text)
        if m and (is_parameter(s.text, m.start(), m.end()) or _SETTING_CHANGED.search(s.text[:m.start()])
                  or _DATE_RANGE.search(m.group(0) + s.text[m.end():m.end() + 12])):
            continue  # a price raised from $10 to $20 is the change tested, not a result set against its baseline
        if m:
            return Strength(
                title="Numbers set against a baseline",
                detail=f"Headline figures come with their comparison point, e.g. \"{_q(ctx, s, m)}\".",
                strength=1.5,
            )
    return None


@strength("traceable_reasoning")
def traceable_reasoning(ctx: Context) -> Strength | None:
    f = ctx.features
    pattern = lx.rx(r"\b(see (?:table|figure|section|appendix)|as shown|table \d|figure \d|section \d|of the [\d.]+)\b")
    for s in f.closing:
        m = pattern.search(s.text)
        if m:
            return Strength(
                title="Conclusions point back to results",
                detail=f"The conclusion cites the result it rests on: \"{_q(ctx, s, m)}\".",
                strength=1,
            )
    return None


# ---------------------------------------------------------------------- communication


def _answer_strength(f, s) -> int:
    """How plainly a summary sentence states the answer: a result figure (a percentage or money), a
    finding verb or comparison, a decision."""
    score = 0
    if lx.PERCENTLIKE.search(s.text) or lx.MONEY.search(s.text):
        score += 2
    if lx.FINDING_VERB.search(s.text) or lx.COMPARATIVE_ANSWER.search(s.text):
        score += 2
    if lx.DECISION.search(s.text):
        score += 2
    if any(n.notable for n in f.nums(s)) and lx.COMPARISON.search(s.text):
        score += 1
    return score


@strength("tldr_effective")
def tldr_effective(ctx: Context) -> Strength | None:
    """The summary up front states the answer: quoted from its sentence that does (a sentence that
    only sets the scene is no evidence of it)."""
    v = ctx.view
    f = ctx.features
    if not v.tldr.found or v.tldr.method == "content_signal":
        return None
    ranked = [(_answer_strength(f, s), -s.line, s) for s in f.summary if s.kind != "heading"]
    best = max(ranked, default=None, key=lambda t: (t[0], t[1]))
    if best is None or best[0] < 3:
        return None
    s = best[2]
    at = lx.PERCENTLIKE.search(s.text) or lx.MONEY.search(s.text) or lx.COMPARATIVE_ANSWER.search(s.text) or lx.FINDING_VERB.search(s.text)
    return Strength(
        title="TL;DR states the answer up front",
        detail=f"The summary opens with the finding: \"{_q(ctx, s, at, 24)}\".",
        strength=3,
    )


@strength("actionable_recommendations")
def actionable_recommendations(ctx: Context) -> Strength | None:
    f = ctx.features
    for s in f.recommendations:
        if s.kind == "heading":
            continue
        m = lx.OWNER.search(s.text)
        if s.kind == "table" and not re.search(r"\d", s.text):
            continue  # a header row
        if m and not lx.OWNER_STOP.match(m.group(0).split()[0].strip("(@")) and (lx.TIMING.search(s.text) or s.kind == "table"):
            return Strength(
                title="Recommendations have owners and dates",
                detail=f"Actions name who does what by when, e.g. \"{_q(ctx, s, None)}\".",
                strength=2.5,
            )
    return None


@strength("limitations_clear")
def limitations_clear(ctx: Context) -> Strength | None:
    f = ctx.features
    lim = [s for s in f.statements if s.role == LIMITATIONS and s.kind != "heading" and len(s.text.split()) > 3]
    if len(lim) >= 2:
        section = lim[0].section or "Limitations"
        return Strength(
            title="Limitations stated plainly",
            detail=f"The '{section}' section sets out {len({s.line for s in lim})} scope limits and caveats, e.g. \"{_q(ctx, lim[0], None, 16)}\".",
            strength=2,
        )
    if f.limitation is not None and f.limitation[1] is not None:
        s, m = f.limitation
        return Strength(
            title="Caveats acknowledged",
            detail=f"The document flags where the result may not hold: \"{_q(ctx, s, m, 16)}\".",
            strength=1,
        )
    return None


@strength("signpost_headings")
def signpost_headings(ctx: Context) -> Strength | None:
    heads = [h for h in ctx.view.content_headings if clean_heading(h.text)]
    strip = re.compile(r"^(?:slide|section|part|page|step)\s*\w{1,3}\s*[:.\-–—]\s*", re.I)
    heads = [type(h)(strip.sub("", h.text), h.level, h.line, h.role) for h in heads]
    signs = [
        h
        for h in heads
        if not lx.GENERIC_HEADING.match(clean_heading(h.text))
        and not lx.NON_CONTENT_HEADING.match(clean_heading(h.text))
        and (re.search(r"\d", clean_heading(h.text)) or lx.FINDING_VERB.search(h.text) or lx.CHANGE_WORD.search(h.text))
        and len(clean_heading(h.text).split()) >= 3
    ]
    if len(signs) < 2:
        return None
    return Strength(
        title="Headings carry the message",
        detail=f"Section headings state findings, e.g. '{signs[0].text}', so a skimmer gets the story from them.",
        strength=1.5,
    )


@strength("audience_calibrated")
def audience_calibrated(ctx: Context) -> Strength | None:
    f = ctx.features
    if not ctx.view.headings or ctx.view.word_count < 150:
        return None
    undefined = [tok for tok, _, _, d in f.acronyms if not d and tok not in lx.COMMON_ACRONYMS]
    if len(undefined) > 1 or f.reads_as_deck:
        return None
    reader = {"exec": "an executive", "tech": "a technical lead", "ds": "a data-science peer", "mixed": "a mixed audience"}.get(ctx.audience, "the reader")
    return Strength(
        title="Language suits the reader",
        detail=f"Technical terms are explained or avoided, so the text works for {reader}.",
        strength=0.5,
    )
