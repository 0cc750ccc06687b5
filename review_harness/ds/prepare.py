"""Deterministic document preparation, run before any reviewer is called.

Given the markdown text of an analysis document this module computes:

* size figures (word count, reading time, token estimate) and the processing tier;
* the heading structure (``Section`` list) and the document title;
* where the TL;DR lives, if anywhere (``detect_tldr``);
* whether the heading structure is usable, or sections must be inferred from content
  signals (keyword / numeric-density scan with positional heuristics);
* whether the input looks like an early draft (``detect_partial_input``);
* the tier 2 section map (``render_section_map``) and the tier 3 structured extraction
  (``render_extraction``, read back with ``parse_extraction``).

Everything here is pure and linear in the size of the document: the document is read once
through the core markdown model (``review_harness.core.markdown.read_document``: headings,
blocks, paragraphs, tables and code with their lines) and what preparation derives from it is
cached per text, so rendering after ``prepare_document`` does not re-read it.

Excerpts in the extraction are copied line by line from the document. The only lines that
are not verbatim are the markers matched by ``EXCERPT_MARKER_RE`` (location notes and
table/code placeholders) and the `` [...]`` suffix appended where an excerpt was cut.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Iterable

from review_harness.core.documents import DocumentError, collapsed_spans
from review_harness.core.markdown import MdBlock, last_nonblank, read_document
from review_harness.core.text import SENTENCE_BOUNDARY, split_sentences, visible_text

from .models import (
    PartialInputCheck,
    PreparedDocument,
    Section,
    TldrDetection,
)

__all__ = [
    "ABSENT",
    "DocumentError",
    "EXCERPT_MARKER_RE",
    "EXTRACTION_HEADER",
    "EXTRACTION_LABELS",
    "SECTION_MAP_HEADER",
    "TLDR_LOCATION_KEY",
    "count_words",
    "detect_partial_input",
    "detect_tldr",
    "extract_sections",
    "infer_structure_needed",
    "parse_extraction",
    "prepare_document",
    "reading_minutes",
    "render_extraction",
    "render_section_map",
    "select_tier",
    "tldr_location",
    "token_estimate",
]


# --------------------------------------------------------------------------------------
# Tunables
# --------------------------------------------------------------------------------------

WORDS_PER_MINUTE = 230
TOKENS_PER_WORD = 1.3
TIER_2_MIN_WORDS = 2_000
TIER_3_MIN_WORDS = 5_000

TLDR_PANEL_WINDOW = 0.20  # a callout counts as the TL;DR if it starts in the top 20% of lines
FRAMING_WINDOW = 0.15  # first 15%: framing / context (and TL;DR signal phrases)
CLOSING_WINDOW = 0.15  # last 15%: conclusions and recommendations
MIN_WINDOW_LINES = 5  # positional windows never shrink below this many lines
LEAD_IN_MAX_WORDS = 6  # a paragraph this short is a label for the block after it
FRAMING_MAX_BLOCKS = 3  # framing/context = at most the first three blocks of that window
TLDR_MAX_WORDS = 120
TLDR_MIN_WORDS = 5

PARTIAL_MAX_WORDS = 600
PARTIAL_BULLET_SHARE = 0.60
PARTIAL_BULLET_MAX_WORDS = 1_200
PARTIAL_OUTLINE_WORDS_PER_SECTION = 40
OUTLINE_SECTION_WORDS = 8  # a section with fewer words under its heading is (almost) empty

KEY_CLAIMS_MAX = 8
KEY_CLAIMS_PER_SECTION = 2
CLAIM_MIN_WORDS = 5
CLAIM_MAX_WORDS = 80

SCAN_CHUNK_WORDS = 200  # long paragraphs/lists are scanned in line chunks of about this size
STRUCTURE_MAX_LINES_EXTRACTION = 40
STRUCTURE_MAX_LINES_MAP = 150
ELEMENTS_PER_SECTION = 5
RANGES_SHOWN = 8

ABSENT = "ABSENT"
SECTION_MAP_HEADER = "SECTION MAP"
EXTRACTION_HEADER = "DOCUMENT EXTRACTION"
PREAMBLE_HEADING = "(preamble)"

LABEL_TLDR = "TL;DR AS WRITTEN"
LABEL_STRUCTURE = "STRUCTURE"
LABEL_CLAIMS = "KEY CLAIMS"
LABEL_METHODOLOGY = "METHODOLOGY EXCERPT"
LABEL_DATA = "DATA SOURCES & METRICS"
LABEL_RESULTS = "RESULTS EXCERPT"
LABEL_RECOMMENDATIONS = "RECOMMENDATIONS / CONCLUSIONS"
LABEL_LIMITATIONS = "LIMITATIONS STATED"
LABEL_AUDIENCE = "AUDIENCE SIGNALS"
LABEL_WORKFLOW = "WORKFLOW CONTEXT"
LABEL_LEFT_OUT = "LEFT OUT OF THIS EXTRACTION"

#: Labels of the tier 3 extraction, in the order they are rendered. Each is written on a
#: line of its own followed by a colon; its content follows on the next lines.
EXTRACTION_LABELS: tuple[str, ...] = (
    LABEL_TLDR,
    LABEL_STRUCTURE,
    LABEL_CLAIMS,
    LABEL_METHODOLOGY,
    LABEL_DATA,
    LABEL_RESULTS,
    LABEL_RECOMMENDATIONS,
    LABEL_LIMITATIONS,
    LABEL_AUDIENCE,
    LABEL_WORKFLOW,
    LABEL_LEFT_OUT,
)
#: Labels whose content describes the document rather than quoting it.
META_LABELS: tuple[str, ...] = (LABEL_STRUCTURE, LABEL_AUDIENCE, LABEL_WORKFLOW, LABEL_LEFT_OUT)

#: Key under which ``parse_extraction`` returns the "Location:" line of the TL;DR block.
TLDR_LOCATION_KEY = "TL;DR LOCATION"

#: Word budget of each excerpt label (total excerpts <= 2,800 words, whole extraction
#: stays around or below 3,700 words whatever the document size). Results and conclusions
#: keep their evidence first: numeric tables the text interprets, then every sentence with a
#: number or a comparison; what does not fit is named under LEFT OUT OF THIS EXTRACTION.
EXCERPT_MAX_WORDS: dict[str, int] = {
    LABEL_METHODOLOGY: 500,
    LABEL_DATA: 300,
    LABEL_RESULTS: 1200,
    LABEL_RECOMMENDATIONS: 500,
    LABEL_LIMITATIONS: 300,
}
#: A table with more body rows keeps its header and the rows the text names.
TABLE_MAX_ROWS = 15
LEFT_OUT_MAX_LINES = 16

STRUCTURE_EXPLICIT = "explicit headings"
STRUCTURE_INFERRED = "inferred from content signals - the document has no clear headings"

#: Lines inside excerpts that are NOT copied from the document: location notes and
#: placeholders for tables / code blocks.
EXCERPT_MARKER_RE = re.compile(r"^\[(?:Section: |Content signals, |table: |table rows |code block|collapsed)")

# --------------------------------------------------------------------------------------
# Keyword lists (content-signal scan, seed 000 s4.3; heading names, s5.4)
# Entries are regular-expression fragments matched case-insensitively on word boundaries.
# --------------------------------------------------------------------------------------

CONCLUSION_SIGNALS: tuple[str, ...] = (
    "in conclusion",
    "to conclude",
    "we conclude",
    "we recommend",
    "our recommendation",
    "we suggest",
    "we propose",
    "key findings?",
    "main findings?",
    "therefore",
    "as a result",
    "(?:the|our|these) results? (?:shows?|suggests?|indicates?)",
    "results? (?:show|suggest|indicate)",
    "this (?:shows|suggests|means)",
    "take-?aways?",
    "bottom line",
    "based on (?:this|the|our) analysis",
    "next steps?",
    "overall",
    "(?:my|our) recommendations?",
    "i recommend",
    "recommend(?:s|ed|ing)?",
    "recommendations? (?:is|are)",
    "we should",
    "to answer the question",
    "the (?:short|main) answer",
    "the short version",
    "in short",
    "owner:",
    "can (?:keep|stop|proceed|go ahead|ship|roll out|continue)",
)

#: Conclusion language that makes an opening paragraph read like a summary (used with a
#: business-impact cue: a number, percentage or money amount).
SUMMARY_SIGNALS: tuple[str, ...] = CONCLUSION_SIGNALS + (
    "we found",
    "we find",
    "led to",
    "leads to",
    "resulted in",
    "in summary",
    "(?:increased|decreased|reduced|improved|grew|fell|dropped|rose|lifted|cut|raised|lowered)"
    r"(?: \w+){0,3} by",
    "should (?:replace|adopt|ship|launch|roll out|keep|stop|continue|invest|move|switch)",
    # a result stated as a comparison or an answer
    "(?:we )?show that",
    "failed to",
    "(?:was|were|is|are) not (?:statistically )?significant(?:ly different)?",
    "(?:faster|slower|cheaper|more accurate|less accurate|more expensive|better|worse) than",
    "outperform(?:s|ed)?",
)

METHODOLOGY_SIGNALS: tuple[str, ...] = (
    "we used",
    "we use",
    "using an?",
    "(?:the|our) approach",
    "(?:our|the) model",
    "regressions?",
    "sample sizes?",
    "population",
    "cohorts?",
    "treatment groups?",
    "control(?: groups?)?",
    "randomi[sz]ed",
    "a/b tests?",
    "experiments?",
    "difference[- ]in[- ]differences?",
    "propensity",
    "we (?:trained|fitted|fit|estimated|measured|compared|segmented)",
    "hold-?out",
    "methodology",
    "statistical tests?",
    "t-tests?",
    "bootstrap(?:ped|ping)?",
)

TLDR_SIGNALS: tuple[str, ...] = (
    "in summary",
    "to summari[sz]e",
    "(?:the )?bottom line",
    "key take-?aways?",
    "executive summary",
    "overview",
    "tl;? ?dr",
    "in short",
    "in brief",
    "the short version",
    "in a nutshell",
)

#: Phrases that on their own mark a limitation (weight 1).
LIMITATION_SIGNALS: tuple[str, ...] = (
    "caveats?",
    "limitations?",
    "limited by",
    "should be noted",
    "note that",
    "does not account for",
    "do(?:es)? not (?:capture|control for|include)",
    "doesn't account for",
    "out of scope",
    "we (?:did|could) not",
    "(?:may|might) be biased",
    "bias(?:ed)?",
    "confound(?:ed|er|ers|ing)?",
    "uncertain(?:ty)?",
    "not (?:statistically )?significant",
    "small sample",
)

#: Phrases that mark a limitation only weakly (weight 0.5): two are needed.
LIMITATION_WEAK_SIGNALS: tuple[str, ...] = ("however", "although", "assum(?:e|es|ed|ption|ptions)")

#: Names of metrics that, with numbers around them, make a block look like results.
RESULT_METRIC_TERMS: tuple[str, ...] = (
    "lift",
    "uplift",
    "conversion(?: rate)?",
    "retention",
    "churn(?: rate)?",
    "revenue",
    "auc",
    "rmse",
    "mae",
    "mape",
    "precision",
    "recall",
    "accuracy",
    "roi",
    "statistically significant",
    "effect size",
    "odds ratio",
    "r-squared",
)

#: Phrases describing data sources and metric definitions (used when no heading names them).
DATA_SIGNALS: tuple[str, ...] = (
    "data sources?",
    "datasets?",
    "data sets?",
    "data (?:from|came from|was pulled)",
    "(?:data )?warehouse",
    "event logs?",
    "logs",
    "defined as",
    "definitions?",
    "kpis?",
    "we (?:pulled|queried|collected)",
    "sample of",
    "tables?",
)

#: Verbs and phrases that make a sentence a claim.
CLAIM_SIGNALS: tuple[str, ...] = (
    "we recommend",
    "recommend(?:s|ed)?",
    "caused",
    "causes",
    "led to",
    "leads? to",
    "drove",
    "drives",
    "driven by",
    "resulted in",
    "results? in",
    "increased",
    "decreased",
    "reduced",
    "improved",
    "grew",
    "fell",
    "dropped",
    "rose",
    "declined",
    "lifted",
    "boosted",
    "therefore",
    "we found",
    "we find",
    "shows? that",
    "indicates?",
    "suggests?",
    "significant(?:ly)?",
    "outperform(?:s|ed)?",
    "because of",
    "due to",
    "will (?:increase|decrease|save|reduce|improve)",
    "saves?",
    "should",
)

#: Heading names that mark a TL;DR section (matched at the start of the heading).
TLDR_HEADING_NAMES: tuple[str, ...] = (
    "tl;? ?dr",
    "executive summary",
    "exec summary",
    "summary",
    "key findings",
    "key results",
    "key take-?aways?",
    "take-?aways?",
    "bottom line",
    "overview",
    "highlights",
    "at a glance",
    "in brief",
    "in short",
    "synopsis",
    "abstract",
    "headline(?: findings| results)?",
)

#: Heading keywords that select the body of a section for each extraction label.
SECTION_HEADING_KEYWORDS: dict[str, tuple[str, ...]] = {
    LABEL_METHODOLOGY: (
        "methods?",
        "methodology",
        "approach",
        "(?:study |experiment(?:al)? |research )?design",
        "analysis plan",
        "how we",
        "model(?:l?ing)?",
        "models",
        "techniques?",
        "procedure",
        "statistical (?:tests?|analysis)",
        "set[- ]?up",
        "experiments?",
        "identification strategy",
        "estimation",
        "assumptions?",
    ),
    LABEL_DATA: (
        "data",
        "datasets?",
        "data sources?",
        "metrics",
        "measures?",
        "measurement",
        "kpis?",
        "definitions?",
        "instrumentation",
        "sample",
        "population",
    ),
    LABEL_RESULTS: (
        "results?",
        "findings?",
        "outcomes?",
        "impact",
        "what we found",
        "evidence",
        "performance",
        "observations?",
        "analysis",
    ),
    LABEL_RECOMMENDATIONS: (
        "recommendations?",
        "recommended",
        "conclusions?",
        "next steps?",
        "action items?",
        "actions",
        "decisions?",
        "proposal",
        "proposed",
        "implications",
        "what we recommend",
        "what'?s next",
        "discussion",
        "the ask",
        "(?:way|path) forward",
    ),
    LABEL_LIMITATIONS: (
        "limitations?",
        "caveats?",
        "risks?",
        "threats to validity",
        "known issues",
        "open questions",
        "constraints",
        "what we don'?t know",
    ),
}

#: Headings that carry no information about their content.
GENERIC_HEADING_WORDS: tuple[str, ...] = (
    "introduction",
    "intro",
    "notes?",
    "misc(?:ellaneous)?",
    "other",
    "untitled",
    "draft",
    "content",
    "contents",
    "body",
    "main",
    "details",
    "more",
    "continued",
    "general",
    "text",
    "page",
)

#: Byline / document-metadata fields ("Author: ...", "Status: draft"): such lines are
#: never taken for a TL;DR or a claim.
METADATA_FIELDS: tuple[str, ...] = (
    "authors?",
    "date",
    "owner",
    "status",
    "team",
    "reviewers?",
    "last (?:updated|edited)",
    "updated",
    "version",
    "(?:prepared|written|compiled|posted|reviewed) (?:by|for)",
    "contact",
    "stakeholders?",
    "audience",
    "for",
    "data cut",
    "created",
    "ticket",
    "jira",
)
_MONTHS = (
    "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)


def _phrase_re(phrases: Iterable[str]) -> re.Pattern[str]:
    """Whole-word alternation; callers match it against LOWER-CASED text (faster than
    a case-insensitive pattern on long documents)."""
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b")


_CONCLUSION_RE = _phrase_re(CONCLUSION_SIGNALS)
_SUMMARY_RE = _phrase_re(SUMMARY_SIGNALS)
_METHOD_RE = _phrase_re(METHODOLOGY_SIGNALS)
_TLDR_SIGNAL_RE = _phrase_re(TLDR_SIGNALS)
_LIMIT_RE = _phrase_re(LIMITATION_SIGNALS)
_LIMIT_WEAK_RE = _phrase_re(LIMITATION_WEAK_SIGNALS)
_METRIC_RE = _phrase_re(RESULT_METRIC_TERMS)
_DATA_RE = _phrase_re(DATA_SIGNALS)
_CLAIM_RE = _phrase_re(CLAIM_SIGNALS)
_HEADING_CATEGORY_RES = {
    label: _phrase_re(words) for label, words in SECTION_HEADING_KEYWORDS.items()
}
_TLDR_HEADING_RE = re.compile(
    r"^(?:" + "|".join(TLDR_HEADING_NAMES) + r")(?![\w])", re.IGNORECASE
)
_GENERIC_HEADING_RE = re.compile(
    r"^(?:(?:section|part|chapter|step|item|page|appendix)\s*(?:\d+|[a-z]|[ivxlc]+)?"
    r"|(?:" + "|".join(GENERIC_HEADING_WORDS) + r")(?:\s*(?:\d+|[a-z]|[ivxlc]+))?"
    r"|(?:\d+|[a-z]|[ivxlc]+)"
    r")$",
    re.IGNORECASE,
)
_METADATA_RE = re.compile(
    r"^[\W_]*(?:" + "|".join(METADATA_FIELDS) + r")[\W_]*:", re.IGNORECASE
)
_METADATA_ANYWHERE_RE = re.compile(
    r"\b(?:" + "|".join(METADATA_FIELDS) + r")\b[*_]*:|\b(?:prepared|written|compiled|posted) (?:by|for)\b"
    r"|\blast (?:edited|updated)\b",
    re.IGNORECASE,
)
_DATE_WORDS_RE = re.compile(
    r"\b\d{1,2} (?:" + _MONTHS + r")\b|\b(?:" + _MONTHS + r") \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE,
)
_MONTH_YEAR_RE = re.compile(r"\b(?:" + _MONTHS + r")\.? (?:19|20)\d\d\b", re.IGNORECASE)
_HEADING_PREFIX_RE = re.compile(
    r"^(?:slide|section|part|chapter|step|page)\s*(?:\d+|[a-z]|[ivxlc]+)\s*[:.)\-–—]\s*(?=\w)",
    re.IGNORECASE,
)
_HR_LINE_RE = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_HEADING_NUMBERING_RE = re.compile(r"^(?:(?:\d+|[ivxlc]+|[a-z])[.)]|\d+(?:\.\d+)+\.?)\s+", re.I)

_ALNUM_RE = re.compile(r"[^\W_]")
_TOKEN_RE = re.compile(r"\S+")
_NUMBER_RE = re.compile(
    r"(?<![\w.])[-+]?[$€£]?\d[\d,]*(?:\.\d+)?(?:\s?%|pp\b|bps\b|x\b|k\b|m\b|bn\b)?"
)
_YEAR_RE = re.compile(r"^(?:19|20)\d\d$")
_DATE_RE = re.compile(r"\b\d{4}[-/]\d{1,2}[-/]\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_IMPACT_RE = re.compile(
    r"[$€£]\s?\d|\d\s?%|\d\s?(?:percent|pp|bps|k|m|bn|million|billion|x)\b"
    r"|(?<![\w.])(?!(?:19|20)\d\d(?![\d,.]))\d[\d,]*(?:\.\d+)?(?![\w])"
    r"|\b(?:revenue|cost|costs|savings|profit|margin|roi)\b",
    re.IGNORECASE,
)
_PVALUE_RE = re.compile(r"\bp\s*(?:[<>=≤≥]|&lt;)\s*0?\.\d+|\bp-?values?\b", re.IGNORECASE)
_CI_RE = re.compile(
    r"\b(?:95|90|99)\s?%\s?CI\b|\bCI\b|confidence intervals?|\[\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\]",
    re.IGNORECASE,
)
_EMPHASIS_LABEL_RE = re.compile(
    r"^(?:\*\*|__|\*|_)\s*(?:" + "|".join(TLDR_HEADING_NAMES) + r")(?![\w])", re.IGNORECASE
)
_EMPHASIS_WHOLE_RE = re.compile(r"^(\*\*|__|\*|_)(?P<inner>.+)\1$", re.DOTALL)
_BULLET_LINE_RE = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+\S")
_CUT_BOUNDARY_RE = re.compile(r"[.!?][\"'”’)\]*_]*(?=\s)|\n")
_IMAGE_RE = re.compile(r"!\[([^\]\n]*)\]|<img\b", re.IGNORECASE)
_IMG_ALT_RE = re.compile(r"\balt=[\"']([^\"']*)[\"']", re.IGNORECASE)
_SETEXT_UNDERLINE_RE = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
_CALLOUT_RE = re.compile(r"^\s*\[!\w+\][+-]?\s*", re.IGNORECASE)
_CAUTION_CALLOUT_RE = re.compile(r"^\s{0,3}>\s?\[!(?:warning|caution|error|danger)\]", re.IGNORECASE)



# --------------------------------------------------------------------------------------
# Size and tier
# --------------------------------------------------------------------------------------


def count_words(text: str) -> int:
    """Whitespace-separated tokens that contain at least one letter or digit.

    Pure markdown syntax (``#``, ``|``, ``---``, ``*``, ``>``) does not count.
    """
    search = _ALNUM_RE.search
    return sum(1 for token in text.split() if search(token))


def reading_minutes(word_count: int) -> float:
    return round(word_count / WORDS_PER_MINUTE, 1)


def token_estimate(word_count: int) -> int:
    return round(word_count * TOKENS_PER_WORD)


def select_tier(word_count: int, mode: str = "full") -> int:
    """1 below 2,000 words, 2 up to 4,999, 3 from 5,000; quick mode is always 3."""
    if mode == "quick":
        return 3
    if word_count < TIER_2_MIN_WORDS:
        return 1
    if word_count < TIER_3_MIN_WORDS:
        return 2
    return 3


# --------------------------------------------------------------------------------------
# Parsing (cached per text)
# --------------------------------------------------------------------------------------


@dataclass
class _Heading:
    level: int
    text: str
    start: int  # 1-based line of the heading
    end: int  # last line of the heading itself (setext headings take two lines)


@dataclass
class _Block:
    kind: str  # paragraph | blockquote | list | table | code | html
    start: int
    end: int
    words: int
    text: str  # verbatim source lines


@dataclass
class _Element:
    kind: str  # table | image | code | quote | collapsed
    start: int
    end: int
    detail: str = ""


@dataclass
class _Paragraph:
    start: int  # line of the first content line
    content: str  # inline source (markers of lists / quotes stripped), lines joined by \n


@dataclass
class _Claim:
    text: str
    line: int
    score: int
    order: int


@dataclass
class _Chunk:
    start: int
    end: int
    score: float = 0.0


@dataclass
class _Analysis:
    text: str
    lines: list[str]
    n_lines: int
    headings: list[_Heading]
    blocks: list[_Block]
    paragraphs: list[_Paragraph]
    elements: list[_Element]
    sections: list[Section]
    heading_span_end: list[int] = field(default_factory=list)

    # -- derived, computed on demand ------------------------------------------------

    @cached_property
    def section_starts(self) -> list[int]:
        return [s.start_line for s in self.sections]

    def section_for_line(self, line: int) -> Section | None:
        i = bisect.bisect_right(self.section_starts, line) - 1
        return self.sections[i] if i >= 0 else None

    @cached_property
    def title_heading_index(self) -> int | None:
        """Index of the H1 used as document title, when it is the only H1."""
        h1 = [i for i, h in enumerate(self.headings) if h.level == 1]
        return h1[0] if len(h1) == 1 else None

    @cached_property
    def heading_categories(self) -> list[set[str]]:
        out: list[set[str]] = []
        for i, h in enumerate(self.headings):
            if i == self.title_heading_index:
                out.append(set())
                continue
            name = _normalize_heading(h.text)
            low = name.lower()
            cats = {label for label, rx in _HEADING_CATEGORY_RES.items() if rx.search(low)}
            if LABEL_LIMITATIONS in cats:  # "Limitations and what the data cannot support"
                cats -= {LABEL_DATA, LABEL_METHODOLOGY, LABEL_RESULTS}
            if LABEL_RECOMMENDATIONS in cats:
                cats -= {LABEL_DATA, LABEL_METHODOLOGY}
            if LABEL_METHODOLOGY in cats and re.search(r"\banalysis\b", name, re.I):
                if not re.search(r"\b(?:results?|findings?)\b", name, re.I):
                    cats.discard(LABEL_RESULTS)
            out.append(cats)
        return out

    @cached_property
    def scan_chunks(self) -> list[_Block]:
        """Prose blocks cut into pieces of about SCAN_CHUNK_WORDS words (line boundaries).

        A short lead-in paragraph ("Limitations.", "Next steps:") is joined to the block
        that follows it, so the label and its content are scanned (and quoted) together.
        """
        merged: list[_Block] = []
        blocks = self.blocks
        i = 0
        while i < len(blocks):
            b = blocks[i]
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            if (
                nxt is not None
                and b.kind == "paragraph"
                and 0 < b.words <= LEAD_IN_MAX_WORDS
                and nxt.kind in ("paragraph", "list", "table", "blockquote")
                and nxt.start - b.end <= 2
            ):
                text = "\n".join(self.lines[b.start - 1 : nxt.end])
                merged.append(_Block(nxt.kind, b.start, nxt.end, b.words + nxt.words, text))
                i += 2
                continue
            merged.append(b)
            i += 1
        out: list[_Block] = []
        for b in merged:
            if b.kind in ("code", "html") or b.words == 0:
                continue
            if b.words <= SCAN_CHUNK_WORDS * 1.5 or b.kind == "table":
                out.append(b)
                continue
            start = b.start
            acc = 0
            for ln in range(b.start, b.end + 1):
                acc += count_words(self.lines[ln - 1])
                if acc >= SCAN_CHUNK_WORDS or ln == b.end:
                    if acc:
                        text = "\n".join(self.lines[start - 1 : ln])
                        out.append(_Block(b.kind, start, ln, acc, text))
                    start, acc = ln + 1, 0
        return out

    @cached_property
    def scan(self) -> dict[str, list[_Chunk]]:
        """Content-signal scan: candidate chunks per category, best first."""
        n = self.n_lines
        framing_limit = _window(n, FRAMING_WINDOW)
        closing_from = n - _window(n, CLOSING_WINDOW) + 1
        cats: dict[str, list[_Chunk]] = {
            "framing": [],
            LABEL_METHODOLOGY: [],
            LABEL_DATA: [],
            LABEL_RESULTS: [],
            LABEL_RECOMMENDATIONS: [],
            LABEL_LIMITATIONS: [],
        }
        chunks = self.scan_chunks
        for idx, b in enumerate(chunks):
            t = b.text.lower()
            if (b.start <= framing_limit and len(cats["framing"]) < FRAMING_MAX_BLOCKS) or idx == 0:
                cats["framing"].append(_Chunk(b.start, b.end, -b.start))
            m = len(_METHOD_RE.findall(t))
            if m:
                cats[LABEL_METHODOLOGY].append(_Chunk(b.start, b.end, m))
            d = len(_DATA_RE.findall(t))
            if d >= 2 or (d and b.kind == "table"):
                cats[LABEL_DATA].append(_Chunk(b.start, b.end, d))
            r = _result_score(t, b.words, b.kind)
            if r:
                cats[LABEL_RESULTS].append(_Chunk(b.start, b.end, r))
            c = len(_CONCLUSION_RE.findall(t))
            if c:
                bonus = 1 if b.start >= closing_from else 0
                cats[LABEL_RECOMMENDATIONS].append(_Chunk(b.start, b.end, 2 * c + bonus))
            lim = len(_LIMIT_RE.findall(t)) + 0.5 * len(_LIMIT_WEAK_RE.findall(t))
            if lim >= 1:
                cats[LABEL_LIMITATIONS].append(_Chunk(b.start, b.end, lim))
        for key, lst in cats.items():
            if key == "framing":
                lst.sort(key=lambda ch: ch.start)
            else:
                lst.sort(key=lambda ch: (-ch.score, ch.start))
        return cats

    @cached_property
    def claims(self) -> list[_Claim]:
        return _find_claims(self)


def _window(n_lines: int, fraction: float) -> int:
    return max(math.ceil(n_lines * fraction), MIN_WINDOW_LINES)


def _numbers(text: str) -> list[str]:
    """Numeric tokens of ``text``, leaving out dates and bare years."""
    if "-" in text or "/" in text:
        text = _DATE_RE.sub(" ", text)
    return [x for x in _NUMBER_RE.findall(text) if not _YEAR_RE.match(x.strip().rstrip(",."))]


def _result_score(text: str, words: int, kind: str) -> float:
    numbers = _numbers(text)
    n = len(numbers)
    stats = len(_PVALUE_RE.findall(text)) + len(_CI_RE.findall(text))
    percents = sum(1 for x in numbers if x.rstrip().endswith("%"))
    metric = 1 if _METRIC_RE.search(text.lower()) else 0
    density = n / max(words, 1)
    if stats or percents >= 2 or (n >= 3 and density >= 0.06) or (kind == "table" and n >= 2):
        return n + 3 * stats + metric + density * 10
    return 0.0


def normalize_text(text: str) -> str:
    """The text preparation reads: no byte-order mark, Unix line ends."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _normalize_heading(text: str) -> str:
    t = re.sub(r"[*_`~]", "", text)
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"^[^\w(]+", "", t.strip())  # leading emoji / punctuation
    t = _HEADING_NUMBERING_RE.sub("", t)
    t = _HEADING_PREFIX_RE.sub("", t)  # "Slide 2: Executive Summary"
    return t.strip()


