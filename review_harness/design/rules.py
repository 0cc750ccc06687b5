"""The offline design reviewer: one deterministic rule engine per persona.

``review_as_persona(persona, stage, design, requirements)`` reads the two markdown documents
and returns what that persona would report: findings that quote the documents verbatim (or
carry no quote for something absent), what it checked and found sound, and what it cannot
see. Every check reads the input; nothing here is canned. Checks are pure functions of a
:class:`Ctx` and live in one registry, ``PERSONA_CHECKS``.

Wording rule for every generated string: direct, active voice, no hedge words, and no
number that does not come from the documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Callable, Iterable, Iterator, Sequence

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
from review_harness.design.models import STAGES, PersonaFinding, PersonaReport, Severity

I = re.IGNORECASE
MAX_FINDINGS = 8
PHASE_ORDER = {"survey": 0, "calibrate": 1, "design": 2, "plan": 3}
SEV_ORDER = {"Critical": 0, "Important": 1, "Minor": 2}


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, I)


# =============================================================================== vocabulary

STOPWORDS = frozenset(
    """a an the and or but nor of to in on at by for with from into onto over under about as is are was were be
    been being am do does did done doing have has had having it its it's this that these those there here
    their they them we our us you your i me my he she his her him not no yes so than then too very can
    cannot could would should shall must may might will just only also each every any all some such same
    other another more most less least few many much one two three four five six seven eight nine ten
    which who whom whose what when where why how while if else because since until unless though although
    via per e.g i.e etc vs both either neither own up down out off again further once s t don't doesn't
    isn't aren't won't can't didn't wasn't weren't let lets get gets got make makes made use uses used using
    need needs needed able via new way ways thing things like within without across after before between
    through during above below against among around upon whether yet still even ever already always never
    something anything nothing everything someone anyone everyone""".split()
)

# words that carry no subject in a requirement or design sentence
GENERIC = frozenset(
    """system systems service services support supports supported supporting provide provides provided
    allow allows allowed ensure ensures ensured require requires required requirement requirements
    feature features user users able capability capabilities design designs doc document documents
    component components solution solutions implement implementation implemented build built building
    add adds added include includes included including handle handles handled time times level levels
    set sets value values data number numbers based case cases part parts well good better best first
    second seconds minute minutes hour hours day days week weeks month months year years ms sec secs min
    mins percent section see note notes approach approaches change changes changed current currently
    nfr fr req p0 p1 p2 p3 must-have should-have nice-to-have mvp v1 v2 release version phase plan plans future""".split()
)

MODAL_MUST = rx(r"\b(must|shall|required to|is required|are required|mandatory|needs? to|has to|have to|p0|must[- ]have)\b")
MODAL_SHOULD = rx(r"\b(should|p1|should[- ]have|recommended|expected to)\b")
MODAL_COULD = rx(r"\b(nice[- ]to[- ]have|optional|p2|p3|could[- ]have|stretch|if time permits)\b")
MODAL_ANY = rx(r"\b(must|shall|should|needs? to|has to|have to|is required to|are required to|required to|must not|shall not)\b")

REQ_ID = re.compile(
    r"(?<![\w-])((?:REQ|FR|NFR|US|UC|AC|BR|SR|QR|CR|DR|SEC|PERF|OPS)[-_.]?\d+(?:\.\d+)*|R-?\d+(?:\.\d+)*)(?![\w-])"
)
REQ_RANGE = re.compile(
    r"(?<![\w-])((?:REQ|FR|NFR|US|UC|AC|BR|SR|QR|CR|DR|SEC|PERF|OPS)[-_.]?|R-?)(\d+)\s*(?:-|–|—|to|through|\.\.)\s*\1?(\d+)(?![\w-])"
)

SEC_NONGOAL = rx(r"\b(non[- ]?goals?|out[- ]of[- ]scope|anti[- ]?goals?|not in scope|won'?t (?:have|do)|exclusions?|excluded|explicitly not|what we (?:are|'re) not)\b")
SEC_GOAL = rx(r"\b(why|background|context|problem|motivation|overview|summary|goals?|objectives?|purpose|introduction|intro|tl;?dr|vision|mission)\b")
SEC_SUCCESS = rx(r"\b(success|metrics?|kpis?|measures?|acceptance criteria|definition of done|outcomes?)\b")
SEC_CONSTRAINT = rx(r"\b(constraints?|assumptions?|dependencies|facts|environment|glossary|references?|appendix|stakeholders|owners?|open questions|risks?)\b")
SEC_REQS = rx(r"\b(requirements?|functional|non[- ]functional|nfrs?|user stories|stories|must[- ]?have|should[- ]?have|could[- ]?have|nice[- ]to[- ]have|capabilities|features|scope|p0|p1|p2)\b")
SEC_FUTURE = rx(r"\b(future(?: work| iterations?| phases?)?|later|deferred|roadmap|next steps|out[- ]of[- ]scope|non[- ]?goals?|open questions|follow[- ]ups?|phase (?:2|two|ii))\b")
SEC_ALTERNATIVES = rx(r"\b(alternatives?|options?|considered|prior art|build (?:vs\.?|versus|or) buy|trade-?offs?|why not|comparison|related work|existing solutions|landscape)\b")
SEC_FAILURE = rx(
    r"\b(failures?|fail(?:ure)? modes?|errors?|error handling|retr(?:y|ies)|timeouts?|fallbacks?|resilien\w*|fault\w*|degrad\w*|"
    r"recovery|disaster|reliability|availability|idempoten\w*|backpressure|rate limit\w*|limits?|edge cases?|circuit|outages?|"
    r"incidents?|what (?:can|could) go wrong|risks?)\b"
)

PRIORITY_SECTION = (
    ("wont", rx(r"\b(won'?t[- ]have|will not have|out of scope|non[- ]?goals?)\b")),
    ("could", rx(r"\b(could[- ]have|nice[- ]to[- ]have|p2|p3|optional|stretch)\b")),
    ("should", rx(r"\b(should[- ]have|p1)\b")),
    ("must", rx(r"\b(must[- ]have|p0)\b")),
)
PRIORITY_CELL = (
    ("must", rx(r"^\s*(must|must[- ]have|p0|high|critical|mandatory|required)\s*$")),
    ("should", rx(r"^\s*(should|should[- ]have|p1|medium)\s*$")),
    ("could", rx(r"^\s*(could|could[- ]have|nice[- ]to[- ]have|p2|p3|low|optional)\s*$")),
    ("wont", rx(r"^\s*(won'?t|won'?t[- ]have|out of scope)\s*$")),
)

HEDGES = rx(r"\b(might|could|possibly|perhaps|maybe|may|potentially|arguably|somewhat|likely|seems|appears)\b")

NEGATION_NEAR = rx(r"\b(no|not|never|without|won'?t|will not|don'?t|do not|doesn'?t|does not|isn'?t|aren'?t|cannot|can'?t|nor|neither|avoid\w*|instead of|rather than|rejected|out of scope|deferred)\b")

# ---------------------------------------------------------------- stems and synonyms

_SYNONYMS = {
    "purge": "delet", "eras": "delet", "remov": "delet", "destroy": "delet", "wipe": "delet",
    "retain": "retent", "retention": "retent", "kept": "retent", "keep": "retent",
    "encrypt": "encrypt", "encryption": "encrypt", "encrypted": "encrypt",
    "authn": "authent", "authenticat": "authent", "login": "authent", "sign-in": "authent",
    "authz": "authoriz", "permission": "authoriz", "rbac": "authoriz",
    "latenc": "latenc", "fast": "latenc",
    "notif": "notif", "alert": "alert",
    "log": "log", "logg": "log",
    "export": "export", "exportabl": "export",
    "audit": "audit", "auditor": "audit",
    "approv": "approv", "approval": "approv",
    "region": "region", "regional": "region",
    "tenant": "tenant", "multi-tenant": "tenant",
    "spend": "cost", "expens": "cost", "cut": "reduc", "lower": "reduc", "decreas": "reduc", "shrink": "reduc", "minimiz": "reduc",
}

_SUFFIXES = ("ational", "ization", "isation", "ations", "ation", "ments", "ment", "ness", "ings", "ing", "able", "ible",
             "ities", "ity", "ies", "ied", "ers", "er", "ed", "es", "s", "ly", "al", "ive")


_SUFFIX_KEEP = {"ation": "at", "ations": "at", "ization": "iz", "isation": "iz", "ational": "at"}


@lru_cache(maxsize=20000)
def stem(word: str) -> str:
    w = word.lower().strip("'’-.")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or any(c.isdigit() for c in w):
        return _SYNONYMS.get(w, w)
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + _SUFFIX_KEEP.get(suf, "")
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "ls":
        w = w[:-1]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return _SYNONYMS.get(w, w)


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’_-]*[A-Za-z0-9]|[A-Za-z]")
_NUM = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?([kKmM])\b)?")


def words(text: str) -> list[str]:
    return _WORD.findall(plain(text))


def surface_words(text: str, stems: set[str]) -> list[str]:
    """The words of `text` whose stems are in `stems`, as written (a reader sees 'guarantee',
    not the stem 'guarant'), in order of appearance."""
    out: dict[str, str] = {}
    for w in words(text):
        for part in [w] + (w.split("-") if "-" in w else []):
            key = stem(part.lower())
            if key in stems and key not in out:
                out[key] = part.lower()
    return list(out.values())


def term_set(text: str, generic: bool = True) -> set[str]:
    """Stemmed content words of ``text`` (hyphenated words also give their parts)."""
    out: set[str] = set()
    for w in words(text):
        lw = w.lower()
        parts = [lw] + (lw.split("-") if "-" in lw else []) + (lw.split("_") if "_" in lw else [])
        for p in parts:
            if len(p) < 2 or p in STOPWORDS or (generic and p in GENERIC):
                continue
            if REQ_ID.fullmatch(p.upper()):
                continue
            out.add(stem(p))
    return out


_NOT_QUANTITY = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\bv\d+(?:\.\d+)*\b|(?<![\w-])(?:REQ|FR|NFR|US|UC|AC|BR|SR|QR|CR|DR|SEC|PERF|OPS|R)[-_.]?\d+(?:\.\d+)*\b"
    r"|\b(?:19|20)\d\d\b|\b[A-Za-z]+\d+[A-Za-z]*\b",
    re.I,
)


def numbers_in(text: str) -> set[str]:
    """Quantities as written, normalised (thousands separators dropped, k/M expanded).

    Dates, times of day, years, versions, ids and single-digit integers are left out: they
    say nothing about whether two documents share a figure.
    """
    out: set[str] = set()
    for m in _NUM.finditer(_NOT_QUANTITY.sub(" ", plain(text))):
        whole = m.group(1).replace(",", "")
        frac = m.group(2) or ""
        try:
            val = float(whole + frac)
        except ValueError:  # pragma: no cover - regex guarantees digits
            continue
        if m.group(3):
            val *= 1000 if m.group(3) in "kK" else 1_000_000
        if val < 10 and not frac and not m.group(3):
            continue
        out.add(f"{val:g}")
    return out


# =============================================================================== documents

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

    def units_under(self, sections: Iterable[MdSection], with_code: bool = False) -> list[Sentence]:
        spans = [(s.start_line, subtree_end(self.sections, s)) for s in sections]
        pool = self.units_with_code if with_code else self.units
        return [u for u in pool if any(a <= u.line <= b for a, b in spans)]

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

    def neighbours(self, unit: Sentence, radius: int = 1) -> list[Sentence]:
        """``unit`` and the units next to it inside the same section."""
        units = self.units
        try:
            i = units.index(unit)
        except ValueError:
            return [unit]
        sec = self.section_of(unit.line)
        out = []
        for j in range(max(0, i - radius), min(len(units), i + radius + 1)):
            if self.section_of(units[j].line) == sec:
                out.append(units[j])
        return out

    def find(self, pattern: re.Pattern[str], kinds: Sequence[str] | None = None,
             skip: re.Pattern[str] | None = None, with_code: bool = False) -> list[tuple[Sentence, re.Match[str]]]:
        out = []
        for u in (self.units_with_code if with_code else self.units):
            if kinds and u.kind not in kinds:
                continue
            if skip is not None and self.in_section_like(u, skip):
                continue
            m = pattern.search(u.plain)
            if m:
                out.append((u, m))
        return out

    def mentions(self, pattern: re.Pattern[str]) -> bool:
        return bool(pattern.search(self.lower))


@lru_cache(maxsize=8)
def _doc(name: str, text: str) -> Doc:
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


# =============================================================================== requirements

@dataclass
class Req:
    rid: str | None
    unit: Sentence
    text: str
    quote: str
    section: str
    priority: str  # must | should | could | wont
    kind: str  # req | nongoal | goal | success
    extra: list[Sentence] = field(default_factory=list)

    @cached_property
    def terms(self) -> set[str]:
        return term_set(self.text)

    @cached_property
    def numbers(self) -> set[str]:
        return {n for n in numbers_in(self.text) if not (self.rid and n == re.sub(r"\D", "", self.rid))}

    @property
    def label(self) -> str:
        return self.rid if self.rid else f"the requirement '{short(self.text, 60)}'"

    @property
    def line(self) -> int:
        return self.unit.line


_ID_DEF = (r"(?:REQ|FR|NFR|US|UC|AC|BR|SR|QR|CR|DR|SEC|PERF|OPS)[-_.]?\d+(?:\.\d+)*|R-?\d+(?:\.\d+)*"
           r"|[A-Z][A-Z0-9]{1,7}-\d{1,4}(?:\.\d+)*")
ID_DEF = re.compile(rf"(?:{_ID_DEF})")
_ID_PREFIX = re.compile(
    r"^\W*?(?:\*\*|__)?\s*(?P<id>" + _ID_DEF + r")"
    r"(?![\w-])(?P<tail>[^\w(]*)"
)


def _strip_id(raw: str) -> str:
    """``raw`` without a leading requirement id and its punctuation (still verbatim)."""
    m = _ID_PREFIX.match(raw)
    if not m:
        return raw.strip()
    rest = raw[m.end():]
    rest = re.sub(r"^(?:\*\*|__)\s*", "", rest)
    label = re.match(r"^([A-Z][\w /&-]{1,40}):\s*(?:\*\*|__)?\s*", rest)  # "Peak load:" style label
    if label and len(rest) - label.end() > 20:
        rest = rest[label.end():]
    return rest.strip() or raw.strip()


def _priority_from(text: str, section_path: str, cells: Sequence[str] = ()) -> str | None:
    for cell in cells:
        for name, pat in PRIORITY_CELL:
            if pat.match(cell):
                return name
    for name, pat in PRIORITY_SECTION:
        if pat.search(section_path):
            return name
    if MODAL_MUST.search(text):
        return "must"
    if MODAL_SHOULD.search(text):
        return "should"
    if MODAL_COULD.search(text):
        return "could"
    if re.search(r"\b(never|always|every|all)\b", text, I):
        return "must"
    return None


@dataclass
class ReqSet:
    reqs: list[Req]
    nongoals: list[Req]
    goals: list[Req]
    success: list[Req]
    ids_defined: list[str]
    duplicate_ids: list[tuple[str, Req, Req]]

    @property
    def all(self) -> list[Req]:
        return self.reqs + self.success

    @cached_property
    def df(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.reqs:
            for t in r.terms:
                counts[t] = counts.get(t, 0) + 1
        return counts

    def distinctive(self, r: Req) -> set[str]:
        n = max(1, len(self.reqs))
        limit = max(2, int(0.34 * n))
        d = {t for t in r.terms if self.df.get(t, 0) <= limit}
        return d if len(d) >= 2 else set(r.terms)


def extract_requirements(doc: Doc) -> ReqSet:
    """Requirements, non-goals, goals and success criteria of a requirements document."""
    units = doc.units
    reqs: list[Req] = []
    nongoals: list[Req] = []
    goals: list[Req] = []
    success: list[Req] = []
    by_id: dict[str, Req] = {}
    dups: list[tuple[str, Req, Req]] = []

    title = doc.title if sum(1 for s in doc.sections if s.level == 1) == 1 else ""

    def kind_of(path: str) -> str:
        if title and path.startswith(title):
            path = path[len(title):].lstrip(" >")
        if SEC_NONGOAL.search(path):
            return "nongoal"
        last = path.split(" > ")[-1] if path else ""
        if SEC_SUCCESS.search(last):
            return "success"
        if SEC_REQS.search(last) or (path and SEC_REQS.search(path) and not SEC_GOAL.search(last)):
            return "req"
        if SEC_CONSTRAINT.search(last):
            return "context"
        if SEC_GOAL.search(last):
            return "goal"
        return "other"

    # pass 1: units that define an id
    id_units: dict[int, str] = {}
    for u in units:
        if u.kind == "table" and u.cells:
            m = ID_DEF.fullmatch(plain(u.cells[0]).strip(" *_:"))
            if m:
                id_units[id(u)] = m.group(0)
            continue
        m = _ID_PREFIX.match(u.plain if u.kind != "heading" else plain(u.text))
        if m and (u.kind in ("bullet", "heading", "table") or m.group("tail").strip() in (":", "-", "—", "–", ".", ")", "")):
            id_units[id(u)] = m.group("id")
    # an id outside the usual prefixes (ARC-1, SEC-2 …) counts only when its prefix recurs
    prefix_count: dict[str, int] = {}
    for rid in id_units.values():
        prefix_count[_id_prefix(rid)] = prefix_count.get(_id_prefix(rid), 0) + 1
    id_units = {k: v for k, v in id_units.items() if REQ_ID.fullmatch(v) or prefix_count[_id_prefix(v)] >= 2}

    has_ids = bool(id_units)
    seen_blocks: dict[int, Req] = {}
    current_heading_req: Req | None = None
    for u in units:
        path = doc.path_of(u.line)
        kind = kind_of(path)
        rid = id_units.get(id(u))
        if u.kind == "heading":
            current_heading_req = None
            if rid:
                text = plain(u.text)
                r = Req(rid, u, text, _strip_id(u.quote()), path, "must", "req")
                current_heading_req = r
                _add(reqs, by_id, dups, r)
            continue
        if current_heading_req is not None and doc.section_of(u.line) == doc.section_of(current_heading_req.line):
            current_heading_req.text += " " + u.plain
            current_heading_req.extra.append(u)
            if current_heading_req.quote == _strip_id(current_heading_req.unit.quote()):
                current_heading_req.quote = quote_of(u)
            continue
        if u.block in seen_blocks and not (u.kind == "para" and not has_ids and MODAL_ANY.search(u.plain)):
            seen_blocks[u.block].text += " " + u.plain  # continuation sentence of a requirement item
            seen_blocks[u.block].extra.append(u)
            continue
        if u.kind == "table" and u.cells:
            body_cells = [c for c in u.cells[1:] if not any(p.match(c) for _, p in PRIORITY_CELL)] if rid else list(u.cells)
            text = " ".join(body_cells) if rid else " ".join(u.cells)
            longest = max(body_cells or list(u.cells), key=len)
            q = cell_quote(u, longest)
        else:
            text = u.plain
            q = _strip_id(u.quote())
        if kind == "nongoal" and u.kind in ("bullet", "table", "para"):
            r = Req(rid, u, text, q, path, "wont", "nongoal")
            nongoals.append(r)
            seen_blocks[u.block] = r
            continue
        if kind == "success" and u.kind in ("bullet", "table", "para"):
            r = Req(rid, u, text, q, path, "must", "success")
            success.append(r)
            seen_blocks[u.block] = r
            continue
        if rid:
            prio = _priority_from(text, path, u.cells[1:] if u.kind == "table" else ()) or "describe"
            if kind == "nongoal":
                prio = "wont"
            r = Req(rid, u, text, q, path, prio, "req")
            _add(reqs, by_id, dups, r)
            seen_blocks[u.block] = r
            continue
        if kind == "goal" and u.kind in ("bullet", "para"):
            goals.append(Req(None, u, text, q, path, "must", "goal"))
            continue
        if has_ids:
            continue
        if kind in ("context", "goal"):
            continue
        is_req_section = kind == "req"
        if MODAL_ANY.search(text) or (is_req_section and u.kind in ("bullet", "table")):
            if u.kind == "table" and not u.header:
                continue
            prio = _priority_from(text, path, u.cells if u.kind == "table" else ()) or ("must" if is_req_section else "should")
            r = Req(None, u, text, q, path, prio, "req")
            reqs.append(r)
            seen_blocks[u.block] = r
    for r in reqs:  # an id'd item with no modal and no stated priority: a description, ranked as should
        if r.priority == "describe":
            body = re.sub(r"^\W*(?:" + _ID_DEF + r")?\W*", "", _strip_id(r.text))
            figure = re.match(r"(?:about|approximately|approx\.?|around|roughly|~|peak|up to|at most|at least)?\s*~?\d", body, I)
            if MODAL_MUST.search(r.text) or not figure:
                r.priority = "must"
            else:  # a figure stated as context ('About 25,000 endpoints'), not an obligation
                r.priority = "should"
    for r in reqs + nongoals + success:
        label_only = len(words(re.sub(r"^\W*", "", r.quote))) <= 4 and r.extra
        if label_only:
            r.quote = quote_of(r.extra[0])
    return ReqSet(reqs, nongoals, goals, success, [r.rid for r in reqs if r.rid], dups)


def _id_prefix(rid: str) -> str:
    return re.sub(r"[-_.]?\d+(?:\.\d+)*$", "", rid)


def _add(reqs: list[Req], by_id: dict[str, Req], dups: list, r: Req) -> None:
    if r.rid in by_id:
        dups.append((r.rid, by_id[r.rid], r))
        return
    by_id[r.rid] = r
    reqs.append(r)


def ids_referenced(text: str) -> set[str]:
    """Requirement ids mentioned in ``text``, ranges such as 'R1–R4' expanded."""
    out = {m.group(1) for m in REQ_ID.finditer(text)}
    for m in REQ_RANGE.finditer(text):
        a, b = int(m.group(2)), int(m.group(3))
        if 0 < b - a <= 50:
            out.update(f"{m.group(1)}{k}" for k in range(a, b + 1))
    return {_canon_id(i) for i in out}


def _canon_id(rid: str) -> str:
    return re.sub(r"[-_.](?=\d)", "-", rid.upper()).replace("R-", "R") if rid.upper().startswith("R-") else rid.upper().replace("_", "-")


# =============================================================================== quantities

_TIME_UNITS = [
    (r"ms|msecs?|milliseconds?", 0.001), (r"s|secs?|seconds?", 1.0), (r"mins?|minutes?", 60.0),
    (r"h|hrs?|hours?", 3600.0), (r"d|days?|business days?", 86400.0), (r"wks?|weeks?", 604800.0),
    (r"months?|mos?", 2_592_000.0), (r"y|yrs?|years?", 31_536_000.0),
]
_WORDNUM = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
            "sixty": 60, "ninety": 90}
_TIME_RX = re.compile(
    r"(?<![\w.$€£])(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
    r"fifteen|twenty|thirty|sixty|ninety|an?)[\s-]?(?P<unit>" + "|".join(f"(?:{u})" for u, _ in _TIME_UNITS) + r")\b(?!\s*(?:/|per)\b)",
    I,
)
_PERIOD_WORDS = {"nightly": 86400.0, "daily": 86400.0, "hourly": 3600.0, "weekly": 604800.0, "monthly": 2_592_000.0}
_PERIOD_RX = rx(r"\b(nightly|daily|hourly|weekly|monthly|once an? (day|hour|week|month))\b")
_UPPER = rx(r"(?:under|below|less than|fewer than|within|at most|no more than|up to|maximum(?: of)?|max\.?|not exceed(?:ing)?|"
            r"no longer than|in under|capped at|cap of|limit of|inside|<=?|≤|before)\s*(?:~|about|approximately|roughly)?\s*$")
_LOWER = rx(r"(?:at least|minimum(?: of)?|min\.?|more than|over|above|no less than|longer than|>=?|≥|for at least|"
            r"greater than)\s*(?:~|about|approximately|roughly)?\s*$")
_PERIOD_BEFORE = rx(r"(?:every|each|once every|interval of|intervals of|once per|period of|cadence of)\s*$")
_RETAIN = rx(r"\b(retain\w*|retention|kept|keep\w*|stored?|storing|archiv\w*|preserv\w*|held|hold\w*)\b")
_DELETE = rx(r"\b(delet\w*|purg\w*|eras\w*|remov\w*|expir\w*|destroy\w*|anonymi[sz]\w*|discard\w*|wip(?:e|ed|ing)|gone|ages? out)\b")
_LATENCY = rx(r"\b(latenc\w*|response times?|respond\w*|p50|p90|p95|p99|p999|round[- ]trips?|load times?|page loads?|render\w*)\b")
_PROPAGATE_REQ = rx(r"\b(reach\w*|propagat\w*|visible|reflect\w*|take effect|takes effect|applied|appl(?:y|ies) to|show up|appear\w*|"
                    r"in sync|synced|up[- ]to[- ]date|stale|fresh\w*)\b")
_CHANGE = rx(r"\b(chang\w*|updat\w*|edit\w*|writ\w*|modif\w*|toggl\w*|flip\w*|new data|events?)\b")
_DELIVERY = rx(r"\b(poll\w*|refresh\w*|sync\w*|pull\w*|fetch\w*|reload\w*|batch\w*|cron|rebuil\w*|recomput\w*|reindex\w*|"
               r"re-?index\w*|snapshot\w*|export\w*|job)\b")
_RECOVERY_REQ = rx(r"\b(rpo|recovery point|data loss|lose (?:no )?more than)\b")
_BACKUP = rx(r"\b(backups?|backed up|snapshots?|replicat\w*|dump\w*)\b")
_UNIVERSAL = rx(r"\b(all|any|every|each)\b")
_SYNC_XREGION = rx(r"\b(synchronous\w*|strongly consistent|strong consistency|linearizab\w*)\b[^.]{0,80}\b(regions?|data ?cent(?:er|re)s?|cross[- ]region|multi[- ]region|geo\w*)\b"
                   r"|\b(cross[- ]region|multi[- ]region|across regions|every region|all regions)\b[^.]{0,80}\b(synchronous\w*|strongly consistent|strong consistency)\b")


@dataclass
class Qty:
    seconds: float
    bound: str  # upper | lower | period | exact
    raw: str  # the quantity as written
    start: int
    end: int


def time_quantities(text: str) -> list[Qty]:
    """Durations in ``text`` with the kind of bound the wording puts on them."""
    out: list[Qty] = []
    for m in _TIME_RX.finditer(text):
        num = m.group("num").lower()
        if num in _WORDNUM:
            if num in ("a", "an") and not re.search(r"(within|every|once|in|under|for|than|per)\s+$", text[: m.start()], I):
                continue
            val = float(_WORDNUM[num])
        else:
            val = float(num.replace(",", ""))
        unit = m.group("unit").lower()
        if unit in ("s", "d", "h", "y") and not num[0].isdigit():
            continue
        mult = next(f for u, f in _TIME_UNITS if re.fullmatch(u, unit, I))
        before = text[max(0, m.start() - 40): m.start()]
        if _PERIOD_BEFORE.search(before):
            bound = "period"
        elif _UPPER.search(before):
            bound = "upper"
        elif _LOWER.search(before):
            bound = "lower"
        else:
            bound = "exact"
        out.append(Qty(val * mult, bound, m.group(0), m.start(), m.end()))
    for m in _PERIOD_RX.finditer(text):
        key = m.group(1).lower()
        secs = _PERIOD_WORDS.get(key) or {"day": 86400.0, "hour": 3600.0, "week": 604800.0, "month": 2_592_000.0}[m.group(2).lower()]
        out.append(Qty(secs, "period", m.group(0), m.start(), m.end()))
    return out


# =============================================================================== findings

@dataclass
class Draft:
    title: str
    severity: str
    phase: str
    section: str
    issue: str
    why: str
    suggestion: str
    evidence: str | None
    contributing: str | None = None
    weight: float = 0.0  # tie-break inside a severity: higher first
    key: str = ""  # dedup key inside one persona

    def to_model(self) -> PersonaFinding:
        return PersonaFinding(
            title=self.title, severity=Severity(self.severity), phase=self.phase,  # type: ignore[arg-type]
            contributing_phase=self.contributing, section=self.section or "(whole document)",  # type: ignore[arg-type]
            issue=self.issue, why_it_matters=self.why, suggestion=self.suggestion, evidence=self.evidence,
        )


@dataclass
class Ctx:
    persona: str
    stage: str
    design: Doc
    requirements: Doc
    findings: list[Draft] = field(default_factory=list)
    fine: list[str] = field(default_factory=list)
    conflicted: set[int] = field(default_factory=set)

    @cached_property
    def artifact(self) -> Doc:
        """The document under review: the requirements at the requirements stage."""
        if self.stage == "requirements":
            if not self.requirements.empty:
                return self.requirements
            return self.design
        return self.design if not self.design.empty else self.requirements

    @cached_property
    def framing_docs(self) -> list[Doc]:
        """Documents that state the problem: at the requirements stage, a companion brief too."""
        docs = [self.artifact]
        for other in (self.design, self.requirements):
            if not other.empty and other.text != self.artifact.text and other not in docs:
                docs.append(other)
        return docs

    @cached_property
    def reqset(self) -> ReqSet:
        if not self.requirements.empty:
            return extract_requirements(self.requirements)
        if self.stage == "requirements":
            return extract_requirements(self.artifact)
        return ReqSet([], [], [], [], [], [])

    @property
    def work_phase(self) -> str:
        return "plan" if self.stage == "plan" else ("calibrate" if self.stage == "requirements" else "design")

    def add(self, d: Draft) -> None:
        if d.key and any(f.key == d.key for f in self.findings):
            return
        self.findings.append(d)

    def ok(self, text: str) -> None:
        if HEDGES.search(text):  # a quoted heading such as 'Could have' would read as a hedge
            return
        if text not in self.fine:
            self.fine.append(text)

    def req_for_terms(self, terms: set[str], min_overlap: int = 2) -> Req | None:
        best, score = None, 0
        for r in self.reqset.all:
            s = len(terms & r.terms)
            if s > score:
                best, score = r, s
        return best if score >= min_overlap else None


# =============================================================================== shared patterns

SUPPORT = rx(
    r"\b(measured|observed|benchmark\w*|load[- ]test\w*|profil(?:ed|ing)|according to|based on|data from|from (?:the |our )?(?:logs|metrics|dashboards?|traces)|"
    r"historical\w*|in the last|over the last|last (?:\d+ )?(?:weeks?|months?|quarters?|years?)|in (?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december|q[1-4])|sla|slo|documented|contract(?:s|ual)?|see (?:appendix|\[)|https?://|\[\d+\]|appendix|"
    r"we (?:saw|found|measured|observed|tested|verified)|survey\w*|study|studies|experiment showed|report(?:s|ed)? (?:show|that))\b"
)
EXTERNAL_CALL = rx(
    r"\b(calls?|calling|invok\w+|requests? to|post(?:s|ing)? to|sends? (?:a |an |the )?(?:request|webhook|message|event)s?|webhooks?|third[- ]party|"
    r"upstream|external (?:api|service|provider|system)s?|vendor|provider'?s? api|apis?\b|https?\b|grpc|rpc|rest api|remote)\b"
)
REMOTE_CALL = rx(
    r"\b(calls?|calling|invok\w+|sends? (?:a |an )?requests?|webhooks?|third[- ]party|upstream|https? (?:calls?|requests?)|grpc|rpc|"
    r"fetch(?:es|ed|ing)?|downloads?|polls?|polling)\b"
)
ASYNC_INFRA = rx(r"\b(queues?|enqueu\w*|kafka|sqs|rabbitmq|kinesis|pub/?sub|message broker|topics?|consumers?|event bus|event streams?|data streams?)\b")
CACHE = rx(r"\b(cach\w*|cdn|cloudfront|fastly|akamai|memoi[sz]\w*|memcached)\b(?!\.\w)")
BATCH = rx(r"\b(nightly|batch (?:job|process\w*|run)s?|cron(?: job)?s?|scheduled jobs?|daily jobs?|backfill\w*)\b")
HANDLING = rx(
    r"\b(fails?|failed|failures?|errors?|retr(?:y|ies|ied|ying)|time ?outs?|timed out|fallback|falls? back|circuit[- ]breakers?|dead[- ]letter|dlq|"
    r"idempoten\w*|back-?off|degrad\w*|unavailable|unreachable|outages?|is down|goes down|partial|compensat\w*|alerts?|alerting)\b"
)
RETRY = rx(r"\b(retr(?:y|ies|ied|ying)|re-?deliver\w*|at[- ]least[- ]once|redriv\w*|re-?send\w*|re-?queue\w*|re-?submit\w*|returned to the queue|tries again|try again)\b")
WRITE_OP = rx(
    r"\b(charg\w*|pay\w*|send\w*|sent|post\w*|writ\w*|creat\w*|insert\w*|publish\w*|emails?|notif\w*|webhooks?|orders?|transfer\w*|debit\w*|credit\w*|"
    r"submit\w*|deliver\w*|messages?|events?|updat\w*|provision\w*|book\w*|refund\w*|invoice\w*)\b"
)
READ_ONLY = rx(r"\b(fetch\w*|read\w*|get|gets|download\w*|poll\w*|load\w*|look(?:s|ing)? up)\b")
IDEMPOTENT = rx(r"\b(idempoten\w*|dedup\w*|de-?duplicat\w*|exactly[- ]once|duplicat\w*|unique (?:key|constraint|index|id)|upsert\w*|same key|(?:request|event|message|delivery)[ _-]ids?|"
                r"keyed by|overwrit\w*|replaces? itself|conditional (?:write|put))\b")
RETRY_BOUND = rx(r"\b(max(?:imum)?|up to|at most|cap(?:ped|s)?|limit\w*|\d+ (?:times|attempts|retries)|back-?off|jitter|gives? up|exhaust\w*|dead[- ]letter|dlq|attempt \d+)\b")
RETRY_IN_MEMORY = rx(r"\b(time\.sleep|thread\.sleep|sleeps?(?: for)?|in[- ]process|holding the message|holds? the message)\b")
RETRY_FOREVER = rx(r"\bretr(?:y|ies|ied)\b[^.;]{0,30}\b(indefinitely|forever|until (?:it )?succeeds?|until success|without limit)\b")
QUEUE_SAFETY = rx(r"\b(dead[- ]letter|dlq|poison|back-?pressure|consumer lag|queue depth|lag\b|max(?:imum)? (?:queue )?(?:depth|size)|redriv\w*|parking lot|outbox)\b"
                  r"|\bqueues?\b[^.]{0,50}\b(alert\w*|monitor\w*|age|oldest)\b|\b(alert\w*|monitor\w*)\b[^.]{0,50}\bqueues?\b")
CACHE_SAFETY = rx(r"\b(ttl|time[- ]to[- ]live|expir\w*|invalidat\w*|evict\w*|stale\w*|max[- ]age|cache[- ]control|purg\w*|freshness)\b")
TIMEOUT_WORD = rx(r"\b(time ?outs?|timed out|times out|deadlines?|gives? up after)\b")
UNBOUNDED = rx(
    r"\b(returns? all|lists? all|fetch(?:es)? all|loads? all|reads? all|all (?:records|rows|items|results|entries|documents|files)|entire (?:table|dataset|history|collection)|"
    r"unbounded|bulk (?:import|export|upload)s?|uploads? (?:of )?(?:files?|attachments?|images?|documents?|csvs?)|accepts? (?:arbitrary|any) (?:input|payload|file|size))\b"
)
LIMITS = rx(
    r"\b(paginat\w*|page size|pages? of|limit\w*|max(?:imum)? (?:size|length|items|rows|records|payload|upload|file)|cap(?:ped)? at|at most \d|up to \d|"
    r"batch(?:es)? of \d|chunk\w*|stream\w*|quotas?|truncat\w*|rate[- ]limit\w*|size cap|mb\b|kb\b|gb\b)\b"
)
LIST_UI = rx(r"\b(search results?|result lists?|list views?|feeds?|inbox(?:es)?|timelines?|search pages?|autocomplete|suggestions list)\b")
EMPTY_STATE = rx(r"\b(empty(?: state)?|no results?|zero results?|nothing to show|blank state|first[- ]time|none found|null)\b")
CONCURRENT = rx(r"\b(multiple|several|many|concurrent|parallel|two or more|n) (workers|consumers|instances|replicas|writers|processes|pods|nodes|threads)\b")
CONCURRENCY_SAFE = rx(r"\b(lock\w*|transaction\w*|optimistic|compare[- ]and[- ](?:set|swap)|cas\b|version(?:ed|ing)? (?:column|check|number)|atomic\w*|skip locked|"
                      r"single writer|leader election|partition\w* by|exactly one|serializ\w*|mutex|fencing)\b")
TIMEOUT_DEFINITE = rx(
    r"\b(time ?outs?|timed[- ]out|times out|no response|connection (?:errors?|resets?|drops?)|network errors?)\b[^.;]{0,60}?"
    r"\b(means?|implies|indicates|is treated as|are treated as|treated as|counts? as|is assumed|are assumed|is considered|are considered)\b[^.;]{0,60}?"
    r"\b(did not|didn't|not (?:go through|succeed\w*|happen\w*|processed|applied|delivered|sent|charged|written)|failed|failure|lost|never)\b"
    r"|\btreat(?:s|ed|ing)? (?:a |all |any )?(time ?outs?|timed[- ]out \w+) as (?:a |an )?(?:failures?|failed|declines?|errors?|not sent)\b"
)
DUP_SENSITIVE = rx(r"\b(never (?:be )?(?:charged|billed|sent|debited|paid|processed|applied) more than once|more than once|duplicat\w*|exactly[- ]once|double[- ](?:charg\w*|spend\w*|book\w*|pay\w*)|at most once|idempoten\w*)\b")
UNKNOWN_DEFAULT = rx(
    r"\b(unknown|unrecogni[sz]ed|unmapped|unexpected|unlisted|unsupported|unclassified|any (?:other|code|value|type|status) not in|not in the (?:mapping|list|table|allowlist|map|file|enum))\b"
    r"[^.;]{0,80}?\b(treated as|default(?:s|ed)? to|falls? back to|assumed (?:to be )?|considered|handled as|mapped to|go(?:es)? (?:to|into))\b"
)
PROHIBITION = rx(r"\b(never|must not|shall not|should not|may not|cannot|is not allowed|are not allowed|prohibited|forbidden|no longer)\b")
VAGUE = {
    "performance": rx(r"\b(fast(?:er)?|quick(?:ly)?|low[- ]latency|high[- ]performance|performant|real[- ]time|near[- ]real[- ]time|instant(?:ly|aneous(?:ly)?)?|"
                      r"snappy|responsive|blazing\w*|lightning|within (?:seconds|milliseconds|minutes)|in (?:seconds|milliseconds)|minimal (?:latency|overhead|delay))\b"),
    "scale": rx(r"\b(scalable|highly scalable|scales? (?:well|horizontally|linearly|easily|infinitely)|at scale|web[- ]scale|massive(?:ly)?|high[- ]throughput|unlimited)\b"),
    "cost": rx(r"\b(cheap(?:ly)?|inexpensive|cost[- ]effective|low[- ]cost|minimal cost|costs? (?:little|nothing)|affordable)\b"),
    "reliability": rx(r"\b(highly available|robust|resilient|bullet[- ]?proof|rock[- ]solid|fault[- ]tolerant)\b"),
}
VAGUE_REQ_TOPIC = {
    "performance": rx(r"\b(latenc\w*|response times?|p\d\d|\d+\s?ms|milliseconds?|load times?)\b"),
    "scale": rx(r"\b(peak|rps|qps|per second|per minute|concurrent|throughput|volume|load)\b"),
    "cost": rx(r"(\$|€|£|\bbudget\b|\bcost\b|\bper month\b|\bper year\b)"),
    "reliability": rx(r"(\d(?:\.\d+)?\s?%\s*(?:availability|uptime)|availability|uptime|\bsla\b|\bslo\b)"),
}
VAGUE_REQ_WORDS = rx(
    r"\b(fast|quick(?:ly)?|user[- ]friendly|intuitive|seamless(?:ly)?|easy to use|easy|simple|modern|robust|scalable|flexible|efficient(?:ly)?|"
    r"responsive|reliable|secure|best[- ]in[- ]class|world[- ]class|delightful|performant|high[- ]quality|smooth(?:ly)?|clean|nice|good|"
    r"real[- ]time|minimal|appropriate|adequate|reasonable|as soon as possible|asap|etc)\b"
)
INFRA = rx(
    r"\b(kafka|zookeeper|cassandra|elasticsearch|opensearch|clickhouse|redis|memcached|rabbitmq|kubernetes|k8s|spark|flink|airflow|hadoop|"
    r"mongodb|dynamodb|cockroachdb|scylla\w*|pulsar|nats|consul|etcd|vault|prometheus|grafana|kinesis|bigquery|snowflake|druid|pinot|"
    r"neo4j|postgres\w*|mysql|gpus?|service mesh|istio)\b"
)
NEW_COMPONENT = rx(r"\b(new|dedicated|separate|custom|own|additional) (?:\w+ ){0,2}(services?|microservices?|clusters?|databases?|queues?|pipelines?|stores?|engines?|workers?|proxies|proxy|gateways?)\b")
OPERATE = rx(r"\b(self[- ]host\w*|self[- ]managed|(?:operate|run|host|maintain) (?:our own|a dedicated|a new|an? [\w-]+ cluster))\b")
ESTIMATE = rx(r"(\$\s?\d|€\s?\d|£\s?\d|\b\d[\d,.]*\s?(?:k|m)?\s?(?:usd|eur|gbp|dollars)\b|\bper (?:month|year)\b|\bcost budget|\bcosts? (?:about|around|roughly|~)?\s?[$€£]?\d|"
                r"\bengineer[- ](?:weeks?|months?|days?)|\bperson[- ](?:weeks?|months?|days?)|\bsprints?\b|\bheadcount|\bfte\b|\beffort\b[^.]{0,40}\d|\bestimat\w+)", )
EFFORT = rx(r"\b(engineer[- ](?:weeks?|months?|days?)|person[- ](?:weeks?|months?|days?)|sprints?|half of the (?:total )?(?:effort|work|engineering)|"
            r"\d+\s?% of (?:the )?(?:effort|work|engineering|time)|most of the (?:effort|work))\b")
SINGLE_INSTANCE = rx(r"\b(one (?:worker )?(?:instance|replica|pod|node|worker|server|process|vm|machine)|single (?:instance|replica|pod|node|worker|server|process|vm|machine|region)|"
                     r"(?:with|runs? as) (?:a |an )?(?:single|one) \w+)\b")
AVAILABILITY_REQ = rx(r"(\d{2}(?:\.\d+)?\s?%[^.;]{0,30}\b(?:availab\w*|uptime)|\b(?:availab\w*|uptime)\b[^.;]{0,30}\d{2}(?:\.\d+)?\s?%)")
LOAD_REQ = rx(r"\b(peak|load|volume|throughput|concurrent|rps|qps|per (?:second|minute|hour|day)|requests? per|spikes?|burst\w*)\b")
BUILD_OWN = rx(
    r"\b(build (?:our|its) own|write (?:our|its) own|roll (?:our|its) own|(?:our|its) own (?:\w+ ){0,2}(?:framework|engine|library|queue|scheduler|database|store|protocol|parser|"
    r"orchestrator|cache|auth\w*|crypto\w*|encryption|rate[- ]limiter|load[- ]balancer|service mesh|tooling|dsl|language|format)|custom[- ]built|"
    r"custom (?:\w+ ){0,2}(?:framework|engine|library|queue|scheduler|database|store|protocol|parser|orchestrator|cache|auth\w*|crypto\w*|encryption|"
    r"rate[- ]limiter|load[- ]balancer|dsl|language|format|consensus|replication|storage|search|workflow|statistics|stats)|from scratch|in[- ]house|home[- ]?grown|bespoke)\b"
)
ALTERNATIVES = rx(r"\b(instead of|rather than|versus|vs\.?|considered|compared (?:to|with)|alternatives?|evaluated|off[- ]the[- ]shelf|existing (?:library|libraries|solution|tool|product|service)s?|"
                  r"open[- ]source|managed service|buy(?:ing)?|vendor|rejected)\b")
CRYPTO = rx(r"\b(crypto\w*|encryption|hashing|auth\w*|password\w*|tls|signing)\b")
DEFERRAL = rx(
    r"\b(out of scope|future (?:iteration|version|release|work|phase)s?|(?:not|won'?t be) (?:in|part of|included in) (?:the )?(?:first|initial|v1|mvp|this)|"
    r"deferred|defer(?:ring)?|later (?:phase|release|version|iteration)|phase (?:2|two|ii)|post[- ]mvp|in v2|will not (?:build|do|support|ship|implement)|"
    r"won'?t (?:build|do|support|ship|implement)|not (?:be )?(?:built|supported|implemented|shipped) (?:now|yet|initially|in)|can add (?:it )?later|a future)\b"
)
GOLD_PLATING = rx(
    r"\b(we (?:will|'ll) also (?:add|build|support|include|provide|ship|offer)|we also (?:add|build|include|provide|ship|offer)|as a bonus|nice[- ]to[- ]have|"
    r"future[- ]proof\w*|in case we (?:ever )?need|for future use|down the road|just in case|while we(?:'re| are) at it|plug-?in (?:system|architecture|framework)|"
    r"generic (?:framework|engine|platform)|(?:it|this) also gives|also gives|on top of that,? we|additionally,? (?:we|it) (?:will )?(?:build|add|provide|offer|give))\b"
)
EXISTING_SYSTEM = rx(r"\b(stays? in|remains? in|owned by|handled by|lives? in|already (?:covered|handled|provided|done) by|existing|already)\b")
CERTAINTY = (
    ("load", "Important",
     rx(r"\b(traffic|load|volume|usage|requests?|throughput|growth|demand|qps|rps|writes|reads|events|messages|attempts)\b[^.;]{0,60}?\bwill (?:stay|remain|not (?:exceed|grow|go above|pass)|never (?:exceed|grow)|be (?:low|small|modest|limited|under|below))\b"
        r"|\bwill (?:stay|remain) (?:under|below|within|low|small|modest|flat)\b")),
    ("dependency", "Important",
     rx(r"\b(?:is|are|will be) (?:always )?(?:guaranteed|always (?:up|available|on)|never down)\b|\b(?:never|cannot|can't|won't|will not) (?:fail|go down|lose|drop)\b"
        r"|\balways (?:available|succeeds?|responds?|up)\b|\bnever (?:fails?|times? out|goes down|loses?|drops?)\b")),
    ("assume", "Important", rx(r"\b(we assume|assuming that|it is assumed|we are assuming|our assumption is|we expect that|is expected to be|are expected to be)\b")),
    ("users", "Minor",
     rx(r"\b(users|customers|teams|people|engineers|developers|operators|clients|admins)\b (?:will|would) (?:always |never |happily |naturally )?"
        r"(?:adopt|use|accept|prefer|want|understand|read|migrate|switch|remember|notice|follow|tolerate)\b")),
    ("justification", "Minor",
     rx(r"\b(?:because|since) (?:most|nearly all|almost all|the majority of|typically|usually|generally|in practice)\b"
        r"|\b(?:because|since) (?:\w+ ){0,3}(?:users|customers|people|balances|traffic|clients|accounts)\b[^.;]{0,40}\b(?:are|is|tend|peak|prefer)\b")),
    ("exclusive", "Important",
     rx(r"\b(?:lives?|lies|sits?|is stored|are stored|appears?|exists?|is held|are held|resides?) only in\b|\bonly (?:ever )?(?:contains?|holds?)\b"
        r"|\b(?:contains?|holds?|carr(?:y|ies)) no (?:personal|sensitive|pii|user)\b|\bnever (?:contains?|holds?|includes?) (?:personal|sensitive|pii|user)\b")),
    ("self-resolving", "Important",
     rx(r"\b(?:on (?:its|their) own|by (?:itself|themselves)|automatically)\b[^.;]{0,60}\b(?:does not need|do not need|doesn't need|don't need|no need|nothing)\b"
        r"|\b(?:does not need|do not need|doesn't need|don't need|no need) to (?:handle|worry|deal|care|account|consider|touch|process)\b")),
    ("sufficiency", "Minor",
     rx(r"\b(?:is|are|will be) (?:more than )?(?:sufficient|enough|plenty|negligible|trivial|not a (?:concern|problem|bottleneck|issue))\b"
        r"|\bwon'?t be (?:a|an) (?:problem|issue|bottleneck|concern)\b")),
)
DEPENDENCY = rx(
    r"\bthe (?:[\w-]+ ){0,3}(?:team|squad|vendor|partner|org) (?:will|owns?|provides?|maintains?|is responsible|handles?|supplies)\b|\b(?:provided|owned|maintained|operated|supplied) by\b"
    r"|\b(?:depends|depending|relies|rely|relying) on\b|\b(?:reuse|leverage) the existing\b|\b(?:through|via|in|by|from) the existing [\w-]+ (?:service|api|console|pipeline|platform|cluster|system|tool)\b"
)
COMMITMENT = rx(r"\b(agreed|confirmed|signed[- ]off|sla|slo|contract(?:s|ual)?|committed|ticket|jira|documented|eta|in writing|already (?:supports?|provides?|exposes?|does)|verified|tested|above \d)\b")
NUMBER_CONCLUSION = rx(r"\b(which gives|gives (?:us )?headroom|headroom|well (?:above|below|within|under)|so (?:one|a single|we)|therefore|is sufficient|is enough|plenty)\b")
PROBLEM_SENTENCE = rx(r"\b(the problem|problem statement|we need to|goal (?:is|of)|goals?:|objective|in order to|so that|aims? to|purpose|motivation|today,? |currently|pain)\b")


# =============================================================================== helpers used by checks

def skip_context(doc: Doc, u: Sentence) -> bool:
    """Units that describe alternatives, non-goals or later work: not the design being built."""
    return doc.in_section_like(u, SEC_ALTERNATIVES) or doc.in_section_like(u, SEC_NONGOAL) or doc.in_section_like(u, SEC_FUTURE)


def negated_before(text: str, start: int, span: int = 45) -> bool:
    return bool(NEGATION_NEAR.search(text[max(0, start - span): start]))


def supported(doc: Doc, u: Sentence, reqs: Doc) -> bool:
    """Whether a claim has data, a source, or requirement numbers behind it, in or next to it."""
    for n in doc.neighbours(u, 1):
        if SUPPORT.search(n.plain):
            return True
    nums = numbers_in(u.plain)
    if nums and nums & reqs.numbers:
        return True
    return False


def all_matches(doc: Doc, pattern: re.Pattern[str], skip_ctx: bool = True, kinds=("para", "bullet", "table", "quote")) -> list[tuple[Sentence, re.Match[str]]]:
    return [(u, m) for u, m in doc.find(pattern, kinds=kinds) if not (skip_ctx and skip_context(doc, u))]


def design_has(doc: Doc, pattern: re.Pattern[str]) -> bool:
    """Whether the design body (headings included) mentions ``pattern``."""
    return any(pattern.search(u.plain) for u in doc.units_with_code)


def dup_sensitive_req(ctx: Ctx) -> Req | None:
    for r in ctx.reqset.all:
        if DUP_SENSITIVE.search(r.text):
            return r
    return None


def nongoal_terms(ctx: Ctx, ng: Req) -> tuple[set[str], set[str]]:
    """The distinctive terms of a non-goal (whole item, lead sentence): words the requirements use
    in two or more requirements say nothing about this non-goal."""
    common = {t for t, n in ctx.reqset.df.items() if n >= 2}
    return ng.terms - common, term_set(ng.unit.plain) - common


@lru_cache(maxsize=64)
def _nongoal_hits_cached(design_text: str, req_text: str, stage: str) -> tuple:
    ctx = Ctx("", stage, _doc("design", design_text), _doc("requirements", req_text))
    doc = ctx.artifact
    out = []
    for ng_index, ng in enumerate(ctx.reqset.nongoals):
        full, head = nongoal_terms(ctx, ng)
        if len(full) < 2:
            continue
        best = None
        for sec in doc.sections:
            if SEC_NONGOAL.search(sec.path) or SEC_FUTURE.search(sec.path) or SEC_ALTERNATIVES.search(sec.path):
                continue
            units = [u for u in doc.units if sec.start_line <= u.line <= sec.end_line and u.kind != "heading"]
            if not units:
                continue
            head_terms = term_set(sec.heading)
            sec_terms = set().union(head_terms, *(term_set(u.plain) for u in units))
            overlap = len(full & sec_terms)
            heading_hit = bool(head_terms & full)
            ok = ((len(head) >= 2 and head <= sec_terms and overlap >= 3) or (heading_hit and overlap >= 3)
                  or (overlap >= 4 and overlap >= 0.3 * len(full)))
            if not ok:
                continue
            score = overlap + (2 if heading_hit else 0)
            scored = [(len(term_set(u.plain) & head), len(term_set(u.plain) & full), -u.line, u)
                      for u in units if not NEGATION_NEAR.search(u.plain[:40])]
            scored = [t for t in scored if t[1] >= (1 if heading_hit else 2)]
            if not scored:
                continue
            unit = max(scored, key=lambda t: t[:3])[3]
            if best is None or score > best[3]:
                best = (ng_index, sec.start_line, doc.units.index(unit), score)
        if best:
            out.append(best)
    return tuple(out)


def nongoal_hits(ctx: Ctx) -> list[tuple[Req, MdSection, Sentence, int]]:
    """Design sections that build what a non-goal of the requirements excludes.

    A section hits when it shares at least three distinctive terms with the non-goal and either
    contains the non-goal's whole lead sentence or names it in its heading (or shares many
    terms). Only the best section per non-goal is returned.
    """
    if ctx.stage == "requirements" or ctx.artifact is ctx.requirements:
        return []
    doc = ctx.artifact
    raw = _nongoal_hits_cached(ctx.design.text, ctx.requirements.text, ctx.stage)
    out = []
    for ng_index, sec_line, unit_index, score in raw:
        ng = ctx.reqset.nongoals[ng_index]
        sec = next(s for s in doc.sections if s.start_line == sec_line)
        unit = doc.units[unit_index]
        out.append((ng, sec, unit, score))
    return out


# =============================================================================== requirement auditor

def _quantities_by_unit(units: Iterable[Sentence]) -> Iterator[tuple[Sentence, Qty]]:
    for u in units:
        for q in time_quantities(u.plain):
            yield u, q


def _topics(text: str, q: Qty) -> set[str]:
    """What a duration measures, judged from the words before it in its sentence."""
    before = text[max(0, q.start - 110): q.start]
    before = re.split(r"(?<!\d)[.;!?]", before)[-1]
    after = text[q.end: q.end + 40]
    after = re.split(r"[.;!?,]", after)[0]
    out: set[str] = set()
    if q.seconds >= 86400:
        if _RETAIN.search(before) and q.bound in ("lower", "exact", "period"):
            out.add("retain")
        if (_DELETE.search(before) and q.bound in ("upper", "exact")) or (re.search(r"older than\s*$", before, I) and (_DELETE.search(after) or _DELETE.search(before))):
            out.add("delete")
    if q.seconds < 3600 and q.bound in ("upper",) and (_LATENCY.search(before) or _LATENCY.search(after)):
        out.add("latency")
    if q.seconds < 86400 * 2 and q.bound == "upper" and _CHANGE.search(text) and _PROPAGATE_REQ.search(text):
        out.add("propagate")
    if q.bound == "period" and (_DELIVERY.search(before) or _DELIVERY.search(text)):
        out.add("delivery")
    if q.bound in ("upper", "exact") and _RECOVERY_REQ.search(text):
        out.add("rpo")
    if q.bound == "period" and _BACKUP.search(text):
        out.add("backup")
    if q.seconds < 3600 and q.bound in ("upper", "exact") and re.search(r"\btime ?outs?\b|\btimes? out\b|\bgives? up after\b", before + " " + after, I):
        out.add("timeout")
    return out


def _subject_terms(text: str) -> set[str]:
    drop = {"retent", "delet", "stor", "archiv", "preserv", "held", "hold", "within", "after", "log", "record", "kept"}
    return {t for t in term_set(text) if t not in drop}


DATA_NOUN = rx(r"\b(data|rows?|records?|events?|objects?|files?|messages?|logs?|entries|documents?|accounts?|tables?)\b")


def _design_scope(a: str, b: str) -> bool:
    """Scope check for a requirement against the design of the same system: shared subject or both about stored data."""
    return _scope_overlap(a, b) or bool(DATA_NOUN.search(a) and DATA_NOUN.search(b))


def _scope_overlap(a: str, b: str) -> bool:
    sa, sb = _subject_terms(a), _subject_terms(b)
    if sa & sb:
        return True
    return bool(_UNIVERSAL.search(a) or _UNIVERSAL.search(b)) and bool(re.search(r"\b(data|records?|information|personal|pii|everything)\b", a + " " + b, I))


@dataclass
class Conflict:
    a_req: Req
    a_unit: Sentence
    a_q: Qty | None
    b_unit: Sentence
    b_q: Qty | None
    b_req: Req | None  # None: the other side is the design
    kind: str


def find_conflicts(ctx: Ctx) -> list[Conflict]:
    rs = ctx.reqset
    req_items: list[tuple[Req, Sentence, Qty, set[str]]] = []
    for r in rs.reqs + rs.success:
        for u, q in _quantities_by_unit([r.unit] + r.extra):
            topics = _topics(u.plain, q)
            if topics:
                req_items.append((r, u, q, topics))
    out: list[Conflict] = []
    seen: set[tuple] = set()

    def push(c: Conflict) -> None:
        key = (c.a_req.line, c.b_req.line if c.b_req else -c.b_unit.line, c.kind)
        if key not in seen and (c.b_req is None or (c.b_req.line, c.a_req.line, c.kind) not in seen):
            seen.add(key)
            out.append(c)

    # requirement against requirement
    for i, (ra, ua, qa, ta) in enumerate(req_items):
        for rb, ub, qb, tb in req_items[i + 1:]:
            if ra is rb:
                continue
            if "retain" in ta and "delete" in tb and qa.seconds > qb.seconds and _scope_overlap(ua.plain, ub.plain):
                push(Conflict(ra, ua, qa, ub, qb, rb, "retention"))
            elif "delete" in ta and "retain" in tb and qb.seconds > qa.seconds and _scope_overlap(ua.plain, ub.plain):
                push(Conflict(rb, ub, qb, ua, qa, ra, "retention"))
            elif "propagate" in ta and "delivery" in tb and qb.seconds > qa.seconds:
                push(Conflict(ra, ua, qa, ub, qb, rb, "freshness"))
            elif "delivery" in ta and "propagate" in tb and qa.seconds > qb.seconds:
                push(Conflict(rb, ub, qb, ua, qa, ra, "freshness"))
    for ra, ua, qa, ta in req_items:
        if "latency" in ta and qa.seconds <= 0.1:
            for rb in rs.reqs:
                if rb is ra:
                    continue
                for ub in [rb.unit] + rb.extra:
                    if _SYNC_XREGION.search(ub.plain):
                        push(Conflict(ra, ua, qa, ub, None, rb, "latency-sync"))
    # universal against prohibition
    for i, ra in enumerate(rs.reqs):
        if not _UNIVERSAL.search(ra.text) or PROHIBITION.search(ra.text):
            continue
        ta = term_set(ra.text)
        for rb in rs.reqs:
            if rb is ra or not PROHIBITION.search(rb.text) or _UNIVERSAL.search(rb.text.split(",")[0]) is None and False:
                continue
            if not re.search(r"\b(must not|shall not|never|cannot|no)\b", rb.text, I):
                continue
            tb = term_set(rb.text)
            ov = ta & tb
            if len(ov) >= 2 and len(ov) >= 0.6 * min(len(ta), len(tb)) and len(tb - ta) <= 2:
                push(Conflict(ra, ra.unit, None, rb.unit, None, rb, "all-vs-none"))
    # requirement against design
    if ctx.stage != "requirements" and not ctx.artifact.empty and ctx.artifact is not ctx.requirements:
        doc = ctx.artifact
        d_items = []
        for u, q in _quantities_by_unit(doc.units):
            if u.kind == "heading" or skip_context(doc, u):
                continue
            t = _topics(u.plain, q)
            if t:
                d_items.append((u, q, t))
        for ra, ua, qa, ta in req_items:
            for ub, qb, tb in d_items:
                if "propagate" in ta and "delivery" in tb and qb.seconds > qa.seconds:
                    push(Conflict(ra, ua, qa, ub, qb, None, "freshness"))
                elif "retain" in ta and "delete" in tb and qa.seconds > qb.seconds and _design_scope(ua.plain, ub.plain):
                    push(Conflict(ra, ua, qa, ub, qb, None, "retention"))
                elif "delete" in ta and "retain" in tb and qb.seconds > qa.seconds and _design_scope(ua.plain, ub.plain):
                    push(Conflict(ra, ua, qa, ub, qb, None, "retention"))
                elif ("delete" in ta and "delete" in tb and qa.bound == "upper" and qb.bound in ("upper", "exact")
                      and qb.seconds > qa.seconds and _design_scope(ua.plain, ub.plain)):
                    push(Conflict(ra, ua, qa, ub, qb, None, "deletion"))
                elif "timeout" in ta and "timeout" in tb and qb.seconds > qa.seconds * 1.001:
                    push(Conflict(ra, ua, qa, ub, qb, None, "timeout"))
                elif "rpo" in ta and "backup" in tb and qb.seconds > qa.seconds:
                    push(Conflict(ra, ua, qa, ub, qb, None, "rpo"))
            if "latency" in ta and qa.seconds <= 0.1:
                for ub in doc.units:
                    if not skip_context(doc, ub) and _SYNC_XREGION.search(ub.plain):
                        push(Conflict(ra, ua, qa, ub, None, None, "latency-sync"))
                        break
    return out


def _frag(u: Sentence, q: Qty | None) -> str:
    if q is None:
        text = re.sub(r"\s*\|\s*", " ", u.plain).strip()
        return short(_ID_PREFIX.sub("", text, count=1) if _ID_PREFIX.match(text) else text, 80)
    text = u.plain
    start = max(0, q.start - 45)
    cut = text.find(" ", start) if start else 0
    frag = text[(cut + 1 if cut >= 0 and start else 0): q.end]
    frag = re.sub(r"\s*\|\s*", " ", frag).strip()
    frag = _ID_PREFIX.sub("", frag, count=1) if _ID_PREFIX.match(frag) else frag
    return short(frag, 90)


_CONFLICT_WHY = {
    "retention": "one keeps the data longer than the other allows it to exist, so every record in the overlap breaks one of them on the day it ages past the shorter limit",
    "freshness": "a change waits up to a full cycle before the next pull picks it up, so the worst-case delay is the cycle length, longer than the limit",
    "deletion": "the design's own worst case for removing the data is longer than the deadline, so every case in between misses it",
    "timeout": "every slow call waits longer than the requirement allows before it is abandoned, which ties up workers and delays everything queued behind them",
    "rpo": "a failure just before the next backup loses everything written since the last one, which is more than the recovery point allows",
    "latency-sync": "a synchronous write across regions waits for an inter-region round trip on every request, and that round trip alone consumes a budget this small",
    "all-vs-none": "one states a rule for every case and the other forbids it for a subset, so the implementation has to break one of them",
}


def ra_conflicts(ctx: Ctx) -> None:
    conflicts = find_conflicts(ctx)
    per_req: dict[int, int] = {}
    for c in conflicts:
        if c.b_req is None:
            per_req[id(c.a_req)] = per_req.get(id(c.a_req), 0) + 1
    reported: set[int] = set()
    ctx.conflicted = {id(c.a_req) for c in conflicts} | {id(c.b_req) for c in conflicts if c.b_req is not None}
    for c in conflicts:
        a_label = c.a_req.rid or "a requirement"
        a_frag = _frag(c.a_unit, c.a_q)
        b_frag = _frag(c.b_unit, c.b_q)
        if c.b_req is not None:
            b_label = c.b_req.rid or "another requirement"
            ctx.add(Draft(
                title=f"Requirements {a_label} and {b_label} cannot both hold" if c.a_req.rid and c.b_req.rid else "Two requirements cannot both hold",
                severity="Critical", phase="calibrate",
                section=ctx.requirements.path_of(c.a_unit.line) if not ctx.requirements.empty else ctx.artifact.path_of(c.a_unit.line),
                issue=f"{a_label} ('{a_frag}') conflicts with {b_label} ('{b_frag}'): {_CONFLICT_WHY[c.kind]}.",
                why="The design inherits the conflict: whichever requirement it honours, it fails the other, and no design revision fixes that. Review of the design stalls until the requirements agree.",
                suggestion=f"Resolve the conflict in the requirements before design review continues: decide which of {a_label} and {b_label} wins, or scope one of them so the two no longer overlap, and record the decision.",
                evidence=quote_of(c.a_unit, c.a_q.raw if c.a_q else None), weight=10, key=f"conf:{c.a_req.line}:{c.b_req.line}",
            ))
        else:
            if id(c.a_req) in reported:
                continue
            reported.add(id(c.a_req))
            more = per_req[id(c.a_req)] - 1
            doc = ctx.artifact
            sev = "Critical" if c.a_req.priority == "must" else "Important"
            ctx.add(Draft(
                title=f"Design contradicts {a_label}" if c.a_req.rid else "Design contradicts a stated requirement",
                severity=sev, phase=ctx.work_phase if ctx.stage == "plan" else "design",
                section=doc.path_of(c.b_unit.line),
                issue=(f"The design states '{b_frag}', but {a_label} requires '{a_frag}': {_CONFLICT_WHY[c.kind]}."
                       + (f" {more} other statement{'s' if more > 1 else ''} in the design conflict with {a_label} the same way." if more else "")),
                why=f"The design fails {a_label} as written{' — a must requirement' if c.a_req.priority == 'must' else ''}; every case that hits the limit breaks it.",
                suggestion=f"Change the mechanism so its worst case fits inside {a_label} ('{a_frag}'), and show the worst-case arithmetic in this section.",
                evidence=quote_of(c.b_unit, c.b_q.raw if c.b_q else None), weight=9, key=f"dconf:{c.a_req.line}:{c.b_unit.line}",
            ))
    if not conflicts and len(ctx.reqset.reqs) >= 2:
        ctx.ok(f"Checked {len(ctx.reqset.reqs)} requirements for conflicting limits (retention, propagation, latency, all-versus-none) and found none")


def unit_terms(u: Sentence) -> set[str]:
    """Terms of a unit; a table row also carries its table's header words."""
    return term_set(u.plain + (" " + " ".join(u.header) if u.kind == "table" and u.header else ""))


