"""One reading of a document for the domain knowledge checks: its text units with the part of
the document each belongs to, read once and shared by the fit check (scope.py) and the offline
domain reviewer (rules.py and checks.py).

Parts: the title; the summary (a TL;DR, abstract or overview section, or the text before the first
heading); context (background, introduction, related work, discussion, references, appendix and
the like: what the work is set against, not what it did); and the body (method, data, results,
recommendations: every other section). "What the document does" is read from the title, the
summary and the body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from review_harness.core.mood import prospective
from review_harness.core.markdown import MdSection, Sentence, parse_sections, section_at, sentences
from review_harness.core.text import NEGATION

CONTEXT_HEADING = re.compile(
    r"\b(background|introduction|intro|motivation|context|related work|prior work|previous work|literature|"
    r"references?|bibliography|citations?|appendix|appendices|discussion|future work|acknowledg\w*|glossary|"
    r"further reading|reading|software|install\w*|reproducibility|reproduce|misc\w*|about the author|"
    r"table of contents|contents|faq)\b", re.IGNORECASE)
SUMMARY_HEADING = re.compile(r"\b(summary|tl;?\s?dr|abstract|overview|key findings|executive summary|highlights)\b",
                             re.IGNORECASE)
RESULT_HEADING = re.compile(r"\b(results?|findings?|outcomes?|evaluation|performance|what we (found|saw|learned)|"
                            r"impact|readout|comparison|how we compare|where we)\b", re.IGNORECASE)
PLAN_HEADING = re.compile(r"\b(plan|proposal|proposed|next steps?|roadmap|ask|design of the test|pre-?registration)\b",
                          re.IGNORECASE)
MEASURED = re.compile(r"\b(rose|fell|dropped|increased|decreased|improved|grew|declined|reached|measured|scored|lifted|"
                      r"raised|gained|won|beat|lost|went from|was|were)\b|\bfrom [-+]?\d[\d.,]*\s*%?\s+to\s+[-+]?\d",
                      re.IGNORECASE)
FRONT_TITLE = re.compile(r"\A---\s*\n(?:.*\n)*?title:\s*[\"']?(?P<title>[^\"'\n]+)[\"']?\s*\n(?:.*\n)*?---", re.MULTILINE)
NUMBER = re.compile(r"(?<![\w.@])[-+−]?\d[\d,]*(?:\.\d+)?\s*(?:%|pp|pts?|points|ms|s\b|x\b)?")
PLANNING = re.compile(r"\b(will|plan(?:s|ned)? to|would|intend|propose|proposes|proposed|next (?:quarter|month|sprint|week|"
                      r"step|steps|release)|going to|we should|proceed to|move (?:it )?(?:in)?to|sets? up|upcoming|"
                      r"we expect|to be run|is planned|are planned|recommend|recommends|suggest|suggests)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Unit:
    """One sentence (or table row) of the document and where it sits."""

    sentence: Sentence
    part: str  # title | summary | body | context
    heading: str  # the heading of its section ("" before the first heading)

    @property
    def text(self) -> str:
        return self.sentence.text

    @property
    def line(self) -> int:
        return self.sentence.line

    @property
    def kind(self) -> str:
        return self.sentence.kind

    @cached_property
    def low(self) -> str:
        return re.sub(r"[-_]", " ", self.sentence.plain.lower())

    @property
    def is_plan(self) -> bool:
        """A sentence about what will be done, not what was done."""
        return bool(PLANNING.search(self.text)) or bool(PLAN_HEADING.search(self.heading))

    @property
    def is_done(self) -> bool:
        """A sentence that reports what this work did: not a plan, a recommendation, a condition
        or an instruction, in its own words or by the section it sits in."""
        return not self.is_plan and not prospective(self.text, self.heading)

    @property
    def is_result(self) -> bool:
        """A unit that reports a measured number (a table row, or a sentence of the summary or body
        with a number), not a plan -- unless it says what was measured ("rose from 0.47 to 0.49, so
        we recommend ...")."""
        if not NUMBER.search(self.text):
            return False
        if PLANNING.search(self.text) and not MEASURED.search(self.text):
            return False
        return self.kind == "table" or bool(RESULT_HEADING.search(self.heading)) or self.part in ("summary", "body")


def _title(document: str, sections: list[MdSection]) -> tuple[str, int | None]:
    """The document's title and the line of its heading (None when it comes from front matter)."""
    front = FRONT_TITLE.match(document)
    if front:
        return front.group("title").strip(), None
    headed = [s for s in sections if s.level > 0]
    tops = [s for s in headed if s.level == 1]
    if len(tops) == 1 and headed[0] is tops[0]:  # one level-1 heading, first: the title
        return tops[0].heading, tops[0].start_line
    return "", None


def _part(section: MdSection | None, sections: list[MdSection], title_line: int | None) -> str:
    if section is None or section.level == 0:
        return "summary" if len(sections) > 1 else "body"  # a document with no heading has no summary part
    names = [p.strip() for p in section.path.split(">")]
    if title_line is not None and section.start_line != title_line and names:
        names = names[1:]  # the title heads every path: it is not the section's kind
    if section.start_line == title_line:
        return "summary"  # text right under the title, before any section: a lead paragraph
    if any(CONTEXT_HEADING.search(n) for n in names):
        return "context"
    if any(SUMMARY_HEADING.search(n) for n in names):
        return "summary"
    return "body"


class Reading:
    """The document as units with parts; built once per text (`read`)."""

    def __init__(self, document: str):
        self.document = document
        sections = parse_sections(document)
        self.title, title_line = _title(document, sections)
        units: list[Unit] = []
        first_block = next((s.block for s in sentences(document) if s.kind != "heading"), None)
        for sentence in sentences(document):
            section = section_at(sections, sentence.line)
            if sentence.kind == "heading":
                if sentence.line == title_line:
                    units.append(Unit(sentence, "title", ""))
                continue
            part = _part(section, sections, title_line)
            if part == "body" and len(sections) <= 1 and sentence.block == first_block:
                part = "summary"  # no headings: the first paragraph is the lead
            units.append(Unit(sentence, part, section.heading if section else ""))
        if self.title and title_line is None:  # a front-matter title reads as the title unit
            units.insert(0, Unit(Sentence(self.title, 1, 1, "heading", ((1, self.title),)), "title", ""))
        self.units = units

    @cached_property
    def core(self) -> list[Unit]:
        """What the document does: its title, summary and body (context left out)."""
        return [u for u in self.units if u.part != "context"]

    @cached_property
    def results(self) -> list[Unit]:
        return [u for u in self.core if u.is_result]

    @property
    def has_results(self) -> bool:
        """Whether the document reports measured results at all (a plan or proposal does not)."""
        return bool(self.results)


@lru_cache(maxsize=32)
def read(document: str) -> Reading:
    return Reading(document)


def negated(low: str, start: int) -> bool:
    """A negation shortly before `start` in a lower-cased unit ("no click data", "not randomised")."""
    return bool(NEGATION.search(low[max(0, start - 30):start]))