_BLOCK_KINDS = frozenset({"paragraph", "blockquote", "list", "table", "code", "html"})


@lru_cache(maxsize=64)
def _analyze(raw_text: str) -> _Analysis:
    """The document as preparation reads it: the core markdown model's top-level headings and
    blocks, every paragraph, and the elements a structure listing names."""
    text = normalize_text(raw_text)
    doc = read_document(text)
    lines = list(doc.lines)
    n_lines = doc.n_lines

    headings: list[_Heading] = []
    blocks: list[_Block] = []
    paragraphs: list[_Paragraph] = []
    elements: list[_Element] = []
    for b in doc.blocks:
        start, end = b.start_line, b.end_line
        if b.kind == "heading":
            if b.depth == 0:
                headings.append(_Heading(b.level, b.text, start, end))
            continue
        if b.kind == "paragraph":
            paragraphs.append(_Paragraph(start, b.text))
            elements.extend(_images(b))
        elif b.kind == "table":
            header = lines[start - 1].strip().strip("|")
            elements.append(_Element("table", start, end, " | ".join(c.strip() for c in header.split("|"))))
        elif b.kind == "code":
            elements.append(_Element("code", start, end, b.text.strip().split(" ")[0]))
        elif b.kind == "blockquote" and b.depth == 0:
            elements.append(_Element("quote", start, end))
        if b.depth == 0 and b.kind in _BLOCK_KINDS:
            body = "\n".join(lines[start - 1 : end])
            blocks.append(_Block(b.kind, start, end, count_words(body), body))
    for span in collapsed_spans(text):  # expand macros (<details>): noted, deprioritised
        elements.append(_Element("collapsed", span.start, span.end, span.title))
    elements.sort(key=lambda e: e.start)

    sections = _build_sections(lines, n_lines, headings)
    an = _Analysis(text, lines, n_lines, headings, blocks, paragraphs, elements, sections)
    an.heading_span_end = _heading_spans(headings, lines, n_lines)
    return an


