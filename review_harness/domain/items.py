"""The knowledge a brief carries, item by item: each bullet of a brief section (or of a user's
reference) read as a claim with where it comes from, what it names, what it prescribes and the
conditions that trigger it. The offline domain reviewer (rules.py) checks a document against
these items, so a domain written only as data (an index entry and a digest) is reviewed from its
own digest.

A bullet may state its conditions explicitly, for knowledge no built-in reading covers:

    - Novelty effect: a new feature's early lift fades ... (applies when: redesign, new feature;
      addressed by: novelty, second week; issue: anti_pattern_present)

`applies when` terms must be named by what the document does, `addressed by` terms mark the
document as handling it, `issue` is an issue type of the domain rubric (optional).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel

HEADING_RE = re.compile(r"^### (?P<key>.+?) \[tier: (?P<tier>\w+)\] \[authority: (?P<authority>\w+)\]\s*$")
SOURCE_RE = re.compile(r"\s*\(source: [^)]*\)\s*$")
DATE_RE = re.compile(r"^\[(?P<date>\d{4}-\d{2}-\d{2})\]\s*")
CONDITIONS_RE = re.compile(r"\s*\((?P<body>(?:applies when|addressed by|issue)\s*:[^)]*)\)\s*$", re.IGNORECASE)
TOPIC_RE = re.compile(r"^(?P<topic>[^:;.]{3,70}):\s+")
REMEDY_RE = re.compile(
    r"\b(?:needs?|requires?|use|uses|using|should use|standard (?:correction|way|approach) (?:is|to \w+ \w+ is)|"
    r"pair it with|switch(?:es|ing)? to|replaces? it with|measure with|fix with|correct(?:ed)? (?:with|by))\s+"
    r"(?P<remedy>[^;.]{3,160})", re.IGNORECASE)
PITFALL_TITLES = re.compile(r"pitfall|gotcha|anti.?pattern|post.?mortem|incident|risk", re.IGNORECASE)
LEARNING_TITLES = re.compile(r"learning|post.?mortem|experiment|retro", re.IGNORECASE)


class BriefSection(BaseModel):
    """One section of a brief: its key (the heading text), tier, authority and bullets."""

    key: str
    tier: str
    authority: str
    bullets: list[str] = []


def brief_sections(content: str) -> list[BriefSection]:
    """The sections of a brief's content (as get_domain_context renders them)."""
    out: list[BriefSection] = []
    for line in content.splitlines():
        match = HEADING_RE.match(line)
        if match:
            out.append(BriefSection(key=match.group("key"), tier=match.group("tier"), authority=match.group("authority")))
        elif line.startswith("- ") and out:
            out[-1].bullets.append(line[2:])
        elif line.startswith("  ") and out and out[-1].bullets:
            out[-1].bullets[-1] += " " + line.strip()
        elif line.startswith("### "):  # conflicts (workstream takes precedence)
            out.append(BriefSection(key=line[4:].strip(), tier="workstream", authority="authoritative"))
    return out


@dataclass
class Item:
    """One piece of knowledge: a bullet of the brief (or of the user's reference)."""

    key: str  # the brief section it sits in ("search-ranking / Foundational Knowledge / Known Pitfalls")
    tier: str
    authority: str
    text: str  # the claim, without its date, source and explicit conditions
    date: str | None = None
    origin: str = "digest"  # digest | reference
    applies_when: list[str] = field(default_factory=list)
    addressed_by: list[str] = field(default_factory=list)
    issue: str | None = None

    @property
    def subsection(self) -> str:
        return self.key.rsplit(" / ", 1)[-1]

    @property
    def is_conflict(self) -> bool:
        return "conflicts" in self.key.lower()

    @property
    def is_pitfall(self) -> bool:
        return bool(PITFALL_TITLES.search(self.subsection))

    @property
    def is_workstream(self) -> bool:
        return self.tier == "workstream"

    @property
    def topic(self) -> str | None:
        """What the item is about, when it opens with one ("Position bias in click data: ...")."""
        match = TOPIC_RE.match(self.text)
        return match.group("topic").strip() if match else None

    @property
    def low(self) -> str:
        return re.sub(r"[-_]", " ", self.text.lower())

    @property
    def remedy(self) -> str | None:
        """What the item prescribes ("the doubly-robust estimator"), when it says so."""
        match = REMEDY_RE.search(self.text)
        return match.group("remedy").strip().rstrip(",") if match else None

    @property
    def precedence(self) -> tuple[int, int]:
        """Sort key of the knowledge that wins: authoritative before advisory; among authoritative,
        workstream before foundational (the team's current standard wins a conflict)."""
        return (self.authority != "authoritative", not self.is_workstream)

    def label(self) -> str:
        return f"{self.key}: {self.topic or self.text[:70]}"


def _terms(text: str) -> list[str]:
    return [t.strip().strip("\"'").lower() for t in re.split(r",|\bor\b", text) if t.strip()]


def parse_item(raw: str, section: BriefSection, origin: str = "digest") -> Item:
    text = raw.strip()
    date = None
    match = DATE_RE.match(text)
    if match:
        date, text = match.group("date"), text[match.end():]
    text = SOURCE_RE.sub("", text)
    item = Item(key=section.key, tier=section.tier, authority=section.authority, text=text, date=date, origin=origin)
    conditions = CONDITIONS_RE.search(text)
    if conditions:
        item.text = text[:conditions.start()].rstrip()
        for part in conditions.group("body").split(";"):
            name, _, value = part.partition(":")
            name = name.strip().lower()
            if name == "applies when":
                item.applies_when = _terms(value)
            elif name == "addressed by":
                item.addressed_by = _terms(value)
            elif name == "issue":
                item.issue = value.strip() or None
    return item


def items_of(content: str, origin: str = "digest") -> list[Item]:
    """Every bullet of a brief's content as an item."""
    return [parse_item(b, s, origin) for s in brief_sections(content) for b in s.bullets]


REFERENCE_KEY = "reference / User reference"


def reference_items(text: str) -> list[Item]:
    """A user's reference as items: its brief-style sections when it has them, else each bullet or
    sentence of it, authoritative, under one section. It supplements the brief; the reviewer never
    lets it override an item of the brief on the same subject."""
    if HEADING_RE.search(text):
        return [i for i in items_of(text, origin="reference")]
    from review_harness.core.markdown import sentences

    section = BriefSection(key=REFERENCE_KEY, tier="workstream", authority="authoritative")
    return [parse_item(u.text, section, origin="reference") for u in sentences(text)
            if u.kind in ("bullet", "para") and len(u.text.split()) >= 4]
