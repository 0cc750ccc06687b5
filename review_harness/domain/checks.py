"""The offline domain reviewer's readings of a document: one detector per kind of knowledge a
brief can hold (prompts/domain/offline_rules.yaml names them). A detector gets the document's
reading, the knowledge item that asks for it and the concept's data; it says whether the item
applies to the document, whether the document handles it, and which sentence to quote. The
readings separate a correction from words that resemble one: randomising the sample of queries
does not randomise the positions results are shown in, and a label derived from engagement
("opened and read for 20 s") is a click-derived label.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.patterns import PatternTable, compile_patterns
from review_harness.core.registry import Registry
from review_harness.core.stats import chi_square_p
from review_harness.core.yamlio import read_yaml
from review_harness.domain.items import Item
from review_harness.domain.reading import Reading, Unit, negated
from review_harness.domain.scope import term_matches, term_pattern

RULES_FILE = PROMPTS_DIR / "domain" / "offline_rules.yaml"


class Concept(BaseModel):
    id: str
    reading: str
    cues: list[str]
    lens: str
    issue_type: str
    acknowledged_issue_type: str | None = None
    summary: str
    fix: str
    fix_default: str = ""


class Explicit(BaseModel):
    critical_words: list[str]
    critical_issue_type: str
    default_issue_type: str
    lens: str


class RulesConfig(BaseModel):
    concepts: list[Concept]
    explicit: Explicit
    vocabulary: dict[str, list[str] | dict[str, list[str]]]
    patterns: dict[str, list[str]]
    metrics: list[str]
    benchmark_words: list[str]

    def words(self, name: str) -> list[str]:
        value = self.vocabulary[name]
        return value if isinstance(value, list) else [w for ws in value.values() for w in ws]

    def groups(self, name: str) -> dict[str, list[str]]:
        value = self.vocabulary[name]
        return value if isinstance(value, dict) else {name: value}

    def concept_of(self, item: Item) -> Concept | None:
        """The concept an item is about: the first whose cue it uses."""
        low = f" {item.low}"
        return next((c for c in self.concepts if any(cue.lower().replace("-", " ") in low for cue in c.cues)), None)


@lru_cache(maxsize=2)
def load_rules(path: Path = RULES_FILE) -> RulesConfig:
    return RulesConfig.model_validate(read_yaml(path))


@lru_cache(maxsize=2)
def _patterns(path: Path = RULES_FILE) -> PatternTable:
    raw = load_rules(path).patterns
    return compile_patterns({name: "|".join(f"(?:{p})" for p in pieces) for name, pieces in raw.items()}, str(path))


@dataclass
class Outcome:
    """What a detector decided for one item. status: finding | addressed | undecided."""

    status: str
    unit: Unit | None = None
    acknowledged: bool = False
    values: dict[str, str] = field(default_factory=dict)
    key: str = ""  # two items that give the same (concept, key) are one finding
    why: str = ""  # undecided: what could not be read


@dataclass
class Ctx:
    reading: Reading
    item: Item
    concept: Concept
    rules: RulesConfig
    path: Path = RULES_FILE

    def has(self, unit: Unit, vocab: str, *, negated_ok: bool = False) -> bool:
        return bool(term_matches(unit.low, self.rules.words(vocab), allow_negated=negated_ok))

    def count(self, unit: Unit, vocab: str) -> int:
        return len(set(term_matches(unit.low, self.rules.words(vocab))))

    def terms(self, unit: Unit, terms: list[str]) -> bool:
        return bool(term_matches(unit.low, terms))

    def matches(self, unit: Unit, pattern: str) -> bool:
        return bool(_patterns(self.path)[pattern].search(unit.low))

    def anywhere(self, vocab: str, *, units: list[Unit] | None = None) -> Unit | None:
        return next((u for u in (units if units is not None else self.reading.core) if self.has(u, vocab)), None)


Detector = Callable[[Ctx], "Outcome | None"]
DETECTORS: Registry[Detector] = Registry("domain reading")
reading = DETECTORS.register


def _body_first(units: list[Unit]) -> list[Unit]:
    """The body before the summary and title: the method is where a finding's evidence is."""
    return sorted(units, key=lambda u: (u.part != "body", u.line))