def committed_units(doc: Doc) -> list[Sentence]:
    """Units that describe what will be built: not alternatives, later work or deferrals."""
    return [u for u in doc.units_with_code if not skip_context(doc, u) and not DEFERRAL.search(u.plain)]


def _coverage(ctx: Ctx, r: Req) -> tuple[float, bool, float]:
    doc = ctx.artifact
    dist = ctx.reqset.distinctive(r)
    if not dist:
        return 1.0, True, 1.0
    units = committed_units(doc)
    terms_by_unit = [(u.line, unit_terms(u)) for u in units]
    all_terms = set().union(set(), *(t for _, t in terms_by_unit))
    cov = len(dist & all_terms) / len(dist)
    nums = set().union(set(), *(numbers_in(u.plain) for u in units))
    nums_ok = (not r.numbers) or bool(r.numbers & nums)
    best_sec = 0.0
    for sec in doc.sections:
        if not (sec.level > 1 or len(doc.sections) < 4):
            continue
        end = subtree_end(doc.sections, sec)
        sec_terms = set().union(set(), *(t for line, t in terms_by_unit if sec.start_line <= line <= end))
        if sec_terms:
            best_sec = max(best_sec, len(dist & sec_terms) / len(dist))
    return cov, nums_ok, best_sec


def _deferral_for(ctx: Ctx, r: Req) -> Sentence | None:
    doc = ctx.artifact
    dist = ctx.reqset.distinctive(r) - {"futur", "iter", "releas", "first", "scop"}
    for u, m in doc.find(DEFERRAL, kinds=("para", "bullet", "table", "quote")):
        pool = [u] + [v for v in doc.neighbours(u, 1) if v is not u]
        sec = doc.section_of(u.line)
        t = set().union(*(term_set(v.plain) for v in pool)) | (term_set(sec.heading) if sec else set())
        t -= {"futur", "iter", "releas", "first", "scop", "add"}
        ov = dist & t
        if r.rid and r.rid in ids_referenced(" ".join(v.plain for v in pool)):
            return u
        if len(ov) >= 2 or (len(ov) >= 1 and len(ov) >= 0.5 * max(1, len(t & set(ctx.reqset.df)))):
            # prefer the unit of the pool that names the deferred thing
            best = max(pool, key=lambda v: len(term_set(v.plain) & dist))
            return best if term_set(best.plain) & dist else u
    return None


