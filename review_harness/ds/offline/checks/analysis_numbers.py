"""Detectors that check a write-up's reported statistics against each other, in prose and tables
alike: an estimate must lie inside the interval reported with it, and a p-value must agree with
that interval about whether the effect could be zero. Each reads an estimate, its interval and its
p-value as the document writes them ("+4.8 points (95% CI +1.6 to +4.0)", "| +0.027 | [0.035,
0.051] |", "(−0.5 to +0.1 pp, p = 0.01)"); where it cannot tell what an interval belongs to, it
says nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from review_harness.ds.offline.checks.helpers import quoted_hit, tables_with_cells
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import APPENDIX, SUMMARY, Sentence

I = re.IGNORECASE

_NUM = r"[-−–+]?\s?[$€£]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-−–+]?\s?[$€£]?\d+(?:\.\d+)?"
_UNIT = r"(?:\s?\\?%|\s?(?:pp|p\.p\.|ppts?|pts?|points?|percentage points?|bps|x|×)\b)?"
# the words that name an interval: "95% CI", "90% HDI", "95% posterior interval", "bootstrap interval for the difference"
_LABEL = (r"(?:\d{2}(?:\.\d)?\s?\\?%\s*)?(?:(?:confidence|credible|posterior|prediction|probability|uncertainty|compatibility|"
          r"bootstrap|plausible)\s+)?(?:CI|CrI|HDI|HPDI?|PI|interval|range)\b(?:\s+(?:for|of|on) (?:the )?[a-z ]{0,25}?)?\s*:?\s*")
# a comma separates bounds only before a space or a sign ("[0.035, 0.051]"); "2,063" is one number
_SEP = r"\s*(?:to|,(?=\s|[-−+])|–|—|\.\.|and)\s*"
# an estimate, then an interval in brackets or after a comma ("+0.31 pp, 95% CI +0.38 to +0.64 pp")
_PAIR = re.compile(
    rf"(?<![\w.,])(?P<est>{_NUM})(?P<eu>{_UNIT})(?P<gap>[^\d()\[\];.|]{{0,40}}?)"
    rf"(?:[(\[]\s*(?P<label>{_LABEL})?|[,;]\s*(?P<label2>{_LABEL})[(\[]?\s*)"
    rf"(?P<lo>{_NUM})(?P<lu>{_UNIT}){_SEP}(?P<hi>{_NUM})(?P<hu>{_UNIT})"
    # the interval ends there (a bracket, a clause break), or goes on with its p-value up to the bracket
    rf"(?P<tail>\s*(?:[,;]\s*[^()\[\]]{{0,60}}?)?)(?=\s*[)\]]|\s*[;,.](?:\s|$)|\s*$|\s+(?:and|with|in|over|for|which|so|but|from|on)\b)", I)
# an interval alone, as a table cell holds it: "[0.035, 0.051]", "−0.5 to +0.1 pp", "(1.2 to 2.5)"
_CELL_INTERVAL = re.compile(rf"^\s*[(\[]?\s*(?P<lo>{_NUM})(?P<lu>{_UNIT}){_SEP}(?P<hi>{_NUM})(?P<hu>{_UNIT})\s*[)\]]?\s*$", I)
_CELL_NUMBER = re.compile(rf"^\s*(?:\*\*)?(?P<est>{_NUM})(?P<eu>{_UNIT})(?:\*\*)?\s*$", I)
_CELL_LEADING = re.compile(rf"^\s*(?P<est>{_NUM})(?P<eu>{_UNIT})(?:\s*$|\s+\()", I)
_P = re.compile(r"\bp\s*(?:-?\s*values?)?\s*(?P<op>=|<|>|≤|≥|&lt;|&gt;)\s*(?P<p>0?\.\d+|1(?:\.0+)?)\b", I)
_RATIO = re.compile(r"\b(ratios?|odds|hazard|relative risk|risk ratio|rate ratio|\bOR\b|\bRR\b|\bHR\b|\bIRR\b|times|"
                    r"multiplier|fold|iROAS|ROAS|ROI)\b|(?<=\d)\s?[x×]\b", I)
_DIFFERENCE = re.compile(r"\b(difference|diff|change|effect|lift|uplift|delta|gain|increase|decrease|reduction|improvement)\b|Δ", I)
_DECREASE = re.compile(r"\b(reduc\w+|decreas\w+|declin\w+|drop\w*|fell|fewer|lower|less|down|cut|saving|prevent\w*|lost)\b", I)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_COMPARED = re.compile(rf"(?:\bfrom\s+(?P<a>{_NUM})[^\d()]{{0,20}}?\bto\s+|(?P<a2>{_NUM})[^\d()]{{0,20}}?\b(?:vs\.?|versus|against|"
                       rf"compared (?:with|to))\s+)[$€£]?[\d.,]+{_UNIT}$", I)
_LEVEL = re.compile(r"(\d{2}(?:\.\d)?)\s?\\?%\s*(?:confidence|credible|posterior|CI|CrI|HDI|interval)", I)


def _value(raw: str) -> float | None:
    t = raw.replace("−", "-").replace("–", "-").replace(" ", "").replace(",", "")
    t = re.sub(r"[$€£]", "", t)
    try:
        return float(t)
    except ValueError:
        return None


def _signed(raw: str) -> bool:
    return raw.strip()[:1] in "-−–+"


def _tolerance(*raws: str) -> float:
    """Half a unit of the finest last digit written: what rounding can move a reported figure by."""
    decimals = max((len(m.group(1)) for r in raws for m in [re.search(r"\.(\d+)", r)] if m), default=0)
    return 0.5 * 10 ** (-decimals) + 1e-9


def _unit(u: str) -> str:
    u = (u or "").strip().lower().replace("\\", "")
    if u in ("%",):
        return "%"
    if u in ("pp", "p.p.", "ppt", "ppts", "pt", "pts", "point", "points", "percentage point", "percentage points"):
        return "pp"
    return u


@dataclass
class Reported:
    """An estimate with its interval (and a p-value when one is given beside them)."""

    sentence: Sentence
    est_raw: str | None
    lo_raw: str
    hi_raw: str
    context: str  # the words around it, to tell a ratio from a difference
    p: float | None
    p_op: str
    level: float | None
    others: tuple[float, ...] = ()  # figures the interval may describe the difference of ("from 4.1% to 3.9%")
    est_unit: str = ""
    interval_unit: str = ""

    @property
    def lo(self) -> float:
        return _value(self.lo_raw)

    @property
    def hi(self) -> float:
        return _value(self.hi_raw)

    @property
    def est(self) -> float | None:
        return _value(self.est_raw) if self.est_raw is not None else None


def _plausible_interval(lo_raw: str, hi_raw: str) -> bool:
    lo, hi = _value(lo_raw), _value(hi_raw)
    if lo is None or hi is None or lo >= hi:
        return False  # a range written high to low, or a point, is no interval to check
    return not (_YEAR.match(lo_raw.strip()) and _YEAR.match(hi_raw.strip()))


def _p_near(text: str) -> tuple[float | None, str]:
    m = _P.search(text)
    if not m:
        return None, ""
    return float(m.group("p")), m.group("op").replace("&lt;", "<").replace("&gt;", ">")


def _level(text: str) -> float | None:
    m = _LEVEL.search(text)
    return float(m.group(1)) if m else None


def _prose_pairs(s: Sentence) -> list[Reported]:
    out = []
    text = s.text
    for m in _PAIR.finditer(text):
        if not _plausible_interval(m.group("lo"), m.group("hi")):
            continue
        est = m.group("est")
        if _unit(m.group("eu")) and _unit(m.group("lu") or m.group("hu")) and _unit(m.group("eu")) != _unit(m.group("lu") or m.group("hu")):
            est = None  # a level in % with an interval in points, or the reverse: the interval is for another quantity
        # "from 4.1% to 3.9% (95% CI for the difference ...)", "12.4% vs 9.8% (...)": the interval may be
        # for the difference of the two figures
        pair = _COMPARED.search(text[max(0, m.start() - 80):m.end("est")])
        others = tuple(v for v in (_value(pair.group("a") or pair.group("a2")),) if v is not None) if pair else ()
        label = m.group("label") or m.group("label2") or ""
        if est is not None and not _signed(est) and not others and _DIFFERENCE.search(label):
            est = None  # "... and the regression 361 (95% CI for the difference: 31 to 71)": the figure is one arm's
        if re.search(r"\bp\s*=?\s*$|\bn\s*=?\s*$|[A-Za-z]$", text[max(0, m.start("est") - 4):m.start("est")]):
            continue  # "p = 0.03 (...)", "n = 400 (...)", "Q2 (...)": not an estimate
        if _LEVEL.match(text[m.start("est"):]):
            continue  # "95% CI [...]": the figure is the interval's level, not an estimate
        if _YEAR.match(m.group("est").strip()) and not m.group("eu"):
            continue  # "the Q2 2023 cohort (−4 points, ...)": a year names, it does not estimate
        p, op = _p_near(m.group("tail") + text[m.end():m.end() + 30])
        out.append(Reported(s, est, m.group("lo"), m.group("hi"), text[max(0, m.start() - 60):m.end()],
                            p, op, _level(m.group(0)), others, _unit(m.group("eu")), _unit(m.group("lu") or m.group("hu"))))
    return out


def _table_pairs(ctx: Context) -> list[Reported]:
    out = []
    for table in tables_with_cells(ctx):
        header = table[0][1]
        for s, cells in table[1:]:
            for col, cell in enumerate(cells):
                inline = _PAIR.search(cell)
                if inline is not None:
                    continue  # read with the prose reading of the row
                m = _CELL_INTERVAL.match(cell.replace("**", ""))
                if m is None or not _plausible_interval(m.group("lo"), m.group("hi")):
                    continue
                # the estimate is the cell just before its interval ("| +$1.70 (+4.4%) | +$0.90 to +$2.50 |"); the cells
                # before that may be the two levels it is the difference of
                left = [(c, _CELL_NUMBER.match(cells[c].replace("**", ""))) for c in range(col - 1, 0, -1)]
                lead = _CELL_LEADING.match(cells[col - 1].replace("**", "")) if col > 1 else None
                if lead is None:
                    continue
                c, n = col - 1, lead
                numbers = [(c, n)] + [(k, x) for k, x in left[1:] if x is not None]
                if _unit(n.group("eu")) and _unit(m.group("lu") or m.group("hu")) and _unit(n.group("eu")) != _unit(m.group("lu") or m.group("hu")):
                    continue
                others = tuple(v for v in (_value(x.group("est")) for _, x in numbers[1:3]) if v is not None)
                names = " ".join(header[i] for i in (0, c, col) if i < len(header)) + " " + cells[0]
                p, op = _p_near(" ".join(cells[col + 1:]))
                p_col = next((i for i, h in enumerate(header) if re.fullmatch(r"\W*p(?:[- ]?values?)?\W*", h.strip(), I)), None)
                if p_col is not None and p_col < len(cells):
                    cell = re.fullmatch(r"\s*(?P<op>[<>≤≥=]?)\s*(?P<p>0?\.\d+|1(?:\.0+)?)\s*", cells[p_col].replace("**", ""))
                    if cell is not None:
                        p, op = float(cell.group("p")), cell.group("op") or "="
                est = n.group("est")
                if _unit(m.group("lu") or m.group("hu")) == "%" and not _unit(n.group("eu")):
                    est = None  # "| −0.11 | −4.6% to −1.4% |": the interval is for the relative change, not this figure
                out.append(Reported(s, est, m.group("lo"), m.group("hi"), names, p, op,
                                    _level(" ".join(header[col:col + 1])), others, _unit(n.group("eu")),
                                    _unit(m.group("lu") or m.group("hu"))))
    return out


def reported_statistics(ctx: Context) -> list[Reported]:
    """Every estimate reported with its interval, in the document's prose and tables."""
    memo = ctx.memo.get("reported_statistics")
    if memo is not None:
        return memo
    found: list[Reported] = []
    for s in ctx.features.text_sentences:
        if s.role == APPENDIX or s.kind == "heading":
            continue
        found.extend(_prose_pairs(s))
    found.extend(_table_pairs(ctx))
    ctx.memo["reported_statistics"] = found
    return found


