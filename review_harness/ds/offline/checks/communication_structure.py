"""Detectors of the communication dimension's structure lens: a missing or weak TL;DR, the
answer buried late, no structure and generic headings.
"""

from __future__ import annotations


from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import first_words, tldr_weakness, unmarked
from review_harness.ds.offline.purpose import DEMONSTRATION
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import (
    CONCLUSION, DATA, METHOD, RECOMMENDATION, SUMMARY, Sentence, clean_heading,
)


@rule("tldr_missing")
def tldr_missing(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if v.tldr.found or f.word_count_small or f.purpose.kind == DEMONSTRATION:
        return None  # a worked example owes no answer up front (lenses_not_assessed says what to check)
    # the answer is a statement, not a contents entry ("7. Conclusion") or a label
    answer = next((s for s in f.prose if (lx.CONCLUSION_SIGNAL.search(s.text) or s.role in (CONCLUSION, RECOMMENDATION))
                   and len(s.text.split()) > 4 and not lx.NON_CONTENT_HEADING.match(s.section.strip().lower())), None)
    result = next(
        (s for s in f.prose if s.role not in (METHOD, DATA) and (lx.CI.search(s.text) or lx.POS_SIG.search(s.text))),
        None,
    )
    if result is not None and answer is not None and result.line < answer.line:
        where = f" The first result only appears at {v.location(result)}, and the conclusion at {v.location(answer)}."
    elif answer is not None:
        where = f" The answer only appears in {v.location(answer)}."
    else:
        where = ""
    ask = "the direct answer to the question" if ctx.workflow == "reactive" else "the main finding, its impact and the recommendation"
    return Hit(
        title="No TL;DR up front",
        issue=(
            f"There is no summary at the top of the document: a reader has to read all {v.word_count:,} words to learn "
            f"the answer.{where}"
        ),
        evidence="",
        location="Top of document",
        suggested_fix=f"Open with a three-line TL;DR stating {ask}: the finding with its size, what it means, and the recommended action with its owner.",
        absence=True,
        consider="Consider adding a two-to-three sentence TL;DR at the top with the answer.",
        strength=2,
    )


_ANSWER_SIGNAL = lx.rx(
    r"\b(to answer the question|the answer (?:is|to)|short answer|in conclusion|to conclude|we conclude|(?:we|i) recommend|"
    r"my recommendations?|our recommendations?|(?:the )?bottom line|in summary|to summari[sz]e|key (?:finding|takeaway)s?|"
    r"overall,|so, to answer)\b"
)


def _late_answer(ctx: Context) -> Sentence | None:
    """The first explicit answer or recommendation statement, if it sits in the back half."""
    f = ctx.features
    first = next(
        (
            s
            for s in f.prose
            if s.role != SUMMARY and s.kind != "heading" and (_ANSWER_SIGNAL.search(s.text) or (s.role in (CONCLUSION,) and not s.guessed))
        ),
        None,
    )
    if first is None or first.pos < 0.4:
        return None
    return first


@rule("weak_tldr")
def weak_tldr(ctx: Context) -> Hit | None:
    v = ctx.view
    reason = tldr_weakness(ctx)
    if reason is None or ctx.features.purpose.kind == DEMONSTRATION:
        return None
    if _late_answer(ctx) is not None:
        return None  # the answer exists further down: reported as a buried lede
    first = next((s for s in ctx.features.summary if s.kind != "heading"), None)
    return Hit(
        title="TL;DR does not state the answer",
        issue=(
            f"A summary exists, but {reason}: \"{first_words(unmarked(v.tldr.text), 20)}\". Busy readers stop there, so they leave "
            f"without the finding."
        ),
        evidence=v.quote(first) if first else "",
        location=v.location(first) if first else "TL;DR",
        suggested_fix="Rewrite the TL;DR as answer + impact + action: the result with its interval, what it means for the business, and the recommended decision.",
    )


LATE_AFTER_WORDS = 40  # a summary is buried only behind at least this much text


@rule("buried_lede")
def buried_lede(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    t = v.tldr
    if f.word_count_small or not t.found or f.purpose.kind == DEMONSTRATION:
        return None  # no summary at all is tldr_missing; a worked example owes none
    # late: past 40% of the document with real reading before it (a title and a byline are not)
    before = sum(len(s.text.split()) for s in f.text_sentences if t.start_line is not None and s.line < t.start_line)
    late_tldr = (not v.is_extraction and t.start_line is not None and t.start_line / max(v.n_lines, 1) > 0.4
                 and before >= LATE_AFTER_WORDS)
    if late_tldr:
        target = next((s for s in f.summary if s.kind != "heading"), None)
    elif tldr_weakness(ctx) is not None:
        target = _late_answer(ctx)
    else:
        return None
    if target is None:
        return None
    opening = next((s for s in f.summary if s.kind != "heading"), None)
    return Hit(
        title="Key finding is buried deep in the document",
        issue=(
            f"The answer (\"{first_words(unmarked(target.text), 18)}\") first appears at {v.location(target)}, about "
            f"{round(target.pos * 100)}% of the way through"
            + (f"; the opening only says \"{first_words(unmarked(opening.text), 14)}\"" if opening is not None and opening is not target else "")
            + ". Readers who skim the top will miss it."
        ),
        evidence=v.quote(target),
        location=v.location(target),
        suggested_fix="Move the answer and the recommendations to the first lines as a TL;DR (finding, size, action) and keep the detail below.",
    )


@rule("no_structure")
def no_structure(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if v.word_count < 250:
        return None
    if len(v.content_headings) >= 2:
        return None
    if v.is_extraction and not v.structure_inferred:
        return None
    first = next((s for s in f.prose), None)
    return Hit(
        title="Running text without sections",
        issue=(
            f"The {v.word_count:,}-word document has no section headings, so a reader cannot jump to the method, the "
            f"results or the recommendation; they have to read everything in order to find them."
        ),
        evidence="",
        location="whole document",
        suggested_fix="Break the text into sections whose headings carry the message: a TL;DR, how it was measured, one heading per finding stating the finding, and what we recommend.",
        absence=True,
        consider="Consider adding section headings (TL;DR, method, results, recommendation).",
        strength=1 if first else 0.5,
    )


@rule("generic_headings")
def generic_headings(ctx: Context) -> Hit | None:
    v = ctx.view
    if v.tldr.found:
        return None  # a summary up front, even a weak one (reported as such), is where a skimmer starts, not the headings
    heads = [h for h in v.content_headings if clean_heading(h.text)]
    content = [h for h in heads if not lx.NON_CONTENT_HEADING.match(clean_heading(h.text))]
    if not content:
        return None
    numbered = [h for h in content if lx.SECTION_NUMBERED_HEADING.match(clean_heading(h.text))]
    generic = [h for h in content if lx.GENERIC_HEADING.match(clean_heading(h.text))]
    if not (len(numbered) >= 2 or (len(generic) >= 3 and len(generic) / len(content) >= 0.6)):
        return None
    examples = ", ".join(f"'{h.text}'" for h in (numbered or generic)[:4])
    h = (numbered or generic)[0]
    return Hit(
        title="Headings are labels, not signposts",
        issue=(
            f"{len(numbered or generic)} of {len(content)} section headings ({examples}) only label the part of the "
            f"document; none tells the reader what the section found. Skimmers cannot get the story from the headings."
        ),
        evidence=h.text.strip(),
        location=f"Heading at line {h.line}" if not v.is_extraction else "Extraction, STRUCTURE",
        suggested_fix="Rename each heading to state its section's takeaway (the finding itself rather than 'Results').",
    )
