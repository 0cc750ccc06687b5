"""Delta detection between two iterations of a topic (seed: cross-iteration finding tracking):
which earlier findings are resolved, which persist, which are new, and the same for patterns.

Findings are paired by what they are about, not by how they are worded:

* with a `grader` model role bound, the grader pairs them (the seed's semantic matching); its
  pairs are checked (known ids, one to one) and an unusable answer is retried once, then the
  offline matcher is used with a warning;
* offline (`offline_pairs`): the requirement ids a finding names, the section it is about and its
  evidence quote decide; wording only adds weight. Findings that name different requirements are
  never the same problem, however alike their titles ("Design contradicts R7" / "... R5").

Patterns follow their findings: an earlier pattern persists as the current pattern that holds
the most of its findings' counterparts. Every level is checked to be a partition (each earlier id
resolved or persisting, each current id persisting or new) before it is kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rapidfuzz import fuzz

from review_harness.core.jsonsalvage import load_json_lenient
from review_harness.core.markdown import normalize
from review_harness.core.matching import one_to_one
from review_harness.core.member import ParseOutcome
from review_harness.core.text import STOPWORDS, words
from review_harness.design.offline.vocabulary import REQ_ID as REQUIREMENT_ID
from review_harness.design.offline.vocabulary import term_set
from review_harness.design.models import (
    DeltaAnswer,
    DeltaItem,
    DeltaPair,
    DeltaPart,
    DesignFinding,
    IterationDelta,
    Pattern,
    PersistingItem,
)

OFFLINE_MATCHER = "design-delta-by-meaning-v2"  # v2: stemmed words with synonyms, a meaning gate, a second pass
GRADER_MATCHER = "grader"
THRESHOLD = 0.5
MEANING_GATE = 0.4  # title or wording agreement below this: never one problem, whatever they quote
SAME_TITLE = 0.7  # the second pass: the same section and a title this close are one finding
MIN_QUOTE = 20  # shorter evidence quotes are too generic to say two findings are about the same text
_STOP = STOPWORDS | frozenset("design document requirement requirements section states stated".split())
_GENERIC = frozenset({"doc", "state", "never", "nothing", "without"})


class DeltaError(ValueError):
    """Pairs that do not partition the two iterations' ids."""


# ---------------------------------------------------------------------------- what a finding is about