def _remedy_terms(ctx: Ctx) -> list[str]:
    """Short phrases of the item's remedy a document could use verbatim ("doubly robust estimator")."""
    remedy = ctx.item.remedy or ""
    parts = re.split(r",|\bor\b|\band\b|\(|\)|;", remedy.lower())
    return [p.strip().removeprefix("a ").removeprefix("an ").removeprefix("the ").strip() for p in parts
            if len(p.strip().split()) >= 2]


# ------------------------------------------------------------------ engagement read as relevance


LINKER = re.compile(r"\b(as|when|if|from|based|using|derived|come|comes|is|are|was|were|by|on|whenever|once)\b|=")
MODIFIER = re.compile(r"^\s*(based|derived|weighted)?\s*$")


def _spans(ctx: Ctx, unit: Unit, vocab: str) -> list[tuple[int, int]]:
    return [m.span() for t in ctx.rules.words(vocab) for m in term_pattern(t).finditer(unit.low)
            if not negated(unit.low, m.start())]


def engagement_labels_in(ctx: Ctx, unit: Unit) -> bool:
    """Engagement and a label tied together in one sentence ("counts as relevant when it was
    clicked", "labels come from taps", "click NDCG"), not two names in a list ("engagement,
    relevance, latency")."""
    for e0, e1 in _spans(ctx, unit, "engagement"):
        for l0, l1 in _spans(ctx, unit, "labels"):
            between = unit.low[min(e1, l1):max(e0, l0)]
            if len(between) > 70:
                continue
            if MODIFIER.match(between) or LINKER.search(between):
                return True
    return False


def _engagement_label_units(ctx: Ctx) -> list[tuple[int, Unit]]:
    """Units where user engagement with shown items becomes a label, a relevance measure or a
    ranking signal, with a rank: a definition ("counts as relevant when clicked") first, then an
    order set by past engagement, then an offline replay of logged engagement."""
    out = []
    for unit in ctx.reading.core:
        if not ctx.has(unit, "engagement"):
            continue
        if engagement_labels_in(ctx, unit):
            out.append((0, unit))
        elif ctx.has(unit, "ordered_by") and ctx.has(unit, "history"):
            out.append((1, unit))
        elif ctx.has(unit, "replay"):
            out.append((2, unit))
    return out


DECLINED = re.compile(r"^[^,;.]{0,40}?\b(?:is|are|was|were) not\b|^[^,;.]{0,40}?\b(?:not needed|no need|not used|not applied|"
                      r"skipped|left out|dropped)\b")


def _affirmed(low: str, spans: list[tuple[int, int]]) -> bool:
    """Some mention is neither negated before it ("no IPW") nor declined after it ("an interleaving
    test is not needed")."""
    return any(not negated(low, a) and not DECLINED.search(low[b:]) for a, b in spans)


def position_corrected(ctx: Ctx, unit: Unit) -> bool:
    """A correction of position bias: propensities, click models, randomised positions or order,
    interleaving. Randomising the sample (of queries, users or traffic) is not one, nor is a
    correction still to come or one the document declines."""
    if not unit.is_done:  # a correction still to come does not correct the labels this work used
        return False
    terms = ctx.rules.words("position_correction") + _remedy_terms(ctx)
    spans = [m.span() for t in terms for m in term_pattern(t).finditer(unit.low)]
    spans += [m.span() for m in _patterns(ctx.path)["position_randomized"].finditer(unit.low)]
    return _affirmed(unit.low, spans)


@reading("engagement_labels")
def engagement_labels(ctx: Ctx) -> Outcome | None:
    found = _engagement_label_units(ctx)
    if not found:
        return None
    if any(position_corrected(ctx, u) for u in ctx.reading.core):
        return Outcome("addressed")
    acknowledged = [u for u in ctx.reading.core if ctx.has(u, "acknowledged_position", negated_ok=True)]
    if any(ctx.has(u, "justification") for u in acknowledged):
        return Outcome("addressed")
    rank, unit = min(found, key=lambda t: (t[0], t[1].part != "body", t[1].line))
    return Outcome("finding", unit, acknowledged=bool(acknowledged), key="position")


