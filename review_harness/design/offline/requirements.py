"""Requirements as the offline design reviewer reads them: each requirement item (by id, by
modal verb, or by the section it sits in) with its priority, plus the non-goals, goals and
success criteria of the requirements document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from review_harness.core.markdown import Sentence, plain
from review_harness.design.offline.document import Doc, cell_quote, quote_of, short
from review_harness.design.offline.vocabulary import (
    ID_DEF,
    ID_GRAMMAR,
    ID_PREFIX,
    REQ_ID,
    V,
    id_prefix,
    numbers_in,
    term_set,
    written_words,
)


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


def strip_id(raw: str) -> str:
    """``raw`` without a leading requirement id and its punctuation (still verbatim)."""
    m = ID_PREFIX.match(raw)
    if not m:
        return raw.strip()
    rest = raw[m.end():]
    rest = re.sub(r"^(?:\*\*|__)\s*", "", rest)
    label = re.match(r"^([A-Z][\w /&-]{1,40}):\s*(?:\*\*|__)?\s*", rest)  # "Peak load:" style label
    if label and len(rest) - label.end() > 20:
        rest = rest[label.end():]
    return rest.strip() or raw.strip()


def priority_from(text: str, section_path: str, cells: Sequence[str] = ()) -> str | None:
    """A requirement's priority however it is written: an inline label ('(Should)'), a priority
    cell of its table row, the section it sits in (Must have), then its modal verb."""
    for name, pat in V.priority_inline.items():
        if pat.search(text):
            return name
    for cell in cells:
        for name, pat in V.priority_cell.items():
            if pat.match(cell):
                return name
    last = section_path.split(" > ")[-1] if section_path else ""
    for name, pat in V.priority_heading.items():
        if pat.search(last):
            return name
    for name, pat in V.priority_section.items():
        if pat.search(section_path):
            return name
    if V.modal_must.search(text):
        return "must"
    if V.modal_should.search(text):
        return "should"
    if V.modal_could.search(text):
        return "could"
    if re.search(r"\b(never|always|every|all)\b", text, re.I):
        return "must"
    return None


@dataclass
class ReqSet:
    reqs: list[Req]
    nongoals: list[Req]
    goals: list[Req]
    success: list[Req]
    duplicate_ids: list[tuple[str, Req, Req]]
    # written as prose (a summary, a motivation, goals): no requirement items to trace one by one
    narrative: bool = False

    @property
    def all(self) -> list[Req]:
        return self.reqs + self.success

    def first_matching(self, pattern: re.Pattern[str]) -> Req | None:
        """The first requirement or success criterion whose text matches ``pattern``."""
        return next((r for r in self.all if pattern.search(r.text)), None)

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

    title = doc.single_title

    def kind_of(path: str) -> str:
        if title and path.startswith(title):
            path = path[len(title):].lstrip(" >")
        if V.sec_nongoal.search(path):
            return "nongoal"
        last = path.split(" > ")[-1] if path else ""
        if V.sec_success.search(last):
            return "success"
        if V.sec_reqs.search(last) or (path and V.sec_reqs.search(path) and not V.sec_goal.search(last)):
            return "req"
        if any(pat.search(last) for pat in V.priority_heading.values()):
            return "nongoal" if V.priority_heading.wont.search(last) else "req"
        if V.sec_constraint.search(last):
            return "context"
        if V.sec_goal.search(last):
            return "goal"
        return "other"

    # pass 1: units that define an id
    id_units: dict[int, str] = {}
    labelled: set[int] = set()  # an id set off by a colon or dash ('IMP-4:'), an id of any shape
    # the document's own number or title is never a requirement ('KEP-1234: Volume snapshots')
    title_ids = set(ID_DEF.findall(title)) if title else set()
    for u in units:
        if u.kind == "heading" and title and plain(u.text).strip() == title:
            continue
        if u.kind == "table" and u.cells:
            m = ID_DEF.fullmatch(plain(u.cells[0]).strip(" *_:"))
            if m:
                id_units[id(u)] = m.group(0)
            continue
        m = ID_PREFIX.match(u.plain if u.kind != "heading" else plain(u.text))
        if m and (u.kind in ("bullet", "heading", "table") or m.group("tail").strip() in (":", "-", "—", "–", ".", ")", "")):
            id_units[id(u)] = m.group("id")
            if m.group("tail").strip() in (":", "—", "–", ")") or u.kind == "table":
                labelled.add(id(u))
    # an id outside the usual prefixes (ARC-1, SEC-2 …) counts only when its prefix recurs
    prefix_count: dict[str, int] = {}
    for rid in id_units.values():
        prefix_count[id_prefix(rid)] = prefix_count.get(id_prefix(rid), 0) + 1
    id_units = {k: v for k, v in id_units.items() if (REQ_ID.fullmatch(v) or prefix_count[id_prefix(v)] >= 2 or k in labelled)
                and v not in title_ids}

    has_ids = bool(id_units)
    structured = has_ids or any(kind_of(sec.path) == "req" for sec in doc.sections if sec.level > 0) or any(
        pat.search(sec.heading) for sec in doc.sections for name, pat in V.priority_section.items() if name != "wont")
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
                r = Req(rid, u, text, strip_id(u.quote()), path, "must", "req")
                current_heading_req = r
                _add(reqs, by_id, dups, r)
            continue
        if current_heading_req is not None and doc.section_of(u.line) == doc.section_of(current_heading_req.line):
            current_heading_req.text += " " + u.plain
            current_heading_req.extra.append(u)
            if current_heading_req.quote == strip_id(current_heading_req.unit.quote()):
                current_heading_req.quote = quote_of(u)
            continue
        if u.block in seen_blocks and not (u.kind == "para" and not has_ids and V.modal_any.search(u.plain)):
            seen_blocks[u.block].text += " " + u.plain  # continuation sentence of a requirement item
            seen_blocks[u.block].extra.append(u)
            continue
        if u.kind == "table" and u.cells:
            body_cells = [c for c in u.cells[1:] if not any(p.match(c) for p in V.priority_cell.values())] if rid else list(u.cells)
            text = " ".join(body_cells) if rid else " ".join(u.cells)
            longest = max(body_cells or list(u.cells), key=len)
            q = cell_quote(u, longest)
        else:
            text = u.plain
            q = strip_id(u.quote())
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
            prio = priority_from(text, path, u.cells[1:] if u.kind == "table" else ()) or "describe"
            if kind == "nongoal":
                prio = "wont"
            r = Req(rid, u, text, q, path, prio, "req")
            _add(reqs, by_id, dups, r)
            seen_blocks[u.block] = r
            continue
        if kind == "goal" and u.kind in ("bullet", "para"):
            goals.append(Req(None, u, text, q, path, "must", "goal"))
            continue
        if has_ids or not structured:
            continue  # prose (a summary, a motivation): its modal verbs are narrative, not requirement items
        if kind in ("context", "goal"):
            continue
        is_req_section = kind == "req"
        if V.modal_any.search(text) or (is_req_section and u.kind in ("bullet", "table")):
            if u.kind == "table" and not u.header:
                continue
            prio = priority_from(text, path, u.cells if u.kind == "table" else ()) or ("must" if is_req_section else "should")
            r = Req(None, u, text, q, path, prio, "req")
            reqs.append(r)
            seen_blocks[u.block] = r
    for r in reqs:  # an id'd item with no modal and no stated priority: a description, ranked as should
        if r.priority == "describe":
            body = re.sub(r"^\W*(?:" + ID_GRAMMAR + r")?\W*", "", strip_id(r.text))
            figure = re.match(r"(?:about|approximately|approx\.?|around|roughly|~|peak|up to|at most|at least)?\s*~?\d", body, re.I)
            if V.modal_must.search(r.text) or not figure:
                r.priority = "must"
            else:  # a figure stated as context ('About 25,000 endpoints'), not an obligation
                r.priority = "should"
    for r in reqs + nongoals + success:
        label_only = len(written_words(re.sub(r"^\W*", "", r.quote))) <= 4 and r.extra
        if label_only:
            r.quote = quote_of(r.extra[0])
    return ReqSet(reqs, nongoals, goals, success, dups, narrative=not structured)


def without_ids(text: str) -> str:
    """`text` with requirement ids taken out, so their digits are not read as figures."""
    return ID_DEF.sub(" ", text)


def _add(reqs: list[Req], by_id: dict[str, Req], dups: list, r: Req) -> None:
    if r.rid in by_id:
        dups.append((r.rid, by_id[r.rid], r))
        return
    by_id[r.rid] = r
    reqs.append(r)


def req_label(r: Req) -> str:
    """The bold label of a requirement item ('Point-in-time training sets'), without its id."""
    m = re.search(r"\*\*([^*]{3,80})\*\*|__([^_]{3,80})__", r.unit.text)
    if not m:
        return ""
    label = (m.group(1) or m.group(2)).strip()
    label = re.sub(r"^(?:" + ID_GRAMMAR + r")\W*", "", label).strip(" .:—–-")
    return label if len(label) >= 3 else ""