def ra_traceability(ctx: Ctx) -> None:
    if ctx.stage == "requirements":
        return
    rs = ctx.reqset
    doc = ctx.artifact
    if not rs.reqs:
        if not ctx.requirements.empty:
            ctx.add(Draft(
                title="Requirements state nothing the design can trace", severity="Important", phase="calibrate",
                section=ctx.requirements.title or "Requirements",
                issue="The requirements document has no requirement ids and no statements with must, shall, should or needs to, so no part of the design can be traced to a requirement.",
                why="Without checkable requirements every coverage judgement is opinion; gaps and gold-plating go unnoticed for the whole design.",
                suggestion="Number the requirements (R1, R2, …) and state each one as a verifiable must or should statement.",
                evidence=None, weight=3, key="noreqs"))
        return
    referenced = ids_referenced(doc.text) | {
        _canon_id(r.rid) for r in rs.reqs if r.rid and re.search(rf"(?<![\w-]){re.escape(r.rid)}(?![\w-])", doc.text)}
    conflicted = ctx.conflicted
    untraced: list[tuple[Req, str]] = []
    traced = 0
    for r in rs.reqs:
        if r.priority == "wont":
            continue
        if r.rid and _canon_id(r.rid) in referenced:
            traced += 1
            u = next((u for u in doc.units if re.search(rf"(?<![\w-]){re.escape(r.rid)}(?![\w-])", u.plain)), None)
            if u is not None and len(ctx.fine) < 12:
                ctx.ok(f"Requirement {r.rid} is referenced in '{doc.path_of(u.line)}'")
            continue
        cov, nums_ok, best_sec = _coverage(ctx, r)
        lead = req_label(r)
        compounds = {w.lower() for w in re.findall(r"\b[a-z]+(?:-[a-z]+){1,3}\b", lead, I)}
        missing_key = {c for c in compounds if c not in doc.lower and c.replace("-", " ") not in doc.lower}
        if missing_key and cov < 0.85:
            cov, best_sec = min(cov, 0.3), min(best_sec, 0.3)
        if (cov >= 0.6 and nums_ok) or best_sec >= 0.5 or (cov >= 0.45 and r.numbers and nums_ok):
            traced += 1
            if len(ctx.fine) < 12:
                what = f"{r.rid} ('{short(r.quote, 50)}')" if r.rid else r.label
                ctx.ok(f"{what} is covered by the design's wording ({int(round(cov * 100))}% of its key terms)")
            continue
        if id(r) in conflicted:
            continue
        untraced.append((r, "deferred" if _deferral_for(ctx, r) else "missing"))
        ctx.conflicted.add(id(r))
    total = sum(1 for r in rs.reqs if r.priority != "wont")
    missing = [r for r, how in untraced if how == "missing"]
    order = {"must": 0, "should": 1, "could": 2}
    for r, how in sorted(untraced, key=lambda t: (order.get(t[0].priority, 1), t[0].line)):
        if how == "deferred":
            u = _deferral_for(ctx, r)
            assert u is not None
            ctx.add(Draft(
                title=f"{r.rid or 'A requirement'} deferred without agreement",
                severity="Important" if r.priority == "must" else "Minor", phase=ctx.work_phase if ctx.stage == "plan" else "design",
                section=doc.path_of(u.line),
                issue=f"The design pushes {r.label} to a later release, but the requirements list it as {r.priority} and do not mark it optional; the design gives no reason and no owner for the deferral.",
                why=f"{r.label} ships missing with nobody having agreed to drop it; its stakeholders find out at launch.",
                suggestion=f"Either design {r.label} now, or record the descoping as an agreed change to the requirements with an owner and a date.",
                evidence=quote_of(u), weight=5, key=f"defer:{r.line}"))
            continue
        sev = {"must": "Critical", "should": "Important"}.get(r.priority, "Minor")
        where = "the plan" if ctx.stage == "plan" else "the design"
        ctx.add(Draft(
            title=f"{r.rid} is not addressed by {where.split()[-1]}" if r.rid else f"Requirement not addressed: {short(r.text, 50)}",
            severity=sev, phase=ctx.work_phase if ctx.stage == "plan" else "design",
            section=rs_path(ctx, r),
            issue=(f"{where.capitalize()} never references {r.label} and covers few of its key terms "
                   f"({', '.join(surface_words(r.text, ctx.reqset.distinctive(r) - doc.terms)[:5]) or 'none matched'} are absent)."),
            why=(f"{len(missing)} of {total} requirements have no trace in {where}; "
                 f"{r.label} is {'a must requirement, so the design fails acceptance without it' if r.priority == 'must' else 'left to chance in implementation'}."),
            suggestion=f"Add the part of {where} that satisfies {r.label}, and cite {r.rid or 'the requirement'} in that section so the trace is explicit.",
            evidence=r.quote, weight=6 if r.priority == "must" else 4, key=f"untraced:{r.line}"))
    if traced and total:
        ctx.ok(f"{traced} of {total} requirements trace to the design by id or wording")