def _images(paragraph: MdBlock) -> list[_Element]:
    """Charts and images of a paragraph (markdown images and <img> tags), with their alt text."""
    content = paragraph.text
    if "![" not in content and "<img" not in content.lower():
        return []
    out: list[_Element] = []
    for m in _IMAGE_RE.finditer(content):
        line = paragraph.start_line + content.count("\n", 0, m.start())
        alt = m.group(1)
        if alt is None:
            am = _IMG_ALT_RE.search(content[m.start() : m.start() + 300])
            alt = am.group(1) if am else ""
        out.append(_Element("image", line, line, alt.strip()))
    return out


def _build_sections(lines: list[str], n_lines: int, headings: list[_Heading]) -> list[Section]:
    sections: list[Section] = []
    first = headings[0].start if headings else n_lines + 1
    if any(lines[i].strip() for i in range(0, min(first - 1, n_lines))):
        end = last_nonblank(lines, 1, first - 1)
        sections.append(Section(heading=PREAMBLE_HEADING, level=0, start_line=1, end_line=end))
    for i, h in enumerate(headings):
        nxt = headings[i + 1].start - 1 if i + 1 < len(headings) else n_lines
        end = last_nonblank(lines, h.start, max(nxt, h.start))
        end = max(end, h.end)
        sections.append(Section(heading=h.text, level=h.level, start_line=h.start, end_line=end))
    return sections


def _heading_spans(headings: list[_Heading], lines: list[str], n_lines: int) -> list[int]:
    """Last line of each heading's span: up to the next heading of the same or higher rank."""
    spans = [n_lines] * len(headings)
    stack: list[int] = []
    for i, h in enumerate(headings):
        while stack and headings[stack[-1]].level >= h.level:
            j = stack.pop()
            spans[j] = h.start - 1
        stack.append(i)
    for i, h in enumerate(headings):
        spans[i] = max(last_nonblank(lines, h.start, max(spans[i], h.start)), h.end)
    return spans


def extract_sections(text: str) -> list[Section]:
    """Heading structure of ``text``; text before the first heading is a level-0 section."""
    return list(_analyze(text).sections)


def _title(an: _Analysis, source: str) -> str:
    for h in an.headings:
        if h.level == 1 and h.text:
            return h.text
    for h in an.headings:
        if h.text:
            return h.text
    for line in an.lines:
        stripped = line.strip()
        if stripped:
            stripped = re.sub(r"^(?:[#>*+\-=_|\s]+)", "", stripped).strip() or stripped
            return stripped[:120].rstrip()
    return Path(source).stem or source


# --------------------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------------------


