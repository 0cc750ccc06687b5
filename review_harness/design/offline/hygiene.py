"""Document checks of the offline design reviewer whose fixes are mechanical (seed step 4,
auto-fix): misspelt words from a list (prompts/design/offline_spelling.yaml), internal links to a
heading the document does not have, and relative links whose target has no file extension.

Each finding quotes the document verbatim and carries its fix in the suggestion
(`autofix.mechanical_suggestion`), for the synthesizer to propose; the text to replace is made
unique in the document by widening it word by word, and a fix that cannot be made unique, or
whose right form is unknown, is reported without one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz import fuzz, process

from review_harness.core.yamlio import read_yaml
from review_harness.design.autofix import anchors, mechanical_suggestion
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.personas import PROMPTS_DIR, default_personas

SPELLING_FILE = PROMPTS_DIR / "offline_spelling.yaml"
INTERNAL_LINK = re.compile(r"\[(?P<text>[^\]\n]+)\]\(#(?P<anchor>[^)\s]+)\)")
RELATIVE_LINK = re.compile(r"\[(?P<text>[^\]\n]+)\]\((?!\w+:|#|/)(?P<target>[^)\s#]+)(?P<rest>#[^)\s]*)?\)")
MAX_WIDEN = 6  # words added on each side to make the text to replace unique


@lru_cache(maxsize=1)
def misspellings() -> dict[str, str]:
    data = read_yaml(SPELLING_FILE) or {}
    return {str(k).lower(): str(v) for k, v in (data.get("misspellings") or {}).items()}


def _unique_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The smallest span around [start, end) on its line, widened a word at a time on both
    sides, whose text occurs once in `text`; None when none is unique."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    a, b = start, end
    for _ in range(MAX_WIDEN + 1):
        if text.count(text[a:b]) == 1:
            return a, b
        left = text.rfind(" ", line_start, max(a - 1, line_start))
        right = text.find(" ", min(b + 1, line_end), line_end)
        new_a = line_start if left < 0 else left + 1
        new_b = line_end if right < 0 else right
        if (new_a, new_b) == (a, b):
            return None
        a, b = new_a, new_b
    return None


FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]+`")


def prose(text: str) -> str:
    """`text` with code (fenced blocks and inline spans) blanked out, offsets kept: checks of
    wording and links read prose only."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    return INLINE_CODE.sub(blank, FENCE.sub(blank, text))


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _with_case(word: str, like: str) -> str:
    if like.isupper():
        return word.upper()
    return word[0].upper() + word[1:] if like[0].isupper() else word


@detector("misspelt-words")
def misspelt_words(ctx: Ctx) -> None:
    doc = ctx.artifact
    table = misspellings()
    if not table or doc.empty:
        return
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(table, key=len, reverse=True))) + r")\b", re.I)
    for m in pattern.finditer(prose(doc.text)):
        word = m.group(0)
        right = _with_case(table[word.lower()], word)
        span = _unique_span(doc.text, m.start(), m.end())
        quote = doc.text[span[0]:span[1]] if span else word
        fixed = quote[: m.start() - span[0]] + right + quote[m.end() - span[0]:] if span else None
        suggestion = (mechanical_suggestion("typo", quote, fixed) if fixed is not None
                      else f"Correct '{word}' to '{right}' wherever it occurs.")
        ctx.add("misspelt-word", title=f"Misspelt word '{word}'", section=doc.path_of(_line_of(doc.text, m.start())),
                issue=f"The document writes '{word}' for '{right}'.",
                why="A misspelling in a design undermines searches for the term and the reader's trust in the text.",
                suggestion=suggestion, evidence=quote, key=f"spell:{word.lower()}")


@detector("broken-internal-links")
def broken_internal_links(ctx: Ctx) -> None:
    doc = ctx.artifact
    known = sorted(anchors(doc.text))
    other = ctx.requirements if doc is ctx.design else ctx.design
    elsewhere = anchors(other.text) if not other.empty else set()
    for m in INTERNAL_LINK.finditer(prose(doc.text)):
        anchor = m["anchor"]
        if anchor in known:
            continue
        if anchor in elsewhere:  # a heading of the other document: one file read as two, or a cross-reference
            ctx.not_assessed(f"the link to #{anchor}: the heading is in the other document")
            continue
        best = process.extractOne(anchor, known, scorer=fuzz.ratio, score_cutoff=80) if known else None
        link = m.group(0)
        if best and doc.text.count(link) == 1:
            suggestion = mechanical_suggestion("broken-link", link, link.replace(f"(#{anchor})", f"(#{best[0]})"))
        else:
            suggestion = f"Point the link at a heading the document has, or add the heading '{anchor}' names."
        ctx.add("broken-anchor", title=f"Internal link to a missing heading: #{anchor}",
                section=doc.path_of(_line_of(doc.text, m.start())),
                issue=f"The link '{m['text']}' points to #{anchor}, and no heading of the document has that anchor.",
                why="A reader who follows the link lands nowhere, and the section it meant stays unread.",
                suggestion=suggestion, evidence=link, key=f"anchor:{anchor}")


@detector("links-without-extension")
def links_without_extension(ctx: Ctx) -> None:
    doc = ctx.artifact
    extensions = default_personas().auto_fix["missing-extension"].extensions
    for m in RELATIVE_LINK.finditer(prose(doc.text)):
        target = m["target"]
        if "." in target.rsplit("/", 1)[-1]:
            continue
        link = m.group(0)
        fixed = link.replace(f"({target}", f"({target}{extensions[0]}", 1)
        suggestion = (mechanical_suggestion("missing-extension", link, fixed) if doc.text.count(link) == 1
                      else f"Give the link target '{target}' its file extension.")
        ctx.add("link-without-extension", title=f"Link target without a file extension: {target}",
                section=doc.path_of(_line_of(doc.text, m.start())),
                issue=f"The link '{m['text']}' points to '{target}', a relative path with no file extension.",
                why="Repository viewers and static-site builders resolve the path as written, so the link breaks.",
                suggestion=suggestion, evidence=link, key=f"ext:{target}")