def req_label(r: Req) -> str:
    """The bold label of a requirement item ('Point-in-time training sets'), without its id."""
    m = re.search(r"\*\*([^*]{3,80})\*\*|__([^_]{3,80})__", r.unit.text)
    if not m:
        return ""
    label = (m.group(1) or m.group(2)).strip()
    label = re.sub(r"^(?:" + _ID_DEF + r")\W*", "", label).strip(" .:—–-")
    return label if len(label) >= 3 else ""


def rs_path(ctx: Ctx, r: Req) -> str:
    return r.section or ctx.requirements.title or "Requirements"


def ra_anti_goals(ctx: Ctx) -> None:
    hits = nongoal_hits(ctx)
    doc = ctx.artifact
    for ng, sec, unit, overlap in hits:
        effort = next((u for u in doc.units if sec.start_line <= u.line <= subtree_end(doc.sections, sec) and EFFORT.search(u.plain)), None)
        effort = effort or next((u for u in doc.units if EFFORT.search(u.plain) and term_set(u.plain) & term_set(sec.heading)), None)
        ctx.add(Draft(
            title="Design builds what the requirements rule out of scope",
            severity="Important", phase="design", section=doc.path_of(unit.line),
            issue=(f"The design's section '{sec.heading}' takes on '{short(ng.unit.plain, 60)}', which the requirements list under "
                   f"'{ng.section.split(' > ')[-1]}'; no requirement asks for it."),
            why=("Effort goes to excluded work instead of the required scope" +
                 (f"; the design itself sizes it ('{short(effort.plain, 80)}')" if effort else "") + ", and the excluded feature adds components to build and run."),
            suggestion=f"Remove '{sec.heading}' from this design, or get the requirements changed first if the scope decision is wrong.",
            evidence=quote_of(unit), weight=7, key=f"nongoal:{sec.start_line}"))
    if ctx.reqset.nongoals and not hits and ctx.stage != "requirements":
        ctx.ok(f"The design stays clear of the {len(ctx.reqset.nongoals)} out-of-scope items in '{ctx.reqset.nongoals[0].section}'")


def ra_gold_plating(ctx: Ctx) -> None:
    if ctx.stage == "requirements" or not ctx.reqset.reqs:
        return
    doc = ctx.artifact
    req_terms = set().union(set(), *(r.terms for r in ctx.reqset.all))
    for u, m in all_matches(doc, GOLD_PLATING):
        if negated_before(u.plain, m.start()):
            continue
        t = term_set(u.plain) - {"futur", "proof", "bonus", "nice"}
        if not t:
            continue
        cov = len(t & req_terms) / len(t)
        if cov >= 0.5:
            continue
        component = bool(NEW_COMPONENT.search(u.plain) or INFRA.search(u.plain)
                         or re.search(r"\b(engines?|services?|clusters?|pipelines?|platforms?|frameworks?|databases?|modules?|dashboards?)\b", u.plain, I))
        ctx.add(Draft(
            title="Extra scope with no requirement behind it",
            severity="Important" if component else "Minor", phase="design", section=doc.path_of(u.line),
            issue=f"The design adds '{short(u.plain, 70)}', and no requirement asks for it ({int(round(cov * 100))}% of its key terms appear in the requirements).",
            why="Every unrequested feature costs build time, test time and upkeep that the required scope needs, and widens what can fail.",
            suggestion="Cut it from this design, or add it to the requirements with a priority and a reason so it is weighed against the rest.",
            evidence=quote_of(u, m.group(0)), weight=2, key=f"gold:{u.line}"))


HIDE_INSTEAD = rx(
    r"\b(suppress\w*|soft[- ]delet\w*|tombston\w*|filter(?:s|ed)? out|no longer (?:appear|visible|shown|returned|show up)|hid(?:e|es|den|ing)|"
    r"mask(?:s|ed|ing)?|flag(?:ged)? as deleted|mark(?:ed)? as deleted|deactivat\w*|inactive)\b"
)