def _inside(value: float, r: Reported, tol: float) -> bool:
    return r.lo - tol <= value <= r.hi + tol


def _estimate_outside(r: Reported) -> bool:
    """The estimate lies outside its interval by more than rounding, read every way the document could
    mean it: an unsigned reduction against a signed interval, or a level whose interval is for the
    difference from the figure before it."""
    est = r.est
    if est is None:
        return False
    tol = _tolerance(r.est_raw, r.lo_raw, r.hi_raw)
    candidates = [est]
    if not _signed(r.est_raw):
        candidates.append(-est)  # "a reduction of 0.3 points (95% CI -0.5 to -0.1)"
    for other in r.others:
        candidates += [est - other, other - est]
        if other:
            candidates += [(est - other) / abs(other) * 100, (other - est) / abs(other) * 100]
    return not any(_inside(c, r, tol) for c in candidates)


def _null(r: Reported) -> float | None:
    """What 'no effect' is for this interval: 1 for a ratio, 0 for a difference; None when the
    document does not say which it is."""
    if _RATIO.search(r.context):
        return 1.0
    if (_signed(r.lo_raw) or _signed(r.hi_raw) or (r.est_raw and _signed(r.est_raw)) or _DIFFERENCE.search(r.context)
            or r.lo < 0 < r.hi):
        return 0.0
    return None


