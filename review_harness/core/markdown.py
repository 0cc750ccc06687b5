"""A small, generic reader of markdown documents, built on markdown-it-py.

It turns a document into views that rules of any review kind can query, all from one parse:

* :func:`read_document`: the blocks of the document in order (headings, paragraphs, lists and
  their items, block quotes, tables, code, raw HTML, rules), each with its 1-based line span,
  its nesting depth and what the kind needs (heading level and text, a paragraph's inline
  source, a table's row lines, a code block's info string);
* :func:`parse_sections`: the heading outline, each section with its 1-based line span and its
  heading path ("Top > Child > Grandchild"); text before the first heading is a level-0
  section with an empty heading;
* :func:`sentences`: the text units of the document (sentences of paragraphs and list items,
  table rows, headings, lines of code blocks), each with the line it starts on and a way to
  quote it verbatim.

Plus helpers: :func:`section_at`, :func:`find_line`, :func:`strip_emphasis`, :func:`plain`.
Nothing here knows about any particular kind of document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Sequence

from markdown_it import MarkdownIt

from review_harness.core.text import sentence_spans

__all__ = [
    "MdBlock",
    "MdDocument",
    "MdSection",
    "Sentence",
    "parse_sections",
    "read_document",
    "section_at",
    "subtree_end",
    "section_text",
    "children_of",
    "find_line",
    "last_nonblank",
    "sentences",
    "strip_emphasis",
    "plain",
    "normalize",
]

PATH_SEPARATOR = " > "


@dataclass(frozen=True)
class MdSection:
    """One heading and the lines it owns (up to, not including, the next heading of any level)."""

    heading: str
    level: int
    start_line: int
    end_line: int
    path: str
    index: int = 0

    def contains(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line


@dataclass(frozen=True)
class Sentence:
    """One text unit of a document.

    ``text`` is the unit on one line (line breaks inside a wrapped paragraph become spaces);
    it is verbatim whenever the unit sits on a single source line, the common case.
    ``pieces`` holds the verbatim part of the unit on each source line it spans, so
    :meth:`quote` always returns a substring of the document.
    """

    text: str
    line: int
    end_line: int
    kind: str  # heading | para | bullet | table | quote | code
    pieces: tuple[tuple[int, str], ...] = field(default=(), repr=False)
    cells: tuple[str, ...] = field(default=(), repr=False)
    header: tuple[str, ...] = field(default=(), repr=False)
    heading_level: int = 0
    block: int = 0  # index of the block (paragraph, item, row) the unit belongs to

    @cached_property
    def plain(self) -> str:
        """The unit with emphasis stripped and whitespace collapsed (computed once)."""
        return plain(self.text)

    def quote(self, needle: str | re.Pattern[str] | None = None, max_len: int = 220) -> str:
        """A verbatim, single-line excerpt of this unit, around ``needle`` when given."""
        pieces = self.pieces or ((self.line, self.text),)
        chosen = None
        span: tuple[int, int] | None = None
        if needle is not None:
            for _, piece in pieces:
                m = _search(needle, piece)
                if m is not None:
                    chosen, span = piece, m
                    break
        if chosen is None:
            chosen = max((p for _, p in pieces), key=len)
        return _window(chosen, span, max_len)


def _search(needle: str | re.Pattern[str], text: str) -> tuple[int, int] | None:
    if isinstance(needle, re.Pattern):
        m = needle.search(text)
        return (m.start(), m.end()) if m else None
    if not needle:
        return None
    i = text.lower().find(needle.lower())
    return (i, i + len(needle)) if i >= 0 else None


def _window(text: str, span: tuple[int, int] | None, max_len: int) -> str:
    """Cut ``text`` to at most about ``max_len`` characters, keeping ``span``, at word edges."""
    text = text.strip()
    if len(text) <= max_len:
        return text
    if span is None:
        span = (0, 0)
    centre = (span[0] + span[1]) // 2
    start = max(0, min(centre - max_len // 2, len(text) - max_len))
    end = min(len(text), start + max_len)
    if start > 0:
        nxt = text.find(" ", start)
        if 0 <= nxt < span[0]:
            start = nxt + 1
    if end < len(text):
        prv = text.rfind(" ", start, end)
        if prv > span[1]:
            end = prv
    return text[start:end].strip()


# ----------------------------------------------------------------------------------- text utils

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_EMPH = re.compile(r"(\*\*|__|\*|~~|(?<![\w])_(?=\S)|(?<=\S)_(?![\w]))")
_CODE_TICKS = re.compile(r"`+")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_WS = re.compile(r"\s+")


def strip_emphasis(text: str) -> str:
    """Drop markdown emphasis, code ticks, link targets and inline tags, keeping the words."""
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _HTML_TAG.sub("", text)
    text = _CODE_TICKS.sub("", text)
    text = _EMPH.sub("", text)
    return text


@lru_cache(maxsize=65536)
def plain(text: str) -> str:
    """Emphasis stripped and whitespace collapsed: the form rules match against."""
    return _WS.sub(" ", strip_emphasis(text)).strip()


_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2018": "'", "\u2019": "'",
                         "\u201c": '"', "\u201d": '"', "\u00a0": " "})


def normalize(text: str) -> str:
    """Lower-cased plain text with typographic quotes and dashes folded: for loose comparison."""
    return plain(text).translate(_DASHES).lower()


# ----------------------------------------------------------------------------------- parsing

@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\n.*?\n\1[ \t]*(?:\n|\Z)", re.S)


def _blank_front_matter(text: str) -> str:
    """Replace a leading YAML/TOML front matter block with blank lines (line numbers kept)."""
    m = _FRONT_MATTER.match(text)
    if not m:
        return text
    return "\n" * m.group(0).count("\n") + text[m.end():]


@lru_cache(maxsize=16)
def _tokens(text: str):
    return _md().parse(_blank_front_matter(text))


def _inline_text(token) -> str:
    """The words of an inline token, emphasis and link syntax removed."""
    if not token.children:
        return plain(token.content)
    out: list[str] = []
    for child in token.children:
        if child.type in ("text", "code_inline", "html_inline"):
            out.append(child.content if child.type != "html_inline" else "")
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return _WS.sub(" ", "".join(out)).strip()


def _line_count(text: str) -> int:
    if not text:
        return 0
    n = text.count("\n")
    return n if text.endswith("\n") else n + 1


# ----------------------------------------------------------------------------------- blocks

@dataclass(frozen=True)
class MdBlock:
    """One block of a document, with its 1-based line span (blank lines that close it left out).

    ``depth`` is how deeply it is nested (0 at the top level; one more inside each list, list
    item and block quote). What a kind carries: a heading its ``level``, its inline source in
    ``text`` and its words in ``plain``; a paragraph its inline source in ``text`` (list and quote
    markers removed, one line per source line) and the innermost ``container`` it sits in
    (``item``, ``blockquote`` or ``""``); a code block its info string in ``text`` and whether it
    is ``fenced``; a table the lines of its header and body rows in ``rows``.
    """

    kind: str  # heading | paragraph | list | item | blockquote | table | code | html | hr
    start_line: int
    end_line: int
    depth: int = 0
    text: str = ""
    plain: str = ""
    level: int = 0
    container: str = ""
    fenced: bool = False
    rows: tuple[int, ...] = ()


@dataclass(frozen=True)
class MdDocument:
    """A document as blocks: its source ``lines`` (``n_lines`` of them up to the last non-blank
    one) and its ``blocks`` in document order (a container before what it contains)."""

    lines: tuple[str, ...]
    n_lines: int
    blocks: tuple[MdBlock, ...]

    def of_kind(self, *kinds: str, depth: int | None = None) -> list[MdBlock]:
        """The blocks of these kinds (only those at ``depth`` when given)."""
        return [b for b in self.blocks if b.kind in kinds and (depth is None or b.depth == depth)]


_BLOCK_KIND = {
    "heading_open": "heading", "paragraph_open": "paragraph", "bullet_list_open": "list",
    "ordered_list_open": "list", "list_item_open": "item", "blockquote_open": "blockquote",
    "table_open": "table", "fence": "code", "code_block": "code", "html_block": "html", "hr": "hr",
}
_CONTAINER_OPEN = {"list_item_open": "item", "blockquote_open": "blockquote"}
_CONTAINER_CLOSE = frozenset({"list_item_close", "blockquote_close"})


def last_nonblank(lines: Sequence[str], start: int, end: int) -> int:
    """The last 1-based line in [start, end] that is not blank (start when all are)."""
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


@lru_cache(maxsize=16)
def read_document(text: str) -> MdDocument:
    """The blocks of ``text`` (a leading front matter block is not read as markdown)."""
    lines = tuple(text.split("\n"))
    n_lines = len(lines)
    while n_lines > 0 and not lines[n_lines - 1].strip():
        n_lines -= 1
    toks = _tokens(text)
    blocks: list[MdBlock] = []
    containers: list[str] = []
    table_at, rows = -1, []  # the open table's index in blocks, its row lines so far
    for i, tok in enumerate(toks):
        if tok.type in _CONTAINER_CLOSE and containers:
            containers.pop()
        elif tok.type == "tr_open" and tok.map:
            rows.append(tok.map[0] + 1)
        elif tok.type == "table_close" and table_at >= 0:
            blocks[table_at] = replace(blocks[table_at], rows=tuple(rows))
            table_at, rows = -1, []
        kind = _BLOCK_KIND.get(tok.type)
        if kind is None or tok.map is None:
            continue
        start, end_excl = tok.map[0] + 1, tok.map[1]
        end = last_nonblank(lines, start, min(end_excl, n_lines)) if end_excl >= start else start
        block = MdBlock(kind, start, end, tok.level)
        if kind in ("heading", "paragraph"):
            inline = toks[i + 1] if i + 1 < len(toks) and toks[i + 1].type == "inline" else None
            source = inline.content if inline is not None else ""
            if kind == "heading":
                level = int(tok.tag[1]) if tok.tag[1:].isdigit() else 1
                plain_text = _inline_text(inline) if inline is not None else ""
                block = MdBlock(kind, start, end, tok.level, source.strip(), plain_text, level)
            else:
                block = MdBlock(kind, start, end, tok.level, source, container=containers[-1] if containers else "")
        elif kind == "code":
            block = MdBlock(kind, start, end, tok.level, tok.info or "", fenced=tok.type == "fence")
        if kind == "table":
            table_at = len(blocks)
        blocks.append(block)
        if tok.type in _CONTAINER_OPEN:
            containers.append(_CONTAINER_OPEN[tok.type])
    return MdDocument(lines, n_lines, tuple(blocks))


@lru_cache(maxsize=16)
def _sections_cached(text: str) -> tuple[MdSection, ...]:
    n_lines = _line_count(text)
    if n_lines == 0:
        return ()
    heads = [(b.start_line, b.level, b.plain) for b in read_document(text).blocks if b.kind == "heading"]
    lines = _blank_front_matter(text).split("\n")
    out: list[MdSection] = []
    first = heads[0][0] if heads else n_lines + 1
    if first > 1 and any(l.strip() for l in lines[: first - 1]):
        out.append(MdSection("", 0, 1, first - 1, "", 0))
    stack: list[tuple[int, str]] = []
    for k, (line, level, heading) in enumerate(heads):
        end = heads[k + 1][0] - 1 if k + 1 < len(heads) else n_lines
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading))
        path = PATH_SEPARATOR.join(h for _, h in stack if h)
        out.append(MdSection(heading, level, line, max(end, line), path, len(out)))
    return tuple(out)


def parse_sections(text: str) -> list[MdSection]:
    """The outline of ``text``: one section per heading (plus a level-0 preamble when present).

    Each section spans from its heading line to the line before the next heading of any level,
    so the sections partition the document and :func:`section_at` has one answer per line.
    Use :func:`subtree_end` for the span including subsections.
    """
    return list(_sections_cached(text))


def section_at(sections: Sequence[MdSection], line: int) -> MdSection | None:
    """The section that owns 1-based ``line`` (the innermost heading above it)."""
    lo, hi = 0, len(sections) - 1
    found = None
    while lo <= hi:  # sections are in line order
        mid = (lo + hi) // 2
        if sections[mid].start_line <= line:
            found = sections[mid]
            lo = mid + 1
        else:
            hi = mid - 1
    if found is not None and found.end_line < line:
        return None
    return found


def subtree_end(sections: Sequence[MdSection], section: MdSection) -> int:
    """The last line of ``section`` together with all its subsections."""
    end = section.end_line
    if section.level == 0:
        return end
    started = False
    for s in sections:
        if s is section or (s.start_line == section.start_line and s.heading == section.heading):
            started = True
            continue
        if not started or s.start_line <= section.start_line:
            continue
        if s.level <= section.level:
            break
        end = s.end_line
    return end


def children_of(sections: Sequence[MdSection], section: MdSection) -> list[MdSection]:
    """Every section nested under ``section`` (any depth)."""
    end = subtree_end(sections, section)
    return [s for s in sections if section.start_line < s.start_line <= end]


def section_text(text: str, section: MdSection, sections: Sequence[MdSection] | None = None,
                 nested: bool = True, with_heading: bool = False) -> str:
    """The source lines of ``section`` (with its subsections when ``nested``)."""
    lines = text.split("\n")
    end = subtree_end(sections, section) if (nested and sections) else section.end_line
    start = section.start_line if (with_heading or section.level == 0) else section.start_line + 1
    return "\n".join(lines[start - 1:end])


def find_line(text: str, quote: str) -> int | None:
    """The 1-based line on which ``quote`` starts in ``text``, or None.

    Exact match first; then a loose match that ignores emphasis, case, typographic quotes and
    runs of whitespace (also across line breaks).
    """
    if not quote or not quote.strip():
        return None
    i = text.find(quote)
    if i < 0:
        i = text.find(quote.strip())
    if i >= 0:
        return text.count("\n", 0, i) + 1
    target = normalize(quote)
    if not target:
        return None
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if target in normalize(line):
            return n
    # across line breaks: normalise the whole text, keeping a map back to lines
    joined: list[str] = []
    starts: list[int] = []
    pos = 0
    for n, line in enumerate(lines, 1):
        norm = normalize(line)
        starts.append(pos)
        joined.append(norm)
        pos += len(norm) + 1
    whole = " ".join(joined)
    k = whole.find(target)
    if k < 0:
        return None
    for n in range(len(starts) - 1, -1, -1):
        if starts[n] <= k:
            return n + 1
    return 1


# ----------------------------------------------------------------------------------- sentences

def _pieces_for(content: str, first_line: int, src_lines: list[str], lo: int, hi: int) -> tuple[tuple[int, str], ...]:
    """Verbatim single-line pieces of ``content[lo:hi]`` (content lines map to source lines)."""
    out: list[tuple[int, str]] = []
    offset = 0
    for k, cl in enumerate(content.split("\n")):
        a, b = offset, offset + len(cl)
        offset = b + 1
        s, e = max(a, lo), min(b, hi)
        if s >= e:
            continue
        piece = content[s:e].strip()
        if not piece:
            continue
        ln = first_line + k
        src = src_lines[ln - 1] if 0 < ln <= len(src_lines) else ""
        if piece not in src:  # markdown-it rewrote the line (tabs, escapes): search nearby
            for cand in range(max(1, ln - 2), min(len(src_lines), ln + 2) + 1):
                if piece in src_lines[cand - 1]:
                    ln = cand
                    break
            else:
                continue
        out.append((ln, piece))
    return tuple(out)


@lru_cache(maxsize=16)
def _sentences_cached(text: str, include_code: bool) -> tuple[Sentence, ...]:
    toks = _tokens(text)
    src_lines = text.split("\n")
    out: list[Sentence] = []
    ctx: list[str] = []
    header: tuple[str, ...] = ()
    in_head = False
    row_cells: list[str] = []
    row_line = 0
    block = 0
    heading_level = 0
    for i, tok in enumerate(toks):
        t = tok.type
        if t.endswith("_open") and t not in ("paragraph_open", "heading_open", "th_open", "td_open"):
            ctx.append(t[:-5])
            if t == "thead_open":
                in_head = True
            if t == "tr_open":
                row_cells = []
                row_line = tok.map[0] + 1 if tok.map else 0
            continue
        if t.endswith("_close") and t not in ("paragraph_close", "heading_close", "th_close", "td_close"):
            if ctx:
                ctx.pop()
            if t == "thead_close":
                in_head = False
            if t == "tr_close":
                block += 1
                if in_head:
                    header = tuple(row_cells)
                elif row_line:
                    raw = src_lines[row_line - 1].strip()
                    out.append(Sentence(raw, row_line, row_line, "table", ((row_line, raw),),
                                        tuple(row_cells), header, 0, block))
            continue
        if t == "heading_open":
            heading_level = int(tok.tag[1]) if tok.tag[1:].isdigit() else 1
            continue
        if t == "inline":
            if "tr" in ctx:
                row_cells.append(_inline_text(tok))
                continue
            if not tok.map:
                continue
            prev = toks[i - 1].type if i else ""
            first_line = tok.map[0] + 1
            content = tok.content
            block += 1
            if prev == "heading_open":
                one = content.split("\n")[0].strip()
                out.append(Sentence(one, first_line, first_line, "heading", ((first_line, one),),
                                    heading_level=heading_level, block=block))
                continue
            kind = "bullet" if "list_item" in ctx else ("quote" if "blockquote" in ctx else "para")
            flat = content.replace("\n", " ")
            for lo, hi in sentence_spans(flat):
                seg = flat[lo:hi].strip()
                if not seg:
                    continue
                lo2 = lo + (len(flat[lo:hi]) - len(flat[lo:hi].lstrip()))
                pieces = _pieces_for(content, first_line, src_lines, lo2, hi)
                if not pieces:
                    continue
                out.append(Sentence(seg, pieces[0][0], pieces[-1][0], kind, pieces, block=block))
            continue
        if t in ("fence", "code_block") and include_code and tok.map:
            block += 1
            for k in range(tok.map[0], tok.map[1]):
                raw = src_lines[k].strip() if k < len(src_lines) else ""
                if raw and not raw.startswith(("```", "~~~")):
                    out.append(Sentence(raw, k + 1, k + 1, "code", ((k + 1, raw),), block=block))
    return tuple(out)


def sentences(text: str, include_code: bool = False) -> list[Sentence]:
    """The text units of ``text`` in document order, each with its 1-based start line.

    Paragraphs, list items and block quotes are split into sentences; a table body row is one
    unit (with its cells and the table header); a heading is one unit; code blocks are left
    out unless ``include_code`` (then each non-blank line is one unit).
    """
    return list(_sentences_cached(text, include_code))



def split_sections(text: str, selected: Sequence[str], omitted: Sequence[str] = ()) -> tuple[str, str, list[str]]:
    """(the selected sections, the rest, headings named that the document lacks): one document
    read as two, e.g. the requirements and the design of a proposal that holds both. A heading
    is named as written (case and emphasis ignored) and takes its subsections with it; `omitted`
    sections (a table of contents, a checklist) go to neither part. Lines keep their order."""
    sections = parse_sections(text)
    lines = text.split("\n")

    def key(heading: str) -> str:
        return normalize(plain(heading)).strip(" :")

    def spans(names: Sequence[str]) -> tuple[set[int], list[str]]:
        wanted = {key(n): n for n in names}
        taken: set[int] = set()
        found: set[str] = set()
        for s in sections:
            if s.level > 0 and key(s.heading) in wanted:
                found.add(key(s.heading))
                taken.update(range(s.start_line, subtree_end(sections, s) + 1))
        return taken, [name for k, name in wanted.items() if k not in found]

    chosen, missing = spans(selected)
    dropped, missing_omitted = spans(omitted)
    dropped -= chosen
    part = "\n".join(lines[n - 1] for n in sorted(chosen)).strip("\n") + "\n"
    rest = "\n".join(line for n, line in enumerate(lines, 1) if n not in chosen and n not in dropped).strip("\n") + "\n"
    return part, rest, missing + missing_omitted