def ra_hidden_not_deleted(ctx: Ctx) -> None:
    """A requirement demands deletion and the design hides, suppresses or deactivates instead."""
    doc = ctx.artifact
    if ctx.stage == "requirements":
        return
    for r in ctx.reqset.reqs:
        demands = [m for m in _DELETE.finditer(r.text) if not negated_before(r.text, m.start(), 30)
                   and m.group(0).lower() not in ("gone", "expire", "expires", "expired", "ages out")]
        if not demands or r.priority == "wont":
            continue
        dist = ctx.reqset.distinctive(r)
        candidates = []
        for u in committed_units(doc):
            m = HIDE_INSTEAD.search(u.plain)
            if not m or u.kind == "heading":
                continue
            sec = doc.section_of(u.line)
            near = term_set(u.plain) | (term_set(sec.heading) if sec else set())
            cites = bool(r.rid and sec and re.search(rf"(?<![\w-]){re.escape(r.rid)}(?![\w-])", sec.heading + " " + u.plain))
            if cites or len(near & dist) >= 2:
                candidates.append((not cites, -len(near & dist), -len(HIDE_INSTEAD.findall(u.plain)), u.line, u, m))
        for *_, u, m in sorted(candidates, key=lambda t: t[:4])[:1]:
            sev = "Critical" if r.priority == "must" else "Important"
            ctx.add(Draft(
                title=f"Design hides data that {r.rid or 'a requirement'} requires deleted",
                severity=sev, phase="design", section=doc.path_of(u.line),
                issue=(f"{r.label} requires the data to be deleted, but the design '{clause(u.plain, m, 100)}': "
                       "the data still exists, and every copy, export and access path outside this filter still reaches it."),
                why=f"Hiding is not deletion: {r.label} is not met, and the first audit or breach shows the data is still held.",
                suggestion=f"Delete (or irreversibly destroy access to) the data itself to satisfy {r.label}, or get the requirement changed if hiding is acceptable.",
                evidence=quote_of(u, m.group(0)), weight=8, key=f"hidden:{r.line}"))
            ctx.conflicted.add(id(r))
            return


PRECONDITION = rx(r"\b(?:only (?:after|when|once|if)|not (?:before|until)|no earlier than|(?:must|shall) (?:first|be preceded by))\b")


def ra_preconditions(ctx: Ctx) -> None:
    """A requirement allows an action only after a condition; the design or plan does the action without it."""
    if ctx.stage == "requirements":
        return
    doc = ctx.artifact
    for r in ctx.reqset.reqs:
        for ru in [r.unit] + r.extra:
            m = PRECONDITION.search(ru.plain)
            if not m:
                continue
            text = re.sub(r"\s*\|\s*", " ", ru.plain)
            m = PRECONDITION.search(text)
            before, after = text[:m.start()], re.split(r"(?<!\d)[.;](?!\d)", text[m.end():])[0]
            clause_before = re.split(r"[.;:]", before)[-1].strip()
            clause_before = _ID_PREFIX.sub("", clause_before, count=1).strip() if _ID_PREFIX.match(clause_before) else clause_before
            tail = [w for w in words(clause_before) if w.lower() not in STOPWORDS and w.lower() not in ("is", "are", "be")]
            if not tail:
                continue
            verb = stem(tail[-1])
            condition = term_set(after)
            if len(condition) < 2 or len(verb) < 4:
                continue
            for u in committed_units(doc):
                if u.kind == "heading" or verb not in term_set(u.plain):
                    continue
                pool = term_set(" ".join(v.plain for v in doc.neighbours(u, 2)))
                if len(pool & condition) >= 0.5 * len(condition):
                    continue
                word = next((w for w in words(u.plain) if stem(w) == verb), "")
                sev = "Critical" if r.priority == "must" else "Important"
                ctx.add(Draft(
                    title=f"Action taken without the precondition {r.rid or 'a requirement'} sets",
                    severity=sev, phase="design", section=doc.path_of(u.line),
                    issue=(f"{r.label} allows '{short(clause_before, 50)}' only {short(m.group(0)[5:] + ' ' + after, 70)}; "
                           f"the {'plan' if ctx.stage == 'plan' else 'design'} does it ('{short(u.plain, 70)}') with no step that meets that condition."),
                    why=f"The safeguard {r.label} demands is skipped, so the first problem it exists to catch reaches production with no way back.",
                    suggestion=f"Add the step that satisfies the condition of {r.label} before '{word or 'this step'}', and make it the gate for that step.",
                    evidence=quote_of(u, word or None), weight=8, key=f"pre:{r.line}"))
                ctx.conflicted.add(id(r))
                break


DISCARD = rx(r"\b(discard(?:s|ed|ing)?|dropped|drops (?:the|new|all|any|it|them|events?|messages?|records?)|thrown away|throws? away|silently (?:ignored|skipped)|"
             r"(?:is|are|get|gets) lost|not (?:be )?written|skipped)\b")
KEEP_GUARANTEE = rx(r"\b(at[- ]least[- ]once|never (?:be )?lost|(?:is|are|be) not lost|no \w+ (?:may|must|shall|can) be lost|may be lost|retain\w*|kept|guarantee\w*|durab\w*|every \w+ is (?:delivered|recorded|stored|kept))\b")


def ra_discarded_data(ctx: Ctx) -> None:
    """The design throws away data that a requirement says must be kept or delivered."""
    doc = ctx.artifact
    if ctx.stage == "requirements":
        return
    guards = [r for r in ctx.reqset.reqs if KEEP_GUARANTEE.search(r.text)]
    if not guards:
        return
    for u in committed_units(doc):
        m = DISCARD.search(u.plain)
        if not m or u.kind == "heading" or negated_before(u.plain, m.start(), 40):
            continue
        if re.search(r"\b(otherwise|unless|if not|in case)\b", u.plain[max(0, m.start() - 60): m.end() + 30], I):
            continue
        if re.search(r"\b(catch\w*|detect\w*|alert\w*|monitor\w*|measur\w*)\b", u.plain, I):
            continue
        sec = doc.section_of(u.line)
        t = term_set(u.plain) | (term_set(sec.heading) if sec else set())
        best = max(guards, key=lambda r: len(t & ctx.reqset.distinctive(r)))
        if not t & ctx.reqset.distinctive(best):
            continue
        sev = "Critical" if best.priority == "must" else "Important"
        ctx.add(Draft(
            title=f"Design discards data that {best.rid or 'a requirement'} requires kept",
            severity=sev, phase="design", section=doc.path_of(u.line),
            issue=f"The design states '{clause(u.plain, m, 100)}', while {best.label} requires '{short(best.quote, 80)}'.",
            why=f"Every discarded item is lost for good: {best.label} fails silently, and the loss surfaces only when a customer notices what never arrived.",
            suggestion=f"Keep the data on that path (store it, delay it or dead-letter it) for as long as {best.label} requires, and alert when the path is taken.",
            evidence=quote_of(u, m.group(0)), weight=8, key=f"discard:{u.line}"))
        ctx.conflicted.add(id(best))
        return


def ra_partial(ctx: Ctx) -> None:
    """A requirement the design addresses in part: one of its sentences has no counterpart."""
    if ctx.stage == "requirements":
        return
    doc = ctx.artifact
    units = committed_units(doc)
    design_terms = set().union(set(), *(unit_terms(u) for u in units))
    referenced = ids_referenced(doc.text)
    design_durs = {round(q.seconds) for u in units for q in time_quantities(u.plain) if not _PERIOD_RX.fullmatch(q.raw)}
    common = {t for t, n in ctx.reqset.df.items() if n >= 3}
    n = 0
    for r in ctx.reqset.reqs:
        if r.priority == "wont" or not r.extra or id(r) in ctx.conflicted:
            continue
        parts = [r.unit] + r.extra
        for s in parts:
            others = set().union(set(), *(term_set(o.plain) for o in parts if o is not s))
            t = term_set(s.plain) - common - others
            if len(t) < 2:
                continue
            cov = len(t & design_terms) / len(t)
            nums = {round(q.seconds) for q in time_quantities(s.plain) if not _PERIOD_RX.fullmatch(q.raw)}
            have = design_durs
            cited = bool(r.rid and (_canon_id(r.rid) in referenced or re.search(rf"(?<![\w-]){re.escape(r.rid)}(?![\w-])", doc.text)))
            if cited and cov >= 0.2:
                continue
            if cov < 0.34 or (cov <= 0.5 and nums and not nums & have):
                n += 1
                ctx.add(Draft(
                    title=f"{r.rid or 'A requirement'} is only partly addressed",
                    severity="Important", phase="design", section=rs_path(ctx, r),
                    issue=(f"The design covers part of {r.label}, but nothing in it answers '{short(s.plain, 90)}' "
                           f"({', '.join(surface_words(s.plain, t - design_terms)[:4])}: not in the design)."),
                    why=f"The missing part of {r.label} ships unbuilt while the requirement looks covered at a glance.",
                    suggestion=f"Add the design for that part of {r.label} and cite {r.rid or 'the requirement'} where it is handled.",
                    evidence=quote_of(s), weight=3, key=f"partial:{r.line}"))
                break
        if n >= 3:
            return


def ra_default_violation(ctx: Ctx) -> None:
    doc = ctx.artifact
    for u, m in all_matches(doc, UNKNOWN_DEFAULT):
        action = term_set(u.plain[m.start():])
        for r in ctx.reqset.reqs:
            if not PROHIBITION.search(r.text):
                continue
            ov = (action & r.terms) - {"code", "default"}
            if len(ov) >= 1 and (len(term_set(u.plain) & r.terms) >= 2):
                ctx.add(Draft(
                    title=f"Default for unrecognised input can break {r.rid or 'a prohibition'}",
                    severity="Important", phase="design", section=doc.path_of(u.line),
                    issue=f"Unrecognised values take the permissive path ('{clause(u.plain, (m.start(), len(u.plain)), 110)}'), while {r.label} forbids that path for some values; any new value that belongs to the forbidden class breaks {r.rid or 'it'}.",
                    why=f"The breach happens silently, on exactly the inputs nobody planned for, and {r.label} is {r.priority}.",
                    suggestion=f"Default unrecognised values to the restrictive path that {r.label} allows, alert on each new value, and make the mapping fast to update.",
                    evidence=quote_of(u, m.group(0)), weight=6, key=f"default:{u.line}"))
                ctx.conflicted.add(id(r))
                break


def ra_testability(ctx: Ctx) -> None:
    _vague_requirements(ctx, phase="calibrate", title="Requirement cannot be verified as written")


def _vague_requirements(ctx: Ctx, phase: str, title: str) -> None:
    reqs = ctx.reqset.reqs
    count = 0
    for r in reqs:
        for u in [r.unit] + r.extra:
            m = VAGUE_REQ_WORDS.search(u.plain)
            if not m or re.search(r"\d", u.plain):
                continue
            count += 1
            if count > 4:
                break
            ctx.add(Draft(
                title=title, severity="Important" if r.priority == "must" else "Minor", phase=phase,
                section=rs_path(ctx, r),
                issue=f"{cap(r.label)} relies on '{m.group(0)}', which has no threshold, so no test can pass or fail it.",
                why="An unmeasurable requirement is accepted by opinion: the design cannot be checked against it and disputes surface at launch.",
                suggestion=f"Replace '{m.group(0)}' with a measurable target (a number, a percentile, a task-completion rate) and say how it is measured.",
                evidence=quote_of(u, m.group(0)), weight=3, key=f"vague:{u.line}"))
            break


def ra_duplicate_ids(ctx: Ctx) -> None:
    for rid, a, b in ctx.reqset.duplicate_ids:
        if plain(a.text) == plain(b.text):
            continue
        ctx.add(Draft(
            title=f"Requirement id {rid} is used twice", severity="Important", phase="calibrate", section=rs_path(ctx, b),
            issue=f"{rid} names two different requirements ('{short(a.text, 50)}' and '{short(b.text, 50)}').",
            why="Every trace, test and review comment that cites the id is ambiguous.",
            suggestion=f"Give the second requirement its own id and update references to {rid}.",
            evidence=b.quote, weight=2, key=f"dup:{rid}"))


# =============================================================================== edge case prober

def _ambiguous_outcome(ctx: Ctx, persona_view: str) -> None:
    """A timeout or lost response read as a definite failure, then retried."""
    doc = ctx.artifact
    dup = dup_sensitive_req(ctx)
    for u, m in all_matches(doc, TIMEOUT_DEFINITE):
        block = " ".join(v.plain for v in doc.neighbours(u, 1))
        retried = bool(RETRY.search(u.plain) or RETRY.search(block))
        new_key = re.search(r"\bnew (?:attempt|key|id|request id|idempotency key)|\battempt (?:number|no)\b", block + " " + doc.lower, I)
        sev = "Critical" if (retried and dup) else ("Important" if retried else "Minor")
        req_note = f" {dup.label} forbids exactly that." if dup else ""
        if persona_view == "assumption":
            title = "Timeout taken as proof the operation failed"
            issue = (f"The design treats '{clause(u.plain, m)}' as a known outcome. A timeout says only that no answer arrived: "
                     f"the other side has often completed the work.{' The retry then repeats it.' if retried else ''}{req_note}")
        else:
            title = "Unknown outcome after a timeout is retried as a failure"
            issue = (f"When the call times out the design {'retries' if retried else 'gives up'} as if nothing happened, with no step that checks whether the first call took effect."
                     f"{' The retry runs under a new attempt identity, so the receiver cannot deduplicate it.' if new_key and retried else ''}{req_note}")
        ctx.add(Draft(
            title=title, severity=sev, phase="design", section=doc.path_of(u.line), issue=issue,
            why=("Each timed-out call that succeeded on the far side is executed twice; at any non-zero timeout rate this repeats every cycle"
                 + (f", breaking {dup.label}." if dup else ".")),
            suggestion=("Treat a timeout as unknown: retry with the same idempotency key as the original call, or query the operation's status before "
                        "scheduling another attempt, and only then count it as failed."),
            evidence=quote_of(u, m.group(0)), weight=9, key=f"timeout-outcome:{u.line}"))


def ec_timeout_outcome(ctx: Ctx) -> None:
    _ambiguous_outcome(ctx, "edge")


def ec_failure_handling(ctx: Ctx) -> None:
    doc = ctx.artifact
    triggers = all_matches(doc, EXTERNAL_CALL) + all_matches(doc, ASYNC_INFRA) + all_matches(doc, BATCH)
    if not triggers:
        return
    handling_secs = [h for h in doc.headings_matching(SEC_FAILURE) if h.level > 1 or len(doc.sections) < 3]
    handling_units = [u for u, _ in all_matches(doc, HANDLING, skip_ctx=False)]
    if handling_secs or handling_units:
        where = f"'{handling_secs[0].path}'" if handling_secs else f"'{doc.path_of(handling_units[0].line)}'"
        ctx.ok(f"Failure handling is described in {where}")
    else:
        u, m = sorted(triggers, key=lambda t: t[0].line)[0]
        kinds = sorted({k for k, p in (("remote calls", EXTERNAL_CALL), ("queues", ASYNC_INFRA), ("batch jobs", BATCH)) if any(p.search(t.plain) for t, _ in triggers)})
        ctx.add(Draft(
            title="No failure handling for remote dependencies", severity="Important", phase="design",
            section=doc.title or doc.path_of(u.line),
            issue=f"The design depends on {', '.join(kinds)} ({len(triggers)} mentions) and has no section or sentence on what happens when they fail, time out or return errors.",
            why="The first dependency outage turns into undefined behaviour: requests hang, work is lost or repeated, and on-call has no documented response.",
            suggestion="Add a failure-handling section: for each dependency state the timeout, the retry policy, the fallback or degraded mode, and the alert.",
            evidence=quote_of(u, m.group(0)), weight=5, key="no-failure-handling"))
    # remote calls without a timeout
    calls = all_matches(doc, REMOTE_CALL)
    if calls and not design_has(doc, TIMEOUT_WORD) and (handling_secs or handling_units):
        u, m = calls[0]
        budget = next((r for r in ctx.reqset.reqs for uu, q in _quantities_by_unit([r.unit] + r.extra) if "latency" in _topics(uu.plain, q)), None)
        ctx.add(Draft(
            title="Remote calls have no timeout", severity="Important" if budget else "Minor", phase="design", section=doc.path_of(u.line),
            issue=f"The design makes remote calls ('{short(m.group(0), 40)}') and never states a timeout or deadline for any of them.",
            why="One slow dependency holds threads and connections until the caller itself stops answering; the failure spreads upstream.",
            suggestion="Set an explicit timeout per remote call, below the caller's own latency budget, and say what happens when it fires.",
            evidence=quote_of(u, m.group(0)), weight=3, key="no-timeout"))


def ec_retries(ctx: Ctx) -> None:
    doc = ctx.artifact
    retries = all_matches(doc, RETRY)
    if not retries:
        return
    writes = [(u, m) for u, m in retries if WRITE_OP.search(" ".join(v.plain for v in doc.neighbours(u, 1))) and not (READ_ONLY.search(u.plain) and not WRITE_OP.search(u.plain))]
    writes.sort(key=lambda t: (doc.in_section_like(t[0], SEC_GOAL) or doc.in_section_like(t[0], rx(r"\bchanges?\b")), t[0].line))
    dup = dup_sensitive_req(ctx)
    if writes and not design_has(doc, IDEMPOTENT):
        u, m = writes[0]
        ctx.add(Draft(
            title="Retries without idempotency", severity="Critical" if dup else "Important", phase="design", section=doc.path_of(u.line),
            issue=f"The design retries a write ('{short(u.plain, 70)}') and never makes the write idempotent or deduplicated.",
            why=("A retry after a lost acknowledgement performs the write twice" + (f", which breaks {dup.label}." if dup else "; duplicates reach users and downstream systems.")),
            suggestion="Attach an idempotency key that stays the same across retries of one logical operation, and deduplicate on it at the receiver.",
            evidence=quote_of(u, m.group(0)), weight=6, key="retry-idem"))
    elif writes:
        iu = next((u for u in doc.units if IDEMPOTENT.search(u.plain)), None)
        if iu is not None:
            ctx.ok(f"Retried writes are paired with idempotency in '{doc.path_of(iu.line)}'")
    volatile = [(u, m) for u, _ in retries for m in [RETRY_IN_MEMORY.search(u.plain)] if m and not negated_before(u.plain, m.start(), 30)]
    persisted = rx(r"\b(persist\w*|durabl\w*|stored? in (?:the )?(?:database|db|postgres|table)|next_attempt\w*|delay(?:ed)? queue|scheduled message)\b")
    volatile = [(u, m) for u, m in volatile if not any(persisted.search(v.plain) for v in doc.units_under([doc.section_of(u.line)]) if doc.section_of(u.line))]
    if volatile:
        u, m = volatile[0]
        ctx.add(Draft(
            title="Retry state lives only in the worker's memory", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"Retries wait inside the worker ('{short(m.group(0), 40)}'), so the schedule exists only in that process and a restart or deploy resets or loses it.",
            why="Every deploy restarts every pending retry schedule; long retry windows never complete, and a busy worker holds its message the whole time.",
            suggestion="Persist the next attempt time with the message (a table row, a delay queue) and release the worker between attempts.",
            evidence=quote_of(u, RETRY), weight=4, key="retry-memory"))
    forever = all_matches(doc, RETRY_FOREVER)
    if forever:
        u, m = forever[0]
        ctx.add(Draft(
            title="Retries never stop", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"The design retries without a limit ('{short(m.group(0), 60)}'); a permanent error is retried for ever.",
            why="A poison request consumes capacity indefinitely and hides the failure from alerts; during an outage retries multiply the load.",
            suggestion="Cap the attempts, back off exponentially with jitter, and move exhausted work to a dead-letter store with an alert.",
            evidence=quote_of(u, m.group(0)), weight=4, key="retry-forever"))
    elif not design_has(doc, RETRY_BOUND):
        u, m = retries[0]
        ctx.add(Draft(
            title="Retry policy has no bound or backoff", severity="Minor", phase="design", section=doc.path_of(u.line),
            issue="The design retries but states no maximum number of attempts and no backoff.",
            why="Unbounded immediate retries amplify an outage of the dependency they target.",
            suggestion="State the attempt limit, the backoff schedule and what happens after the last attempt.",
            evidence=quote_of(u, m.group(0)), weight=1, key="retry-bound"))