def _p_contradicts(r: Reported) -> str | None:
    if r.p is None or r.level not in (None, 95.0, 90.0):
        return None
    null = _null(r)
    if null is None:
        return None
    alpha = 0.10 if r.level == 90.0 else 0.05
    tol = _tolerance(r.lo_raw, r.hi_raw)
    excludes = r.lo - tol > null or r.hi + tol < null
    includes = r.lo + tol < null < r.hi - tol
    if excludes and r.p > alpha * 1.2 and r.p_op not in ("<", "≤"):
        return "excludes"
    if includes and (r.p < alpha * 0.8 or (r.p_op in ("<", "≤") and r.p <= alpha)):
        return "includes"
    return None


def _fmt(raw: str | None) -> str:
    return (raw or "").replace(" ", "").strip()


@rule("interval_inconsistent")
def interval_inconsistent(ctx: Context) -> Hit | None:
    """An estimate outside its own interval; a p-value that says the opposite of its interval."""
    v = ctx.view
    for r in reported_statistics(ctx):
        if _estimate_outside(r):
            where = re.search(re.escape(r.lo_raw), r.sentence.text)
            return quoted_hit(
                v, r.sentence, where,
                title="An estimate lies outside its own interval",
                issue=(f"The estimate {_fmt(r.est_raw)} is reported with the interval {_fmt(r.lo_raw)} to {_fmt(r.hi_raw)}, "
                       f"which does not contain it (\"{v.quote(r.sentence, where, max_words=18)}\"). An interval always "
                       "contains the estimate it describes, so the estimate, the interval or both are wrong, and so is "
                       "anything read from them."),
                fix=f"Recompute the estimate and its interval from the data, and correct every place that quotes {_fmt(r.est_raw)}.",
                strength=2.5,
            )
    found = _summary_disagrees(ctx)
    if found is not None:
        return found
    for r in reported_statistics(ctx):
        side = _p_contradicts(r)
        if side is None:
            continue
        where = re.search(r"\bp\s*(?:-?\s*values?)?\s*(?:=|<|>|≤|≥)", r.sentence.text, I)
        said = ("excludes no effect" if side == "excludes" else "includes no effect")
        meaning = ("significant" if side == "excludes" else "not significant")
        return quoted_hit(
            v, r.sentence, where,
            title="A p-value contradicts its interval",
            issue=(f"The interval {_fmt(r.lo_raw)} to {_fmt(r.hi_raw)} {said}, so the result is {meaning} at its level, "
                   f"yet the p-value reported with it is {r.p_op or '='} {r.p:g} "
                   f"(\"{v.quote(r.sentence, where, max_words=18)}\"). The two cannot both be right, and the conclusion "
                   "depends on which is."),
            fix="Recompute the test and the interval from the same data and model, and report the pair that agree.",
            strength=2.5,
        )
    return None