def _truncate_words(text: str, max_words: int) -> tuple[str, bool]:
    """Keep at most ``max_words`` words, cutting at a sentence or line end when possible.

    Returns (text, was_cut). A cut text ends with `` [...]``.
    """
    count = 0
    cut_pos = -1
    half_pos = 0
    half = max(1, max_words // 2)
    for m in _TOKEN_RE.finditer(text):
        if _ALNUM_RE.search(m.group(0)):
            count += 1
            if count == half:
                half_pos = m.end()
            if count > max_words:
                cut_pos = m.start()
                break
    if cut_pos < 0:
        return text, False
    head = text[:cut_pos]
    best = -1
    for m in _CUT_BOUNDARY_RE.finditer(head, half_pos):
        best = m.end()
    if best < 0:
        best = cut_pos
    return head[:best].rstrip() + " [...]", True


def _collapse_blank_lines(lines: Iterable[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if not line.strip():
            if out and out[-1] == "":
                continue
            out.append("")
        else:
            out.append(line)
    while out and out[0] == "":
        out.pop(0)
    while out and out[-1] == "":
        out.pop()
    return out


def _lines_label(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def _merge_ranges(chunks: Iterable[_Chunk], an: _Analysis) -> list[tuple[int, int]]:
    """Merge chunks whose lines touch (only blank lines between them)."""
    ranges: list[tuple[int, int]] = []
    for ch in sorted(chunks, key=lambda c: c.start):
        if ranges:
            ps, pe = ranges[-1]
            gap = an.lines[pe : ch.start - 1]
            if ch.start <= pe + 1 or all(not g.strip() for g in gap):
                ranges[-1] = (ps, max(pe, ch.end))
                continue
        ranges.append((ch.start, ch.end))
    return ranges


def _format_ranges(ranges: list[tuple[int, int]]) -> str:
    if not ranges:
        return ABSENT
    shown = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges[:RANGES_SHOWN])
    word = "line" if len(ranges) == 1 and ranges[0][0] == ranges[0][1] else "lines"
    more = f" (+{len(ranges) - RANGES_SHOWN} more)" if len(ranges) > RANGES_SHOWN else ""
    return f"{word} {shown}{more}"


# --------------------------------------------------------------------------------------
# Structure: explicit or inferred
# --------------------------------------------------------------------------------------


def _is_generic_heading(text: str) -> bool:
    name = re.sub(r"[*_`~#:.\-–—)(]", " ", text).strip()
    name = re.sub(r"\s+", " ", name)
    return not name or bool(_GENERIC_HEADING_RE.match(name))


def infer_structure_needed(text: str, sections: list[Section] | None = None) -> bool:
    """True when the headings are not usable and sections must be inferred from content.

    That is the case with fewer than two headings below the title, or when every heading
    is generic ("Section 1", "Part A", "Introduction", bare numbering).
    """
    an = _analyze(text)
    heads = [s for s in (sections if sections is not None else an.sections) if s.level > 0]
    first_h1 = next((i for i, s in enumerate(heads) if s.level == 1), None)
    below = [s for i, s in enumerate(heads) if i != first_h1]
    if len(below) < 2:
        return True
    return all(_is_generic_heading(s.heading) for s in below)


# --------------------------------------------------------------------------------------
# TL;DR detection (seed 000 s5.4, adapted to markdown)
# --------------------------------------------------------------------------------------


def _strip_quote_markers(text: str) -> str:
    out = []
    for line in text.split("\n"):
        line = re.sub(r"^\s{0,3}(?:>\s?)+", "", line)
        out.append(_CALLOUT_RE.sub("", line))
    return "\n".join(out).strip()


def _is_metadata(text: str) -> bool:
    """A byline or document-properties line rather than content."""
    stripped = text.strip()
    first = stripped.split("\n", 1)[0]
    if _METADATA_RE.match(first):
        return True
    if count_words(stripped) >= 60:
        return False
    if _METADATA_ANYWHERE_RE.search(first):
        return True
    if _DATE_WORDS_RE.search(first):
        if "·" in first or " | " in first or " - " in first:
            return True  # "Team · Name · 2 May 2024"
        short = count_words(stripped) < 25
        if short and re.search(r"\b(?:19|20)\d\d\b", first) and not re.search(r"[%$€£]", stripped):
            return True  # "Notes on the test. Jane Doe, Analytics, 14 November 2024."
    if (count_words(stripped) <= 10 and _MONTH_YEAR_RE.search(first) and "," in first
            and not re.search(r"[%$€£]|\d+(?:\.\d+)?\s?(?:x|pp|points?)\b", stripped)):
        return True  # "*Data team, notebook write-up, March 2024*"
    return len(re.findall(r"\*\*[^*\n]{1,30}:\*\*|\b[A-Z][a-z]+:\s", stripped)) >= 3


def _is_prose_paragraph(block: _Block) -> bool:
    if block.kind != "paragraph" or block.words < 8:
        return False
    stripped = block.text.strip()
    if _is_metadata(stripped):
        return False
    if re.fullmatch(r"(?:!?\[[^\]]*\]\([^)]*\)\s*)+", stripped):
        return False
    return True


def _is_emphasis_tldr(block: _Block) -> bool:
    if block.kind != "paragraph":
        return False
    stripped = block.text.strip()
    if _EMPHASIS_LABEL_RE.match(stripped):
        return True
    m = _EMPHASIS_WHOLE_RE.match(stripped)
    if m and m.group(1) not in m.group("inner") and block.words >= TLDR_MIN_WORDS:
        return not _is_metadata(m.group("inner"))
    return False


def _reads_like_summary(text: str) -> bool:
    return bool(_SUMMARY_RE.search(text.lower())) and bool(_IMPACT_RE.search(text))


def _tldr_result(method: str, an: _Analysis, start: int, end: int, text: str) -> TldrDetection:
    body = "\n".join(_collapse_blank_lines(text.split("\n")))
    body, _ = _truncate_words(body, TLDR_MAX_WORDS)
    return TldrDetection(found=True, method=method, text=body, start_line=start, end_line=end)


def detect_tldr(text: str, sections: list[Section] | None = None) -> TldrDetection:
    """Find the TL;DR, checking (in order) a callout near the top, an emphasised block
    before the first H2, a section named like a summary, a summary-like first paragraph,
    and summary phrases in the first 15% of the document."""
    an = _analyze(text)
    if sections is None:
        sections = an.sections
    n = an.n_lines
    blocks = an.blocks

    # 1) callout / blockquote starting in the top 20% of lines
    panel_limit = _window(n, TLDR_PANEL_WINDOW)
    collapsed = [e for e in an.elements if e.kind == "collapsed"]
    for b in blocks:
        if b.start > panel_limit:
            break
        if (b.kind == "blockquote" and not any(c.start <= b.start <= c.end for c in collapsed)
                and not _CAUTION_CALLOUT_RE.match(b.text)):  # info/note/tip/success panels only
            inner = _strip_quote_markers(b.text)
            if count_words(inner) >= TLDR_MIN_WORDS and not _is_metadata(inner):
                return _tldr_result("panel", an, b.start, b.end, b.text)

    # 2) bold / emphasised paragraph before the first H2 (or in the top 20% without H2s)
    first_h2 = next((s.start_line for s in sections if s.level >= 2), None)
    emphasis_limit = first_h2 - 1 if first_h2 is not None else panel_limit
    for i, b in enumerate(blocks):
        if b.start > emphasis_limit:
            break
        if _is_emphasis_tldr(b):
            start, end, body = b.start, b.end, b.text
            label_only = count_words(_EMPHASIS_LABEL_RE.sub("", b.text.strip())) < 4
            if label_only and i + 1 < len(blocks):
                nxt = blocks[i + 1]
                if nxt.kind in ("list", "paragraph") and nxt.start <= max(emphasis_limit, b.end + 2):
                    end = nxt.end
                    body = "\n".join(an.lines[start - 1 : end])
            return _tldr_result("emphasis", an, start, end, body)

    # 3) a section named like a summary
    title_h1 = [s for s in sections if s.level == 1]
    for s in sections:
        if s.level == 0:
            continue
        if s.level == 1 and len(title_h1) == 1:
            continue  # the document title
        if _TLDR_HEADING_RE.match(_normalize_heading(s.heading)):
            end = _span_end_for(an, s)
            body_lines = an.lines[s.start_line : end]
            if body_lines and _SETEXT_UNDERLINE_RE.match(body_lines[0]):
                body_lines = body_lines[1:]
            body = "\n".join(body_lines)
            if not body.strip():
                continue
            if s.start_line > n * _LATE_SUMMARY:  # "Summary #1" deep in the text: the answer may still open it
                opening = _opening_summary(an, blocks, first_h2, panel_limit, stated_only=True)
                if opening is not None:
                    return opening
            return _tldr_result("named_section", an, s.start_line, end, body)

    # 3b) a summary named by an HTML heading (<h2>Executive Summary</h2>) or a LaTeX abstract
    named = _html_or_latex_summary(an)
    if named is not None:
        return _tldr_result(*named)

    # 4) an opening paragraph (before the first H2) that reads like a summary
    opening = _opening_summary(an, blocks, first_h2, panel_limit)
    if opening is not None:
        return opening

    # 5) summary phrases in the first 15% of the document
    framing_limit = _window(n, FRAMING_WINDOW)
    for b in blocks:
        if b.start > framing_limit:
            break
        if b.kind in ("paragraph", "list", "blockquote") and _TLDR_SIGNAL_RE.search(b.text.lower()):
            return _tldr_result("content_signal", an, b.start, b.end, b.text)

    return TldrDetection(found=False, method="absent")


def _opening_summary(an, blocks, first_h2: int | None, panel_limit: int, stated_only: bool = False) -> TldrDetection | None:
    """An opening paragraph (of the first few, before the first H2) that reads like a summary: a first
    paragraph of context followed by the answer is still a summary up front. With `stated_only`, only an
    opening that states the answer (not one that states the purpose)."""
    opening_limit = max(first_h2 - 1 if first_h2 is not None else 0, panel_limit)
    opening = [b for b in blocks if _is_prose_paragraph(b) and b.start <= opening_limit][:_OPENING_PARAGRAPHS]
    # an opening paragraph that opens with a summary label ("In short: ...", "Bottom line: ..."): the
    # summary runs from the opening down to it
    labelled = next((b for b in opening if _INLINE_SUMMARY_LABEL_RE.match(b.text.strip())), None)
    for n, b in enumerate(opening):
        # the first paragraph by the usual signals; a later one only when it states a result
        if _reads_like_summary(b.text) if n == 0 else (_STATED_RESULT_RE.search(b.text) and _IMPACT_RE.search(b.text)
                                                        or _CONCLUDES_RE.search(b.text)):
            if labelled is not None and labelled.start > b.end:
                return _tldr_result("first_paragraph", an, b.start, labelled.end, "\n".join(an.lines[b.start - 1:labelled.end]))
            return _tldr_result("first_paragraph", an, b.start, b.end, b.text)
    if labelled is not None:
        return _tldr_result("first_paragraph", an, labelled.start, labelled.end, labelled.text)
    # an opening paragraph that says what the document will do ("In this analysis I will outline...")
    # is a summary up front, if a weak one: it states the purpose, not the answer
    if stated_only:
        return None
    purpose = next((b for b in opening if any(_PURPOSE_RE.match(sentence) for _, sentence in split_sentences(b.text.strip()))), None)
    if purpose is not None:
        return _tldr_result("first_paragraph", an, purpose.start, purpose.end, purpose.text)
    return None


# how many prose paragraphs before the first section may open with the answer (context, a quote, then the answer)
_OPENING_PARAGRAPHS = 5
# a section named like a summary that starts past this share of the lines is late
_LATE_SUMMARY = 0.4
# the author stating what the analysis concludes, with or without a figure ("My analysis, shown below, concludes
# that the two accounts are written by different people")
_CONCLUDES_RE = re.compile(
    r"\b(?:(?:my|our|this|the) (?:analysis|study|investigation|results?|data)(?:,[^,]{0,30},)? (?:concludes?|shows?|finds?|suggests?) that|"
    r"(?:i|we) (?:conclude|found|find) that|the (?:short )?answer is\b|spoiler\s*:)", re.I)
# a paragraph that states a result, not only one that sounds conclusive ("this means")
_INLINE_SUMMARY_LABEL_RE = re.compile(
    r"^\W{0,3}(?:in short|in brief|in a nutshell|bottom line|the short answer|short answer|tl;?\s?dr|summary|key finding|"
    r"the upshot)\s*[:—–-]\s*\S", re.IGNORECASE)
_STATED_RESULT_RE = re.compile(
    r"\b(?:we (?:found|find|show|conclude)|(?:this|the) (?:analysis|test|experiment|study) (?:shows?|found)|show that|"
    r"failed to|(?:was|were|is|are) not (?:statistically )?significant|did not (?:change|increase|decrease|improve)|"
    r"(?:increased|decreased|reduced|improved|grew|fell|dropped|rose|lifted|cut|raised|lowered)(?: \w+){0,3} (?:by|from)|"
    r"(?:faster|slower|cheaper|more accurate|less accurate) than|outperform\w*)\b", re.I)
_PURPOSE_RE = re.compile(
    r"^\W*(?:in this (?:analysis|post|report|document|memo|write-?up|study|notebook|article|project)\b|this (?:analysis|post|report|"
    r"document|memo|write-?up|study|notebook|article|page|project|repository|repo) (?:will|looks at|examines|explores|outlines|"
    r"describes|covers|presents|investigates|forecasts|estimates|predicts|compares|measures|models|analy[sz]es|uses|builds)\b|(?:we|i) (?:wanted|want|set out|aimed|aim) to (?:understand|know|find out|see|learn|measure|estimate)\b|"
    r"an? (?:[\w-]+ ){0,3}(?:project|analysis|study|notebook|report) (?:to|that|which|for) (?:forecast|predict|estimate|measure|"
    r"understand|explore|analy[sz]e|compare|model|build)\w*\b|"
    r"(?:we|i) (?:ran|run|did|built|set up) (?:a |an )?(?:[\w-]+ ){0,3}(?:experiment|test|analysis|comparison|benchmark) "
    r"(?:to|on|in order to)\b|(?:we were|i was|we've been|i've been) asked (?:whether|if|to)\b|"
    r"(?:here|below),? (?:i|we) (?:look|will look|outline|examine|explore)\b)", re.I)
_HTML_HEADING_RE = re.compile(r"^\s*<h([1-6])\b[^>]*>(.*?)</h\1>\s*$", re.I)
_LATEX_ABSTRACT_RE = re.compile(r"\\begin\{abstract\}")
_LATEX_ABSTRACT_END_RE = re.compile(r"\\end\{abstract\}")


def _html_or_latex_summary(an: _Analysis) -> tuple[str, _Analysis, int, int, str] | None:
    """A summary written as an HTML heading named like one (<h2>Executive Summary</h2>, up to the
    next heading) or as a LaTeX abstract environment in the top third of the document (R Markdown
    reports for PDF put the executive summary there)."""
    lines = an.lines[: an.n_lines]
    top = max(len(lines) // 3, 40)
    for i, line in enumerate(lines[:top]):
        if _LATEX_ABSTRACT_RE.search(line):
            end = next((j for j in range(i + 1, len(lines)) if _LATEX_ABSTRACT_END_RE.search(lines[j])), None)
            if end is not None and count_words("\n".join(lines[i + 1:end])) >= TLDR_MIN_WORDS:
                return "panel", an, i + 2, end, "\n".join(lines[i + 1:end])
        m = _HTML_HEADING_RE.match(line)
        if m and _TLDR_HEADING_RE.match(_normalize_heading(re.sub(r"<[^>]+>", "", m.group(2)))):
            end = next((j for j in range(i + 1, len(lines)) if _HTML_HEADING_RE.match(lines[j]) or re.match(r"^#{1,6}\s", lines[j])),
                       len(lines))
            body = "\n".join(lines[i + 1:end])
            if count_words(body) >= TLDR_MIN_WORDS:
                return "named_section", an, i + 1, end, body
    return None


def _span_end_for(an: _Analysis, section: Section) -> int:
    """End line of a section including its subsections."""
    for i, h in enumerate(an.headings):
        if h.start == section.start_line:
            return an.heading_span_end[i]
    return section.end_line


_TLDR_METHOD_LABELS = {
    "panel": "callout/blockquote at the top of the document",
    "emphasis": "emphasised block before the first H2",
    "first_paragraph": "first paragraph",
    "content_signal": "summary phrase in the first 15% of the document (content signal)",
}


_TLDR_SHORT_LABELS = {
    "panel": "callout",
    "emphasis": "emphasised block",
    "first_paragraph": "first paragraph",
    "content_signal": "summary phrase",
}


def tldr_location(tldr: TldrDetection, sections: list[Section] | None = None) -> str:
    """One-line description of where the TL;DR was found, or ``ABSENT``."""
    if not tldr.found or tldr.start_line is None:
        return ABSENT
    lines = _lines_label(tldr.start_line, tldr.end_line or tldr.start_line)
    if tldr.method == "named_section":
        heading = next(
            (s.heading for s in sections or [] if s.start_line == tldr.start_line and s.level > 0),
            None,
        )
        name = f" '{heading}'" if heading else ""
        return f"named section{name}, {lines}"
    return f"{_TLDR_METHOD_LABELS.get(tldr.method, tldr.method)}, {lines}"


# --------------------------------------------------------------------------------------
# Partial input (seed 000 s10)
# --------------------------------------------------------------------------------------


def _signals_present(an: _Analysis) -> dict[str, bool]:
    cats: set[str] = set()
    for c in an.heading_categories:
        cats |= c
    present = {
        "method": LABEL_METHODOLOGY in cats or LABEL_DATA in cats,
        "results": LABEL_RESULTS in cats,
        "conclusion": LABEL_RECOMMENDATIONS in cats,
    }
    if all(present.values()):  # the headings name every part: the content scan is not needed
        return present
    scan = an.scan
    return {
        "method": present["method"] or sum(ch.score for ch in scan[LABEL_METHODOLOGY]) >= 2,
        "results": present["results"] or bool(scan[LABEL_RESULTS]),
        "conclusion": present["conclusion"] or bool(scan[LABEL_RECOMMENDATIONS]),
    }


_UNFINISHED_RE = re.compile(r"\b(?:TODO|TBD|TBC|FIXME)\b|\[(?:TBD|TODO|TK|insert[^\]]*)\]|\?\?\?+|\bXX+\b")


def detect_partial_input(
    text: str, sections: list[Section] | None = None, word_count: int | None = None
) -> PartialInputCheck:
    """Flag minimal input (outline, bullet notes, half-written draft)."""
    an = _analyze(text)
    if sections is None:
        sections = an.sections
    if word_count is None:
        word_count = count_words(text)
    reasons: list[str] = []
    partial = False

    # signals of unfinished work, not length: a short finished memo is not a draft
    unfinished = _UNFINISHED_RE.findall(text)
    if unfinished:
        partial = True
        reasons.append(f"{len(unfinished)} unfinished marker(s) such as {unfinished[0].strip()!r}")

    nonempty = [ln for ln in an.lines[: an.n_lines] if ln.strip()]
    bullets = sum(1 for ln in nonempty if _BULLET_LINE_RE.match(ln))
    share = bullets / len(nonempty) if nonempty else 0.0
    if share >= PARTIAL_BULLET_SHARE and word_count < PARTIAL_BULLET_MAX_WORDS:
        partial = True
        reasons.append(f"{round(share * 100)}% of lines are bullet points")

    # an outline: most sections hold (almost) nothing; a short memo with a few lines under each
    # of its headings is finished work, not an outline
    headed = [s for s in sections if s.level > 0]
    bare = [s for s in headed if count_words("\n".join(an.lines[s.start_line : s.end_line])) < OUTLINE_SECTION_WORDS]
    if len(headed) >= 3 and word_count < PARTIAL_BULLET_MAX_WORDS and len(bare) * 2 >= len(headed):
        partial = True
        reasons.append(f"{len(bare)} of {len(headed)} headings with (almost) nothing under them (outline)")

    present = _signals_present(an)
    if sum(present.values()) < 2:
        partial = True
    if partial and word_count < PARTIAL_MAX_WORDS:
        reasons.append(f"only {word_count:,} words")
    if partial:
        if not present["method"]:
            reasons.append("no methodology section detected")
        if not present["results"]:
            reasons.append("no results detected")
        if not present["conclusion"]:
            reasons.append("no conclusions or recommendations detected")
    return PartialInputCheck(is_partial=partial, reasons=reasons if partial else [])


# --------------------------------------------------------------------------------------
# Key claims
# --------------------------------------------------------------------------------------


def _find_claims(an: _Analysis) -> list[_Claim]:
    candidates: list[_Claim] = []
    seen: set[str] = set()
    order = 0
    for para in an.paragraphs:
        content = para.content
        if not content or content.lstrip().startswith("|"):
            continue
        low_para = content.lower()
        if not (
            _CLAIM_RE.search(low_para)
            or _CONCLUSION_RE.search(low_para)
            or len(_numbers(content)) >= 2
        ):
            continue  # cheap paragraph-level filter before splitting into sentences
        callout = _CALLOUT_RE.match(content)
        pos = callout.end() if callout else 0
        bounds = [m.end() for m in SENTENCE_BOUNDARY.finditer(content, pos)] + [len(content)]
        for b in bounds:
            raw = content[pos:b]
            lead = len(raw) - len(raw.lstrip())
            start_offset = pos + lead
            pos = b
            sentence = " ".join(raw.split())
            if not sentence or _is_metadata(sentence):
                continue
            words = count_words(sentence)
            if words < CLAIM_MIN_WORDS or words > CLAIM_MAX_WORDS:
                continue
            low = sentence.lower()
            claim_hits = len(_CLAIM_RE.findall(low)) + len(_CONCLUSION_RE.findall(low))
            numbers = _numbers(sentence)
            stats = 1 if (_PVALUE_RE.search(sentence) or _CI_RE.search(sentence)) else 0
            score = 2 * min(claim_hits, 2) + min(len(numbers), 3) + stats
            if score < 2 or (claim_hits == 0 and len(numbers) < 2):
                continue
            if sentence in seen:
                continue
            seen.add(sentence)
            line = para.start + content.count("\n", 0, start_offset)
            candidates.append(_Claim(sentence, line, score, order))
            order += 1
    candidates.sort(key=lambda c: (-c.score, c.order))
    chosen: list[_Claim] = []
    per_section: dict[int, int] = {}
    for c in candidates:
        if len(chosen) >= KEY_CLAIMS_MAX:
            break
        key = bisect.bisect_right(an.section_starts, c.line)
        if per_section.get(key, 0) >= KEY_CLAIMS_PER_SECTION:
            continue
        per_section[key] = per_section.get(key, 0) + 1
        chosen.append(c)
    if len(chosen) < KEY_CLAIMS_MAX:
        ids = {id(c) for c in chosen}
        for c in candidates:
            if len(chosen) >= KEY_CLAIMS_MAX:
                break
            if id(c) not in ids:
                chosen.append(c)
    chosen.sort(key=lambda c: c.order)
    return chosen


# --------------------------------------------------------------------------------------
# Structure listing (shared by the section map and the extraction)
# --------------------------------------------------------------------------------------


def _element_line(el: _Element, indent: str) -> str:
    if el.kind == "table":
        cols = f" (columns: {el.detail})" if el.detail else ""
        return f"{indent}- [table] at line {el.start}{cols}"
    if el.kind == "image":
        alt = f' "{el.detail}"' if el.detail else ""
        return f"{indent}- [chart/image]{alt} at line {el.start}"
    if el.kind == "code":
        lang = f" ({el.detail})" if el.detail else ""
        return f"{indent}- [code block]{lang} at {_lines_label(el.start, el.end)}"
    if el.kind == "collapsed":
        title = f' "{el.detail}"' if el.detail else ""
        return f"{indent}- [collapsed/expand]{title} at {_lines_label(el.start, el.end)} (deprioritise)"
    if el.kind == "tldr":
        what = _TLDR_SHORT_LABELS.get(el.detail, el.detail)
        return f"{indent}- [{what}] at {_lines_label(el.start, el.end)} <- TL;DR DETECTED"
    return f"{indent}- [callout/quote] at {_lines_label(el.start, el.end)}"


def _structure_lines(an: _Analysis, prepared: PreparedDocument, max_lines: int) -> list[str]:
    tldr = prepared.tldr
    sections = an.sections
    levels = [s.level for s in sections if s.level > 0]
    base = min(levels) if levels else 1
    tldr_section: int | None = None
    elements = [e for e in an.elements if e.kind != "quote"]
    if tldr.found and tldr.start_line is not None:
        if tldr.method == "named_section":
            tldr_section = next(
                (i for i, s in enumerate(sections) if s.start_line == tldr.start_line), None
            )
        else:
            marker = _Element("tldr", tldr.start_line, tldr.end_line or tldr.start_line, tldr.method)
            elements.append(marker)
            elements.sort(key=lambda e: (e.start, e.kind != "tldr"))

    # (line, depth_rank, is_element) - depth_rank used to thin out long listings
    entries: list[tuple[str, int, bool]] = []
    el_idx = 0
    for i, s in enumerate(sections):
        if s.level == 0:
            indent = ""
            line = f"- [preamble] ({_lines_label(s.start_line, s.end_line)})"
            rank = 0
        else:
            indent = "  " * (s.level - base)
            line = f"{indent}- [H{s.level}] {s.heading} ({_lines_label(s.start_line, s.end_line)})"
            rank = s.level - base
        if i == tldr_section:
            line += " <- TL;DR DETECTED"
        entries.append((line, rank, False))
        next_start = sections[i + 1].start_line if i + 1 < len(sections) else an.n_lines + 1
        while el_idx < len(elements) and elements[el_idx].start < s.start_line:
            el_idx += 1
        shown = 0
        hidden = 0
        while el_idx < len(elements) and elements[el_idx].start < next_start:
            el = elements[el_idx]
            if el.kind == "tldr":
                entries.append((_element_line(el, indent + "  "), 0, False))
            elif shown < ELEMENTS_PER_SECTION:
                entries.append((_element_line(el, indent + "  "), rank + 1, True))
                shown += 1
            else:
                hidden += 1
            el_idx += 1
        if hidden:
            entries.append((f"{indent}  - (+{hidden} more tables/images/code blocks)", rank + 1, True))

    if not sections:
        entries.append(("- (no headings)", 0, False))

    if len(entries) > max_lines:
        entries = [e for e in entries if not e[2]]
    if len(entries) > max_lines:
        entries = [e for e in entries if e[1] <= 1]
    out = [e[0] for e in entries]
    if len(out) > max_lines:
        hidden = len(out) - (max_lines - 1)
        out = out[: max_lines - 1] + [f"- ... (+{hidden} more sections not shown)"]
    return out


def _inferred_lines(an: _Analysis) -> list[str]:
    scan = an.scan
    framing = _merge_ranges(scan["framing"], an)
    rows = [
        ("Framing/context", framing),
        ("Methodology (inferred)", _merge_ranges(scan[LABEL_METHODOLOGY][:12], an)),
        ("Results (inferred)", _merge_ranges(scan[LABEL_RESULTS][:12], an)),
        ("Conclusions (inferred)", _merge_ranges(scan[LABEL_RECOMMENDATIONS][:12], an)),
        ("Limitations", _merge_ranges(scan[LABEL_LIMITATIONS][:12], an)),
    ]
    return ["INFERRED SECTIONS:"] + [f"- {name}: {_format_ranges(r)}" for name, r in rows]


# --------------------------------------------------------------------------------------
# Tier 2: section map
# --------------------------------------------------------------------------------------


def render_section_map(prepared: PreparedDocument) -> str:
    """Plain-text section map (seed 000 s4.2): an attention guide sent with the full text."""
    an = _analyze(prepared.text)
    out = [
        SECTION_MAP_HEADER,
        f"Document: {prepared.title}",
        f"Total length: {prepared.word_count} words (~{prepared.reading_minutes:g} min read)",
        f"TL;DR: {tldr_location(prepared.tldr, an.sections)}",
    ]
    if prepared.structure_inferred:
        out.append(f"Structure: {STRUCTURE_INFERRED}")
    out += ["", "STRUCTURE:"]
    out += _structure_lines(an, prepared, STRUCTURE_MAX_LINES_MAP)
    if prepared.structure_inferred:
        out += [""] + _inferred_lines(an)
    out += ["", "KEY CLAIMS (with locations):"]
    claims = an.claims
    if claims:
        out += [f'{i}. "{c.text}" (line {c.line})' for i, c in enumerate(claims, 1)]
    else:
        out.append(ABSENT)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# Tier 3: structured extraction
# --------------------------------------------------------------------------------------


def _excerpt_body_lines(an: _Analysis, start: int, end: int, placeholders: bool) -> list[str]:
    """Verbatim lines start..end; tables / code become one placeholder line if asked."""
    out: list[str] = []
    blocks_at = {}
    for el in an.elements:
        if el.kind == "collapsed" and start <= el.start <= end:  # expand macros: noted, not copied
            blocks_at[el.start] = el
        elif placeholders and el.kind in ("table", "code") and start <= el.start <= end:
            blocks_at.setdefault(el.start, el)
    ln = start
    while ln <= end:
        el = blocks_at.get(ln)
        if el is not None:
            if el.kind == "collapsed":
                out.append(f'[collapsed: "{el.detail}", deprioritised] ({_lines_label(el.start, el.end)})')
            elif el.kind == "table":
                out.append(f"[table: {el.detail}] ({_lines_label(el.start, el.start)})")
            else:
                lang = f": {el.detail}" if el.detail else ""
                out.append(f"[code block{lang}] ({_lines_label(el.start, el.end)})")
            ln = max(el.end, ln) + 1
            continue
        out.append(an.lines[ln - 1])
        ln += 1
    out = _collapse_blank_lines(out)
    while out and (_HR_LINE_RE.match(out[-1]) or not out[-1].strip()):
        out.pop()  # thematic breaks closing a section carry no content
    while out and (_HR_LINE_RE.match(out[0]) or not out[0].strip()):
        out.pop(0)
    return out


def _build_excerpt(
    an: _Analysis, spans: list[tuple[str, int, int]], budget: int, placeholders: bool
) -> str:
    """Concatenate verbatim spans (marker line + body) within a word budget."""
    parts: list[str] = []
    remaining = budget
    for marker, start, end in spans:
        if remaining < 25 and parts:
            break
        body_lines = _excerpt_body_lines(an, start, end, placeholders)
        if not body_lines:
            continue
        body = "\n".join(body_lines)
        remaining -= count_words(marker)
        body, cut = _truncate_words(body, max(remaining, 1))
        parts.append(f"{marker}\n{body}")
        remaining -= count_words(body)
        if cut:
            break
    return "\n\n".join(parts) if parts else ABSENT


def _heading_spans_for(an: _Analysis, label: str, exclude_start: int | None) -> list[tuple[str, int, int]]:
    spans: list[tuple[str, int, int]] = []
    covered_until = 0
    for i, h in enumerate(an.headings):
        if label not in an.heading_categories[i]:
            continue
        if h.start <= covered_until:
            continue  # nested inside a span already taken
        if exclude_start is not None and h.start == exclude_start:
            continue
        body_start = h.end + 1
        body_end = an.heading_span_end[i]
        if body_end < body_start:
            continue
        if not any(an.lines[j - 1].strip() for j in range(body_start, body_end + 1)):
            continue
        marker = f"[Section: {h.text}, {_lines_label(h.start, body_end)}]"
        spans.append((marker, body_start, body_end))
        covered_until = body_end
    return spans


def _scan_spans_for(an: _Analysis, label: str, budget: int) -> list[tuple[str, int, int]]:
    """Best-scoring content-signal chunks that fit the budget, in document order."""
    picked: list[_Chunk] = []
    used = 0
    by_start = {b.start: b for b in an.scan_chunks}
    for ch in an.scan[label]:
        if used >= budget:
            break
        words = by_start[ch.start].words if ch.start in by_start else 0
        picked.append(ch)
        used += words
    ranges = _merge_ranges(picked, an)
    return [(f"[Content signals, {_lines_label(a, b)}]", a, b) for a, b in ranges]


_COMPARISON_RE = re.compile(
    r"\b(?:more|less|fewer|higher|lower|larger|smaller|better|worse|faster|slower|rose|fell|grew|dropped|declined|"
    r"increased|decreased|improved|worsened|gained|lost|shortened|lengthened|cut|raised|reduced|than|vs\.?|versus|"
    r"compared|every|each|all|none|no change|unchanged|stable|steady|flat|same|outperform\w*|beat|beats|exceed\w*)\b",
    re.IGNORECASE,
)


def _is_evidence(sentence: str) -> bool:
    """A sentence the reviewers need verbatim: it has a number or a comparison word."""
    return bool(_numbers(sentence)) or bool(_COMPARISON_RE.search(sentence))


def _numeric_table(an: _Analysis, el: _Element) -> bool:
    body = "\n".join(an.lines[el.start : el.end])  # rows after the header
    return len(_numbers(body)) >= 2


def _table_rows(an: _Analysis, el: _Element) -> tuple[list[str], list[str]]:
    """(header lines: header and separator, body rows) of a table, verbatim."""
    lines = [an.lines[i - 1] for i in range(el.start, el.end + 1) if an.lines[i - 1].strip()]
    head = lines[:2] if len(lines) > 1 and re.fullmatch(r"[\s|:\-]+", lines[1]) else lines[:1]
    return head, lines[len(head):]


def _row_label(row: str) -> str:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    return cells[0] if cells else ""


def _table_excerpt(an: _Analysis, el: _Element, prose: str) -> tuple[list[str], int]:
    """A numeric table as the reviewers need it: verbatim, or, when long, its header and the rows
    the prose names (a note says how many rows were left out). Returns (lines, rows left out)."""
    head, rows = _table_rows(an, el)
    if len(rows) <= TABLE_MAX_ROWS:
        return head + rows, 0
    low = prose.lower()
    named = [r for r in rows if (label := _row_label(r).lower()) and len(label) >= 3 and label in low]
    kept = named[:TABLE_MAX_ROWS] or rows[:TABLE_MAX_ROWS]
    left = len(rows) - len(kept)
    return head + kept + [f"[table rows left out: {left} of {len(rows)}] ({_lines_label(el.start, el.end)})"], left


def _span_evidence(an: _Analysis, heading: str, start: int, end: int, prose: str) -> tuple[list[str], list[str], int]:
    """The span's evidence: numeric tables (see _table_excerpt) and the sentences with a number or
    a comparison, each paragraph under its own marker so its lines can be traced. Returns
    (condensed lines, full verbatim lines with numeric tables kept, sentences left out)."""
    condensed: list[str] = []
    full: list[str] = []
    dropped = 0
    tables = {el.start: el for el in an.elements if el.kind == "table" and start <= el.start <= end}
    collapsed = [el for el in an.elements if el.kind == "collapsed" and start <= el.start <= end]
    subheadings = [h for h in an.headings if start <= h.start <= end]
    items = sorted([(b.start, b) for b in an.blocks if start <= b.start <= end] +
                   [(h.start, h) for h in subheadings], key=lambda x: x[0])
    for _, block in items:
        if isinstance(block, _Heading):  # a subheading: kept in the verbatim copy
            full += an.lines[block.start - 1 : block.end] + [""]
            continue
        if any(c.start <= block.start <= c.end for c in collapsed):
            continue  # an expand macro: noted in the structure, not copied
        if block.kind == "table" and block.start in tables:
            el = tables[block.start]
            if _numeric_table(an, el):
                lines, _ = _table_excerpt(an, el, prose)
            else:
                lines = [f"[table: {el.detail}] ({_lines_label(el.start, el.start)})"]
            condensed += lines + [""]
            full += lines + [""]
            continue
        if block.kind == "code":
            lang = block.text.split("\n", 1)[0].strip("`~ ")
            line = f"[code block{': ' + lang if lang else ''}] ({_lines_label(block.start, block.end)})"
            condensed += [line, ""]
            full += [line, ""]
            continue
        body = an.lines[block.start - 1 : block.end]
        full += body + [""]
        kept: list[str] = []
        for _, sentence in split_sentences("\n".join(body)):  # slices of the lines: verbatim, breaks kept
            if _is_evidence(sentence):
                kept.append(sentence.strip())
            else:
                dropped += 1
        if kept:
            where = _lines_label(block.start, block.end)
            condensed += [f"[Section: {heading}, {where}]" if heading else f"[Content signals, {where}]"] + kept + [""]
    return _collapse_blank_lines(condensed), _collapse_blank_lines(full), dropped


def _evidence_excerpt(an: _Analysis, spans: list[tuple[str, int, int]], budget: int, prose: str,
                      left_out: list[str]) -> str:
    """Results or conclusions within the budget, evidence first: each span verbatim when it
    fits, else its evidence (numeric tables, sentences with numbers or comparisons); what could
    not be kept is added to `left_out`."""
    parts: list[str] = []
    remaining = budget
    for marker, start, end in spans:
        heading = marker[len("[Section: "):].rsplit(",", 1)[0] if marker.startswith("[Section: ") else None
        condensed, full, dropped = _span_evidence(an, heading, start, end, prose)
        heading = heading or "Content signals"
        full_text, condensed_text = "\n".join(full), "\n".join(condensed)
        if full and count_words(full_text) + count_words(marker) <= remaining:
            parts.append(f"{marker}\n{full_text}")
            remaining -= count_words(full_text) + count_words(marker)
            continue
        if not condensed:
            left_out.append(f"{heading} ({_lines_label(start, end)}): no sentence with a number or a comparison")
            continue
        if count_words(condensed_text) > remaining:
            kept, used = [], 0
            for line in condensed:
                if used + count_words(line) > remaining:
                    break
                kept.append(line)
                used += count_words(line)
            left_out.append(f"{heading} ({_lines_label(start, end)}): cut at the word budget; the rest of its "
                            "evidence is not shown")
            while kept and (not kept[-1].strip() or kept[-1].startswith("[Section: ")):
                kept.pop()  # no marker without the lines it introduces
            if kept:
                parts.append("\n".join(_collapse_blank_lines(kept)))
            remaining = 0
            break
        parts.append(condensed_text)
        remaining -= count_words(condensed_text)
        if dropped:
            left_out.append(f"{heading} ({_lines_label(start, end)}): {dropped} sentence(s) without a number or a "
                            "comparison")
    return "\n\n".join(parts) if parts else ABSENT


def _claim_sections(an: _Analysis, tldr: TldrDetection) -> list[tuple[str, int, int]]:
    """The sections a summary's claims rest on: those that repeat one of its figures."""
    if not tldr.found:
        return []
    # the summary's result figures: decimals and percentages (money and counts name the setup)
    figures = {x.strip().rstrip(",.").lstrip("+−-") for x in _numbers(tldr.text)}
    figures = {f for f in figures if re.search(r"\d\.\d|%", f) and not re.search(r"[$€£]", f)}
    out = []
    for i, h in enumerate(an.headings):
        if i == an.title_heading_index or (
                tldr.start_line is not None and h.start <= tldr.start_line <= an.heading_span_end[i]):
            continue  # the title spans the whole document; the summary is quoted already
        body_start, body_end = h.end + 1, an.heading_span_end[i]
        body = "\n".join(an.lines[body_start - 1 : body_end])
        found = {x.strip().rstrip(",.").lstrip("+−-") for x in _numbers(body)}
        if figures & found and not ({LABEL_RECOMMENDATIONS, LABEL_LIMITATIONS} & an.heading_categories[i]):
            out.append((f"[Section: {h.text}, {_lines_label(h.start, body_end)}]", body_start, body_end))
    # a section and one of its subsections: keep the subsection (the narrower claim)
    return [s for s in out if not any(o is not s and s[1] <= o[1] and o[2] <= s[2] for o in out)]


def _excerpt(an: _Analysis, label: str, tldr: TldrDetection, left_out: list[str] | None = None) -> str:
    budget = EXCERPT_MAX_WORDS[label]
    left_out = [] if left_out is None else left_out
    spans: list[tuple[str, int, int]] = []
    if label == LABEL_RESULTS and tldr.method == "named_section":
        # a "Key findings" TL;DR is also a results heading: prefer the real results sections
        spans = _heading_spans_for(an, label, tldr.start_line)
    if not spans:
        spans = _heading_spans_for(an, label, None)
    if label in (LABEL_RESULTS, LABEL_RECOMMENDATIONS):
        if label == LABEL_RESULTS:  # then the sections the summary's figures come from
            spans += [s for s in _claim_sections(an, tldr) if not any(a <= s[1] <= b for _, a, b in spans)]
        if not spans:
            spans = _scan_spans_for(an, label, budget)
        prose = "\n".join(p.content for p in an.paragraphs)
        return _evidence_excerpt(an, spans, budget, prose, left_out)
    if spans:
        text = _build_excerpt(an, spans, budget, False)
        if text != ABSENT:
            return text
    return _build_excerpt(an, _scan_spans_for(an, label, budget), budget, False)


_SPACE_RE = re.compile(r"\bSpace:\s*(?P<v>[^·\n]+)", re.IGNORECASE)
_LABELS_RE = re.compile(r"\bLabels:\s*(?P<v>[^·\n]+)", re.IGNORECASE)
_STATUS_RE = re.compile(r"\[status:\s*(?P<m>[^\]]+)\]|^[\s*_]*Status[*_]*:\s*(?P<v>[^·\n]+)|·\s*Status:\s*(?P<w>[^·\n]+)",
                        re.IGNORECASE | re.MULTILINE)
_AUDIENCE_RE = re.compile(r"\b(?:prepared for|intended for|written for|audience|for readers|readers?)\s*:\s*(?P<v>[^·\n]+)",
                          re.IGNORECASE)
_AUDIENCE_LABEL_RE = re.compile(r"exec|leadership|stakeholder|tech|engineer|data[- ]?scien|analyst|ops|product|finance",
                                re.IGNORECASE)


def document_signals(an: _Analysis) -> dict[str, str]:
    """What a page says about itself (seed 000 s4.4 and s5.3): space, status, labels and audience
    signals, from the page's metadata line, a status macro or a byline in the top lines."""
    head = "\n".join(an.lines[: max(_window(an.n_lines, FRAMING_WINDOW), 12)])
    out: dict[str, str] = {}
    if m := _SPACE_RE.search(head):
        out["Space"] = m.group("v").strip()
    if m := _STATUS_RE.search(an.text):
        out["Status"] = (m.group("m") or m.group("v") or m.group("w")).strip()
    labels = [x.strip() for x in m.group("v").split(",")] if (m := _LABELS_RE.search(head)) else []
    if labels:
        out["Labels"] = ", ".join(labels)
    audience = [f"{m.group(0).split(':')[0].strip()}: {m.group('v').strip()} (document framing)"
                for m in _AUDIENCE_RE.finditer(head)]
    audience += [f"label '{x}'" for x in labels if _AUDIENCE_LABEL_RE.search(x)]
    out["Audience"] = "; ".join(audience)
    return out


def _left_out_lines(an: _Analysis, fields: dict[str, str], notes: list[str], tldr: TldrDetection) -> list[str]:
    """Sections no excerpt quotes, tables shown only as placeholders, and what the excerpts cut."""
    covered: list[tuple[int, int]] = []
    if tldr.found and tldr.start_line is not None:
        covered.append((tldr.start_line, tldr.end_line or tldr.start_line))
    for label in (LABEL_TLDR, LABEL_METHODOLOGY, LABEL_DATA, LABEL_RESULTS, LABEL_RECOMMENDATIONS, LABEL_LIMITATIONS):
        for m in re.finditer(r"\[(?:Section: .*?, |Content signals, )lines? (\d+)(?:-(\d+))?\]", fields.get(label, "")):
            covered.append((int(m.group(1)), int(m.group(2) or m.group(1))))
    out = []
    for i, h in enumerate(an.headings):
        if i == an.title_heading_index:
            continue
        start, end = h.start, an.heading_span_end[i]
        # a span ends before the next heading of the same or higher rank: only the next heading can open it
        nested = [j for j in range(i + 1, min(i + 2, len(an.headings))) if an.headings[j].level > h.level and an.headings[j].start <= end]
        own_end = an.headings[nested[0]].start - 1 if nested else end
        words = count_words("\n".join(an.lines[h.end : own_end]))
        if words < 20 or any(a <= s and e <= b or s <= a <= e for a, b in covered for s, e in [(h.start, own_end)]):
            continue
        out.append(f"- Section '{h.text}' ({_lines_label(start, own_end)}, {words} words)")
    out += [f"- {n}" for n in notes]
    if len(out) > LEFT_OUT_MAX_LINES:
        out = out[: LEFT_OUT_MAX_LINES - 1] + [f"- ... and {len(out) - LEFT_OUT_MAX_LINES + 1} more"]
    return out or ["(nothing: every section is quoted)"]


def _extraction_fields(prepared: PreparedDocument) -> tuple[list[str], dict[str, str]]:
    an = _analyze(prepared.text)
    signals = document_signals(an)
    header = [
        EXTRACTION_HEADER,
        f"Source: {prepared.source}",
        f"Space: {signals.get('Space', 'not stated')}",
        f"Word count: {prepared.word_count} (~{prepared.reading_minutes:g} min read) -> Tier {prepared.tier}",
        f"Status: {signals.get('Status', 'not stated')}",
        f"Labels: {signals.get('Labels', 'none')}",
        f"Structure: {STRUCTURE_INFERRED if prepared.structure_inferred else STRUCTURE_EXPLICIT}",
    ]
    tldr = prepared.tldr
    tldr_text = tldr.text.strip() if tldr.found and tldr.text.strip() else ABSENT
    tldr_block = f"{tldr_text}\nLocation: {tldr_location(tldr, an.sections)}"

    structure = _structure_lines(an, prepared, STRUCTURE_MAX_LINES_EXTRACTION)
    if prepared.structure_inferred:
        structure = (structure + [""] if an.headings else []) + _inferred_lines(an)

    claims = an.claims
    if claims:
        claim_lines = []
        for i, c in enumerate(claims, 1):
            sec = an.section_for_line(c.line)
            where = sec.heading if sec is not None else PREAMBLE_HEADING
            claim_lines.append(f'{i}. "{c.text}" (Section: {where}, line {c.line})')
        claims_text = "\n".join(claim_lines)
    else:
        claims_text = ABSENT

    notes: list[str] = []
    fields = {
        LABEL_TLDR: tldr_block,
        LABEL_STRUCTURE: "\n".join(structure) or ABSENT,
        LABEL_CLAIMS: claims_text,
        LABEL_METHODOLOGY: _excerpt(an, LABEL_METHODOLOGY, tldr),
        LABEL_DATA: _excerpt(an, LABEL_DATA, tldr),
        LABEL_RESULTS: _excerpt(an, LABEL_RESULTS, tldr, notes),
        LABEL_RECOMMENDATIONS: _excerpt(an, LABEL_RECOMMENDATIONS, tldr, notes),
        LABEL_LIMITATIONS: _excerpt(an, LABEL_LIMITATIONS, tldr),
        LABEL_AUDIENCE: (signals.get("Audience") or "none in the document") + " (informational only: the review's "
                        f"audience is '{prepared.audience}')",
        LABEL_WORKFLOW: prepared.workflow + (" (default)" if prepared.workflow == "general" else ""),
    }
    fields[LABEL_LEFT_OUT] = "\n".join(_left_out_lines(an, fields, notes, tldr))
    return header, fields


def render_extraction(prepared: PreparedDocument) -> str:
    """Tier 3 structured extraction: verbatim excerpts under fixed labels (seed 000 s4.4)."""
    header, fields = _extraction_fields(prepared)
    out = list(header)
    for label in EXTRACTION_LABELS:
        out += ["", f"{label}:", fields[label]]
    return "\n".join(out) + "\n"


_CLAIM_TEXT_RE = re.compile(r'^\s*\d+\.\s+"(?P<text>.*)"\s+\((?:Section: .*?, )?line \d+\)\s*$')
_MARKER_HEADING_RE = re.compile(r"^\[Section: (?P<h>.+?), lines? \d+(?:-\d+)?\]$")


def domain_content(prepared: PreparedDocument) -> str:
    """What the domain reviewer receives: at tier 3, the document's own words the extraction
    keeps, without the extraction's frame (it judges content, and quotes only the document)."""
    if prepared.tier == 3 and prepared.extraction is not None:
        return extraction_document_text(prepared.extraction)
    return prepared.text


def extraction_document_text(extraction: str) -> str:
    """The document's own words in a tier-3 extraction, without its frame: no header fields,
    labels, location markers, placeholders or notes about the document, each key claim once
    (claims repeat excerpt sentences). Section markers become the section's heading. A reviewer
    that quotes from this quotes only the document."""
    fields = parse_extraction(extraction)
    body: list[str] = []
    for label in EXTRACTION_LABELS:
        if label in META_LABELS or label == LABEL_CLAIMS:
            continue
        content = fields.get(label, ABSENT)
        if content.strip() == ABSENT:
            continue
        heading = None
        named = re.search(r"named section '(?P<h>[^']+)'", fields.get(TLDR_LOCATION_KEY, ""))
        if label == LABEL_TLDR and named:
            heading = named.group("h")
            body += ["", f"## {heading}", ""]
        for line in content.split("\n"):
            marker = _MARKER_HEADING_RE.match(line.strip())
            if marker:
                if marker.group("h") != heading:
                    heading = marker.group("h")
                    body += ["", f"## {heading}", ""]
                continue
            if EXCERPT_MARKER_RE.match(line.strip()):
                continue
            body.append(line.removesuffix(" [...]"))
    text = "\n".join(body)
    seen = normalize_space_text(text)
    claims = []
    for line in fields.get(LABEL_CLAIMS, "").split("\n"):
        m = _CLAIM_TEXT_RE.match(line)
        if m and normalize_space_text(m.group("text")) not in seen:
            claims.append(m.group("text"))
    out = _collapse_blank_lines(body + ([""] + claims if claims else []))
    return "\n".join(out) + "\n"


def normalize_space_text(text: str) -> str:
    return " ".join(text.split())


def parse_extraction(text: str) -> dict[str, str]:
    """Read an extraction back: label (without colon) -> content.

    Also returns the header fields ("Source", "Word count", "Structure") and the TL;DR
    location under ``TLDR_LOCATION_KEY`` (the "Location:" line is removed from the TL;DR
    content). Labels missing from ``text`` are absent from the result.
    """
    result: dict[str, str] = {}
    label_lines = {f"{label}:": label for label in EXTRACTION_LABELS}
    order = {label: i for i, label in enumerate(EXTRACTION_LABELS)}
    current: str | None = None
    buf: list[str] = []
    last_index = -1

    def flush() -> None:
        if current is None:
            return
        while buf and not buf[-1].strip():
            buf.pop()
        while buf and not buf[0].strip():
            buf.pop(0)
        if current == LABEL_TLDR and buf and buf[-1].startswith("Location:"):
            result[TLDR_LOCATION_KEY] = buf.pop()[len("Location:") :].strip()
            while buf and not buf[-1].strip():
                buf.pop()
        result[current] = "\n".join(buf)

    for line in text.splitlines():
        label = label_lines.get(line.rstrip())
        if label is not None and order[label] > last_index:
            flush()
            current, buf, last_index = label, [], order[label]
            continue
        if current is None:
            m = re.match(r"^([A-Za-z][A-Za-z ]*):\s(.*)$", line)
            if m:
                result[m.group(1)] = m.group(2).strip()
            continue
        buf.append(line)
    flush()
    return result


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# What the document holds: the parts of an analysis, no analysis at all (invisible characters: core.text)
# --------------------------------------------------------------------------------------

_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_IMAGE_MARKUP_RE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|<img\b[^>]*>", re.I)
_TAG_RE = re.compile(r"</?[A-Za-z][^>\n]*>")
_FENCE_RE = re.compile(r"^(`{3,}|~{3,}).*?^\1[^\S\n]*$", re.S | re.M)
_LINK_TARGET_RE = re.compile(r"\]\([^)\n]*\)")
_FRONT_MATTER_RE = re.compile(r"\A---\n.*?\n---[^\S\n]*\n", re.S)
# below NO_TEXT_WORDS words, or NOTE_WORDS words with no result in them, a document is a note, not an analysis
NO_TEXT_WORDS = 20
NOTE_WORDS = 60


def readable_text(text: str) -> str:
    """What a reader reads: without HTML comments, images, tags, code blocks, link targets and
    front matter."""
    t = _FRONT_MATTER_RE.sub("", normalize_text(text))
    for pattern in (_COMMENT_RE, _FENCE_RE, _IMAGE_MARKUP_RE, _TAG_RE):
        t = pattern.sub(" ", t)
    return _LINK_TARGET_RE.sub("]", t)


_QUESTION_RE = re.compile(r"\?\s*$|\b(?:question|goal|objective|purpose|we (?:want|wanted|set out|need) to (?:know|learn|"
                          r"understand|decide|test|measure)|(?:aims?|seeks?) to)\b", re.I | re.M)


_PART_LABELS = {"method": (LABEL_METHODOLOGY, LABEL_DATA), "results": (LABEL_RESULTS,), "conclusion": (LABEL_RECOMMENDATIONS,)}


def _written(an: _Analysis, labels: tuple[str, ...]) -> bool | None:
    """Whether the sections headed as one of `labels` hold text beyond placeholders (None: no such
    heading). 'Recommendation: TBD.' is a heading with nothing written under it yet."""
    found = None
    for i, cats in enumerate(an.heading_categories):
        if not cats & set(labels):
            continue
        h = an.headings[i]
        nxt = next((g.start for g in an.headings[i + 1:] if g.level <= h.level), an.n_lines + 1)
        body = _UNFINISHED_RE.sub(" ", readable_text("\n".join(an.lines[h.end:nxt - 1])))
        found = bool(found) or count_words(body) >= 4
    return found


def analysis_parts(text: str) -> dict[str, bool]:
    """Which parts of an analysis the document has: the question it answers, a summary up front,
    a method, results, a conclusion or recommendation (a part whose only section holds nothing but
    placeholders is missing)."""
    an = _analyze(text)
    present = _signals_present(an)
    for part, labels in _PART_LABELS.items():
        if _written(an, labels) is False and not present.get(f"{part}_outside", False):
            present[part] = False
    readable = readable_text(text)
    head = readable[: max(400, len(readable) * 2 // 5)]
    return {"question": bool(_QUESTION_RE.search(head)), "summary": detect_tldr(text, list(an.sections)).found, **present}


def no_analysis_reason(text: str, parts: dict[str, bool] | None = None) -> str | None:
    """Why the document holds no analysis to review, as a predicate ('has no readable text, only
    images'; None when it does): no readable text (only comments, images or code), fewer than 20
    words, or a few lines with no result in them."""
    words = count_words(readable_text(text))
    if words == 0:
        what = []
        if _COMMENT_RE.search(text):
            what.append("HTML comments")
        if _IMAGE_MARKUP_RE.search(text):
            what.append("images")
        if _FENCE_RE.search(text):
            what.append("code")
        return f"has no readable text, only {' and '.join(what) or 'markup'}"
    parts = parts if parts is not None else analysis_parts(text)
    if words < NO_TEXT_WORDS or (words < NOTE_WORDS and not parts["results"]):
        missing = [k for k in ("method", "results", "conclusion") if not parts[k]]
        listed = ", ".join(missing[:-1]) + (" or " if len(missing) > 1 else "") + missing[-1] if missing else ""
        return (f"is {words} words of text" + (f" with no {listed}" if missing else "")
                + " (a note, not an analysis)")
    return None


def prepare_document(text: str, *, source: str, mode: str = "full", audience: str = "mixed",
                     workflow: str = "general") -> PreparedDocument:
    """Run every preparation step on a markdown document (invisible characters removed first).

    Raises ``DocumentError`` (a ``ValueError``) for empty or whitespace-only text and
    ``ValueError`` for an unknown mode.
    """
    if mode not in ("full", "quick"):
        raise ValueError(f"unknown mode {mode!r}: expected 'full' or 'quick'")
    text, invisible = visible_text(text or "")
    if text is None or not text.strip():
        raise DocumentError(f"{source or 'document'} is empty: there is no text to review")
    an = _analyze(text)
    words = count_words(an.text)
    tier = select_tier(words, mode)
    sections = list(an.sections)
    prepared = PreparedDocument(
        title=_title(an, source),
        source=source,
        text=text,
        word_count=words,
        reading_minutes=reading_minutes(words),
        token_estimate=token_estimate(words),
        tier=tier,
        sections=sections,
        tldr=detect_tldr(text, sections),
        structure_inferred=infer_structure_needed(text, sections),
        partial_input=detect_partial_input(text, sections, words),
        status=document_signals(an).get("Status"),
        audience=audience,
        workflow=workflow,
        invisible_characters=invisible,
    )
    prepared.parts = analysis_parts(text)
    prepared.no_analysis = no_analysis_reason(text, prepared.parts)
    if tier == 2:
        prepared.section_map = render_section_map(prepared)
    elif tier == 3:
        prepared.extraction = render_extraction(prepared)
    return prepared


# --------------------------------------------------------------------------------------
# Input sanity signals: reviewed anyway, but the user is told what may go wrong
# --------------------------------------------------------------------------------------

_HTML_TAG = re.compile(r"<(html|head|body|div|p|h[1-6]|table|span|ul|li|br)\b[^>]*>", re.IGNORECASE)
_ENGLISH_FUNCTION_WORDS = frozenset(
    "the of and to in is that for it was on with as are be by this we at from or an have not "
    "which were but has our they their than more".split()
)


def looks_like_html(text: str) -> bool:
    """An HTML export rather than markdown: many tags and no markdown headings."""
    head = text[:20000]
    return len(_HTML_TAG.findall(head)) >= 5 and not re.search(r"^#{1,6}\s", head, re.MULTILINE)


def english_share(text: str, sample_words: int = 5000) -> float:
    """Share of common English function words among the first words: ~0.3-0.5 for English
    prose, near 0 for other languages."""
    words = re.findall(r"[^\W\d_]+", text[: sample_words * 12].lower())[:sample_words]
    if not words:
        return 0.0
    return sum(1 for w in words if w in _ENGLISH_FUNCTION_WORDS) / len(words)
