"""The document view of the offline design reviewer: a parsed markdown document (``Doc``), the
parts of it that describe what will be built, and verbatim quoting.

Quotes (``quote_of``, ``cell_quote``) are always text of the document as written; fragments
used inside generated prose (``short``, ``clause``) drop hedge words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from review_harness.core.markdown import (
    MdSection,
    Sentence,
    normalize,
    parse_sections,
    plain,
    section_at,
    sentences,
    subtree_end,
)
from review_harness.design.offline.vocabulary import HEDGES, V, numbers_in, term_set

KINDS_OF_PROSE = ("para", "bullet", "table", "quote")


@dataclass
class Doc:
    """A parsed document: sections, text units and lookups the checks share."""

    name: str
    text: str

    @cached_property
    def sections(self) -> list[MdSection]:
        return parse_sections(self.text)

    @cached_property
    def units(self) -> list[Sentence]:
        return sentences(self.text)

    @cached_property
    def _unit_index(self) -> dict[Sentence, int]:
        """Where each of `units` first sits (a linear search per lookup made long documents
        quadratic; a unit of `units_with_code` that `units` lacks was a full scan each time)."""
        index: dict[Sentence, int] = {}
        for i, u in enumerate(self.units):
            index.setdefault(u, i)
        return index

    @cached_property
    def units_with_code(self) -> list[Sentence]:
        return sentences(self.text, include_code=True)

    @cached_property
    def lower(self) -> str:
        return normalize(self.text)

    @cached_property
    def terms(self) -> set[str]:
        return term_set(self.text)

    @cached_property
    def numbers(self) -> set[str]:
        return numbers_in(self.text)

    @property
    def empty(self) -> bool:
        return not self.text.strip()

    def section_of(self, line: int) -> MdSection | None:
        return section_at(self.sections, line)

    def path_of(self, line: int) -> str:
        s = self.section_of(line)
        return s.path if s and s.path else self.title or "(top of document)"

    @cached_property
    def title(self) -> str:
        for s in self.sections:
            if s.level == 1:
                return s.heading
        return ""

    def headings_matching(self, pattern: re.Pattern[str]) -> list[MdSection]:
        return [s for s in self.sections if s.level > 0 and pattern.search(s.heading)]

    def units_under(self, sections: Iterable[MdSection]) -> list[Sentence]:
        spans = [(s.start_line, subtree_end(self.sections, s)) for s in sections]
        return [u for u in self.units if any(a <= u.line <= b for a, b in spans)]

    @cached_property
    def single_title(self) -> str:
        """The document's title when it has exactly one level-1 heading, else ''."""
        h1 = [s for s in self.sections if s.level == 1]
        return h1[0].heading if len(h1) == 1 else ""

    def inner_path(self, line: int) -> str:
        """The heading path of ``line`` without the document title."""
        s = self.section_of(line)
        if not s or not s.path:
            return ""
        if self.single_title and s.path.startswith(self.single_title):
            return s.path[len(self.single_title):].lstrip(" >")
        return s.path

    def in_section_like(self, unit: Sentence, pattern: re.Pattern[str]) -> bool:
        """Whether any heading on the path of ``unit`` (below the document title) matches ``pattern``."""
        return bool(pattern.search(self.inner_path(unit.line)))

    def body_units(self) -> list[Sentence]:
        return [u for u in self.units if u.kind != "heading"]

    def position(self, unit: Sentence) -> int | None:
        """Where `unit` (or an equal one) first sits in `units`; None when it is not one of them."""
        return self._unit_index.get(unit)

    def neighbours(self, unit: Sentence, radius: int = 1) -> list[Sentence]:
        """``unit`` and the units next to it inside the same section."""
        units = self.units
        i = self.position(unit)
        if i is None:
            return [unit]
        sec = self.section_of(unit.line)
        out = []
        for j in range(max(0, i - radius), min(len(units), i + radius + 1)):
            if self.section_of(units[j].line) == sec:
                out.append(units[j])
        return out

    def find(self, pattern: re.Pattern[str], kinds: Sequence[str] = KINDS_OF_PROSE) -> list[tuple[Sentence, re.Match[str]]]:
        """(unit, first match) for each unit of one of ``kinds`` that matches ``pattern``."""
        out = []
        for u in self.units:
            if u.kind not in kinds:
                continue
            m = pattern.search(u.plain)
            if m:
                out.append((u, m))
        return out


@lru_cache(maxsize=8)
def document(name: str, text: str) -> Doc:
    """The parsed document, shared by the personas that review the same text (parsing is the
    costly part); ``name`` keeps a design and requirements of the same text apart."""
    return Doc(name, text)


