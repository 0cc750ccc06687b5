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

OFFLINE_MATCHER = "design-delta-by-requirement-section-evidence-v1"
GRADER_MATCHER = "grader"
THRESHOLD = 0.55
MIN_QUOTE = 20  # shorter evidence quotes are too generic to say two findings are about the same text
_STOP = STOPWORDS | frozenset("design document requirement requirements section states stated".split())


class DeltaError(ValueError):
    """Pairs that do not partition the two iterations' ids."""


# ---------------------------------------------------------------------------- what a finding is about


def delta_record(finding: DesignFinding | Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a finding the delta reads (a synthesized finding or its JSONL record)."""
    get = finding.get if isinstance(finding, Mapping) else lambda key, default=None: getattr(finding, key, default)
    return {key: get(key) or "" for key in ("id", "title", "section", "issue", "evidence")}


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
    def words(self) -> str:
        text = f"{self.record.get('title') or ''} {self.record.get('issue') or ''}"
        return " ".join(w for w in words(normalize(text)) if w not in _STOP)


def _quote_similarity(a: str, b: str) -> float:
    if len(a) < MIN_QUOTE or len(b) < MIN_QUOTE:
        return 0.0
    if a == b:
        return 1.0
    short, long_ = sorted((a, b), key=len)
    if short in long_:
        return 0.9
    score = fuzz.ratio(a, b)
    return score / 100 if score >= 85 else 0.0


def similarity(previous: Mapping[str, Any], current: Mapping[str, Any]) -> float:
    """0..1: how surely two findings are about the same problem. Different requirement ids: 0."""
    a, b = About(previous), About(current)
    if a.ids and b.ids and not a.ids & b.ids:
        return 0.0
    score = 0.35 if a.ids & b.ids else 0.0
    comparable = len(a.quote) >= MIN_QUOTE and len(b.quote) >= MIN_QUOTE
    score += 0.35 * _quote_similarity(a.quote, b.quote) if comparable else 0.0
    if a.section and a.section == b.section:
        score += 0.2
    # wording only adds weight; set and order ratios together, so a shared subset of words is not enough
    text = (fuzz.token_set_ratio(a.words, b.words) + fuzz.token_sort_ratio(a.words, b.words)) / 200 \
        if a.words and b.words else 0.0
    score += (0.3 if comparable else 0.45) * text
    return round(min(score, 1.0), 4)


def offline_pairs(previous: Sequence[Mapping[str, Any]], current: Sequence[Mapping[str, Any]],
                  threshold: float = THRESHOLD) -> list[tuple[int, int, float]]:
    """One-to-one (previous index, current index, similarity), most similar taken first, in
    index order: deterministic."""
    return sorted(one_to_one(previous, current, similarity, threshold))


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
    """Raise DeltaError unless every previous id is in exactly one of resolved / persisting, and
    every current id in exactly one of persisting / new."""
    prev_seen = [r.id for r in part.resolved] + [p.previous for p in part.persisting]
    cur_seen = [p.current for p in part.persisting] + [r.id for r in part.new]
    for side, ids, seen in (("previous", previous_ids, prev_seen), ("current", current_ids, cur_seen)):
        for item in dict.fromkeys([*ids, *seen]):
            expected, got = list(ids).count(item), seen.count(item)
            if expected != 1 or got != 1:
                raise DeltaError(f"delta of {level}: {side} id {item!r} appears {expected} time(s) in the iteration "
                                 f"and {got} time(s) in the delta")


def _part(level: str, previous: Sequence[tuple[str, str]], current: Sequence[tuple[str, str]],
          pairs: Sequence[tuple[int, int, float | None]], reasons: Mapping[tuple[str, str], str] | None = None) -> DeltaPart:
    matched_p = {i for i, _, _ in pairs}
    matched_c = {j for _, j, _ in pairs}
    part = DeltaPart(
        resolved=[DeltaItem(id=i, title=t) for n, (i, t) in enumerate(previous) if n not in matched_p],
        persisting=[PersistingItem(previous=previous[i][0], current=current[j][0], previous_title=previous[i][1],
                                   current_title=current[j][1], score=score,
                                   reason=(reasons or {}).get((previous[i][0], current[j][0]), ""))
                    for i, j, score in sorted(pairs)],
        new=[DeltaItem(id=i, title=t) for n, (i, t) in enumerate(current) if n not in matched_c],
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
    if pairs is None:
        pairs = offline_pairs([delta_record(f) for f in previous_findings], [delta_record(f) for f in current])
    findings = _part("findings", [(str(f["id"]), str(f.get("title") or "")) for f in previous_findings],
                     [(f["id"], f["title"]) for f in current], pairs, reasons)
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
