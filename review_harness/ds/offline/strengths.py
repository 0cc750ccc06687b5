"""Strength detectors, one per rubric credit id: what the document does well, named concretely."""

from __future__ import annotations

import re

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.features import numeric_uncertainty
from review_harness.ds.offline.registry import Context, Strength, strength
from review_harness.ds.offline.view import LIMITATIONS, clean_heading


def _q(ctx: Context, s, m=None, words: int = 20) -> str:
    return ctx.view.quote(s, m, max_words=words)


# ---------------------------------------------------------------------- analysis


@strength("sound_design")
def sound_design(ctx: Context) -> Strength | None:
    f = ctx.features
    hit = f.design or f.comparison_design
    if hit is None:
        return None
    s, m = hit
    return Strength(
        title="Comparison design fits the claim",
        detail=f"The effect is measured against a comparison group (\"{_q(ctx, s, m)}\"), so the result can carry a causal reading.",
        strength=3,
    )


@strength("uncertainty_reported")
def uncertainty_reported(ctx: Context) -> Strength | None:
    f = ctx.features
    results_first = sorted(f.statements, key=lambda s: (s.role not in ("results", "summary"), s.line))
    # an interval, a margin or a standard error with its numbers (a bare p-value is a test, not a
    # statement of uncertainty: it does not count here)
    for s in results_first:
        if s.kind == "table" or s.role in ("method", "data") or (lx.PVALUE.search(s.text) and not lx.CI.search(s.text)):
            continue
        m = numeric_uncertainty(s.text)
        if m:
            return Strength(
                title="Uncertainty reported with the numbers",
                detail=f"Results carry intervals or tests, e.g. \"{_q(ctx, s, m)}\", so readers can tell signal from noise.",
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


@strength("baselines_given")
def baselines_given(ctx: Context) -> Strength | None:
    f = ctx.features
    pattern = lx.rx(r"\bfrom [$€£]?\d[\d.,]*\s?%?\s?(?:\w+ )?to [$€£]?\d|\b(?:vs\.?|versus|compared (?:with|to)|against)\s+[$€£]?\d")
    for s in sorted(f.statements, key=lambda s: (s.role not in ("results", "summary"), s.line)):
        if s.kind in ("heading", "table") or s.role in ("method", "data"):
            continue
        m = pattern.search(s.text)
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


@strength("tldr_effective")
def tldr_effective(ctx: Context) -> Strength | None:
    v = ctx.view
    if not v.tldr.found or v.tldr.method == "content_signal":
        return None
    first = next((s for s in ctx.features.summary if s.kind != "heading" and re.search(r"\d|recommend|should", s.text, re.I)), None)
    if first is None:
        return None
    return Strength(
        title="TL;DR states the answer up front",
        detail=f"The summary opens with the finding and its size: \"{_q(ctx, first)}\".",
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