def _same(a: str, b: str) -> bool:
    x, y = _value(a), _value(b)
    return x is not None and y is not None and abs(x - y) <= 1e-9


def _summary_disagrees(ctx: Context) -> Hit | None:
    """The summary reports an estimate with a different interval than the results give it, or the
    results' interval with a different estimate: the headline does not trace to the analysis."""
    v = ctx.view
    stats = [r for r in reported_statistics(ctx) if r.est_raw is not None]
    summary = [r for r in stats if r.sentence.role == SUMMARY]
    body = [r for r in stats if r.sentence.role != SUMMARY]
    for r in summary:
        for b in body:
            same_estimate = _same(r.est_raw, b.est_raw)
            same_interval = _same(r.lo_raw, b.lo_raw) and _same(r.hi_raw, b.hi_raw)
            if same_estimate == same_interval:
                continue  # the same figure (or an unrelated one)
            if same_estimate and not (_same(r.lo_raw, b.lo_raw) or _same(r.hi_raw, b.hi_raw)):
                continue  # an equal estimate with a wholly different interval is likely another quantity
            if same_interval and (r.est_unit != b.est_unit or _same(r.est_raw, str(-(_value(b.est_raw) or 0)))):
                continue  # "3.0% fewer" and "−3.0%", or the same interval given to a figure in other units
            where = re.search(re.escape(r.lo_raw), r.sentence.text)
            told = (f"the estimate {_fmt(r.est_raw)} with the interval {_fmt(r.lo_raw)} to {_fmt(r.hi_raw)}, where the results give "
                    + (f"it {_fmt(b.lo_raw)} to {_fmt(b.hi_raw)}" if same_estimate else
                       f"the interval {_fmt(b.lo_raw)} to {_fmt(b.hi_raw)} to the estimate {_fmt(b.est_raw)}"))
            return quoted_hit(
                v, r.sentence, where,
                title="The summary's figures differ from the results'",
                issue=(f"The summary reports {told} ({v.location(b.sentence)}). The headline does not match the results it "
                       "summarises, so the reader cannot tell which figure is right."),
                fix="Make the summary quote the results' estimate and interval, and check which of the two is correct.",
                strength=2.5,
            )
    return None
