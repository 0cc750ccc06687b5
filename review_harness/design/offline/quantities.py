"""Figures with units in the documents: durations with the bound their wording puts on them
(under, at least, every, exactly) and what they measure (retention, deletion, latency,
propagation, delivery cycle, recovery point, backup period, timeout); rates per second.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from review_harness.core.markdown import Sentence
from review_harness.design.offline.vocabulary import V

TIME_UNITS = [
    (r"ms|msecs?|milliseconds?", 0.001), (r"s|secs?|seconds?", 1.0), (r"mins?|minutes?", 60.0),
    (r"h|hrs?|hours?", 3600.0), (r"d|days?|business days?", 86400.0), (r"wks?|weeks?", 604800.0),
    (r"months?|mos?", 2_592_000.0), (r"y|yrs?|years?", 31_536_000.0),
]
NUMBER_WORDS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
                "sixty": 60, "ninety": 90}
DURATION = re.compile(
    r"(?<![\w.$€£])(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
    r"fifteen|twenty|thirty|sixty|ninety|an?)[\s-]?(?P<unit>" + "|".join(f"(?:{u})" for u, _ in TIME_UNITS) + r")\b(?!\s*(?:/|per)\b)",
    re.I,
)
PERIOD_WORDS = {"nightly": 86400.0, "daily": 86400.0, "hourly": 3600.0, "weekly": 604800.0, "monthly": 2_592_000.0}


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
    for m in DURATION.finditer(text):
        num = m.group("num").lower()
        if num in NUMBER_WORDS:
            if num in ("a", "an") and not re.search(r"(within|every|once|in|under|for|than|per)\s+$", text[: m.start()], re.I):
                continue
            val = float(NUMBER_WORDS[num])
        else:
            val = float(num.replace(",", ""))
        unit = m.group("unit").lower()
        if unit in ("s", "d", "h", "y") and not num[0].isdigit():
            continue
        mult = next(f for u, f in TIME_UNITS if re.fullmatch(u, unit, re.I))
        before = text[max(0, m.start() - 40): m.start()]
        if V.period_before.search(before):
            bound = "period"
        elif V.upper_bound.search(before):
            bound = "upper"
        elif V.lower_bound.search(before):
            bound = "lower"
        else:
            bound = "exact"
        out.append(Qty(val * mult, bound, m.group(0), m.start(), m.end()))
    for m in V.period_word.finditer(text):
        key = m.group(1).lower()
        secs = PERIOD_WORDS.get(key) or {"day": 86400.0, "hour": 3600.0, "week": 604800.0, "month": 2_592_000.0}[m.group(2).lower()]
        out.append(Qty(secs, "period", m.group(0), m.start(), m.end()))
    return out


def quantities_by_unit(units: Iterable[Sentence]) -> Iterator[tuple[Sentence, Qty]]:
    for u in units:
        for q in time_quantities(u.plain):
            yield u, q


def duration_topics(text: str, q: Qty) -> set[str]:
    """What a duration measures, judged from the words before it in its sentence."""
    before = text[max(0, q.start - 110): q.start]
    before = re.split(r"(?<!\d)[.;!?]", before)[-1]
    after = text[q.end: q.end + 40]
    after = re.split(r"[.;!?,]", after)[0]
    out: set[str] = set()
    if q.seconds >= 86400:
        if V.retain.search(before) and q.bound in ("lower", "exact", "period"):
            out.add("retain")
        if (V.delete.search(before) and q.bound in ("upper", "exact")) or (re.search(r"older than\s*$", before, re.I) and (V.delete.search(after) or V.delete.search(before))):
            out.add("delete")
    if q.seconds < 3600 and q.bound in ("upper",) and (V.latency.search(before) or V.latency.search(after)):
        out.add("latency")
    if q.seconds < 86400 * 2 and q.bound == "upper" and V.change.search(text) and V.propagate_req.search(text):
        out.add("propagate")
    if q.bound == "period" and (V.delivery.search(before) or V.delivery.search(text)):
        out.add("delivery")
    if q.bound in ("upper", "exact") and V.recovery_req.search(text):
        out.add("rpo")
    if q.bound == "period" and V.backup.search(text):
        out.add("backup")
    if q.seconds < 3600 and q.bound in ("upper", "exact") and re.search(r"\btime ?outs?\b|\btimes? out\b|\bgives? up after\b", before + " " + after, re.I):
        out.add("timeout")
    return out


# '3,000 events/s', '130 requests per second', '2k rps'
RATE = re.compile(
    r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(?P<mult>[kKmM]\b)?(?:\s?[a-zA-Z][a-zA-Z-]*){0,2}?\s?"
    r"(?:(?P<per>/\s?s(?:ec)?|per second|a second|/\s?min|per minute|a minute|/\s?h(?:r|our)?|per hour|an hour)\b|(?P<rps>rps|qps|tps)\b)",
    re.I,
)


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


# words around a figure that say nothing about what it is a figure of
_ABOUT_STOP = {"after", "within", "under", "less", "more", "than", "least", "most", "every", "each", "minute", "hour", "day",
               "second", "week", "month", "year", "ms", "up", "at", "in", "for", "the", "a", "an", "of", "and", "or", "to", "is",
               "are", "be", "must", "should", "will", "can", "shall", "valid", "set", "default"}


@dataclass
class Stated:
    """A duration stated as the value of a measured thing ('reset tokens expire after 15 minutes')."""

    unit: Sentence
    qty: Qty
    topic: str  # expiry | timeout | latency
    about: set[str]  # stemmed words of what it measures ('reset', 'token')


def stated_durations(units: Iterable[Sentence]) -> list[Stated]:
    """Durations that are the value of an expiry, a timeout or a latency limit, with the words of
    what they measure (the clause around the figure)."""
    from review_harness.design.offline.vocabulary import term_set

    out = []
    for u in units:
        if u.kind == "heading":
            continue
        for q in time_quantities(u.plain):
            if q.bound not in ("upper", "exact"):
                continue
            before = re.split(r"[;:]|(?<!\d)[.,](?!\d)", u.plain[max(0, q.start - 80): q.start])[-1]
            after = re.split(r"[;:,.]", u.plain[q.end: q.end + 30])[0]
            for topic, pat in V.measured_topic.items():
                if pat.search(before) or pat.search(after):
                    about = {t for t in term_set(before + " " + after) if t not in _ABOUT_STOP and not pat.search(t)}
                    out.append(Stated(u, q, topic, about))
                    break
    return out


def _same_thing(a: set[str], b: set[str]) -> bool:
    """Two descriptions of what is measured name one thing: two shared words, or one contains the
    other ('tokens' and 'reset tokens'); 'refresh token' and 'reset token' are two things."""
    small, large = sorted((a, b), key=len)
    return len(a & b) >= 2 or (bool(small) and small <= large)


def same_quantity_pairs(first: list[Stated], second: list[Stated], ratio: float = 2.0) -> list[tuple[Stated, Stated]]:
    """Pairs that state one measured thing (same topic, a shared word of what is measured) with
    values at least `ratio` apart, in different sentences."""
    out = []
    for a in first:
        for b in second:
            if a is b or a.unit.line == b.unit.line or a.topic != b.topic or not _same_thing(a.about, b.about):
                continue
            lo, hi = sorted((a.qty.seconds, b.qty.seconds))
            if lo > 0 and hi / lo >= ratio:
                out.append((a, b))
    return out