# ------------------------------------------------------------------ the logging policy


@reading("logged_policy")
def logged_policy(ctx: Ctx) -> Outcome | None:
    """Engagement logged under the current system used to judge or train a new one (an offline
    replay, a model trained on logged clicks, metrics computed from click logs)."""
    units = [u for u in ctx.reading.core if ctx.has(u, "logged") and ctx.has(u, "engagement")
             and (ctx.has(u, "replay") or ctx.has(u, "trained") or ctx.has(u, "labels"))]
    if not units:
        return None
    if any(ctx.has(u, "policy_handled") for u in ctx.reading.units):
        return Outcome("addressed")
    unit = min(units, key=lambda u: (not ctx.has(u, "replay") and not ctx.has(u, "trained"), u.part != "body", u.line))
    return Outcome("finding", unit, key="logging")


# ------------------------------------------------------------------ one metric as the objective

ACRONYM = re.compile(r"\b[A-Z][A-Z0-9@]{1,7}\b")


def item_metric(item: Item) -> str | None:
    """The metric an item warns against using alone ("Optimizing CTR alone ..." -> "CTR")."""
    text = item.text
    at = min((text.lower().find(w) for w in (" alone", " on its own", " as the only") if w in text.lower()), default=-1)
    head = text[:at] if at >= 0 else text
    acronyms = ACRONYM.findall(head)
    return acronyms[-1] if acronyms else None


@reading("sole_objective")
def sole_objective(ctx: Ctx) -> Outcome | None:
    metric = item_metric(ctx.item)
    names = [metric.lower()] if metric else ctx.rules.words("engagement")
    units = [u for u in ctx.reading.core if ctx.terms(u, names) and ctx.matches(u, "objective")]
    if not units:
        return None
    if any(ctx.has(u, "satisfaction") for u in ctx.reading.core) or \
            any(ctx.terms(u, _remedy_terms(ctx)) for u in ctx.reading.core if _remedy_terms(ctx)):
        return Outcome("addressed")
    unit = _body_first(units)[0]
    return Outcome("finding", unit, values={"metric": metric or "An engagement metric"}, key=(metric or "engagement").lower())


# ------------------------------------------------------------------ segments looked at separately


def item_segments(ctx: Ctx) -> tuple[str, list[str]] | None:
    """The kind of segment an item asks for ("head/tail", "locale") and the words it uses."""
    for kind, words in ctx.rules.groups("segment_words").items():
        used = [w for w in words if term_matches(ctx.item.low, [w], allow_negated=True)]
        if used:
            return kind, used
    return None


POPULATION = re.compile(r"\b(quer(?:y|ies)|users?|sessions?|searches|customers|locales?|markets?|countries|requests?)\b")


@reading("segments")
def segments(ctx: Ctx) -> Outcome | None:
    """Results reported only pooled when the item asks for a segment split (head and tail
    queries, locales). A plan or proposal with no results is not judged on it."""
    found = item_segments(ctx)
    if found is None or not ctx.reading.has_results:
        return None
    kind, words = found
    handled = ctx.rules.groups("segment_handled").get(kind, words)
    if any(ctx.terms(u, handled) for u in ctx.reading.core):
        return Outcome("addressed")
    scope = ctx.rules.groups("segment_scope").get(kind)
    population = POPULATION.search(ctx.item.low)
    noun = plural(population.group(1)) if population else None
    if scope:  # a split by place: it applies when the work covers every place at once
        units = [u for u in ctx.reading.core if ctx.terms(u, scope)]
        if not units:
            return None
        return Outcome("finding", _body_first(units)[0], key=kind, values={
            "what": f"The work covers every {kind} at once, with no result for each {kind}",
            "segments": f"each {kind}"})
    if noun and not any(term_matches(u.low, [singular(noun), noun]) for u in ctx.reading.core):
        return None  # the item is about a population the document does not measure
    units = [u for u in ctx.reading.core if ctx.has(u, "segments_pooled")
             and (noun is None or term_matches(u.low, [singular(noun), noun]))]
    unit = _body_first(units)[0] if units else next((u for u in _body_first(ctx.reading.results)), None)
    if unit is None:
        return None
    named = [w for w in words if not w.endswith("*") and w not in ("frequency band", kind)]
    label = " and ".join(dict.fromkeys(named)) or kind
    segments_text = f"{label} {noun}" if noun else label
    pooled = f"Results are pooled over all {noun}" if noun else "Results are reported pooled"
    return Outcome("finding", unit, key=kind, values={
        "what": f"{pooled}; {segments_text} are not looked at separately", "segments": segments_text})


