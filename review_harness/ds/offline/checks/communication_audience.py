"""Detectors of the communication dimension's audience lens: missing limitations, unexplained
jargon, the wrong level of detail for the audience and hand-off risk.
"""

from __future__ import annotations

import re

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import extended_results, first_words, unmarked
from review_harness.ds.offline.purpose import DEMONSTRATION
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import DATA, METHOD, Sentence


@rule("limitations_missing")
def limitations_missing(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if f.word_count_small or not f.conclusion_present:
        return None  # nothing concluded, nothing to over-apply
    if f.limitation is not None or f.purpose.kind == DEMONSTRATION:
        return None  # a worked example's result is the method at work, not a claim to bound
    # what needs bounds is a result applied beyond what was measured: a document that applies its result
    # to no wider population (a measurement, an exploration, a ship decision for what was tested) leaves
    # nothing for missing limitations to mislead about
    extended = extended_results(ctx, lx.SCOPE_EXTENSION) or extended_results(ctx, lx.GENERALIZE)
    if not extended:
        return None
    s, m = max(extended, key=lambda e: bool(lx.ROLLOUT.search(e[0].text)) + bool(re.search(r"\bwill\b", e[0].text, re.I)))
    return Hit(
        title="No limitations or scope stated",
        issue=(
            f"\"{first_words(unmarked(s.text), 20)}\" applies the result to {unmarked(m.group(0))}, yet nowhere does the "
            "document say what the analysis does not cover or where the result may not hold (time window, population, "
            "data quality, design). Downstream readers may apply the numbers beyond what they support."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Add a short 'Limitations' list: the population and period covered, what the design cannot rule out, and known data issues.",
        absence=True,
        consider="Consider adding a short limitations list.",
    )


_CODE_READERS = 10  # lines of code a write-up shows when it is written for readers of code


@rule("jargon_unexplained")
def jargon_unexplained(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    audience = ctx.audience
    known = set(lx.COMMON_ACRONYMS)
    if audience in ("ds", "tech") or v.code_lines >= _CODE_READERS:
        known |= lx.DS_ACRONYMS  # a write-up that shows its code is read by people who read code: OLS, AUC are theirs
    undefined = [(tok, s, m) for tok, s, m, d in f.acronyms if not d and tok not in known and tok.rstrip("S") not in known]
    jargon_words: list[tuple[str, Sentence, re.Match[str]]] = []
    if audience == "exec":
        seen = set()
        for s in f.prose:
            for m in lx.DS_JARGON.finditer(s.text):
                w = m.group(0).lower()
                if w in seen:
                    continue
                seen.add(w)
                after = s.text[m.end() : m.end() + 30]
                if re.match(r"\s*(?:\(|, (?:which|i\.e\.|that is|meaning)|:)", after):
                    continue
                jargon_words.append((m.group(0), s, m))
    threshold = {"exec": 2, "mixed": 3, "tech": 4, "ds": 4}.get(audience, 3)
    terms = undefined + jargon_words
    if audience != "exec":  # what a reader needs to follow: the terms the summary, conclusions and results use
        key = {id(s) for s in f.summary + f.closing + f.results}
        terms = [t for t in terms if id(t[1]) in key]
    if len(terms) < threshold:
        return None
    tok, s, m = terms[0]
    names = ", ".join(t for t, _, _ in terms[:6])
    reader = {"exec": "an executive", "mixed": "the non-specialists in a mixed audience", "tech": "a technical lead outside the team", "ds": "a data scientist outside the team"}.get(audience, "the reader")
    return Hit(
        title="Acronyms and jargon used without explanation",
        issue=(
            f"{len(terms)} terms are used without being spelled out or explained ({names}); {reader} will not know all of "
            f"them, and several carry the key results."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix=f"Spell out each acronym on first use and explain the technical terms in plain words ({names} each where it first appears), or add a short glossary.",
        strength=min(len(terms) / threshold, 3),
    )


@rule("wrong_detail_level")
def wrong_detail_level(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    audience = ctx.audience
    if audience == "exec":
        method_words = sum(len(s.text.split()) for s in f.text_sentences if s.role in (METHOD, DATA))
        total = max(sum(len(s.text.split()) for s in f.text_sentences), 1)
        jargon = {m.group(0).lower() for s in f.prose for m in lx.DS_JARGON.finditer(s.text)}
        heavy = (method_words / total >= 0.35 and total >= 400) or (v.code_lines >= 10 and total >= 100) or len(jargon) >= 6
        if not heavy:
            return None
        s = next((x for x in f.text_sentences if x.role in (METHOD, DATA) and x.kind != "heading"), None) or next(
            (x for x in f.prose if lx.DS_JARGON.search(x.text)), None
        )
        return Hit(
            title="Too much method detail for an executive reader",
            issue=(
                f"About {round(100 * method_words / total)}% of the text is method and data detail"
                + (f", with technical terms such as {', '.join(sorted(jargon)[:4])}" if jargon else "")
                + ". An executive needs the answer, its impact and the decision; the detail hides them."
            ),
            evidence=v.quote(s) if s else "",
            location=v.location(s),
            suggested_fix="Lead with the decision and impact in plain language and move the method detail to an appendix, keeping one sentence on how confident we are.",
        )
    deck = f.reads_as_deck
    if len(deck) < 2 and not (f.bullet_share >= 0.7 and v.word_count < 1500 and audience in ("ds", "tech")):
        return None
    thin = f.uncertainty is None or not f.method_present
    if audience in ("ds", "tech") or (audience == "mixed" and thin and len(deck) >= 2):
        s = deck[0] if deck else next((x for x in f.text_sentences if x.kind == "bullet"), None)
        missing = []
        if f.uncertainty is None:
            missing.append("no intervals, tests or sample sizes")
        if not f.method_present:
            missing.append("no method description")
        reader = {"ds": "data scientists", "tech": "technical reviewers", "mixed": "a mixed audience"}[audience if audience in ("ds", "tech", "mixed") else "mixed"]
        return Hit(
            title="Slide deck recycled for a different audience",
            issue=(
                f"The document is a presentation deck (slide markers, bullet fragments) pasted for {reader}"
                + (f", with {' and '.join(missing)}" if missing else "")
                + ". Headline claims that worked in a live readout cannot be checked by readers who were not in the room."
            ),
            evidence=v.quote(s) if s else "",
            location=v.location(s),
            suggested_fix="Rewrite as a document for this reader: a TL;DR, the design and metric definitions, results with intervals and sample sizes, and the caveats; keep the slides as an appendix link.",
            strength=2,
        )
    return None


@rule("handoff_risk")
def handoff_risk(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    strong = v.first(lx.HANDOFF_STRONG, f.text_sentences)
    if strong is None:
        return None
    s, m = strong
    return Hit(
        title="Relies on context only the author's team has",
        issue=(
            f"The document refers to \"{unmarked(m.group(0))}\" without saying what it was. A reader who was not in the room, "
            f"or joins later, cannot follow or verify that part."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Replace the insider reference with the fact itself or a link (what was decided, where the definition lives, who owns it).",
    )
