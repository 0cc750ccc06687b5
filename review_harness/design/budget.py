"""The input budget of one persona request (personas.yaml `input`): documents larger than the
budget are cut section by section before any reviewer sees them, and the review says so.

Every heading is kept, so the outline stays whole; each section keeps its opening lines in the
same proportion (the share of the budget left for bodies over the words they have), and a marker
line says how many of its words were left out. When both documents are too long, the reference
document gets at most `reference_share` of the budget and the document under review the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from review_harness.core.markdown import parse_sections
from review_harness.core.tokens import TOKENS_PER_WORD, estimate_tokens
from review_harness.design.personas import InputBudget

MARKER = "[... {n:,} words of this section left out: the document exceeds the review's input budget]"


@dataclass(frozen=True)
class Fitted:
    design: str
    requirements: str
    cut: dict[str, tuple[int, int]]  # slot -> (words before, words kept) of each document that was cut

    @property
    def note(self) -> str:
        """For the prompt: which documents were cut, and what that means for findings."""
        if not self.cut:
            return ""
        parts = [f"the {slot} document keeps {kept:,} of its {before:,} words" for slot, (before, kept) in self.cut.items()]
        return ("; ".join(parts) + ". Every heading is kept and each section keeps its opening; do not report as "
                "missing what a section marked as cut may hold.")


@dataclass
class _Block:
    heading: str | None  # the heading line (None: text before the first heading)
    body: list[str]
    counts: list[int]  # words per body line

    @property
    def words(self) -> int:
        return sum(self.counts)


def _blocks(text: str) -> list[_Block]:
    lines = text.split("\n")
    sections = parse_sections(text) or []
    blocks: list[_Block] = []
    if not sections or sections[0].start_line > 1:
        first = sections[0].start_line - 1 if sections else len(lines)
        blocks.append(_Block(None, lines[:first], [len(line.split()) for line in lines[:first]]))
    for s in sections:
        if s.level == 0:
            body = lines[s.start_line - 1: s.end_line]
            blocks.append(_Block(None, body, [len(line.split()) for line in body]))
            continue
        body = lines[s.start_line: s.end_line]
        blocks.append(_Block(lines[s.start_line - 1], body, [len(line.split()) for line in body]))
    return blocks


_MARKER_WORDS = len(MARKER.format(n=0).split())


def _size(blocks: list[_Block], ratio: float) -> int:
    """Words of the cut text at `ratio` (headings, kept body words, markers)."""
    total = 0
    for b in blocks:
        total += len(b.heading.split()) if b.heading else 0
        keep = int(b.words * ratio)
        total += keep + (_MARKER_WORDS if keep < b.words else 0)
    return total


def _render(blocks: list[_Block], ratio: float, words_allowed: int) -> tuple[str, int]:
    out: list[str] = []
    kept_total = used_total = 0
    for n, b in enumerate(blocks):
        heading_words = len(b.heading.split()) if b.heading else 0
        if used_total + heading_words + _MARKER_WORDS > words_allowed:  # not even the outline fits: stop here
            rest = sum(x.words + (len(x.heading.split()) if x.heading else 0) for x in blocks[n:])
            out.append(f"[... the remaining {len(blocks) - n:,} sections ({rest:,} words) are left out: the document "
                       "exceeds the review's input budget]")
            break
        if b.heading:
            out.append(b.heading)
        used_total += heading_words
        allowance = min(int(b.words * ratio), max(0, words_allowed - used_total - _MARKER_WORDS))
        used = 0
        for line, count in zip(b.body, b.counts):
            if used + count <= allowance:
                out.append(line)
                used += count
                continue
            rest = allowance - used
            if rest > 0:
                out.append(" ".join(line.split()[:rest]))
                used += rest
            break
        if used < b.words:
            out.append(MARKER.format(n=b.words - used))
            used_total += _MARKER_WORDS
        kept_total += heading_words + used
        used_total += used
    return "\n".join(out), kept_total


def _cut(text: str, words_allowed: int) -> tuple[str, int]:
    """`text` cut to about `words_allowed` words: every heading (while the outline fits) and the
    same share of each section's opening; (text, words of the document kept)."""
    blocks = _blocks(text)
    low, high = 0.0, 1.0
    if _size(blocks, 1.0) <= words_allowed:
        return text, sum(b.words + (len(b.heading.split()) if b.heading else 0) for b in blocks)
    for _ in range(30):  # the largest ratio whose cut text fits
        mid = (low + high) / 2
        if _size(blocks, mid) <= words_allowed:
            low = mid
        else:
            high = mid
    return _render(blocks, low, words_allowed)


def fit_documents(design: str, requirements: str, reviewed: str, budget: InputBudget) -> Fitted:
    """Both documents within `budget.budget_tokens` together; `reviewed` names the slot under
    review ('design' or 'requirements'), which gets what the reference does not need."""
    texts = {"design": design, "requirements": requirements}
    tokens = {slot: estimate_tokens(text) for slot, text in texts.items()}
    if sum(tokens.values()) <= budget.budget_tokens:
        return Fitted(design, requirements, {})
    reference = "requirements" if reviewed == "design" else "design"
    reference_budget = min(tokens[reference], int(budget.budget_tokens * budget.reference_share))
    allowed = {reference: reference_budget, reviewed: budget.budget_tokens - reference_budget}
    out: dict[str, str] = {}
    cut: dict[str, tuple[int, int]] = {}
    for slot, text in texts.items():
        if tokens[slot] <= allowed[slot]:
            out[slot] = text
            continue
        out[slot], kept = _cut(text, int(allowed[slot] / TOKENS_PER_WORD))
        cut[slot] = (len(text.split()), kept)
    return Fitted(out["design"], out["requirements"], cut)