def delta_record(finding: DesignFinding | Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a finding the delta reads (a synthesized finding or its JSONL record)."""
    get = finding.get if isinstance(finding, Mapping) else lambda key, default=None: getattr(finding, key, default)
    return {key: get(key) or "" for key in ("id", "title", "section", "issue", "evidence", "disposition")}


def requirement_ids(text: str) -> set[str]:
    """Requirement ids named in `text`, normalized ('NFR-2', 'nfr2' and 'NFR_2' are one id)."""
    return {re.sub(r"[-_.]", "", m.upper()) for m in REQUIREMENT_ID.findall(text or "")}


def _norm_quote(text: str) -> str:
    return re.sub(r"[^\w%$.,' ]+", " ", normalize(text or "")).strip(" .,")


def _section_key(section: str) -> str:
    tail = (section or "").split(" > ")[-1]
    return re.sub(r"^[\d.\s]+", "", normalize(tail)).strip()


@dataclass(frozen=True)
class About:
    record: Mapping[str, Any]

    @cached_property
    def ids(self) -> set[str]:
        r = self.record
        return requirement_ids(" ".join(str(r.get(k) or "") for k in ("title", "issue", "evidence", "section")))

    @cached_property
    def quote(self) -> str:
        return _norm_quote(str(self.record.get("evidence") or ""))

    @cached_property
    def section(self) -> str:
        return _section_key(str(self.record.get("section") or ""))

    @cached_property
    def title(self) -> str:
        return " ".join(w for w in words(normalize(str(self.record.get("title") or ""))) if w not in _STOP)

    @cached_property
    def title_terms(self) -> set[str]:
        return _terms(str(self.record.get("title") or ""))

    @cached_property
    def terms(self) -> set[str]:
        return _terms(f"{self.record.get('title') or ''} {self.record.get('issue') or ''}") - _GENERIC


def _quote_similarity(a: str, b: str) -> float:
    if len(a) < MIN_QUOTE or len(b) < MIN_QUOTE:
        return 0.0
    if a == b:
        return 1.0
    short, long_ = sorted((a, b), key=len)
    if short in long_:
        return 0.9
    score = fuzz.ratio(a, b)
    if score >= 85:
        return score / 100
    # the same sentence reworded between versions keeps its content words
    ta, tb = _terms(a), _terms(b)
    shared = len(ta & tb) / max(len(ta), len(tb)) if ta and tb else 0.0
    return round(0.8 * shared, 4) if shared >= 0.6 and len(ta & tb) >= 2 else 0.0


def _terms(text: str) -> set[str]:
    return term_set(text) if text else set()


def _jaccard(a: set[str], b: set[str]) -> float:
    """Shared words over all words of two titles: a title names the kind of problem, so the
    words in which two titles differ count as much as the ones they share."""
    return len(a & b) / len(a | b) if a and b else 0.0


def _overlap(a: set[str], b: set[str]) -> float:
    """Shared stemmed words (synonyms folded) over the smaller set: a reworded sentence keeps its
    content words even when their order and form change."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


@dataclass(frozen=True)
class Agreement:
    """How two findings agree on what they are about, part by part."""

    ids: bool
    quote: float
    section: bool
    title: float
    text: float

    @property
    def score(self) -> float:
        if max(self.title, self.text) < MEANING_GATE:  # what they say must agree, not only where they point
            return 0.0
        s = 0.35 * self.ids + 0.3 * self.quote + 0.2 * self.section + 0.25 * self.title + 0.25 * self.text
        return round(min(s, 1.0), 4)

    def reason(self) -> str:
        parts = []
        if self.ids:
            parts.append("the same requirement")
        if self.section:
            parts.append("the same section")
        if self.quote:
            parts.append(f"the same quoted text ({self.quote:.2f})")
        parts.append(f"title {self.title:.2f}")
        parts.append(f"wording {self.text:.2f}")
        return ", ".join(parts)


def agreement(previous: Mapping[str, Any], current: Mapping[str, Any]) -> Agreement | None:
    """What two findings share; None when they name different requirements (never one problem)."""
    a, b = About(previous), About(current)
    if a.ids and b.ids and not a.ids & b.ids:
        return None
    quote = _quote_similarity(a.quote, b.quote) if len(a.quote) >= MIN_QUOTE and len(b.quote) >= MIN_QUOTE else 0.0
    return Agreement(
        ids=bool(a.ids & b.ids), quote=quote, section=bool(a.section and a.section == b.section),
        title=_jaccard(a.title_terms, b.title_terms),
        text=_overlap(a.terms, b.terms),
    )


def similarity(previous: Mapping[str, Any], current: Mapping[str, Any]) -> float:
    """0..1: how surely two findings are about the same problem. Different requirement ids: 0;
    wording that does not agree at all: 0, however close their places."""
    found = agreement(previous, current)
    return found.score if found else 0.0


def offline_pairs(previous: Sequence[Mapping[str, Any]], current: Sequence[Mapping[str, Any]],
                  threshold: float = THRESHOLD) -> list[tuple[int, int, float]]:
    """One-to-one (previous index, current index, similarity), most similar taken first, in
    index order: deterministic. A second pass pairs what the first left resolved and new when the
    two are plainly one finding (the same section and nearly the same title, or the same quote
    with agreeing wording), so no finding is both resolved and new."""
    first = one_to_one(previous, current, similarity, threshold)
    used_p, used_c = {i for i, _, _ in first}, {j for _, j, _ in first}
    rest_p = [i for i in range(len(previous)) if i not in used_p]
    rest_c = [j for j in range(len(current)) if j not in used_c]

    def same_finding(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
        found = agreement(a, b)
        if found is None:
            return 0.0
        plainly = (found.section and found.title >= SAME_TITLE) or (found.quote >= 0.9 and max(found.title, found.text) >= MEANING_GATE)
        return found.score if plainly else 0.0

    second = one_to_one(previous, current, same_finding, 1e-9, candidates=[(i, j) for i in rest_p for j in rest_c])
    return sorted(first + second)


def pair_reason(previous: Mapping[str, Any], current: Mapping[str, Any]) -> str:
    """Why the offline matcher paired two findings."""
    found = agreement(previous, current)
    return f"Paired offline: {found.reason()}." if found else ""


# ---------------------------------------------------------------------------- the grader's answer


def check_pairs(pairs: Sequence[tuple[str, str]], previous_ids: Sequence[str], current_ids: Sequence[str]) -> list[str]:
    """Why pairs of ids cannot be used (empty: they can): unknown ids, or an id paired twice."""
    problems = []
    known_p, known_c = set(previous_ids), set(current_ids)
    seen_p: set[str] = set()
    seen_c: set[str] = set()
    for p, c in pairs:
        if p not in known_p:
            problems.append(f"{p!r} is no finding of the previous iteration")
        if c not in known_c:
            problems.append(f"{c!r} is no finding of the current iteration")
        if p in seen_p:
            problems.append(f"{p!r} is paired twice")
        if c in seen_c:
            problems.append(f"{c!r} is paired twice")
        seen_p.add(p)
        seen_c.add(c)
    return problems


def parse_grader_answer(text: str, previous_ids: Sequence[str], current_ids: Sequence[str]) -> ParseOutcome[DeltaAnswer]:
    """The grader's pairs, checked: one unusable pair makes the whole answer malformed (a wrong
    pair would call a resolved finding persisting)."""
    data, _, problem, cut_off = load_json_lenient(text)
    if not isinstance(data, dict) or not isinstance(data.get("pairs"), list):
        return ParseOutcome(None, [problem or "no pairs list in the answer"], malformed=True)
    pairs: list[DeltaPair] = []
    for item in data["pairs"]:
        if not isinstance(item, dict) or not isinstance(item.get("previous"), str) or not isinstance(item.get("current"), str):
            return ParseOutcome(None, [f"unreadable pair {str(item)[:80]!r}"], malformed=True)
        pairs.append(DeltaPair(previous=item["previous"], current=item["current"], reason=str(item.get("reason") or "")))
    problems = check_pairs([(p.previous, p.current) for p in pairs], previous_ids, current_ids)
    if problems or cut_off:
        return ParseOutcome(None, problems[:3] or ["the answer was cut off"], malformed=True)
    return ParseOutcome(DeltaAnswer(pairs=pairs))


# ---------------------------------------------------------------------------- the delta


def _bare(member_id: str) -> str:
    """'v3-assumption-hunter-001' and 'assumption-hunter-001' name the same reviewer finding."""
    return re.sub(r"^v\d+-", "", member_id or "")


def _finding_of_member(findings: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Reviewer finding id (bare) -> the synthesized finding id that holds it."""
    out: dict[str, str] = {}
    for f in findings:
        for member in [f.get("id"), *(f.get("member_ids") or [])]:
            if member:
                out.setdefault(_bare(member), str(f["id"]))
    return out


def check_partition(level: str, previous_ids: Sequence[str], current_ids: Sequence[str], part: DeltaPart) -> None:
    """Raise DeltaError unless every previous id is in exactly one of resolved / persisting /
    rejected, and every current id in exactly one of persisting / new."""
    prev_seen = [r.id for r in part.resolved] + [p.previous for p in part.persisting] + [r.id for r in part.rejected]
    cur_seen = [p.current for p in part.persisting] + [r.id for r in part.new]
    for side, ids, seen in (("previous", previous_ids, prev_seen), ("current", current_ids, cur_seen)):
        for item in dict.fromkeys([*ids, *seen]):
            expected, got = list(ids).count(item), seen.count(item)
            if expected != 1 or got != 1:
                raise DeltaError(f"delta of {level}: {side} id {item!r} appears {expected} time(s) in the iteration "
                                 f"and {got} time(s) in the delta")


def _closest(record: Mapping[str, Any], others: Sequence[Mapping[str, Any]], reverse: bool = False) -> str:
    """'closest: v2-...-003 (0.41: the same section, title 0.30, wording 0.35)' for an unpaired finding."""
    scored = [(similarity(o, record) if reverse else similarity(record, o), o) for o in others]
    scored = [t for t in scored if t[0] > 0]
    if not scored:
        return "no finding of the other iteration is about the same thing"
    score, other = max(scored, key=lambda t: t[0])
    found = agreement(other, record) if reverse else agreement(record, other)
    return f"closest: {other.get('id')} ({score:.2f}: {found.reason() if found else ''}), below the pairing threshold"


def _part(level: str, previous: Sequence[tuple[str, str]], current: Sequence[tuple[str, str]],
          pairs: Sequence[tuple[int, int, float | None]], reasons: Mapping[tuple[str, str], str] | None = None,
          rejected: set[str] | None = None, notes: tuple[Sequence[str], Sequence[str]] | None = None) -> DeltaPart:
    matched_p = {i for i, _, _ in pairs}
    matched_c = {j for _, j, _ in pairs}
    rejected = rejected or set()
    p_notes, c_notes = notes or ([""] * len(previous), [""] * len(current))
    unpaired = [(n, i, t) for n, (i, t) in enumerate(previous) if n not in matched_p]
    part = DeltaPart(
        resolved=[DeltaItem(id=i, title=t, note=p_notes[n]) for n, i, t in unpaired if i not in rejected],
        rejected=[DeltaItem(id=i, title=t, note="rejected by the author and not reported again") for n, i, t in unpaired if i in rejected],
        persisting=[PersistingItem(previous=previous[i][0], current=current[j][0], previous_title=previous[i][1],
                                   current_title=current[j][1], score=score,
                                   reason=(reasons or {}).get((previous[i][0], current[j][0]), "")
                                   + (" It was rejected by the author and is reported again." if previous[i][0] in rejected else ""))
                    for i, j, score in sorted(pairs)],
        new=[DeltaItem(id=i, title=t, note=c_notes[n]) for n, (i, t) in enumerate(current) if n not in matched_c],
    )
    check_partition(level, [i for i, _ in previous], [i for i, _ in current], part)
    return part


def _pattern_pairs(previous: Sequence[Mapping[str, Any]], current: Sequence[Mapping[str, Any]],
                   finding_pairs: set[tuple[str, str]], prev_owner: Mapping[str, str],
                   cur_owner: Mapping[str, str]) -> list[tuple[int, int, float | None]]:
    """Patterns pair when their findings do: greedy by the number of persisting finding pairs."""
    scored = []
    for i, p in enumerate(previous):
        p_findings = {prev_owner[_bare(m)] for m in p.get("members") or [] if _bare(m) in prev_owner}
        for j, c in enumerate(current):
            c_findings = {cur_owner[_bare(m)] for m in c.get("members") or [] if _bare(m) in cur_owner}
            shared = sum(1 for a, b in finding_pairs if a in p_findings and b in c_findings)
            if shared:
                scored.append((-shared, i, j))
    used_p: set[int] = set()
    used_c: set[int] = set()
    out: list[tuple[int, int, float | None]] = []
    for neg, i, j in sorted(scored):
        if i not in used_p and j not in used_c:
            used_p.add(i)
            used_c.add(j)
            out.append((i, j, float(-neg)))
    return out


def build_delta(
    previous_findings: Sequence[Mapping[str, Any]],
    previous_patterns: Sequence[Mapping[str, Any] | Pattern],
    current_findings: Sequence[DesignFinding],
    current_patterns: Sequence[Pattern],
    *,
    from_iteration: int,
    to_iteration: int,
    pairs: Sequence[tuple[int, int, float | None]] | None = None,
    reasons: Mapping[tuple[str, str], str] | None = None,
) -> IterationDelta:
    """The delta from finding pairs (previous index, current index, score) with the grader's
    reasons by (previous id, current id); None: the offline matcher's pairs."""
    current = [f.model_dump(mode="json") for f in current_findings]
    method = "grader" if pairs is not None else "offline"
    before = [delta_record(f) for f in previous_findings]
    after = [delta_record(f) for f in current]
    if pairs is None:
        pairs = offline_pairs(before, after)
        reasons = {(before[i]["id"], after[j]["id"]): pair_reason(before[i], after[j]) for i, j, _ in pairs}
    matched_p, matched_c = {i for i, _, _ in pairs}, {j for _, j, _ in pairs}
    notes = ([_closest(r, after) if n not in matched_p else "" for n, r in enumerate(before)],
             [_closest(r, before, reverse=True) if n not in matched_c else "" for n, r in enumerate(after)])
    rejected = {str(f["id"]) for f in previous_findings if f.get("disposition") == "rejected"}
    findings = _part("findings", [(str(f["id"]), str(f.get("title") or "")) for f in previous_findings],
                     [(f["id"], f["title"]) for f in current], pairs, reasons, rejected, notes)
    prev_patterns = [p.model_dump() if isinstance(p, Pattern) else dict(p) for p in previous_patterns]
    cur_patterns = [p.model_dump() for p in current_patterns]
    pattern_pairs = _pattern_pairs(
        prev_patterns, cur_patterns, {(p.previous, p.current) for p in findings.persisting},
        _finding_of_member(previous_findings), _finding_of_member(current),
    )
    patterns = _part("patterns", [(str(p["id"]), str(p.get("theme") or "")) for p in prev_patterns],
                     [(p["id"], p["theme"]) for p in cur_patterns], pattern_pairs)
    return IterationDelta(from_iteration=from_iteration, to_iteration=to_iteration, method=method,  # type: ignore[arg-type]
                          matcher=GRADER_MATCHER if method == "grader" else OFFLINE_MATCHER,
                          findings=findings, patterns=patterns)


def grader_pairs(answer: DeltaAnswer, previous_ids: Sequence[str], current_ids: Sequence[str]) -> list[tuple[int, int, float | None]]:
    """The grader's checked pairs as index pairs."""
    p_index = {fid: n for n, fid in enumerate(previous_ids)}
    c_index = {fid: n for n, fid in enumerate(current_ids)}
    return [(p_index[p.previous], c_index[p.current], None) for p in answer.pairs]


def grader_reasons(answer: DeltaAnswer) -> dict[tuple[str, str], str]:
    return {(p.previous, p.current): p.reason for p in answer.pairs}