def ec_queues_caches(ctx: Ctx) -> None:
    doc = ctx.artifact
    queues = all_matches(doc, ASYNC_INFRA)
    queues.sort(key=lambda t: (doc.in_section_like(t[0], rx(r"\b(changes?|changelog|history|since)\b")), t[0].line))
    if queues and not design_has(doc, QUEUE_SAFETY):
        u, m = queues[0]
        ctx.add(Draft(
            title="Queue consumers have no poison-message or backlog handling", severity="Minor", phase="design", section=doc.path_of(u.line),
            issue=f"The design consumes from '{short(m.group(0), 30)}' but says nothing about messages that fail repeatedly, consumer lag, or a growing backlog.",
            why="One malformed message blocks its partition or loops for ever, and a backlog grows unseen until the data is hours late.",
            suggestion="Add a dead-letter path with an alert, and monitor consumer lag against the freshness the requirements need.",
            evidence=quote_of(u, m.group(0)), weight=1, key="queue"))
    caches = all_matches(doc, CACHE)
    cache_secs = {doc.section_of(u.line) for u, _ in caches}
    cache_safe = any((CACHE_SAFETY.search(u.plain) or (CACHE.search(u.plain) and re.search(r"\bfor (?:up to )?\d+\s?(?:ms|s|seconds?|minutes?|hours?|days?)\b", u.plain, I)))
                     and (CACHE.search(u.plain) or doc.section_of(u.line) in cache_secs) for u in doc.units)
    if caches and not cache_safe:
        reading = [(u, m) for u, m in caches if re.search(r"\b(poll\w*|read\w*|fetch\w*|serv\w*|through|get\w*|lookup\w*|hit\w*|cached)\b", u.plain, I)
                   and not re.search(r"\b(decommission\w*|remov\w*|delet\w*|retir\w*)\b", u.plain, I)]
        if not reading:
            return
        u, m = reading[0]
        freshness_req = next((r for r in ctx.reqset.reqs for uu, q in _quantities_by_unit([r.unit] + r.extra) if "propagate" in _topics(uu.plain, q)), None)
        ctx.add(Draft(
            title="Cached data has no staleness bound", severity="Important" if freshness_req else "Minor", phase="design", section=doc.path_of(u.line),
            issue=(f"Reads go through a cache ('{short(m.group(0), 30)}') and the design states no TTL, invalidation or cache-control rule, so nothing bounds how old a served value is."
                   + (f" {freshness_req.label} sets a freshness limit that the cache adds delay to." if freshness_req else "")),
            why="Clients keep serving old values after a change for as long as the cache holds them, which is invisible in testing and shows up in incidents.",
            suggestion="State the TTL or invalidation trigger for each cached object and include cache age in the worst-case freshness calculation.",
            evidence=quote_of(u, m.group(0)), weight=3 if freshness_req else 1, key="cache"))


def ec_inputs(ctx: Ctx) -> None:
    doc = ctx.artifact
    unb = all_matches(doc, UNBOUNDED)
    if unb and not design_has(doc, LIMITS):
        u, m = unb[0]
        ctx.add(Draft(
            title="Unbounded input or result size", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"The design handles '{short(m.group(0), 40)}' with no pagination, size cap or limit anywhere in the document.",
            why="The largest tenant or file decides memory use and response time; one oversized request degrades the service for everyone.",
            suggestion="Set explicit limits (page size, maximum payload, maximum items per request) and state the behaviour when a request exceeds them.",
            evidence=quote_of(u, m.group(0)), weight=3, key="unbounded"))
    lists = all_matches(doc, LIST_UI)
    if lists and not design_has(doc, EMPTY_STATE):
        u, m = lists[0]
        ctx.add(Draft(
            title="Empty and missing-data states are not described", severity="Minor", phase="design", section=doc.path_of(u.line),
            issue=f"The design shows '{short(m.group(0), 30)}' but never says what happens with no results, missing fields or a first-time user.",
            why="Empty and null cases are the first ones real users hit; undefined behaviour there reads as a broken product.",
            suggestion="Describe the empty, partial and error states for each user-facing list.",
            evidence=quote_of(u, m.group(0)), weight=0, key="empty"))
    conc = all_matches(doc, CONCURRENT)
    if conc and not design_has(doc, CONCURRENCY_SAFE):
        u, m = conc[0]
        ctx.add(Draft(
            title="Concurrent workers with no coordination", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"The design runs '{short(m.group(0), 40)}' and never says how they avoid processing the same item or overwriting each other.",
            why="Two workers picking the same item double the side effects; lost updates corrupt state without any error.",
            suggestion="State the coordination mechanism: row locks, leases, partitioning by key, or optimistic version checks.",
            evidence=quote_of(u, m.group(0)), weight=3, key="concurrency"))


def ec_unknown_default(ctx: Ctx) -> None:
    doc = ctx.artifact
    for u, m in all_matches(doc, UNKNOWN_DEFAULT):
        ctx.add(Draft(
            title="Unrecognised input takes a permissive default", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"Any value the design does not recognise goes down a default path ('{clause(u.plain, (m.start(), len(u.plain)), 110)}') instead of a safe one.",
            why="New or unexpected values arrive without notice; each one is processed on a path nobody chose for it.",
            suggestion="Send unrecognised values to the most restrictive path, alert on each new value, and make the mapping quick to update.",
            evidence=quote_of(u, m.group(0)), weight=5, key=f"unknown:{u.line}"))
        break


def ec_single_point(ctx: Ctx) -> None:
    _single_instance(ctx, "edge")


def _single_instance(ctx: Ctx, view: str) -> None:
    doc = ctx.artifact
    hits = [(u, m) for u, m in all_matches(doc, SINGLE_INSTANCE)
            if not re.search(r"\b\d+\s+(?:workers|instances|replicas|pods|nodes|servers)\b", u.plain, I)
            and not re.match(r"\s+(?:delivers|handles|processes|can|does|takes|serves|at a time)", u.plain[m.end():])]
    if not hits:
        return
    avail = next((r for r in ctx.reqset.reqs if AVAILABILITY_REQ.search(r.text)), None)
    load = next((r for r in ctx.reqset.reqs if LOAD_REQ.search(r.text) and r.numbers), None)
    target = avail if view == "edge" else (load or avail)
    if target is None:
        return
    u, m = hits[0]
    if view == "edge":
        ctx.add(Draft(
            title="Single instance is a single point of failure", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"The design runs '{clause(u.plain, m)}', so any crash, deploy or node loss stops the whole function until it restarts; {target.label} sets an availability target.",
            why="Every restart and every bad deploy is a full outage, and the work due during it piles up.",
            suggestion=f"Run at least two instances with the coordination already needed for safety, or show the restart arithmetic against {target.label}.",
            evidence=quote_of(u, m.group(0)), weight=4, key="spof"))
    else:
        ctx.add(Draft(
            title="Capacity rests on a single instance", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"The design sizes the system as '{clause(u.plain, m)}' without deriving that from {target.label} ('{short(target.quote, 70)}').",
            why="If the peak exceeds what one instance handles, work falls behind at exactly the moment it matters, and scaling out is untested.",
            suggestion=f"Derive throughput from the figures in {target.label}, including how the work is spread over time, and size the instances from that.",
            evidence=quote_of(u, m.group(0)), weight=4, key="single-capacity"))


# =============================================================================== assumption hunter

def ah_certainty(ctx: Ctx) -> None:
    doc = ctx.artifact
    req_doc = ctx.requirements if ctx.artifact is not ctx.requirements else _doc("none", "")
    load_req = next((r for r in ctx.reqset.reqs if LOAD_REQ.search(r.text) and r.numbers), None)
    seen_lines: set[int] = set()
    for kind, sev, pat in CERTAINTY:
        for u, m in all_matches(doc, pat):
            if u.line in seen_lines:
                continue
            if supported(doc, u, req_doc):
                ctx.ok(f"The claim '{short(u.plain, 60)}' cites data or a source in '{doc.path_of(u.line)}'")
                continue
            seen_lines.add(u.line)
            severity = sev
            backs_default = bool(UNKNOWN_DEFAULT.search(u.plain))
            if kind == "justification" and backs_default:
                severity = "Important"
            silent = ctx.req_for_terms(term_set(u.plain), 2) is None
            claim = clause(u.plain, m)
            title, why, sugg = {
                "load": ("Load ceiling asserted without evidence",
                         "If the real load exceeds the asserted ceiling, the sizing built on it fails at peak.",
                         "Derive the load from the requirements' figures or from measurements, and size for the peak, not the average."),
                "dependency": ("Dependency reliability taken as given",
                               "Every dependency fails sometimes; code written for one that never fails has no path for the day it does.",
                               "Replace the certainty with the dependency's documented SLA and design the behaviour for when it is breached."),
                "assume": ("Assumption stated but never validated",
                           "The design is only as sound as this assumption, and nothing in the document checks it or says what changes if it is false.",
                           "State how the assumption is validated (data, test, owner confirmation) and what the design does if it turns out false."),
                "users": ("User behaviour asserted, not shown",
                          "Adoption and behaviour claims decide whether the work pays off; unsupported, they justify scope nobody validated.",
                          "Back the claim with user research or usage data, or drop the argument that depends on it."),
                "justification": ("Decision rests on an unsourced generalisation",
                                  "The decision in this sentence holds only if the generalisation does; nothing in the document shows it does.",
                                  "Cite the data behind the generalisation, or choose the option that stays safe when it is false."),
                "exclusive": ("Claim that data lives only in one place is unchecked",
                              "If the claim is wrong, everything outside the named place escapes the controls the design applies there.",
                              "Show how the claim was verified (schema scan, data classification), and cover the fields it does not name."),
                "self-resolving": ("A case is declared to take care of itself",
                                   "The case the design skips still happens; when it does, nothing in the design handles it.",
                                   "Describe what happens in that case end to end, including restores and replays, and check it against the requirements."),
                "sufficiency": ("Sufficiency claimed without a check",
                                "A resource called sufficient without arithmetic is the first bottleneck nobody monitors.",
                                "Show the arithmetic behind the claim against the figures in the requirements, and alert before the limit."),
            }[kind]
            issue = f"The design states '{claim}' as settled fact, and nothing in or next to the sentence supports it."
            if kind == "load" and load_req is not None:
                issue += f" The requirements give load figures in {load_req.label} ('{short(load_req.quote, 70)}') that the claim does not derive from."
            if backs_default:
                issue += " The generalisation justifies a default path for unrecognised input."
            ctx.add(Draft(title=title, severity=severity, phase="design" if ctx.stage != "requirements" else "calibrate",
                          contributing="calibrate" if (silent and ctx.stage != "requirements") else None,
                          section=doc.path_of(u.line), issue=issue, why=why, suggestion=sugg,
                          evidence=quote_of(u, m.group(0)), weight={"Important": 4, "Minor": 1}.get(severity, 4) + (1 if kind == "load" else 0),
                          key=f"claim:{u.line}"))


def ah_timeout_outcome(ctx: Ctx) -> None:
    _ambiguous_outcome(ctx, "assumption")


def ah_dependencies(ctx: Ctx) -> None:
    doc = ctx.artifact
    req_terms = set().union(set(), *(r.terms for r in ctx.reqset.all + ctx.reqset.goals))
    n = 0
    for u, m in all_matches(doc, DEPENDENCY):
        pool = " ".join(v.plain for v in doc.neighbours(u, 1))
        t = term_set(u.plain)
        if COMMITMENT.search(pool) or len(t & req_terms) >= max(3, int(0.6 * len(t))):
            ctx.ok(f"The dependency in '{doc.path_of(u.line)}' is backed by the requirements or a stated commitment")
            continue
        if any(f.key == f"claim:{u.line}" for f in ctx.findings):
            continue
        n += 1
        if n > 1:
            break
        ctx.add(Draft(
            title="Dependency on another team or system taken as given", severity="Minor", phase="design",
            contributing="calibrate" if ctx.stage != "requirements" else None, section=doc.path_of(u.line),
            issue=f"The design relies on '{clause(u.plain, m)}' with no agreement, owner or SLA recorded, and the requirements do not state it.",
            why="If the other party's plans, capacity or behaviour differ, this part of the design has nothing to fall back on and the schedule slips with it.",
            suggestion="Record the dependency with its owner and the commitment obtained (API, capacity, dates), or design a fallback.",
            evidence=quote_of(u, m.group(0)), weight=1, key=f"dep:{u.line}"))


def ah_unsourced_numbers(ctx: Ctx) -> None:
    doc = ctx.artifact
    if doc is ctx.requirements:
        return
    n = 0
    for u in doc.body_units():
        if skip_context(doc, u) or u.kind == "code":
            continue
        m = NUMBER_CONCLUSION.search(u.plain)
        nums = numbers_in(u.plain)
        if not m or not nums or nums & ctx.requirements.numbers or supported(doc, u, ctx.requirements):
            continue
        if any(f.key == f"claim:{u.line}" for f in ctx.findings):
            continue
        n += 1
        if n > 2:
            break
        ctx.add(Draft(
            title="Conclusion drawn from a number with no source", severity="Minor", phase="design", section=doc.path_of(u.line),
            issue=f"The design concludes '{short(m.group(0), 40)}' from figures that appear nowhere in the requirements and carry no source.",
            why="If the figure is wrong, the conclusion and the sizing built on it are wrong too, and nobody knows to re-check them.",
            suggestion="Cite where the figure comes from (measurement, vendor documentation, load test) or mark it as an estimate to verify before launch.",
            evidence=quote_of(u, m.group(0)), weight=0, key=f"num:{u.line}"))


# =============================================================================== feasibility skeptic

def fs_vague_claims(ctx: Ctx) -> None:
    doc = ctx.artifact
    for topic, pat in VAGUE.items():
        hits = [(u, m) for u, m in all_matches(doc, pat) if not re.search(r"\d", u.plain) and not negated_before(u.plain, m.start(), 25)]
        if not hits:
            continue
        u, m = hits[0]
        target = next((r for r in ctx.reqset.reqs if VAGUE_REQ_TOPIC[topic].search(r.text) and r.numbers), None)
        words_used = sorted({mm.group(0).lower() for _, mm in hits})[:4]
        ctx.add(Draft(
            title=f"{topic.capitalize()} claimed without a number", severity="Important" if target else "Minor", phase="design",
            section=doc.path_of(u.line),
            issue=(f"The design calls itself {', '.join(repr(w) for w in words_used)} ({len(hits)} place{'s' if len(hits) > 1 else ''}) without a figure."
                   + (f" {target.label} sets a number ('{short(target.quote, 60)}') that the design never shows it meets." if target else "")),
            why="An adjective cannot be checked against a requirement or a load test, so the gap shows up only in production.",
            suggestion=(f"State the expected figure and how it was derived, and compare it with {target.label}." if target
                        else "Replace the adjective with the expected figure (latency percentile, throughput, cost per month) and how it was derived."),
            evidence=quote_of(u, m.group(0)), weight=2 if target else 0, key=f"vague:{topic}"))


def fs_costs(ctx: Ctx) -> None:
    doc = ctx.artifact
    infra_new = []
    for u, m in all_matches(doc, INFRA):
        if re.search(r"\b(existing|current|already|today)\b", u.plain, I):
            continue
        infra_new.append((u, m))
    commodity = {"postgres", "postgresql", "mysql", "redis", "prometheus", "grafana", "kubernetes", "k8s"}
    names = sorted({mm.group(0).lower() for u, _ in infra_new for mm in INFRA.finditer(u.plain)} - commodity)
    ops = all_matches(doc, OPERATE)
    has_estimate = design_has(doc, ESTIMATE)
    if (len(names) >= 2 or ops) and not has_estimate:
        u, m = (ops or infra_new)[0]
        ctx.add(Draft(
            title="Operating cost of new infrastructure has no estimate", severity="Important", phase="design" if ctx.stage != "plan" else "plan",
            section=doc.path_of(u.line),
            issue=f"The design brings in {', '.join(names) if names else short(m.group(0), 40)} to run and operate, and gives no estimate of hosting cost, build effort or on-call load.",
            why="Running stateful infrastructure costs money and people every month after launch; without an estimate nobody can weigh it against a simpler option.",
            suggestion="Add a cost section: monthly hosting, build effort, and who is on call for each new piece, compared with the managed or simpler alternative.",
            evidence=quote_of(u, m.group(0)), weight=3, key="cost"))
    n_reqs = len([r for r in ctx.reqset.reqs if r.priority != "wont"])
    new_components = all_matches(doc, NEW_COMPONENT)
    n_comp = len({m.group(0).lower() for _, m in new_components}) + len(names)
    if n_reqs and n_comp >= 5 and n_comp > n_reqs:
        u, m = (new_components or infra_new)[0]
        ctx.add(Draft(
            title="More moving parts than requirements", severity="Important", phase="design", section=doc.path_of(u.line),
            issue=f"The design introduces {n_comp} new components or technologies for {n_reqs} requirements.",
            why="Each component adds deployment, monitoring and failure modes; the team pays that cost for as long as the system lives.",
            suggestion="Map each component to the requirement it serves and remove the ones without one; prefer extending an existing system for the rest.",
            evidence=quote_of(u, m.group(0)), weight=2, key="components"))
    for ng, sec, unit, _ in nongoal_hits(ctx):
        end = subtree_end(doc.sections, sec)
        effort = next((u for u in doc.units if EFFORT.search(u.plain) and (sec.start_line <= u.line <= end or term_set(u.plain) & term_set(sec.heading))), None)
        if effort is None:
            continue
        em = EFFORT.search(effort.plain)
        ctx.add(Draft(
            title="Large share of effort goes to excluded scope", severity="Important", phase="design", section=doc.path_of(effort.line),
            issue=f"The design's own estimate puts a large share of the work ('{short(em.group(0), 50)}') into '{sec.heading}', which the requirements exclude.",
            why="That effort delays the required scope by the same amount, and the excluded part adds infrastructure to build and run.",
            suggestion=f"Drop '{sec.heading}' and re-plan the required scope with the freed effort; if it matters, propose it as a separate change to the requirements.",
            evidence=quote_of(effort, em.group(0)), weight=6, key=f"effort:{sec.start_line}"))
    if has_estimate:
        eu = next((u for u in doc.units if ESTIMATE.search(u.plain)), None)
        if eu is not None:
            ctx.ok(f"The design gives cost or effort figures in '{doc.path_of(eu.line)}'")


BULK_SINGLE = rx(
    r"\b(delet\w*|updat\w*|backfill\w*|migrat\w*|rewrit\w*|DELETE|UPDATE)\b[^.;]{0,90}\b(?:in|inside|within) (?:a |one )?(?:single )?transaction\b"
    r"|\b(?:one|a single) (?:statement|transaction) per (?:table|dataset)\b|\bonce per table inside a transaction\b"
)
VOLUME = rx(r"\b\d[\d,.]*\s?(?:million|billion|bn|[mMbB]|TB|GB)\b|\b\d[\d,.]*\s?(?:million|billion) rows\b")
BATCHED = rx(r"\b(batch(?:es|ed)? of|in batches|chunk\w*|limit \d|paginat\w*|keyset|\d+ rows at a time)\b")


def fs_bulk_operations(ctx: Ctx) -> None:
    doc = ctx.artifact
    if not design_has(doc, VOLUME):
        return
    for u, m in all_matches(doc, BULK_SINGLE):
        if BATCHED.search(" ".join(v.plain for v in doc.neighbours(u, 1))):
            continue
        ctx.add(Draft(
            title="Bulk change runs as one statement or transaction", severity="Minor", phase="plan", section=doc.path_of(u.line),
            issue=f"The design runs '{clause(u.plain, m, 90)}' over tables the document sizes in millions of rows or terabytes, with no batching.",
            why="One huge statement holds locks for its whole run, bloats the table and its log, and delays replicas; a failure rolls everything back.",
            suggestion="Process the change in bounded batches with a checkpoint, and measure lock time and replication lag on a production-sized copy.",
            evidence=quote_of(u, m.group(0)), weight=1, key=f"bulk:{u.line}"))
        return


