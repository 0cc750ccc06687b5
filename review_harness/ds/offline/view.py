"""A read-only view of what the reviewer was given, in units the rules can query.

The reviewer receives either the whole markdown document (tiers 1 and 2) or the tier 3
structured extraction. Both are turned into the same thing here: a list of ``Sentence``
units, each with its verbatim text, its line in ``content``, the section it sits in, the
*role* of that section (summary, method, results, ...) and its kind (prose, bullet, table
row, heading). Rules never parse markdown themselves: the blocks (headings, paragraphs, list
items, quotes, tables, code, with their lines) come from the core markdown model
(:func:`review_harness.core.markdown.read_document`), and the sections, the TL;DR and the
structure verdict from :mod:`review_harness.ds.prepare`, which reads the same model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Iterable, Iterator, Sequence

from review_harness.core.documents import collapsed_spans
from review_harness.core.markdown import MdDocument, read_document
from review_harness.core.text import split_sentences
from review_harness.ds import prepare
from review_harness.ds.prepare import count_words
from review_harness.ds.models import Section, TldrDetection
from review_harness.ds.offline import lexicon as lx


EXTRACTION_HEADER = "DOCUMENT EXTRACTION"
ABSENT = "ABSENT"

# Roles a stretch of text can play in an analysis document.
SUMMARY, BACKGROUND, METHOD, DATA, RESULTS = "summary", "background", "method", "data", "results"
CONCLUSION, RECOMMENDATION, LIMITATIONS, APPENDIX = "conclusion", "recommendation", "limitations", "appendix"
OTHER, META, TITLE, STRUCTURE = "other", "meta", "title", "structure"

CLOSING_ROLES = frozenset({SUMMARY, CONCLUSION, RECOMMENDATION})
BODY_ROLES = frozenset({BACKGROUND, METHOD, DATA, RESULTS, OTHER, LIMITATIONS, APPENDIX})

_ROLE_BY_HEADING: tuple[tuple[str, re.Pattern[str]], ...] = (
    (SUMMARY, lx.rx(r"^(tl;? ?dr|executive summary|exec summary|(?:working |short |quick )?summary|key (?:findings|results|take-?aways?)|take-?aways?|"
                    r"bottom line|highlights|at a glance|in brief|in short|synopsis|abstract|headline)")),
    (APPENDIX, lx.rx(r"^(appendix|appendices|annex|supplementary|supporting (?:detail|material)|raw (?:data|output)|"
                     r"full (?:results|tables|output)|detailed tables|references?|glossary)")),
    (LIMITATIONS, lx.rx(r"\b(limitations?|caveats?|disclaimers?|fine print|scope and limits|health warnings?|risks?|threats to validity|known issues|what we don'?t know|"
                        r"constraints|open questions|what (?:this|it|the (?:data|analysis|results?|test|model)) (?:(?:does|do|can)(?: and (?:does|do|can))?"
                        r"(?: not|n'?t)|cannot) (?:show|tell|say|mean|support|cover|prove))\b")),
    (RECOMMENDATION, lx.rx(r"\b(recommendations?|recommended|next steps?|action items?|actions|decisions?|proposal|"
                           r"proposed|what we recommend|what'?s next|the ask|(?:way|path) forward|what to do|action plan)\b")),
    (CONCLUSION, lx.rx(r"\b(conclusions?|discussion|implications|interpretation|what (?:this|it) means|so what|wrap[- ]?up)\b")),
    (METHOD, lx.rx(r"\b(methods?|methodology|approach|(?:study |experiment(?:al)? |research )?design|analysis plan|how we|"
                   r"model(?:l?ing)?|techniques?|procedure|statistical|set[- ]?up|identification|estimation|assumptions?|"
                   r"power|stopping|qa|quality)\b")),
    (DATA, lx.rx(r"\b(data|datasets?|sources?|metrics?|measures?|measurement|kpis?|definitions?|instrumentation|"
                 r"sample|population|cohorts?)\b")),
    (RESULTS, lx.rx(r"\b(results?|findings?|outcomes?|impact|what we found|evidence|performance|observations?|"
                    r"analysis|robustness|sensitivity|breakdown|segments?|numbers|patterns?|trends?|insights?|what we see)\b")),
    (BACKGROUND, lx.rx(r"\b(background|context|introduction|intro|problem|question|motivation|objectives?|goals?|"
                       r"purpose|why|overview|scope)\b")),
)
_NUMBERING = re.compile(r"^(?:(?:\d+|[ivxlc]+|[a-z])[.)]|\d+(?:\.\d+)+\.?)\s+", re.I)
_BULLET = re.compile(r"^(\s*)(?:[-*+•]|\d{1,3}[.)])\s+")
_QUOTE_MARK = re.compile(r"^\s{0,3}>\s?")
_CALLOUT = re.compile(r"^\[!\w+\][+-]?\s*")  # "> [!NOTE]": a callout's label, not its text
_HEADING_MARKS = re.compile(r"^\s{0,3}#{1,6}\s+|\s+#+\s*$")
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_IMAGE_ONLY = re.compile(r"(?:\s*(?:\[?!\[[^\]\n]*\]\([^)\n]*\)\]?(?:\([^)\n]*\))?|<img\b[^>]*>|\{[^}\n]*\})\s*)+")
_WORD = re.compile(r"\S+")
_BOLD_LABEL = re.compile(r"^(?:\*\*|__)\s*([^*_\n]{1,80}?)\s*:?\s*(?:\*\*|__)\s*:?\s*$")
_EMPH_EDGE = re.compile(r"^[*_`>\s]+|[*_`\s]+$")
_EXTRACTION_MARKER = re.compile(
    r"^\[(?:Section: (?P<sec>.+?), lines? (?P<a>\d+)(?:-(?P<b>\d+))?|Content signals, lines? (?P<ca>\d+)(?:-(?P<cb>\d+))?)\]\s*$"
)
_CLAIM_LINE = re.compile(r'^\s*\d+\.\s+"(?P<text>.*)"\s+\((?:Section: (?P<sec>.*?), )?line (?P<line>\d+)\)\s*$')
_STRUCTURE_HEADING = re.compile(r"^\s*-\s+\[H(?P<level>\d)\]\s+(?P<text>.*?)\s+\(lines? (?P<a>\d+)")
_PLACEHOLDER_LINE = re.compile(r"^\[(?:table: |table rows |code block)")
_META_LINE = re.compile(
    r"^[\W_]*(?:author|authors|date|owner|status|team|reviewers?|last updated|updated|version|prepared by|contact|"
    r"stakeholders?|audience|source|word count|structure)[\W_]*:", re.I
)

EXTRACTION_ROLES = {
    "TL;DR AS WRITTEN": SUMMARY,
    "STRUCTURE": STRUCTURE,
    "KEY CLAIMS": OTHER,
    "METHODOLOGY EXCERPT": METHOD,
    "DATA SOURCES & METRICS": DATA,
    "RESULTS EXCERPT": RESULTS,
    "RECOMMENDATIONS / CONCLUSIONS": CONCLUSION,
    "LIMITATIONS STATED": LIMITATIONS,
    # what the extraction says about the document, not the document's words: not read as content
    "AUDIENCE SIGNALS": META,
    "WORKFLOW CONTEXT": META,
    "LEFT OUT OF THIS EXTRACTION": META,
}


def clean_heading(text: str) -> str:
    t = re.sub(r"[*_`~]", "", text or "")
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"^[^\w(]+", "", t.strip())
    t = _NUMBERING.sub("", t)
    return t.strip().rstrip(":.").strip()


def heading_role(heading: str) -> str | None:
    name = clean_heading(heading)
    if not name:
        return None
    for role, pattern in _ROLE_BY_HEADING:
        if pattern.search(name):
            return role
    return None


@dataclass(frozen=True)
class Sentence:
    text: str  # one line of text per sentence unit (paragraph lines joined with a space)
    line: int  # 1-based line in ``content`` where the sentence starts
    section: str  # heading (or extraction label) it sits under; "" for none
    role: str
    kind: str  # prose | bullet | table | heading | quote | claim
    pos: float  # relative position of ``line`` in the document, 0..1
    line_offsets: tuple[tuple[int, int], ...] = ()  # (offset in text, line) for wrapped paragraphs
    guessed: bool = False  # role inferred from the wording, not from a heading
    doc_line: int | None = None  # extraction input: the line in the original document, when known
    excerpt: str = ""  # extraction input: which labelled part the sentence came from


@dataclass
class HeadingInfo:
    text: str
    level: int
    line: int
    role: str | None


@dataclass
class DocView:
    content: str
    is_extraction: bool
    sentences: list[Sentence]
    headings: list[HeadingInfo]
    tldr: TldrDetection
    structure_inferred: bool
    partial_reasons: list[str] = field(default_factory=list)
    parts: dict[str, str] = field(default_factory=dict)  # extraction labels -> content
    code_lines: int = 0
    code_blocks: list[tuple[int, int, str]] = field(default_factory=list)  # start, end, section role
    tables: list[tuple[int, int, str, str]] = field(default_factory=list)  # start, rows, section, role
    images: list[tuple[int, str, str]] = field(default_factory=list)  # line, alt, next line
    n_lines: int = 1
    title: str = ""

    # ------------------------------------------------------------------ queries

    @cached_property
    def word_count(self) -> int:
        """Words a reader reads: the extraction's stated count, or the document's text outside code."""
        if self.is_extraction:
            m = re.search(r"^Word count:\s*([\d,]+)", self.content, re.M)
            if m:
                return int(m.group(1).replace(",", ""))
        return sum(count_words(s.text) for s in self.sentences)

    @cached_property
    def text(self) -> str:
        return "\n".join(s.text for s in self.sentences)


    def find(
        self, pattern: re.Pattern[str], sentences: Iterable[Sentence] | None = None
    ) -> Iterator[tuple[Sentence, re.Match[str]]]:
        for s in self.sentences if sentences is None else sentences:
            m = pattern.search(s.text)
            if m:
                yield s, m

    def first(self, pattern: re.Pattern[str], sentences: Iterable[Sentence] | None = None):
        return next(self.find(pattern, sentences), None)

    def has(self, pattern: re.Pattern[str], sentences: Iterable[Sentence] | None = None) -> bool:
        return self.first(pattern, sentences) is not None


    def part_absent(self, label: str) -> bool:
        """Extraction mode: the label is missing or reads ABSENT."""
        value = self.parts.get(label)
        return value is None or value.strip().upper() == ABSENT or not value.strip()

    @property
    def content_headings(self) -> list[HeadingInfo]:
        """Headings below the document title."""
        heads = list(self.headings)
        h1 = [h for h in heads if h.level == 1]
        if len(h1) == 1 and heads and heads[0] is h1[0]:
            heads = heads[1:]
        return heads

    # ------------------------------------------------------------------ quoting

    def quote(self, sentence: Sentence, match: re.Match[str] | None = None, max_words: int = 30) -> str:
        """A verbatim stretch of ``sentence`` of at most ``max_words`` words around ``match``."""
        text = sentence.text
        spans = [m.span() for m in _WORD.finditer(text)]
        if not spans:
            return ""
        if len(spans) <= max_words:
            a, b = spans[0][0], spans[-1][1]
        else:
            if match is not None:
                center = next((i for i, sp in enumerate(spans) if sp[1] > match.start()), 0)
            else:
                center = 0
            lo = max(0, center - max_words // 3)
            hi = min(len(spans), lo + max_words)
            lo = max(0, hi - max_words)
            a, b = spans[lo][0], spans[hi - 1][1]
        out = text[a:b]
        # drop markdown list / quote markers at the edges; still verbatim
        out = re.sub(r"^(?:[-*+•>]|\d{1,3}[.)])\s+", "", out)
        out = out.strip().strip("|").strip()
        if len(out.split()) < 5 and sentence.kind not in ("heading", "table"):
            longer = self._extend_on_line(sentence, out, max_words)
            if longer:
                out = longer
        return out

    def _extend_on_line(self, sentence: Sentence, quote: str, max_words: int) -> str:
        """A too-short quote grown with the words that follow it on the same source line."""
        lines = self.content.split("\n")
        if not 1 <= sentence.line <= len(lines):
            return ""
        line = lines[sentence.line - 1]
        start = line.find(quote)
        if start < 0:
            return ""
        spans = [m.span() for m in _WORD.finditer(line, start)]
        if len(spans) <= len(quote.split()):
            return ""
        end = spans[min(len(spans), max_words) - 1][1]
        return line[start:end].strip()

    def location(self, sentence: Sentence | None) -> str:
        if sentence is None:
            return "whole document"
        if self.is_extraction:
            if sentence.section and sentence.section != sentence.excerpt:
                where = f"Section '{sentence.section}'"
            else:
                where = f"Extraction ({sentence.excerpt or 'excerpt'})"
            return f"{where}, line {sentence.doc_line}" if sentence.doc_line else f"{where} (from the extraction)"
        if sentence.section:
            return f"Section '{sentence.section}', line {sentence.line}"
        return f"line {sentence.line}"


# ---------------------------------------------------------------------- building


def _paragraph_role_guess(text: str) -> str | None:
    """Role of a paragraph from its own wording, for text under unusable headings."""
    short = clean_heading(text)
    if count_words(short) <= 4:
        role = heading_role(short)
        if role:
            return role
    if lx.LIMITATION.search(text) and not lx.NUMBER.search(text):
        return LIMITATIONS
    if lx.CONCLUSION_SIGNAL.search(text):
        return CONCLUSION
    # "(Not recommended!)" labels an option in a how-to; it is not the document's advice
    advice = re.sub(r"\(\s*(?:not|strongly not|highly not) recommended\W*\)", "", text, flags=re.I)
    if (lx.RECOMMENDATION.search(advice) and re.search(r"\b(recommend|next step|propos|should)\w*", advice, re.I)
            and not lx.should_is_expectation(advice)
            and not (lx.QUESTION_SHOULD.search(text) and not re.search(r"\b(recommend|propos)\w*", text, re.I))):
        return RECOMMENDATION
    if len(lx.NUMBER.findall(text)) >= 2:
        return RESULTS
    if len(lx.METHOD_SIGNAL.findall(text)) >= 2:
        return METHOD
    return None


@dataclass
class _Prepared:
    sections: list[Section]
    tldr: TldrDetection
    structure_inferred: bool
    partial_reasons: list[str]
    title: str


def _prepared(content: str) -> _Prepared:
    """The preparation steps the rules need (not the tier 2/3 renderings)."""
    sections = prepare.extract_sections(content)
    tldr = prepare.detect_tldr(content, sections)
    inferred = prepare.infer_structure_needed(content, sections)
    partial = prepare.detect_partial_input(content, sections)
    title = next((s.heading for s in sections if s.level == 1 and s.heading), "")
    return _Prepared(sections, tldr, bool(inferred), list(partial.reasons) if partial.is_partial else [], title)


def build_view(content: str) -> DocView:
    """The view of ``content``; cached, because both reviewers of a panel see the same text.
    Rules treat the view as read-only."""
    content = content if isinstance(content, str) else str(content or "")
    return _build_view_cached(content)


@lru_cache(maxsize=8)
def _build_view_cached(content: str) -> DocView:
    content = content.replace("\r\n", "\n").replace("\r", "\n")
    if content.lstrip("\ufeff").lstrip().startswith(EXTRACTION_HEADER):
        return _build_extraction_view(content)
    return _build_document_view(content)


Unit = tuple[str, list[tuple[int, str]]]  # (kind, [(line, text)]): a heading, table row, paragraph or quote


def _units(doc: MdDocument, sec_for_line: list[tuple[str, str | None]]):
    """The document's text units in order, read from the core markdown model: a heading, each
    table row, a paragraph ('bullet' when it opens a list item, else 'prose'), a block quote as
    one unit (its markers and callout label removed), raw HTML and indented blocks as prose;
    fenced code is left out and listed with its section's role. Also the tables, images and the
    number of code lines."""
    lines = doc.lines
    units: list[Unit] = []
    code_blocks: list[tuple[int, int, str]] = []  # start, end, section role
    tables: list[tuple[int, int, str, str]] = []  # start, rows, section, role
    images: list[tuple[int, str, str]] = []  # line, alt, next line
    code_lines = 0
    item_starts = {b.start_line for b in doc.blocks if b.kind == "item"}
    quote_end = 0

    def scan_images(first: int, last: int) -> None:
        for idx in range(first, last + 1):
            for im in _IMAGE.finditer(lines[idx - 1]):
                images.append((idx, im.group(1).strip(), lines[idx].strip() if idx < len(lines) else ""))

    for b in doc.blocks:
        if b.start_line <= quote_end:
            continue  # inside a block quote: read with the quote's own lines
        if b.kind == "heading":
            text = _HEADING_MARKS.sub("", lines[b.start_line - 1]).strip() if b.depth == 0 else b.text
            units.append(("heading", [(b.start_line, text)]))
        elif b.kind == "code" and b.fenced:
            code_blocks.append((b.start_line, b.end_line, sec_for_line[b.start_line][1] or OTHER))
            code_lines += max(0, b.end_line - b.start_line - 1)  # the fences are not code
        elif b.kind == "table":
            units.extend(("table", [(ln, lines[ln - 1].strip())]) for ln in b.rows)
            heading, role = sec_for_line[b.start_line]
            tables.append((b.start_line, len(b.rows), heading, role or OTHER))
        elif b.kind == "blockquote":
            quote_end = b.end_line
            scan_images(b.start_line, b.end_line)
            body = [(ln, _CALLOUT.sub("", _QUOTE_MARK.sub("", lines[ln - 1]).strip()))
                    for ln in range(b.start_line, b.end_line + 1)]
            if any(text for _, text in body):
                units.append(("quote", [(ln, text) for ln, text in body if text]))
        elif b.kind == "paragraph":
            scan_images(b.start_line, b.end_line)
            kind = "bullet" if b.container == "item" and b.start_line in item_starts else "prose"
            parts = [(b.start_line + k, piece.strip()) for k, piece in enumerate(b.text.split("\n"))]
            units.extend(_pasted_bullets(kind, [(ln, text) for ln, text in parts if text], lines))
        elif b.kind in ("html", "code"):
            # raw HTML (an expand macro's tags, a comment) and indented text read as prose: an
            # indented block in an analysis is more often an indented paragraph than code
            scan_images(b.start_line, b.end_line)
            group: list[tuple[int, str]] = []
            for ln in range(b.start_line, b.end_line + 1):
                if lines[ln - 1].strip():
                    group.append((ln, lines[ln - 1].strip()))
                elif group:
                    units.append(("prose", group))
                    group = []
            if group:
                units.append(("prose", group))
    return units, code_blocks, tables, images, code_lines


def _pasted_bullets(kind: str, parts: list[tuple[int, str]], lines: Sequence[str]) -> list[Unit]:
    """A paragraph's units: itself, or, where lines open with a pasted bullet ('•', which markdown
    does not read as a list), one bullet per such line; a line after a bullet that is not
    indented starts prose again."""
    if not any(text.startswith("•") for _, text in parts):
        return [(kind, parts)] if parts else []
    units: list[Unit] = []
    for ln, text in parts:
        if text.startswith("•"):
            units.append(("bullet", [(ln, text[1:].strip())]))
        elif units and (units[-1][0] != "bullet" or lines[ln - 1].startswith((" ", "\t"))):
            units[-1][1].append((ln, text))
        else:
            units.append((kind if not units else "prose", [(ln, text)]))
    return units


def _build_document_view(content: str) -> DocView:
    doc = read_document(prepare.normalize_text(content))
    n = max(len(doc.lines), 1)
    prepared = _prepared(content) if content.strip() else None
    sections: list[Section] = list(prepared.sections) if prepared else []
    tldr = prepared.tldr if prepared else TldrDetection(found=False, method="absent")
    headed = [s for s in sections if s.level > 0]
    structure_inferred = prepared.structure_inferred if prepared else True
    partial = prepared.partial_reasons if prepared else []
    title = prepared.title if prepared else ""

    # section role per heading, inherited by sub-sections when the heading says nothing
    heading_infos: list[HeadingInfo] = []
    h1 = [s for s in headed if s.level == 1]
    title_line = h1[0].start_line if len(h1) == 1 and headed and headed[0] is h1[0] else None
    stack: list[tuple[int, str | None]] = []
    section_bounds: list[tuple[int, int, str, str | None, int]] = []
    for s in sections:
        if s.level == 0:
            section_bounds.append((s.start_line, s.end_line, "", None, 0))
            continue
        own = TITLE if s.start_line == title_line else heading_role(s.heading)
        while stack and stack[-1][0] >= s.level:
            stack.pop()
        inherited = next((r for _, r in reversed(stack) if r and r != TITLE), None)
        role = own or inherited
        stack.append((s.level, own))
        heading_infos.append(HeadingInfo(s.heading, s.level, s.start_line, own))
        section_bounds.append((s.start_line, s.end_line, s.heading, role, s.level))

    # precompute section lookups linearly
    sec_for_line: list[tuple[str, str | None]] = [("", None)] * (n + 2)
    bi = -1
    for ln in range(1, n + 1):
        while bi + 1 < len(section_bounds) and section_bounds[bi + 1][0] <= ln:
            bi += 1
        if bi >= 0:
            b = section_bounds[bi]
            sec_for_line[ln] = (b[2], b[3])

    for span in collapsed_spans(content):  # expand macros: supporting detail, like an appendix
        for ln in range(span.start, min(span.end, n) + 1):
            sec_for_line[ln] = (sec_for_line[ln][0], APPENDIX)

    tldr_range = (
        (tldr.start_line, tldr.end_line or tldr.start_line)
        if tldr.found and tldr.start_line is not None
        else None
    )

    units, code_blocks, tables, images, code_lines = _units(doc, sec_for_line)

    # Roles. A section's heading gives its role; text under headings that say nothing gets a
    # role from its own wording ("guessed"). Bold-only paragraphs ("**Method**") act as
    # headings; short label paragraphs ("Limitations.", "Recommendations:") set the role of
    # the rest of their section.
    sentences: list[Sentence] = []
    label_role: dict[str, str] = {}
    pseudo: tuple[str, str | None, int] | None = None  # (heading, role, line) of a bold label
    last_heading = ""
    pseudo_summary: tuple[int, int] | None = None
    for idx_u, (kind, parts) in enumerate(units):
        first_line = parts[0][0]
        heading, role = sec_for_line[first_line]
        if heading != last_heading:
            pseudo = None
            last_heading = heading
        text = " ".join(t for _, t in parts)
        guessed = False
        if kind == "prose" and len(parts) == 1 and _BOLD_LABEL.match(text) and count_words(text) <= 8:
            label = _BOLD_LABEL.match(text).group(1)
            prole = heading_role(label)
            pseudo = (clean_heading(label), prole, first_line)
            level = next((b[4] for b in section_bounds if b[2] == heading), 0) + 1
            heading_infos.append(HeadingInfo(clean_heading(label), max(level, 2), first_line, prole))
            kind = "heading"
        if pseudo is not None:
            heading = pseudo[0]
            role = pseudo[1] or (role if role not in (None, TITLE) else None)
        if kind == "heading":
            role = role or OTHER
            if role == SUMMARY and pseudo is not None and pseudo[2] == first_line and pseudo_summary is None:
                pseudo_summary = (first_line, first_line)
        elif tldr_range and first_line <= tldr_range[1] and parts[-1][0] >= tldr_range[0]:
            role = SUMMARY  # a unit that overlaps the summary (an abstract environment opens a line before its text)
        else:
            if kind == "prose" and count_words(text) <= 4 and re.search(r"[:.]\s*$|^\*\*", text):
                lr = heading_role(text)
                if lr:
                    label_role[heading] = lr
            if heading in label_role:
                role = label_role[heading]
            if role in (None, TITLE):
                guessed = True
                guess = None
                if kind == "prose" and _META_LINE.match(_EMPH_EDGE.sub("", text) or text):
                    guess = META
                if guess is None and kind in ("prose", "bullet", "quote"):
                    guess = _paragraph_role_guess(text)
                if guess is None and heading == "" and first_line < n * 0.15:
                    guess = BACKGROUND
                role = guess or (RESULTS if kind == "table" else OTHER)
        if pseudo_summary is not None and role == SUMMARY and kind != "heading":
            pseudo_summary = (pseudo_summary[0], parts[-1][0])
        if kind in ("prose", "bullet") and _IMAGE_ONLY.fullmatch(text):
            kind = "image"  # a line that is only images or links to them: no words to read
        if kind in ("heading", "table", "image"):
            sentences.append(Sentence(text, first_line, heading, role, kind, first_line / n, (), guessed))
            continue
        offsets: list[tuple[int, int]] = []
        acc = 0
        for ln, t in parts:
            offsets.append((acc, ln))
            acc += len(t) + 1
        for off, sent in split_sentences(text):
            line = first_line
            for o, ln in offsets:
                if o <= off:
                    line = ln
            local = tuple((o - off, ln) for o, ln in offsets if off <= o < off + len(sent))
            sentences.append(Sentence(sent, line, heading, role, kind, line / n, local, guessed))

    # a bold "**Summary**" label near the top is a TL;DR that heading-based detection misses
    if not tldr.found and pseudo_summary is not None and pseudo_summary[0] <= max(n * 0.35, 5):
        body = [s.text for s in sentences if s.role == SUMMARY and s.kind != "heading"]
        if body:
            tldr = TldrDetection(
                found=True, method="named_section", text="\n".join(body),
                start_line=pseudo_summary[0], end_line=pseudo_summary[1],
            )

    return DocView(
        content=content,
        is_extraction=False,
        sentences=sentences,
        headings=heading_infos,
        tldr=tldr,
        structure_inferred=structure_inferred,
        partial_reasons=partial,
        code_lines=code_lines,
        code_blocks=code_blocks,
        tables=tables,
        images=images,
        n_lines=n,
        title=title,
    )


LABEL_NAMES = {
    "TL;DR AS WRITTEN": "TL;DR",
    "KEY CLAIMS": "Key claims",
    "METHODOLOGY EXCERPT": "Methodology",
    "DATA SOURCES & METRICS": "Data and metrics",
    "RESULTS EXCERPT": "Results",
    "RECOMMENDATIONS / CONCLUSIONS": "Recommendations / conclusions",
    "LIMITATIONS STATED": "Limitations",
}


def _build_extraction_view(content: str) -> DocView:
    parts = prepare.parse_extraction(content)
    labels = {f"{label}:": label for label in EXTRACTION_ROLES}
    lines = content.split("\n")
    n = max(len(lines), 1)
    sentences: list[Sentence] = []
    headings: list[HeadingInfo] = []
    label: str | None = None
    section = ""
    section_role: str | None = None
    label_role: str | None = None
    marker: tuple[int, int, int] | None = None  # (extraction line of marker, first doc line, last doc line)
    label_at: int | None = None
    structure_inferred = bool(re.search(r"^Structure:\s*inferred", content, re.M))
    para: list[tuple[int, str]] = []
    tldr_loc = re.search(r"lines? (\d+)", parts.get("TL;DR LOCATION", ""))
    tldr_doc_line = int(tldr_loc.group(1)) if tldr_loc else None

    def doc_line(idx: int) -> int | None:
        if label == "TL;DR AS WRITTEN":
            if tldr_doc_line is None or label_at is None:
                return tldr_doc_line
            skip = 1 if "named section" in parts.get("TL;DR LOCATION", "") else 0
            return tldr_doc_line + skip + max(0, idx - label_at - 1)
        if marker is None:
            return None
        at, first, last = marker
        return min(first + max(0, idx - at - 1), last)

    def role_for(text: str) -> str:
        base = EXTRACTION_ROLES.get(label or "", OTHER)
        if label == "TL;DR AS WRITTEN":
            return SUMMARY
        if label == "LIMITATIONS STATED":
            return LIMITATIONS
        if label_role:
            return label_role
        if section_role:
            return section_role
        guess = _paragraph_role_guess(text)
        if base == CONCLUSION and guess == RECOMMENDATION:
            return RECOMMENDATION
        return base if base != OTHER else (guess or OTHER)

    tldr_section = re.search(r"named section '(?P<s>[^']+)'", parts.get("TL;DR LOCATION", ""))

    def add(text: str, idx: int, kind: str) -> None:
        role = role_for(text)
        name = LABEL_NAMES.get(label or "", label or "")
        where = section or (tldr_section.group("s") if label == "TL;DR AS WRITTEN" and tldr_section else name)
        sentences.append(Sentence(text, idx, where, role, kind, idx / n, (), section_role is None, doc_line(idx), name))

    def flush() -> None:
        nonlocal para, label_role
        if not para or label is None:
            para = []
            return
        text = " ".join(t for _, t in para)
        first = para[0][0]
        if count_words(text) <= 4 and re.search(r"[:.]\s*$|^\*\*", text):
            lr = heading_role(text)
            if lr:
                label_role = lr
        for off, sent in split_sentences(text):
            add(sent, first, "prose")
        para = []

    for idx, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if raw.rstrip() in labels:
            flush()
            label = labels[raw.rstrip()]
            section, section_role, label_role, marker, label_at = "", None, None, None, idx
            continue
        if label is None or label == "STRUCTURE" or EXTRACTION_ROLES.get(label) == META:
            if label == "STRUCTURE":
                hm = _STRUCTURE_HEADING.match(raw)
                if hm:
                    headings.append(
                        HeadingInfo(hm.group("text"), int(hm.group("level")), int(hm.group("a")), heading_role(hm.group("text")))
                    )
            continue
        if label == "TL;DR AS WRITTEN" and stripped.startswith("Location:"):
            flush()
            continue
        if not stripped or stripped.upper() == ABSENT:
            flush()
            continue
        mk = _EXTRACTION_MARKER.match(stripped)
        if mk:
            flush()
            section = mk.group("sec") or ""
            section_role = heading_role(section) if section else None
            label_role = None
            a = int(mk.group("a") or mk.group("ca"))
            b = int(mk.group("b") or mk.group("cb") or a)
            marker = (idx, a + 1 if mk.group("sec") else a, b)
            continue
        if _PLACEHOLDER_LINE.match(stripped):
            flush()
            add(stripped, idx, "placeholder")
            continue
        if label == "KEY CLAIMS":
            cm = _CLAIM_LINE.match(raw)
            if cm:
                flush()
                sec = cm.group("sec") or ""
                text = cm.group("text")
                is_title = bool(headings) and headings[0].level == 1 and sec == headings[0].text
                own = None if is_title else heading_role(sec)
                role = own or _paragraph_role_guess(text) or OTHER
                if sec == "(preamble)":
                    sec = ""
                sentences.append(
                    Sentence(text, idx, sec or "Key claims", role, "claim", idx / n, (), own is None, int(cm.group("line")), "Key claims")
                )
                continue
        bm = _BULLET.match(raw)
        if bm:
            flush()
            para = [(idx, raw[bm.end():].strip())]
            text = para[0][1]
            para = []
            for off, sent in split_sentences(text):
                add(sent, idx, "bullet")
            continue
        if stripped.startswith("|"):
            flush()
            add(stripped, idx, "table")
            continue
        para.append((idx, stripped))
    flush()

    tldr_text = parts.get("TL;DR AS WRITTEN", "").strip()
    found = bool(tldr_text) and tldr_text.upper() != ABSENT
    loc = parts.get("TL;DR LOCATION", "")
    method = "absent"
    if found:
        low = loc.lower()
        if "named section" in low:
            method = "named_section"
        elif "callout" in low or "blockquote" in low:
            method = "panel"
        elif "emphasis" in low or "emphasised" in low:
            method = "emphasis"
        elif "first paragraph" in low:
            method = "first_paragraph"
        else:
            method = "content_signal"
    start = None
    lm = re.search(r"lines? (\d+)", loc)
    if lm:
        start = int(lm.group(1))
    tldr = TldrDetection(found=found, method=method, text=tldr_text if found else "", start_line=start, end_line=start)
    title = headings[0].text if headings and headings[0].level == 1 else ""
    return DocView(
        content=content,
        is_extraction=True,
        sentences=sentences,
        headings=headings,
        tldr=tldr,
        structure_inferred=structure_inferred,
        parts=parts,
        n_lines=n,
        title=title,
    )