def plural(noun: str) -> str:
    if noun.endswith("s"):
        return noun
    return noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"


def singular(noun: str) -> str:
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") else noun


# ------------------------------------------------------------------ offline evidence, online decision


@reading("offline_only")
def offline_only(ctx: Ctx) -> Outcome | None:
    launches = [u for u in ctx.reading.core if ctx.has(u, "launch") and not u.kind == "table"]
    offline = [u for u in ctx.reading.core if ctx.has(u, "offline_evidence")]
    if not launches or not offline:
        return None
    if any(ctx.has(u, "online_experiment") for u in ctx.reading.core):
        return Outcome("addressed")
    recommend = [u for u in launches if re.search(r"\brecommend|\bpropose|\bwe should|\bnext\b", u.low)] or launches
    return Outcome("finding", sorted(recommend, key=lambda u: (u.part == "title", u.part != "summary", u.line))[0],
                   key="online")


# ------------------------------------------------------------------ load tests and latency


@reading("closed_loop_load")
def closed_loop_load(ctx: Ctx) -> Outcome | None:
    tests = [u for u in ctx.reading.core if ctx.has(u, "load_test") or ctx.has(u, "closed_loop")]
    if not tests:
        return None
    if any(ctx.has(u, "open_loop") for u in ctx.reading.core):
        return Outcome("addressed")
    closed = [u for u in tests if ctx.has(u, "closed_loop")]
    acknowledged = any(ctx.terms(u, ["coordinated omission"]) for u in ctx.reading.core)
    if not closed:
        return Outcome("undecided", why="the load test does not say how its generator sends requests")
    return Outcome("finding", _body_first(closed)[0], acknowledged=acknowledged, key="load")


@reading("mean_latency")
def mean_latency(ctx: Ctx) -> Outcome | None:
    units = [u for u in ctx.reading.core if ctx.has(u, "latency")]
    if not units:
        return None
    if any(ctx.matches(u, "percentile") for u in units):
        return Outcome("addressed")
    means = [u for u in units if ctx.has(u, "mean")]
    if not means:
        return Outcome("undecided", why="the latency figures do not say whether they are means or percentiles")
    wanted = re.search(r"\bp\d{2,3}\b", ctx.item.low)
    return Outcome("finding", sorted(means, key=lambda u: u.line)[0] if means[0].part != "title" else means[0],
                   values={"percentile": wanted.group(0) if wanted else "percentile"}, key="latency")


# ------------------------------------------------------------------ classifiers


@reading("raw_accuracy")
def raw_accuracy(ctx: Ctx) -> Outcome | None:
    units = [u for u in ctx.reading.core if ctx.has(u, "accuracy")]
    if not units or not any(ctx.has(u, "classifier") for u in ctx.reading.core):
        return None
    if any(ctx.has(u, "per_class") for u in ctx.reading.core):
        return Outcome("addressed")
    defining = [u for u in units if re.search(r"\baccuracy (is|means|measures|counts)|share of", u.low)]
    return Outcome("finding", (defining or _body_first(units))[0], key="accuracy")


@reading("leakage")
def leakage(ctx: Ctx) -> Outcome | None:
    """A model trained and evaluated on items of the same population (the item's: queries, users)
    with no split by session or normalized form."""
    population = POPULATION.search(ctx.item.low)
    noun = population.group(1) if population else None
    trained = [u for u in ctx.reading.core if ctx.has(u, "trained")
               and (noun is None or term_matches(u.low, [singular(noun), plural(noun)]))]
    if not trained:
        return None
    if any(ctx.has(u, "leakage_handled") for u in ctx.reading.core):
        return Outcome("addressed")
    unit = next((u for u in trained if ctx.has(u, "exact_dedup")), trained[0])
    return Outcome("finding", unit, values={"population": plural(noun or "item")}, key="leakage")