RATE = re.compile(
    r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(?P<mult>[kKmM]\b)?(?:\s?[a-zA-Z][a-zA-Z-]*){0,2}?\s?"
    r"(?:(?P<per>/\s?s(?:ec)?|per second|a second|/\s?min|per minute|a minute|/\s?h(?:r|our)?|per hour|an hour)\b|(?P<rps>rps|qps|tps)\b)",
    re.I,
)
CAPACITY_WORDS = rx(r"\b(gives?|deliver\w*|handles?|process\w*|throughput|capacity|sustains?|max(?:imum)?|can do|supports?|serves?)\b")


def rates(text: str) -> list[tuple[float, re.Match[str]]]:
    """Rates written in ``text`` ('3,000 events/s', '130 requests per second'), per second."""
    out = []
    for m in RATE.finditer(text):
        val = float(m.group("num").replace(",", ""))
        if m.group("mult"):
            val *= 1000 if m.group("mult") in "kK" else 1_000_000
        per = (m.group("per") or "s").lower().replace(" ", "")
        div = 60.0 if ("min" in per or "minute" in per) else 3600.0 if ("h" in per and "sec" not in per) else 1.0
        out.append((val / div, m))
    return out


def fs_capacity_vs_peak(ctx: Ctx) -> None:
    """The design's own throughput figure is below the peak rate the requirements state."""
    doc = ctx.artifact
    peak = None
    for r in ctx.reqset.reqs:
        for u in [r.unit] + r.extra:
            if not LOAD_REQ.search(u.plain) and not re.search(r"\b(at least|support|handle|absorb|sustain)\b", u.plain, I):
                continue
            for val, m in rates(u.plain):
                if peak is None or val > peak[0]:
                    peak = (val, m, r, u)
    if peak is None:
        return
    need, pm, r, _ = peak
    for u in committed_units(doc):
        if u.kind == "heading" or not CAPACITY_WORDS.search(u.plain):
            continue
        found = rates(u.plain)
        if not found:
            continue
        have, hm = max(found, key=lambda t: t[0])
        if have >= need * 0.9:
            return
        ctx.add(Draft(
            title="Stated capacity is below the required peak", severity="Critical" if r.priority == "must" else "Important",
            phase="design", section=doc.path_of(u.line),
            issue=(f"The design's own figure is '{hm.group(0).strip()}', while {r.label} asks for '{pm.group(0).strip()}'; "
                   "as specified, the system falls behind at peak and the backlog grows for as long as the peak lasts."),
            why=f"Work queues up at exactly the moment {r.label} is about, so every latency and freshness target downstream of it fails too.",
            suggestion=f"Size the system from the peak in {r.label}, show the arithmetic (per-worker rate, worker count, headroom), and test it at that load.",
            evidence=quote_of(u, hm.group(0)), weight=6, key=f"rate:{u.line}"))
        return


def fs_single_instance(ctx: Ctx) -> None:
    _single_instance(ctx, "capacity")


def fs_plan_estimates(ctx: Ctx) -> None:
    tasks = plan_tasks(ctx.artifact)
    if len(tasks) < 3:
        return
    if not design_has(ctx.artifact, rx(r"\b(\d+\s?(?:d|days?|weeks?|wks?|hours?|h|points?|sprints?)|estimate\w*|deadline|due|milestone|by (?:q[1-4]|\w+ \d))\b")):
        u = tasks[0][1]
        ctx.add(Draft(
            title="Plan has no estimates or dates", severity="Minor", phase="plan", section=ctx.artifact.path_of(u.line),
            issue=f"The plan lists {len(tasks)} tasks and no estimate, milestone or date for any of them.",
            why="Without sizes nobody can see the critical path or notice slippage until the deadline passes.",
            suggestion="Size each task and mark the tasks on the critical path.",
            evidence=quote_of(u), weight=1, key="estimates"))


# =============================================================================== first principles

def fp_problem_statement(ctx: Ctx) -> None:
    doc = ctx.artifact
    if doc.empty:
        return
    goal_secs = doc.headings_matching(SEC_GOAL)
    early = [u for u in doc.body_units()[:8]]
    if goal_secs or any(PROBLEM_SENTENCE.search(u.plain) for u in early):
        where = goal_secs[0].path if goal_secs else doc.path_of(early[0].line)
        ctx.ok(f"The document states its purpose in '{where}'")
        return
    what = "requirements" if doc is ctx.requirements else "design"
    ctx.add(Draft(
        title="The problem being solved is never stated", severity="Important", phase="survey",
        section=doc.title or "(top of document)",
        issue=f"The {what} has no goal, problem or background section and does not say what problem it solves or for whom before describing the solution.",
        why="Reviewers cannot judge whether the approach fits, and the team cannot tell when the work is done; solution-first documents routinely solve the wrong problem.",
        suggestion=f"Open the {what} with the problem, who has it, what it costs today, and the outcome that counts as solved.",
        evidence=None, weight=4, key="no-problem"))


ANECDOTE = rx(r"\b(told us|tell us|complain\w*|we (?:hear|heard)|anecdot\w*|in (?:the )?[#\w-]*\s?slack|said (?:they|that)|feel(?:s|ing)? that|"
              r"people say|users say|feedback (?:is|was) that|gut feeling|everyone knows|it is (?:well )?known)\b")
ANECDOTE_WEAK = rx(r"\b(frustrat\w*|painful|annoying|confusing)\b")
MEASURED = rx(r"(\d(?:\.\d+)?\s?%|\b\d[\d,.]*\s?(?:ms|seconds?|minutes?|hours?|days?|tickets?|incidents?|requests?|deploys?|times)\b|"
              r"\b(?:measured|data|metrics?|survey(?:ed)?|analy[sz]\w+|logs show|we counted|median|p\d\d|average)\b)")


def fp_anecdotal_problem(ctx: Ctx) -> None:
    """The problem statement rests on anecdotes, with no measurement of the problem itself."""
    for doc in ctx.framing_docs:
        secs = [s for s in doc.headings_matching(SEC_GOAL) if s.level > 1 or len(doc.sections) < 3]
        units = [u for u in doc.units_under(secs) if u.kind != "heading"] or doc.body_units()[:6]
        anecdotes = [(u, m) for u in units for m in [ANECDOTE.search(u.plain)] if m]
        if not anecdotes:
            continue
        anecdotes += [(u, m) for u in units for m in [ANECDOTE_WEAK.search(u.plain)] if m and not ANECDOTE.search(u.plain)]
        if any(MEASURED.search(u.plain) for u in units if not (ANECDOTE.search(u.plain) or ANECDOTE_WEAK.search(u.plain))):
            continue
        u, m = anecdotes[0]
        ctx.add(Draft(
            title="Problem rests on anecdotes, not data", severity="Important", phase="survey", section=doc.path_of(u.line),
            issue=(f"The case for the work is '{clause(u.plain, m, 90)}', and the problem statement gives no measurement of how often "
                   "the problem happens, how much it costs, or where it comes from."),
            why="Without a measured problem the team cannot tell whether the proposed solution addresses the real cause, or whether it worked afterwards.",
            suggestion="Measure the problem before committing to a solution: how often it happens, for whom, and which step causes it; use that as the baseline.",
            evidence=quote_of(u, m.group(0)), weight=4, key="anecdote"))
        return


def fp_success_criteria(ctx: Ctx) -> None:
    if ctx.stage == "requirements":
        return
    doc = ctx.artifact
    misses = []
    for s in ctx.reqset.success:
        lead = re.split(r"[(:—–]| - ", s.unit.plain)[0]
        lead_terms = term_set(" ".join(lead.split()[:5]))
        if len(lead_terms) < 2:
            continue
        if len(lead_terms & doc.terms) / len(lead_terms) < 0.34:
            misses.append(s)
        else:
            ctx.ok(f"Success criterion '{short(s.text, 50)}' is reflected in the design")
    if misses:
        s = misses[0]
        ctx.add(Draft(
            title="Design never addresses the requirements' success criteria", severity="Important", phase="design",
            section=doc.title or "Design",
            issue=(f"{len(misses)} of {len(ctx.reqset.success)} success criteria have no counterpart in the design, starting with '{short(s.text, 70)}'. "
                   "The design optimises for something other than what the requirements will measure."),
            why="The project is judged on these criteria; a design that never mentions them delivers features and still fails its own goal.",
            suggestion="State in the design's goals how each success criterion is met and measured, and let that decide the priorities of the design.",
            evidence=s.quote, weight=4, key="success"))


OBJECTIVE = rx(r"\b(goals?|objectives?|aims?|purpose|we want to|this (?:design|job|service|system|project) (?:is meant|exists) to|success (?:is|means)|targets?)\b")
PRIMARY_OBJECTIVE = rx(r"\b(primary|main|core|overarching|key|overall|chief) (?:goal|objective|aim|purpose)\b")


def fp_objective_is_a_non_goal(ctx: Ctx) -> None:
    """The design states as its objective something the requirements list as a non-goal."""
    doc = ctx.artifact
    if ctx.stage == "requirements" or doc is ctx.requirements:
        return
    for u in committed_units(doc):
        if u.kind == "heading" or not (OBJECTIVE.search(u.plain) or doc.in_section_like(u, SEC_GOAL)):
            continue
        t = term_set(u.plain)
        for ng in ctx.reqset.nongoals:
            _, head = nongoal_terms(ctx, ng)
            if len(head) >= 2 and head <= t and not re.search(r"\b(not (?:a |an |the |our )?(?:goal|aim|objective)|non-goal|out of scope)\b", u.plain, I):
                primary = bool(PRIMARY_OBJECTIVE.search(u.plain))
                ctx.add(Draft(
                    title="Design's objective is one of the requirements' non-goals",
                    severity="Critical" if primary else "Important", phase="design", section=doc.path_of(u.line),
                    issue=(f"The design sets out to '{short(u.plain, 90)}', while the requirements list '{short(ng.unit.plain, 60)}' as a non-goal. "
                           "The design answers a different problem from the one the requirements pose, and what they do ask for becomes a side effect."),
                    why="Every later decision follows the stated objective, so the required outcomes are met only where they happen to coincide with it.",
                    suggestion="Restate the objective in the requirements' terms and rework the approach from it; if the non-goal matters, change the requirements first.",
                    evidence=quote_of(u), weight=9 if primary else 4, key=f"objective:{u.line}"))
                return


def fp_goal_drift(ctx: Ctx) -> None:
    """The design's goals take on a non-goal that the design body also builds."""
    doc = ctx.artifact
    hits = nongoal_hits(ctx)
    if not hits or any(f.key.startswith("objective:") for f in ctx.findings):
        return
    goal_units = [u for u in doc.units_under([s for s in doc.headings_matching(SEC_GOAL) if s.level > 1 or len(doc.sections) < 3])
                  if u.kind != "heading"] or doc.body_units()[:4]
    for ng, sec, _, _ in hits:
        full, head = nongoal_terms(ctx, ng)
        lead = term_set(" ".join(plain(ng.unit.plain).split()[:3])) & full
        for u in goal_units:
            if sec.start_line <= u.line <= sec.end_line:
                continue
            if term_set(u.plain) & (lead or head) and not NEGATION_NEAR.search(u.plain):
                ctx.add(Draft(
                    title="Design's objective includes what the requirements exclude", severity="Important", phase="design",
                    contributing="calibrate", section=doc.path_of(u.line),
                    issue=(f"The design's stated goal takes on '{short(ng.text, 50)}', which the requirements put out of scope, and '{sec.heading}' builds it. "
                           "The design is solving a broader problem than the one agreed."),
                    why="A different objective pulls every later decision toward scope nobody asked for, and the agreed problem gets the leftover effort.",
                    suggestion="Restate the design's goals in the requirements' terms; if the broader goal is right, take it back to the requirements first.",
                    evidence=quote_of(u), weight=3, key=f"drift:{u.line}"))
                return


# =============================================================================== prior art scout

def pa_build_own(ctx: Ctx) -> None:
    doc = ctx.artifact
    alt_secs = doc.headings_matching(SEC_ALTERNATIVES)
    any_research = bool(alt_secs) or any(ALTERNATIVES.search(u.plain) for u in doc.units)
    n = 0
    for u, m in all_matches(doc, BUILD_OWN):
        if negated_before(u.plain, m.start()) or doc.in_section_like(u, SEC_ALTERNATIVES):
            continue
        near = " ".join(v.plain for v in doc.neighbours(u, 2))
        if ALTERNATIVES.search(near):
            ctx.ok(f"The build decision '{short(m.group(0), 40)}' is weighed against alternatives in '{doc.path_of(u.line)}'")
            continue
        n += 1
        if n > 3:
            break
        crypto = bool(CRYPTO.search(u.plain))
        ctx.add(Draft(
            title="Custom build chosen with no alternatives weighed", severity="Critical" if crypto else "Important",
            phase="design" if any_research else "survey", contributing=None if any_research else None,
            section=doc.path_of(u.line),
            issue=(f"The design commits to '{clause(u.plain, m, 70)}' and compares it with no existing library, managed service or internal system."
                   + (" Security primitives built in-house are a known source of vulnerabilities." if crypto else "")),
            why="Building what already exists costs the build plus years of maintenance, and usually lands with fewer features and more bugs than the mature option.",
            suggestion="List the existing options (open-source, managed, internal), compare them on the requirements that matter, and record why building wins.",
            evidence=quote_of(u, m.group(0)), weight=5 if crypto else 3, key=f"build:{u.line}"))
    if alt_secs:
        ctx.ok(f"Alternatives are discussed in '{alt_secs[0].path}'")


def pa_rebuilds_existing(ctx: Ctx) -> None:
    doc = ctx.artifact
    for ng, sec, unit, _ in nongoal_hits(ctx):
        if not EXISTING_SYSTEM.search(ng.text):
            continue
        paren = re.findall(r"\(([A-Z][\w.-]*(?: [A-Z][\w.-]*){0,3})\)", ng.text)
        named = re.findall(r"\b(?:in|by|to) (?:the )?([A-Z][\w-]+(?: [A-Z][\w-]+)*)", ng.text)
        name = (paren or named or ["an existing system"])[0]
        ctx.add(Draft(
            title="Design rebuilds a capability the company already has", severity="Important", phase="design", section=doc.path_of(unit.line),
            issue=f"'{sec.heading}' re-creates work the requirements assign to {name}; the design does not say why that system cannot be used.",
            why="Two systems for one job split the data and the users, and the company pays to build and run the duplicate.",
            suggestion=f"Integrate with {name} (for example by sending it the data it needs) instead of rebuilding its function here.",
            evidence=quote_of(unit), weight=4, key=f"rebuild:{sec.start_line}"))


RESEARCH = rx(r"\b(alternatives?|considered|compared|comparison|evaluated|evaluation|instead of|rather than|versus|vs\.?|off[- ]the[- ]shelf|"
              r"open[- ]source|build (?:vs\.?|versus|or) buy|buy(?:ing)?|prior art|existing (?:solutions?|products?|libraries|library|services?|vendors?))\b")
BUILD_NEW = rx(r"\b(?:build|create|write|develop|introduce)\w* (?:a |an |our |the )?(?:new |single |custom |dedicated )?(?:[\w`-]+ ){0,2}"
               r"(tool|cli|command[- ]line tool|service|platform|library|framework|system|app|application|portal|engine)\b"
               r"|\bwhat we (?:want|plan|propose) to build\b")


def pa_requirements_research(ctx: Ctx) -> None:
    """At the requirements stage: a plan to build something with no look at what exists."""
    if ctx.stage != "requirements":
        return
    docs = ctx.framing_docs
    hit = next(((d, u, m) for d in docs for u in d.units for m in [BUILD_NEW.search(u.plain)] if m), None)
    if hit is None:
        return
    if any(RESEARCH.search(u.plain) for d in docs for u in d.units):
        ctx.ok("The documents compare the proposal with existing options")
        return
    d, u, m = hit
    ctx.add(Draft(
        title="No look at existing tools before deciding to build", severity="Minor", phase="survey", section=d.path_of(u.line),
        issue="The documents decide to build a new tool and never mention an existing product, open-source project or internal system that does the job.",
        why="The requirements get written around one solution; if an existing tool covers most of them, the build spends its effort on what the team can adopt instead.",
        suggestion="Survey the existing tools for this job, note what each covers against the requirements, and record why building wins.",
        evidence=None, weight=1, key="req-research"))


def pa_no_alternatives(ctx: Ctx) -> None:
    doc = ctx.artifact
    if ctx.stage == "plan":
        return
    if doc.empty or doc.headings_matching(SEC_ALTERNATIVES) or any(ALTERNATIVES.search(u.plain) for u in doc.units):
        return
    infra = all_matches(doc, INFRA) + all_matches(doc, NEW_COMPONENT)
    if len(infra) < 2:
        return
    u, m = infra[0]
    ctx.add(Draft(
        title="No alternatives considered anywhere", severity="Minor", phase="design", section=doc.title or doc.path_of(u.line),
        issue="The design names its technology choices but never mentions an alternative, an existing product or a reason for the choice.",
        why="Without the comparison, reviewers cannot tell a deliberate choice from a default, and cheaper options go unexamined.",
        suggestion="Add an alternatives section covering at least one existing product or managed service and why the chosen approach beats it.",
        evidence=quote_of(u, m.group(0)), weight=0, key="no-alternatives"))


# =============================================================================== product strategist

DELIVERY_EVENT = rx(r"\b(demo\w*|launch\w*|ship\w*|go[- ]live|release\w*|milestone|deliver(?:ed|y)? by)\b")


def ps_success_metric(ctx: Ctx) -> None:
    docs = ctx.framing_docs
    doc = docs[0]
    metric = rx(r"(\d(?:\.\d+)?\s?%|\b\d[\d,.]*\s?(?:ms|s|seconds?|minutes?|hours?|days?|weeks?|users?|customers?|per \w+|x)\b|\bnps\b|\bcsat\b|"
                r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|half an?|an?)\s+(?:hours?|minutes?|days?|weeks?|months?|quarters?)\b|"
                r"\b(?:zero|no more than|at least|under|below|fewer than|less than|doubl\w+|halv\w+)\b[^.]{0,30}\d)")
    success_units: list[tuple[Doc, Sentence]] = []
    for d in docs:
        success_units += [(d, u) for u in d.units_under(d.headings_matching(SEC_SUCCESS)) if u.kind != "heading"]
    measured = [(d, u) for d, u in success_units if metric.search(u.plain)]
    if measured:
        d, u = measured[0]
        ctx.ok(f"A measurable success criterion is stated in '{d.path_of(u.line)}'")
        return
    for d in docs:
        outcome = [u for u in d.units if re.search(r"\b(increase|reduce|improve|raise|cut|lower|grow|decrease)\w*\b", u.plain, I) and metric.search(u.plain)]
        if outcome:
            ctx.ok(f"A measurable outcome is stated in '{d.path_of(outcome[0].line)}'")
            return
    timeline = rx(r"\b(scope|timeline|schedule|plan|milestones?|success|dates?|when)\b")
    delivery = next(((d, u) for d in docs for u in d.body_units() if DELIVERY_EVENT.search(u.plain) and d.in_section_like(u, timeline)), None) or next(
        ((d, u) for d in docs for u in d.body_units() if DELIVERY_EVENT.search(u.plain) and d.in_section_like(u, SEC_GOAL)), None)
    where = success_units[0] if success_units else delivery
    issue = "The requirements never say which number moves, by how much, or by when, if the project works."
    if delivery is not None:
        issue += f" The only outcome named is a delivery event ('{short(delivery[1].plain, 70)}'), which shows the work shipped, not that it helped."
    ctx.add(Draft(
        title="No measurable success criterion", severity="Important", phase="calibrate",
        section=where[0].path_of(where[1].line) if where else (doc.title or "Requirements"),
        issue=issue,
        why="Without a target nobody can tell after launch whether the work paid off, and scope debates have no tie-breaker.",
        suggestion="Add one to three success metrics with a baseline, a target and a date.",
        evidence=quote_of(where[1], DELIVERY_EVENT if where is delivery else None) if where else None, weight=4, key="no-metric"))