def quote_of(unit: Sentence, needle: str | re.Pattern[str] | None = None, max_len: int = 220) -> str:
    """A verbatim single-line excerpt of ``unit`` around ``needle``.

    The needle is usually found on the emphasis-stripped text; map it back to the raw line by
    searching for its words.
    """
    if unit.kind == "table":
        cells = [c.strip() for c in unit.text.strip().strip("|").split("|") if c.strip()]
        if cells:
            if needle is not None:
                for c in cells:
                    if (_search_any(needle, c)) and len(c) <= max_len:
                        return c
            if needle is None:
                return max(cells, key=len)[:max_len].strip()
    if isinstance(needle, str) and needle:
        for attempt in (needle, needle.split()[0] if needle.split() else needle):
            q = unit.quote(attempt, max_len)
            if attempt.lower() in q.lower():
                return q
        return unit.quote(None, max_len)
    return unit.quote(needle, max_len)


def _search_any(needle: str | re.Pattern[str], text: str) -> bool:
    if isinstance(needle, re.Pattern):
        return bool(needle.search(text))
    return needle.lower() in text.lower() or (bool(needle.split()) and needle.split()[0].lower() in text.lower())


def cell_quote(unit: Sentence, cell: str) -> str:
    """The verbatim text of one table cell (the whole row when it cannot be isolated)."""
    raw = unit.text.strip()
    if cell and cell in raw:
        if len(cell) > 240:  # a long cell: its opening sentences, still verbatim
            cut = max(cell.rfind(". ", 0, 240), cell.rfind(".** ", 0, 240))
            return cell[: cut + 1] if cut > 40 else cell[:240].rsplit(" ", 1)[0]
        return cell
    for rc in raw.strip("|").split("|"):
        if plain(rc).strip() == cell.strip() and rc.strip():
            return rc.strip()
    return unit.quote()


def clause(text: str, m: re.Match[str] | tuple[int, int], n: int = 90) -> str:
    """The clause of ``text`` around a match, shortened for use inside generated prose."""
    a, b = (m.start(), m.end()) if isinstance(m, re.Match) else m
    stops = [mm.start() for mm in re.finditer(r",(?!\d)|[;:(]", text)]
    left = max([i for i in stops if i < a], default=-1)
    right = min([i for i in stops if i >= b and text[i] != ":"], default=len(text))
    return short(text[left + 1:right].strip(), n)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def short(text: str, n: int = 70) -> str:
    """A short fragment of document text for use inside generated prose (hedge words removed)."""
    t = plain(text)
    t = HEDGES.sub("", t)
    t = re.sub(r"\s+", " ", t).strip(" ,;:-")
    if len(t) <= n:
        return t
    cut = t.rfind(" ", 0, n)
    return t[: cut if cut > 20 else n].rstrip(" ,;:-") + " …"


def skip_context(doc: Doc, u: Sentence) -> bool:
    """Units that describe alternatives, non-goals or later work: not the design being built."""
    return doc.in_section_like(u, V.sec_alternatives) or doc.in_section_like(u, V.sec_nongoal) or doc.in_section_like(u, V.sec_future)


def all_matches(doc: Doc, pattern: re.Pattern[str], skip_ctx: bool = True) -> list[tuple[Sentence, re.Match[str]]]:
    """Prose units matching ``pattern``; with ``skip_ctx``, none that only describe alternatives,
    non-goals or later work."""
    return [(u, m) for u, m in doc.find(pattern) if not (skip_ctx and skip_context(doc, u))]


def design_has(doc: Doc, pattern: re.Pattern[str]) -> bool:
    """Whether the design body (headings included) mentions ``pattern``."""
    return any(pattern.search(u.plain) for u in doc.units_with_code)


def committed_units(doc: Doc) -> list[Sentence]:
    """Units that describe what will be built: not alternatives, later work or deferrals."""
    return [u for u in doc.units_with_code if not skip_context(doc, u) and not V.deferral.search(u.plain)]


def unit_terms(u: Sentence) -> set[str]:
    """Terms of a unit; a table row also carries its table's header words."""
    return term_set(u.plain + (" " + " ".join(u.header) if u.kind == "table" and u.header else ""))


def plan_tasks(doc: Doc) -> list[tuple[str, Sentence, int, int]]:
    """Tasks of a plan: (label, first unit, start line, end line), from task headings or numbered items."""
    tasks = []
    heads = [s for s in doc.sections if s.level > 0 and V.task_head.search(s.heading)]
    if heads:
        for s in heads:
            first = next((u for u in doc.units if u.line == s.start_line), None)
            if first:
                tasks.append((s.heading, first, s.start_line, subtree_end(doc.sections, s)))
        return tasks
    lines = doc.text.split("\n")
    for u in doc.units:
        if u.kind == "bullet" and re.match(r"^\s*\d+[.)]\s", lines[u.line - 1]) and (not tasks or tasks[-1][1].block != u.block):
            tasks.append((short(u.plain, 40), u, u.line, u.end_line))
    return tasks
