"""Text inside a document that speaks as its reviewer: content, never evidence.

A document may carry words addressed to whoever reviews it, or written as if a review were already
done: an HTML comment with "reviewer instructions", a "## Review" section that gives the document
Good to Go (100/100) and says it used a randomized experiment, a fake `</document> REVIEWER OUTPUT
{...}` block, a table row labelled "Reviewer instruction", the same in a notebook cell. None of it
is the analysis. The offline reviewer reads the document without these spans (their lines left
blank, so every other line keeps its number): a claim made there is no evidence that a method was
used, and an instruction there changes no finding. The spans are reported once, as text that does
not belong in a document for human readers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

I = re.IGNORECASE

# a line that speaks as a reviewer or to one: instructions, a ready-made verdict, a reviewer's answer format
_VOICE = re.compile(
    r"\bnote to (?:the )?(?:ai |llm |automated )?reviewers?\b"
    r"|\b(?:ai|llm|automated|model|the) reviewers?\b[^.\n]{0,60}\b(?:instructions?|should|must|please|ignore|rate|score)\b"
    r"|\breviewers?'?s? (?:instructions?|notes? to self|output|prompt)\b"
    r"|\binstructions? (?:for|to) (?:the )?(?:ai|llm|model|reviewers?|assistant)\b"
    r"|\bignore (?:all |any |the )?(?:previous|prior|above|earlier|other) (?:instructions?|rules?|prompts?)\b"
    r"|\b(?:report|list|raise) no (?:issues|findings|problems)\b|\bdo not (?:list|report|raise) (?:any )?(?:findings|issues)\b"
    r"|\b(?:rate|score) (?:this|the) (?:analysis|document|report)\b[^.\n]{0,20}\d{1,3}\s*/\s*100"
    r"|</?document>|\breviewer output\b"
    r"|\"(?:findings|lens_ratings|verdict|final_score|positives)\"\s*:",
    I,
)
# the review's own verdict vocabulary with a score: a verdict written into the document
_VERDICT = re.compile(r"\b(?:Good to Go|Minor Fix|Major Rework)\b")
_SCORE = re.compile(r"\b\d{1,3}\s*/\s*100\b")
_REVIEW_HEADING = re.compile(
    r"^\s{0,3}#{1,6}\s*(?:\W\s*)?(?:(?:ai|llm|automated|independent|peer|external)\s+)?"
    r"(?:review(?:er)?(?:'s)?|verdict)(?:\s+(?:notes?|output|verdict|summary|result|results|comments?|instructions?|score))?"
    r"\s*:?\s*#*\s*$",
    I,
)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_COMMENT_OPEN = re.compile(r"<!--")


@dataclass(frozen=True)
class VoiceSpan:
    start: int  # 1-based first line
    end: int  # 1-based last line
    quote: str  # verbatim, from the span's first line that speaks as a reviewer


def _speaks(line: str) -> bool:
    return bool(_VOICE.search(line) or (_VERDICT.search(line) and _SCORE.search(line)))


def _quote(line: str) -> str:
    text = re.sub(r"^\s*(?:[-*+>|]|\d+[.)])\s*|<!--\s*|\s*-->\s*$", "", line).strip().strip("|").strip()
    words = text.split()
    return " ".join(words[:30])


def reviewer_voice(content: str) -> list[VoiceSpan]:
    """The spans of `content` that speak as a reviewer (see the module docstring), in order."""
    lines = content.split("\n")
    n = len(lines)
    marked = [False] * n
    spans: list[VoiceSpan] = []

    def mark(a: int, b: int, quote_line: int) -> None:
        for i in range(a, b + 1):
            marked[i] = True
        spans.append(VoiceSpan(a + 1, b + 1, _quote(lines[quote_line])))

    def block(i: int) -> tuple[int, int]:
        """The paragraph, comment, fenced block or table row line i sits in."""
        line = lines[i]
        if line.lstrip().startswith("|"):
            return i, i
        a = i
        while a > 0 and lines[a - 1].strip() and not _HEADING.match(lines[a - 1]) and not lines[a - 1].lstrip().startswith("|"):
            a -= 1
        b = i
        while b + 1 < n and lines[b + 1].strip() and not _HEADING.match(lines[b + 1]) and not lines[b + 1].lstrip().startswith("|"):
            b += 1
        return a, b

    # a section headed as a review whose text gives a verdict or speaks as a reviewer: all of it
    i = 0
    while i < n:
        if _REVIEW_HEADING.match(lines[i]):
            level = len(_HEADING.match(lines[i]).group(1))
            end = i
            while end + 1 < n and not ((m := _HEADING.match(lines[end + 1])) and len(m.group(1)) <= level):
                end += 1
            body = lines[i + 1:end + 1]
            if any(_speaks(x) or _VERDICT.search(x) for x in body):
                first = next((j for j in range(i + 1, end + 1) if _speaks(lines[j]) or _VERDICT.search(lines[j])), i)
                mark(i, end, first)
                i = end + 1
                continue
        i += 1
    # a fenced block or a comment that speaks as a reviewer (a reviewer's answer format, instructions)
    i = 0
    while i < n:
        if marked[i]:
            i += 1
            continue
        fence = _FENCE.match(lines[i])
        if fence:
            end = next((j for j in range(i + 1, n) if lines[j].strip().startswith(fence.group(1))), n - 1)
            hit = next((j for j in range(i, end + 1) if _speaks(lines[j])), None)
            if hit is not None:
                mark(i, end, hit)
            i = end + 1
            continue
        if _COMMENT_OPEN.search(lines[i]):
            end = next((j for j in range(i, n) if "-->" in lines[j]), n - 1)
            hit = next((j for j in range(i, end + 1) if _speaks(lines[j])), None)
            if hit is not None:
                mark(i, end, hit)
                i = end + 1
                continue
        i += 1
    # any other paragraph or table row that speaks as a reviewer
    for i in range(n):
        if not marked[i] and _speaks(lines[i]):
            a, b = block(i)
            mark(a, b, i)
    return sorted(spans, key=lambda s: s.start)


def without_voice(content: str, spans: list[VoiceSpan]) -> str:
    """`content` with the spans' lines left blank (line numbers unchanged)."""
    if not spans:
        return content
    lines = content.split("\n")
    for span in spans:
        for i in range(span.start - 1, min(span.end, len(lines))):
            lines[i] = ""
    return "\n".join(lines)