def ps_vague_requirements(ctx: Ctx) -> None:
    _vague_requirements(ctx, phase="calibrate", title="Requirement uses an untestable adjective")


def ps_user(ctx: Ctx) -> None:
    doc = _doc("framing", "\n\n".join(d.text for d in ctx.framing_docs))
    named = rx(r"\b(personas?|as an? [a-z][\w -]{2,30},|target (?:users?|audience|customers?)|primary users?|(?:users?|customers?) (?:are|is)\b|"
               r"for (?:\w+ ){0,2}(?:teams?|engineers?|analysts?|admins?|administrators?|operators?|customers?|developers?|managers?|agents?|shoppers?|merchants?|owners?)\b|"
               r"\b(?:owners?|stakeholders?|product teams?|engineers?|operators?|analysts?|agents?|admins?|merchants?|ops)\b)", )
    if named.search(doc.lower):
        m = named.search(doc.lower)
        ctx.ok(f"The requirements name who uses the result ('{m.group(0).strip()}')")
        return
    ctx.add(Draft(
        title="No user or customer is named", severity="Important", phase="calibrate", section=doc.title or "Requirements",
        issue="The requirements describe what to build without naming who uses it or what job it does for them.",
        why="Without a named user, priorities and trade-offs have no anchor and the team cannot validate the scope with anyone.",
        suggestion="Name the primary user or customer, the task they are trying to finish, and how they do it today.",
        evidence=None, weight=3, key="no-user"))


TBD = rx(r"\b(tbd|tba|to be (?:decided|determined|defined|confirmed)|not yet decided|open)\b")


def ps_prioritisation(ctx: Ctx) -> None:
    """Everything marked must, or the won't-have list left open."""
    rs = ctx.reqset
    live = [r for r in rs.reqs if r.priority != "wont"]
    musts = [r for r in live if r.priority == "must"]
    doc = ctx.requirements if not ctx.requirements.empty else ctx.artifact
    wont_secs = [s for s in doc.sections if PRIORITY_SECTION[0][1].search(s.heading) or SEC_NONGOAL.search(s.heading)]
    wont_units = [u for u in doc.units_under(wont_secs) if u.kind != "heading"]
    open_wont = next((u for u in wont_units if TBD.search(u.plain)), None)
    explicit = any(pat.search(s.heading) for s in doc.sections for _, pat in PRIORITY_SECTION) or any(
        u.kind == "table" and any(p.match(c) for c in u.cells for _, p in PRIORITY_CELL) for u in doc.units)
    too_many = explicit and len(musts) >= 6 and len(musts) >= 0.6 * len(live)
    if not (too_many or open_wont):
        if explicit and live:
            ctx.ok(f"Priorities are assigned: {len(musts)} of {len(live)} requirements are must-haves")
        return
    parts = []
    if too_many:
        parts.append(f"{len(musts)} of {len(live)} requirements are must-haves, so the priority labels do not separate anything")
    if open_wont is not None:
        parts.append(f"the won't-have list is left open ('{short(open_wont.plain, 40)}')")
    ctx.add(Draft(
        title="Scope is not prioritised", severity="Important", phase="calibrate",
        section=doc.path_of((open_wont or musts[0].unit).line),
        issue=cap("; ".join(parts)) + ".",
        why="When everything is required, the team discovers the real priorities when the schedule slips, and the cut is made under pressure instead of by choice.",
        suggestion="Keep must-have for what the first release cannot ship without, move the rest down, and list what is explicitly not being done and why.",
        evidence=quote_of(open_wont) if open_wont is not None else musts[0].quote, weight=3, key="priorities"))


def ps_scope(ctx: Ctx) -> None:
    doc = ctx.requirements if not ctx.requirements.empty else ctx.artifact
    if ctx.reqset.nongoals or doc.headings_matching(SEC_NONGOAL) or re.search(r"\b(out of scope|not in scope|non-goals?|mvp|nice[- ]to[- ]have|won'?t)\b", doc.lower):
        ctx.ok("The requirements state what is out of scope or deferred")
        return
    ctx.add(Draft(
        title="Scope has no stated limits", severity="Minor", phase="calibrate", section=doc.title or "Requirements",
        issue="The requirements never say what is out of scope, what can wait, or what the minimum first release is.",
        why="Without stated limits every adjacent request looks in scope, and the first release keeps growing.",
        suggestion="Add a non-goals list and mark which requirements form the first release.",
        evidence=None, weight=1, key="no-scope"))


# =============================================================================== systems architect / code realist (plan stage)

TASK_HEAD = rx(r"^(?:task|step|phase|milestone|stage)\s*\d+|^\d+[.)]\s")


def plan_tasks(doc: Doc) -> list[tuple[str, Sentence, int, int]]:
    """Tasks of a plan: (label, first unit, start line, end line), from task headings or numbered items."""
    tasks = []
    heads = [s for s in doc.sections if s.level > 0 and TASK_HEAD.search(s.heading)]
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


IDENT = re.compile(r"`([^`]{3,60})`|\b([A-Z][a-z]+(?:[A-Z][a-z0-9]+)+)\b|\b([a-z]+(?:_[a-z0-9]+)+)\b")
BUILD_RIGHT_BEFORE = rx(r"\b(creat\w*|build\w*|implement\w*|add\w*|set(?:s|ting)? up|defin\w*|introduc\w*|scaffold\w*|provision\w*)\s+"
                        r"(?:(?:a|an|the|new|our)\s+)?(?:[\w-]+\s+)?[`\"']?$")


def cr_ordering(ctx: Ctx) -> None:
    doc = ctx.artifact
    tasks = plan_tasks(doc)
    if len(tasks) < 2:
        return
    built_in: dict[str, int] = {}
    for i, (_, _, a, b) in enumerate(tasks):
        for u in doc.units_with_code:
            if a <= u.line <= b:
                for m in IDENT.finditer(u.text):
                    ident = next(g for g in m.groups() if g)
                    before = u.text[max(0, m.start() - 40): m.start()]
                    if BUILD_RIGHT_BEFORE.search(before) and ident not in built_in:
                        built_in[ident] = i
    reported = 0
    for i, (label, first, a, b) in enumerate(tasks):
        for u in doc.units_with_code:
            if not (a <= u.line <= b):
                continue
            for m in IDENT.finditer(u.text):
                ident = next(g for g in m.groups() if g)
                j = built_in.get(ident)
                if j is not None and j > i and not BUILD_RIGHT_BEFORE.search(u.text[max(0, m.start() - 40): m.start()]):
                    reported += 1
                    ctx.add(Draft(
                        title="Task uses something a later task builds", severity="Important", phase="plan", section=doc.path_of(u.line),
                        issue=f"'{label}' uses {ident}, which '{tasks[j][0]}' creates later in the plan.",
                        why="The earlier task blocks on the later one or gets built against a stub that drifts; either way the schedule is wrong.",
                        suggestion=f"Move the creation of {ident} ahead of '{label}', or split it into an interface task that comes first.",
                        evidence=quote_of(u, ident), weight=5, key=f"order:{ident}"))
                    break
            if reported >= 3:
                return


TESTING = rx(r"\b(?:unit|integration|end[- ]to[- ]end|e2e|load|contract|regression|acceptance|smoke|parity|property|automated|golden)[- ]tests?\b"
             r"|\btest(?:ing)? (?:plan|suite|strategy|cases?|coverage|harness)\b|\btests? (?:for|that|cover\w*|pass\w*)\b|\btested\b|\btesting\b|\bqa\b")
MANUAL_CHECK = rx(r"\b(spot[- ]check\w*|manual(?:ly)? (?:check|verif|review)\w*|eyeball\w*|sanity[- ]check\w*|look at)\b")


def cr_testing(ctx: Ctx) -> None:
    doc = ctx.artifact
    u = next((u for u in doc.units if TESTING.search(u.plain)), None)
    if u is not None:
        ctx.ok(f"Testing is addressed in '{doc.path_of(u.line)}'")
        return
    manual = next((u for u in doc.units if MANUAL_CHECK.search(u.plain)), None)
    ctx.add(Draft(
        title="No testing strategy", severity="Important", phase="plan",
        section=doc.path_of(manual.line) if manual else (doc.title or "Plan"),
        issue=("The plan never says how any task is tested: no unit, integration or end-to-end tests, no acceptance check."
               + (f" The only verification is a manual check ('{short(manual.plain, 80)}')." if manual else "")),
        why="Defects surface in production instead of in review, and nobody can say when a task is done.",
        suggestion="Add the tests each task ships with and an end-to-end check per requirement, run before any production change.",
        evidence=quote_of(manual, MANUAL_CHECK) if manual else None, weight=4, key="no-tests"))


def cr_debt(ctx: Ctx) -> None:
    doc = ctx.artifact
    for u, m in all_matches(doc, rx(r"\b(todo|hack\w*|temporary|quick fix|for now|skip (?:the )?tests?|hard-?cod\w*|clean (?:it )?up later|tech(?:nical)? debt)\b"), skip_ctx=False)[:2]:
        ctx.add(Draft(
            title="Plan takes on debt with no payback task", severity="Minor", phase="plan", section=doc.path_of(u.line),
            issue=f"The plan accepts '{short(m.group(0), 30)}' and schedules no task to remove it.",
            why="Temporary work without a removal task becomes permanent and constrains later changes.",
            suggestion="Add a task, with an owner, that removes it, or state why it is acceptable long term.",
            evidence=quote_of(u, m.group(0)), weight=0, key=f"debt:{u.line}"))


def sa_operations(ctx: Ctx) -> None:
    doc = ctx.artifact
    checks = (
        ("rollout", rx(r"\b(roll-?outs?|roll(?:ing)? out|rollbacks?|roll back|feature[- ]flags?|flags?|canary|staged|gradual|dark launch|blue[- ]green|revert|shadow|cut-?overs?|cut(?:s|ting)? over|dry[- ]run|pilot)\b"),
         "No rollout or rollback plan", "The plan ships the change in one step with no staged rollout, flag or rollback path.",
         "A bad release reaches every user at once and the only fix is a forward patch under pressure.",
         "Add a staged rollout (flag or canary), the signal that stops it, and the rollback procedure."),
        ("monitoring", rx(r"\b(monitor\w*|metrics?|alerts?|alerting|dashboards?|observab\w*|tracing|slos?|logs?|logging)\b"),
         "No monitoring or alerting", "The plan adds no metric, alert or dashboard for the new behaviour.",
         "Failures are found by users instead of alerts, and nobody can tell whether the launch worked.",
         "List the metrics and alerts each component ships with, tied to the requirements' targets."),
    )
    for key, pat, title, issue, why, sugg in checks:
        if design_has(doc, pat):
            u = next((u for u in doc.units if pat.search(u.plain)), None)
            if u:
                ctx.ok(f"{key.capitalize()} is covered in '{doc.path_of(u.line)}'")
            continue
        ctx.add(Draft(title=title, severity="Important", phase="plan", section=doc.title or "Plan", issue=issue, why=why,
                      suggestion=sugg, evidence=None, weight=3, key=f"ops:{key}"))
    rollback = rx(r"\b(rollbacks?|roll(?:s|ing)? back|revert\w*|fall(?:s|ing)? back|switch(?:es|ing)? back|undo|restore the (?:old|previous|legacy))\b")
    cutover = all_matches(doc, rx(r"\b(cut(?:s|ting)? over|cut-?over|switch(?:es|ing)? (?:to|over)|decommission\w*|migrat\w*|set [`\w]+ ?= ?[`\w]+ in production|turn(?:s|ing)? off|delet\w* the (?:legacy|old))\b"))
    if cutover and not design_has(doc, rollback):
        u, m = cutover[0]
        ctx.add(Draft(
            title="Cutover has no way back", severity="Important", phase="plan", section=doc.path_of(u.line),
            issue=f"The plan switches production over ('{clause(u.plain, m, 80)}') and never describes how to roll back if the new path misbehaves.",
            why="A defect found after the switch has no fast recovery; if the old path is already removed, recovery means rebuilding it under pressure.",
            suggestion="Keep the old path until the new one is proven, and write down the rollback trigger and steps before the switch.",
            evidence=quote_of(u, m.group(0)), weight=5, key="rollback"))
    integ = all_matches(doc, rx(r"\b(apis?|endpoints?|webhooks?|events?|messages?|topics?|integrat\w*|clients?|sdks?|contracts?)\b"))
    if integ and not design_has(doc, rx(r"\b(contracts?|schemas?|versio\w*|openapi|swagger|protobuf|proto|backward[- ]compatib\w*|json schema|interface definition|idl)\b")):
        u, m = integ[0]
        ctx.add(Draft(
            title="Integration points have no contract or versioning", severity="Important", phase="plan", section=doc.path_of(u.line),
            issue=f"The plan connects components through '{short(m.group(0), 30)}' without a schema, contract or versioning rule.",
            why="The first change on one side breaks the other silently; with several consumers the breakage spreads.",
            suggestion="Define the schema for each interface, version it, and state the compatibility rule for changes.",
            evidence=quote_of(u, m.group(0)), weight=3, key="contract"))
    mig = all_matches(doc, rx(r"\b(migrat\w*|backfill\w*|schema change|alter table)\b"))
    if mig and not design_has(doc, rx(r"\b(rollback|reversible|dual[- ]writ\w*|backfill|down[- ]migration|revert)\b")):
        u, m = mig[0]
        ctx.add(Draft(
            title="Data migration has no way back", severity="Important", phase="plan", section=doc.path_of(u.line),
            issue=f"The plan runs '{short(m.group(0), 30)}' without a backfill check, dual-write period or reversal.",
            why="A migration that fails halfway leaves data in two shapes and no tested way to recover.",
            suggestion="Make the migration reversible or dual-write during the cut-over, and verify the backfill before switching reads.",
            evidence=quote_of(u, m.group(0)), weight=3, key="migration"))


# =============================================================================== registry

Check = Callable[[Ctx], None]

PERSONA_CHECKS: dict[str, tuple[Check, ...]] = {
    "requirement-auditor": (ra_conflicts, ra_hidden_not_deleted, ra_discarded_data, ra_preconditions, ra_default_violation,
                            ra_traceability, ra_partial, ra_anti_goals, ra_gold_plating, ra_duplicate_ids),
    "edge-case-prober": (ec_timeout_outcome, ec_failure_handling, ec_retries, ec_unknown_default, ec_single_point, ec_queues_caches, ec_inputs),
    "assumption-hunter": (ah_timeout_outcome, ah_certainty, ah_dependencies, ah_unsourced_numbers),
    "feasibility-skeptic": (fs_capacity_vs_peak, fs_costs, fs_single_instance, fs_vague_claims, fs_bulk_operations, fs_plan_estimates),
    "first-principles": (fp_problem_statement, fp_anecdotal_problem, fp_objective_is_a_non_goal, fp_success_criteria, fp_goal_drift),
    "prior-art-scout": (pa_rebuilds_existing, pa_build_own, pa_no_alternatives, pa_requirements_research),
    "product-strategist": (ps_success_metric, ps_user, ps_vague_requirements, ps_prioritisation, ps_scope),
    "systems-architect": (sa_operations, ec_failure_handling),
    "code-realist": (cr_ordering, cr_testing, cr_debt),
}

# checks that only make sense at some stages (default: every stage)
CHECK_STAGES: dict[Check, frozenset[str]] = {
    ra_testability: frozenset({"requirements"}),
    fs_plan_estimates: frozenset({"plan"}),
}
STAGE_EXTRA: dict[tuple[str, str], tuple[Check, ...]] = {
    ("requirement-auditor", "requirements"): (ra_testability,),
}

BLIND_SPOTS: dict[str, str] = {
    "requirement-auditor": (
        "Traces requirements by id and by shared key terms, so a section that uses the right words without meeting the requirement counts as covered, "
        "and a requirement met in different vocabulary counts as missing. Finds conflicts only where they show in numbers or fixed wording: retention "
        "against deletion, propagation and polling intervals, timeouts, latency against synchronous cross-region writes, all-versus-none, hiding instead "
        "of deleting, discarding what must be kept, skipped preconditions; a conflict of meaning outside those patterns passes unseen."),
    "edge-case-prober": (
        "Flags failure modes from the words the design uses (calls, queues, caches, retries, timeouts, defaults); cannot follow the data flow, so a failure "
        "path described in other words, or a dependency never named, goes unchecked. Does not know the real failure behaviour of named products."),
    "assumption-hunter": (
        "Finds assumptions only where the wording signals certainty (will always, never fails, will stay, only in, because most); silent assumptions "
        "built into the architecture, and claims that are wrong but cite a source, pass. Cannot judge whether a cited source is correct."),
    "feasibility-skeptic": (
        "Counts components, compares stated throughput with stated peaks, and looks for estimates; cannot judge whether an estimate is realistic, whether "
        "the team has the skills, or whether a named technology fits the workload, and does no capacity arithmetic the documents do not spell out."),
    "first-principles": (
        "Compares the design's stated goals with the requirements' non-goals and success criteria by shared terms, and checks that the problem is stated "
        "and measured; cannot judge whether the requirements frame the right problem, or propose a different approach from scratch."),
    "prior-art-scout": (
        "Spots build-your-own wording and checks for an alternatives discussion; has no catalogue of existing products, so it cannot name the library "
        "or service that already solves the problem, or tell whether the alternatives listed are the relevant ones."),
    "product-strategist": (
        "Checks that success metrics, a named user, priorities and scope limits exist and that requirements avoid untestable adjectives; cannot judge "
        "market fit, whether the metric is the right one, or whether anyone wants the product."),
    "systems-architect": (
        "Checks that rollout, rollback, monitoring, contracts and failure handling are mentioned; cannot verify that the data flow is consistent, that "
        "the capacity numbers add up, or that the operational plan works."),
    "code-realist": (
        "Reads task order from identifiers that tasks create and use, and checks for a testing strategy; misses ordering problems between tasks that "
        "use different names for the same thing, and cannot judge the difficulty of a task."),
}


def review_as_persona(persona: str, stage: str, design: str, requirements: str) -> PersonaReport:
    """Run one persona's rule checks over the two documents and return its report."""
    if persona not in PERSONA_CHECKS:
        raise ValueError(f"unknown persona {persona!r}; known: {', '.join(sorted(PERSONA_CHECKS))}")
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; known: {', '.join(STAGES)}")
    ctx = Ctx(persona, stage, _doc("design", design or ""), _doc("requirements", requirements or ""))
    checks = PERSONA_CHECKS[persona] + STAGE_EXTRA.get((persona, stage), ())
    for check in checks:
        allowed = CHECK_STAGES.get(check)
        if allowed is not None and stage not in allowed:
            continue
        check(ctx)
    for d in ctx.findings:  # the stage decides where a fix of the reviewed artifact lands
        if d.phase == "design" and stage == "plan":
            d.phase = "plan"
        elif d.phase == "design" and stage == "requirements":
            d.phase = "calibrate"
        if d.contributing and PHASE_ORDER[d.contributing] >= PHASE_ORDER[d.phase]:
            d.contributing = None
    drafts = sorted(enumerate(ctx.findings), key=lambda t: (SEV_ORDER[t[1].severity], -t[1].weight, t[0]))
    findings = [d.to_model() for _, d in drafts[:MAX_FINDINGS]]
    fine = ctx.fine[:12]
    blind = BLIND_SPOTS[persona]
    if not findings and not fine:
        blind += " It found nothing its patterns apply to in these documents; that says more about its patterns than about the design."
    return PersonaReport(persona=persona, findings=findings, checked_and_fine=fine, blind_spot_check=blind)