# ------------------------------------------------------------------ experiments: sample ratio, duration

COUNT = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d{3,})(?:\.\d+)?\s*(k|thousand|m|million)?\b", re.IGNORECASE)
P_LIMIT = re.compile(r"p\s*<\s*(0?\.\d+)")
SPLIT = re.compile(r"\b(\d{1,2})\s*/\s*(\d{1,2})\b")


def _count(match: re.Match[str]) -> float:
    value = float(match.group(1).replace(",", ""))
    scale = (match.group(2) or "").lower()
    return value * (1000 if scale in ("k", "thousand") else 1_000_000 if scale in ("m", "million") else 1)


def arm_counts(ctx: Ctx) -> tuple[list[float], Unit] | None:
    """The arms' sizes: a sentence (or table row) giving two or more unit counts beside arm names
    ("3019 users ... test group ... 2560 users ... control group"), outcome counts left out."""
    for unit in _body_first(ctx.reading.core):
        if not (ctx.has(unit, "arm_words") and ctx.has(unit, "unit_words", negated_ok=True)):
            continue
        counts = []
        for match in COUNT.finditer(unit.low.replace(" ", "  ")):
            after = unit.low[match.end():match.end() + 25]
            if re.match(r"\s*(%|percent|pp\b)", after) or re.match(r"\s*\w*\s*(" + "|".join(
                    map(re.escape, ctx.rules.words("outcome_words"))) + r")\b", after):
                continue
            if re.match(r"(19|20)\d\d$", match.group(1)) and not match.group(2):
                continue  # a year
            counts.append(_count(match))
        counts = [c for c in counts if c >= 100]
        if len(counts) >= 2:
            total = sum(counts)
            if len(counts) >= 3 and abs(max(counts) - (total - max(counts))) < 1e-6:
                counts.remove(max(counts))  # "5579 users ... 3019 ... 2560": the total is not an arm
            return counts[:4], unit
    return None


def planned_shares(ctx: Ctx, arms: int) -> tuple[list[float], str] | None:
    """The planned split: stated ("90/10"), equal when the document says so, else None."""
    for unit in ctx.reading.core:
        split = SPLIT.search(unit.low)
        if split and ctx.has(unit, "experiment") or split and ctx.has(unit, "arm_words"):
            a, b = int(split.group(1)), int(split.group(2))
            if a + b == 100 and arms == 2:
                return [a / 100, b / 100], f"{a}/{b}"
    if any(ctx.has(u, "equal_split") for u in ctx.reading.core):
        return [1 / arms] * arms, "equal"
    return None


def fmt_p(p: float) -> str:
    return f"= {p:.2g}" if p >= 1e-4 else "< 0.0001"


@reading("sample_ratio")
def sample_ratio(ctx: Ctx) -> Outcome | None:
    if not any(ctx.has(u, "experiment") for u in ctx.reading.core):
        return None
    found = arm_counts(ctx)
    if found is None:
        return None
    counts, unit = found
    planned = planned_shares(ctx, len(counts))
    if planned is None:
        return Outcome("undecided", why="the document gives the arms' sizes but not the planned split")
    shares, split = planned
    p = chi_square_p(counts, shares)
    limit_match = P_LIMIT.search(ctx.item.low)
    limit = float(limit_match.group(1)) if limit_match else 0.001
    if p >= limit:
        return Outcome("addressed")
    acknowledged = any(ctx.terms(u, ["sample ratio mismatch", "srm"]) for u in ctx.reading.core)
    shown = " vs ".join(f"{c:,.0f}" for c in counts)
    return Outcome("finding", unit, acknowledged=acknowledged,
                   values={"counts": shown, "split": split, "p": fmt_p(p)}, key="srm")


DURATION = re.compile(
    r"\b(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten|a)[- ](?P<unit>day|days|week|weeks|month|months)\b")
WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
DAYS = {"day": 1, "week": 7, "month": 30}
MONTHS = "january february march april may june july august september october november december".split()
DATE_RANGE = re.compile(
    r"(?:from\s+)?(?P<d1>\d{1,2})\s+(?P<m1>[a-z]+)(?:\s+\d{4})?\s+(?:to|through|until|till|-|–)\s+(?P<d2>\d{1,2})\s+(?P<m2>[a-z]+)|"
    r"(?:from\s+)?(?P<m3>[a-z]+)\s+(?P<d3>\d{1,2})(?:,?\s+\d{4})?\s+(?:to|through|until|till|-|–)\s+(?P<m4>[a-z]+)?\s*(?P<d4>\d{1,2})\b")


def _days(match: re.Match[str]) -> float:
    n = match.group("n")
    return (WORDS.get(n) or int(n)) * DAYS[match.group("unit").rstrip("s")]


def _range_days(match: re.Match[str]) -> int | None:
    import datetime as dt

    d1, m1, d2, m2 = (match.group("d1"), match.group("m1"), match.group("d2"), match.group("m2")) if match.group("d1") \
        else (match.group("d3"), match.group("m3"), match.group("d4"), match.group("m4") or match.group("m3"))
    if m1 not in MONTHS or m2 not in MONTHS:
        return None
    start = dt.date(2001, MONTHS.index(m1) + 1, int(d1))
    end = dt.date(2001 if MONTHS.index(m2) >= MONTHS.index(m1) else 2002, MONTHS.index(m2) + 1, int(d2))
    return (end - start).days + 1


def item_bound_days(item: Item) -> tuple[float, str] | None:
    match = re.search(r"\b(?:at least|minimum of|no shorter than|no less than)\s+(?P<n>\d+|one|two|three|four|a)"
                      r"[- ](?P<unit>day|days|week|weeks|month|months)\b", item.low)
    if not match:
        return None
    return _days(match), f"{match.group('n')} {match.group('unit')}"


@reading("duration")
def duration(ctx: Ctx) -> Outcome | None:
    """An experiment shorter than the item's minimum run ("at least 14 days")."""
    bound = item_bound_days(ctx.item)
    if bound is None:
        return None
    limit, bound_text = bound
    if not any(ctx.has(u, "experiment") for u in ctx.reading.core):
        return None

    def lengths(unit: Unit) -> list[float]:
        found = [_days(m) for m in DURATION.finditer(unit.low)]
        return found + [d for m in DATE_RANGE.finditer(unit.low) if (d := _range_days(m))]

    # the run's length: a sentence about the experiment, else one about how long the data ran
    runs = [(max(n), u) for u in ctx.reading.core if ctx.has(u, "experiment") and not u.is_plan and (n := lengths(u))]
    if not runs:
        runs = [(max(n), u) for u in ctx.reading.core if u.part == "body" and ctx.has(u, "run_words")
                and not u.is_plan and (n := lengths(u))]
    if not runs:
        if ctx.reading.has_results:
            return Outcome("undecided", why="the experiment's duration is not stated")
        return None
    longest, unit = max(runs, key=lambda t: t[0])
    if longest >= limit:
        return Outcome("addressed")
    reason = re.search(r"\bto (cover|capture|include|span|see) ([^;.]+)", ctx.item.low)
    return Outcome("finding", unit, values={"observed": f"{longest:g} days", "bound": bound_text,
                                            "reason": f"to {reason.group(1)} {reason.group(2)}" if reason else ""},
                   key="duration")


# ------------------------------------------------------------------ explicit conditions


def explicit_check(reading_: Reading, item: Item) -> Outcome | None:
    """An item that states its own conditions: it applies when what the document does names one
    of `applies when`, and is handled when the document names one of `addressed by`."""
    units = [u for u in reading_.core if term_matches(u.low, item.applies_when)]
    if not units:
        return None
    if item.addressed_by and any(term_matches(u.low, item.addressed_by) for u in reading_.units):
        return Outcome("addressed")
    return Outcome("finding", _body_first(units)[0], key=item.text[:40])

