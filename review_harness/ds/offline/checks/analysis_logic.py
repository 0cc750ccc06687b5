"""Detectors of the analysis dimension's logic lens: conclusions that contradict the results or
lack support, numbers that cannot be traced, arithmetic that does not add up (recomputed
percentages and table totals) and guardrails called stable while they moved.
"""

from __future__ import annotations

import re

from review_harness.core.mood import hedged_before
from review_harness.core.text import content_words
from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import (
    ci_spans,
    clause_of,
    is_data_size, is_parameter,
    CONDITIONAL, IMPERATIVE, ci_values, evidence_kind, first_words, metric_terms, negated_before, primary_nulls,
    quoted_hit, tables_with_cells, unmarked,
)
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import (
    APPENDIX, CLOSING_ROLES, CONCLUSION, DATA, LIMITATIONS, METHOD, RECOMMENDATION, SUMMARY, Sentence,
)


def _adverse_move(text: str) -> bool:
    pos_m, neg_m = lx.POS_METRIC.search(text), lx.NEG_METRIC.search(text)
    if pos_m and not neg_m and lx.DECLINE.search(text):
        return True
    if neg_m and not pos_m and lx.RISE.search(text):
        return True
    return False


_GENERIC = frozenset("result results data test group groups users customers rate rates week weeks month months "
                     "percent point points number numbers total overall average".split())


_STATS_AND_CHANGE = frozenset("fell fall falls rose rise rises declined decline declines dropped drop drops increased increase "
                              "decreased decrease lower higher change changed difference significant statistically "
                              "significance interval detectable measurable effect effects moved flat unchanged".split())


def _shared_subject(a: str, b: str, metric: set[str]) -> bool:
    """Whether result `b` speaks of the same thing as claim `a`: it names nothing else besides the
    measure and its movement ("conversion fell ... not significant", about the test), or it shares a
    subject with the claim. "Both genders decline with age" names its own subject."""
    def words(t: str) -> set[str]:
        return {w for w in content_words(unmarked(t).lower()) if len(w) > 3 and w not in _GENERIC and w not in metric
                and not any(w.startswith(m[:5]) for m in metric) and not re.search(r"\d", w)}
    other = words(b) - _STATS_AND_CHANGE
    return not other or bool(other & words(a))


@rule("conclusion_contradicts_results")
def conclusion_contradicts_results(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    closing = [s for s in f.closing if s.kind != "heading"]
    if not closing:
        return None
    neg: list[Sentence] = []
    pos_count = 0
    for s in f.body:
        if s.role in (LIMITATIONS, APPENDIX, METHOD) or s.kind == "heading":
            continue
        kind = evidence_kind(s.text)
        if kind == "neg" or (kind is None and s.kind != "table" and _adverse_move(s.text)):
            neg.append(s)
        elif kind == "pos":
            pos_count += 1
    if not neg:
        return None
    claims: list[tuple[int, Sentence, re.Match[str], Sentence]] = []
    for c in closing:
        if evidence_kind(c.text) == "neg" or lx.NONSIG.search(c.text):
            continue
        for pat, kind in ((lx.POS_CLAIM, "claim"), (lx.ROLLOUT, "rollout")):
            for m in pat.finditer(c.text):
                if negated_before(c.text, m.start(), 30) or CONDITIONAL.search(c.text[max(0, m.start() - 70) : m.start()]):
                    continue
                if kind == "claim":
                    terms = metric_terms(c.text)
                    for r in neg:
                        # the same measure of the same thing: "campaign 916 outperforms" and "both genders
                        # decline with age" share no subject, however both move
                        if terms & metric_terms(r.text) and _shared_subject(c.text, r.text, terms):
                            claims.append((3.5 if c.role == CONCLUSION else 3, c, m, r))
                            break
                else:
                    if not (c.role == RECOMMENDATION or lx.RECOMMENDATION.search(c.text) or IMPERATIVE.match(unmarked(c.text))):
                        break
                    primary = primary_nulls(ctx, neg)
                    if primary:
                        claims.append((2, c, m, primary[0]))
                break
    if not claims:
        return None
    claims.sort(key=lambda t: (-t[0], t[1].line))
    _, c, m, r = claims[0]
    where = "recommendation" if c.role == RECOMMENDATION else ("summary" if c.role == SUMMARY else "conclusion")
    return Hit(
        title="Conclusion says the opposite of the reported result",
        issue=(
            f"The results report \"{first_words(unmarked(r.text), 22)}\" ({v.location(r)}), yet the {where} states "
            f"\"{first_words(unmarked(c.text), 18)}\". A null or adverse result is being presented as a win, which would lead readers "
            f"to act on an effect the data does not show."
        ),
        evidence=v.quote(c, m),
        location=v.location(c),
        suggested_fix=(
            "Make the summary and recommendation say what the primary result shows, with its interval as reported; if a "
            "segment result motivates a decision, label it exploratory and propose a confirmatory test instead of a full "
            "rollout."
        ),
        strength=3,
    )


# registered through analysis_readings, which reads more before falling back to it
def unsupported_conclusion(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    candidates = [s for s in f.text_sentences if s.role not in (LIMITATIONS, METHOD, DATA, APPENDIX) and s.kind != "heading"]
    claimed = ctx.memo.get("claimed_lines", set())
    for s in candidates:
        m = lx.OVERCLAIM.search(s.text)
        if not m or negated_before(s.text, m.start(), 20) or s.line in claimed:
            continue
        if hedged_before(s.text, m.start()):
            continue  # "it's difficult to say definitively": the strong word is what the sentence declines to claim
        if s.text.rstrip("*_ ").endswith("?"):
            continue
        if re.search(r"\b(?:to|so as to|in order to)\s+$", s.text[max(0, m.start() - 14):m.start()], re.I):
            continue  # what a step is for ("the test is adjusted ... to guarantee a false discovery rate"), not a finding
        return Hit(
            title="Conclusion stated more strongly than the evidence",
            issue=(
                f"\"{first_words(unmarked(s.text), 18)}\" asserts a conclusion (\"{unmarked(m.group(0))}\") that no reported result "
                f"backs at that strength. Readers will take it as established when the document only shows suggestive "
                f"evidence."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix=(
                f"Point \"{unmarked(m.group(0))}\" at the result that supports it, or scale it down to what was actually "
                "measured and say how."
            ),
            strength=1.5 if s.role in CLOSING_ROLES else 1.0,
        )
    # a conclusion with no quantitative results behind it
    concl = [s for s in f.closing if s.kind != "heading" and lx.CONCLUSION_SIGNAL.search(s.text)]
    if concl and not f.results_present and f.method_present:
        s = concl[0]
        return Hit(
            title="Conclusion has no result behind it",
            issue=(
                f"The document concludes \"{first_words(unmarked(s.text), 18)}\" but reports no results (no numbers, tables or "
                f"tests) that the conclusion could rest on."
            ),
            evidence=v.quote(s),
            location=v.location(s),
            suggested_fix="Add the result that supports the conclusion (the metric, its change and its uncertainty) before stating it.",
        )
    return None


_YEARLIKE = re.compile(r"^(?:19|20)\d\d$")
_FROM_TO = re.compile(r"\bfrom [$€£]?(\d[\d,]*(?:\.\d+)?)\s?%?\s?(?:\w+ )?to [$€£]?(\d[\d,]*(?:\.\d+)?)")


def _derived_change(text: str, value: float) -> bool:
    for m in _FROM_TO.finditer(text):
        a, b = (float(x.replace(",", "")) for x in m.groups())
        if a and abs(abs(b - a) / a * 100 - abs(value)) <= 1.0:
            return True
    return False


@rule("untraceable_number")
def untraceable_number(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if not f.body_values:
        return None
    if v.is_extraction and v.part_absent("RESULTS EXCERPT"):
        return None
    closing = [
        s for s in f.closing if s.role in (SUMMARY, CONCLUSION, RECOMMENDATION) and s.kind != "heading" and not s.guessed
    ]
    for s in closing:
        intervals = [m.span() for pat in (lx.CI, lx.BRACKET_INTERVAL) for m in pat.finditer(s.text)]
        for n in f.nums(s):
            if not n.notable or abs(n.value) == 100 or (n.unit == "" and abs(n.value) < 10 and "." not in n.raw):
                continue
            if _YEARLIKE.match(n.raw.strip()):
                continue
            if f.traceable(n.value, n.raw):
                continue
            at = s.text.find(n.raw)
            if any(lo <= at < hi for lo, hi in intervals):
                continue  # an interval bound belongs to the estimate it is quoted with
            if _derived_change(s.text, n.value):
                continue  # a relative change recomputed from the two figures quoted with it
            if is_parameter(s.text, n.start, n.end) or is_data_size(s.text, n.start, n.end):
                continue  # a price, a discount, a threshold, a split or the size of the data: not a result to trace
            near = s.text[max(0, n.start - 50):n.end + 30]
            if not (n.is_percentlike or n.is_money or lx.CHANGE_WORD.search(near) or lx.FINDING_VERB.search(near)):
                continue  # "handles about 20 million searches a day": the setting's scale, not a result
            return Hit(
                title=f"Figure '{n.raw}' in the {('summary' if s.role == SUMMARY else 'conclusion')} is not in the results",
                issue=(
                    f"\"{first_words(unmarked(s.text), 18)}\" cites {n.raw}, but that figure (or a simple difference or ratio of "
                    f"reported figures) does not appear anywhere in the body. Readers cannot check where it comes from."
                ),
                evidence=v.quote(s, re.search(re.escape(n.raw), s.text)),
                location=v.location(s),
                suggested_fix=f"Show how {n.raw} is derived in the results (the inputs and the calculation), or replace it with the figure the results report.",
            )
    return None


# ---------------------------------------------------------------------- arithmetic

_NUM = r"[$€£]?\d[\d,]*(?:\.\d+)?\s?(?:[MKBk]|bn|m)?%?"
_FROM_TO_PCT = re.compile(
    rf"\bfrom (?P<a>{_NUM})(?!\d|[.,]\d) to (?P<b>{_NUM})(?!\d|[.,]\d|%)(?:(?!\bfrom\b|\bto\b)[^.;]){{0,40}}?(?:\(|,|—|–|-)?\s*(?:\*\*)?(?:an?|up|down|or)?\s*(?P<sign>[+−-])?(?<![\d.])(?P<x>\d+(?:\.\d+)?)\s?%(?!\s*(?:CI|interval))\s*(?:relative\s*)?(?P<what>increase|rise|lift|improvement|decrease|drop|decline|gain|growth|higher|lower)?",
    lx.I,
)
_PCT_POINTS = re.compile(r"\b(pp|points?|percentage points?)\b", lx.I)


def _value(text: str) -> tuple[float, str] | None:
    t = text.strip().replace(",", "").replace("$", "").replace("€", "").replace("£", "")
    unit = ""
    if t.endswith("%"):
        unit, t = "%", t[:-1].strip()
    scale = 1.0
    for suffix, mult in (("bn", 1e9), ("B", 1e9), ("M", 1e6), ("m", 1e6), ("K", 1e3), ("k", 1e3)):
        if t.endswith(suffix):
            t, scale = t[: -len(suffix)].strip(), mult
            break
    try:
        return float(t) * scale, unit
    except ValueError:
        return None


def _percent_claims(ctx: Context) -> Hit | None:
    v = ctx.view
    for s in ctx.features.text_sentences:
        if s.kind == "table":
            continue
        for m in _FROM_TO_PCT.finditer(s.text):
            a, b = _value(m.group("a")), _value(m.group("b"))
            if not a or not b or a[0] == 0:
                continue
            if _PCT_POINTS.search(s.text[m.end("x") : m.end("x") + 12]):
                continue
            if m.group("what") is None and not re.search(r"\(\s*(?:\*\*)?[+−-]?$", s.text[: m.start("x")]):
                continue  # a percentage that is not stated as the change between the two figures
            claimed = float(m.group("x"))
            relative = abs(b[0] - a[0]) / abs(a[0]) * 100
            points = abs(b[0] - a[0]) if a[1] == "%" else None
            tolerance = max(1.0, 0.06 * relative)
            if abs(claimed - relative) <= tolerance or (points is not None and abs(claimed - points) <= 0.15):
                continue
            return quoted_hit(
                v, s, m,
                title="Percentage change does not match its own numbers",
                issue=(
                    f"\"{v.quote(s, m, max_words=18)}\": going from {m.group('a').strip()} to {m.group('b').strip()} is a "
                    f"{relative:.0f}% relative change"
                    + (f" ({points:.1f} points)" if points is not None else "")
                    + f", not {m.group('x')}%."
                ),
                fix=(
                    f"Recompute the change from {m.group('a').strip()} and {m.group('b').strip()} "
                    f"({relative:.0f}% relative) and correct every place that quotes {m.group('x')}%."
                ), strength=2.5,
            )
    return None


# "from 7.8% to 7.3% (−1.7 points, ...)", "from $38.40 to $40.10: +$1.08": a signed difference given with its two figures
_FROM_TO_DIFF = re.compile(
    rf"\bfrom (?P<a>{_NUM})(?!\d|[.,]\d) to (?P<b>{_NUM})(?!\d|[.,]\d)[^.;()]{{0,20}}?(?:\(|:|,|—|–)\s*(?:\*\*)?"
    r"(?P<sign>[+−-])\s?(?P<cur>[$€£])?(?P<x>\d[\d,]*(?:\.\d+)?)(?![.,]?\d)(?P<unit>\s?(?:pp|p\.p\.|pts?|points?|percentage points?)\b)?(?!\s?%|\d)",
    lx.I)


def _decimals(raw: str) -> int:
    m = re.search(r"\.(\d+)", raw)
    return len(m.group(1)) if m else 0


def _difference_claims(ctx: Context) -> Hit | None:
    """A difference stated beside the two figures it is the difference of, that is not their difference."""
    v = ctx.view
    for s in ctx.features.text_sentences:
        if s.kind == "table":
            continue
        for m in _FROM_TO_DIFF.finditer(s.text):
            a, b = _value(m.group("a")), _value(m.group("b"))
            x = _value(m.group("x"))
            if not a or not b or x is None:
                continue
            scale = [re.search(r"(?:[MKBkm]|bn)\s*$", m.group(k).strip().rstrip("%")) is not None for k in ("a", "b")]
            if any(scale):
                continue  # "338 m" may be metres or millions: not read
            money = "$" in m.group("a") + m.group("b") or "€" in m.group("a") + m.group("b") or "£" in m.group("a") + m.group("b")
            if m.group("unit") and a[1] != "%":
                continue  # points of something that is not a percentage
            if not m.group("unit") and (a[1] == "%" or bool(m.group("cur")) != money):
                continue  # a bare number beside two percentages, or money beside counts: not stated as their difference
            claimed = x[0] * (-1 if m.group("sign") in ("-", "−") else 1)
            actual = b[0] - a[0]
            tolerance = 0.5 * 10 ** -max(_decimals(m.group("x")), 0) + 0.5 * 10 ** -max(_decimals(m.group("a")), _decimals(m.group("b")))
            if abs(claimed - actual) <= tolerance + 1e-9:
                continue
            what = f"{actual:+.{max(_decimals(m.group('a')), _decimals(m.group('b')))}f}"
            return quoted_hit(
                v, s, m,
                title="A difference does not match its own figures",
                issue=(f"\"{v.quote(s, m, max_words=18)}\": going from {m.group('a').strip()} to {m.group('b').strip()} is a "
                       f"change of {what}{' points' if a[1] == '%' else ''}, not {m.group('sign')}{m.group('cur') or ''}{m.group('x')}"
                       f"{m.group('unit') or ''}. One of the three figures is wrong, and so is anything built on it."),
                fix=f"Recompute the difference from {m.group('a').strip()} and {m.group('b').strip()} and correct every place that quotes it.",
                strength=2.5,
            )
    return None


_CELL_NUM = re.compile(rf"^\s*(?:\*\*)?(?P<n>{_NUM})(?:\*\*)?\s*$")  # counts and amounts (a signed change is no part of a total)
_NOT_PARTS = re.compile(r"\b(avg|average|mean|median|per|rate|share|before|during|after|over \w+ weeks?)\b", lx.I)
_TOTAL_LABEL = re.compile(r"\b(total|all \w+|overall|sum)\b", lx.I)




def _table_totals(ctx: Context) -> Hit | None:
    v = ctx.view
    for table in tables_with_cells(ctx):
        if len(table) < 4:
            continue
        body = table[1:]
        if not _TOTAL_LABEL.search(body[-1][1][0].replace("*", "")):
            continue  # a total is the last row
        if any(_NOT_PARTS.search(c[0]) for _, c in body):
            continue  # rows are averages or periods, not the parts of the total
        total_row = body[-1]
        parts = body[:-1]
        s, cells = total_row
        for col in range(1, len(cells)):
            total_cell = _CELL_NUM.match(cells[col])
            values = [_CELL_NUM.match(c[col]) if col < len(c) else None for _, c in parts]
            if not total_cell or not all(values) or len(values) < 2:
                continue
            total = _value(total_cell.group("n"))
            items = [_value(x.group("n")) for x in values]
            if total is None or not all(items) or total[1] == "%" or any(i[1] == "%" for i in items):
                continue
            summed = sum(i[0] for i in items)
            if abs(summed - total[0]) <= max(0.011 * abs(total[0]), 0.051 * (1e6 if "M" in total_cell.group("n") else 1)):
                continue
            shown = cells[col].replace("*", "")
            return quoted_hit(
                v, s, None,
                title="Table total does not match its rows",
                issue=(
                    f"In the table row \"{v.quote(s, None, max_words=12)}\", the {table[0][1][col] if col < len(table[0][1]) else 'column'} "
                    f"total is {shown}, but the rows above it add up to {_fmt_like(summed, shown)}."
                ),
                fix=f"Recompute the total from the rows (they sum to {_fmt_like(summed, shown)}) and update every figure derived from {shown}.", strength=2.5,
            )
    return None


def _fmt_like(value: float, shown: str) -> str:
    prefix = "$" if "$" in shown else ""
    if "M" in shown:
        return f"{prefix}{value / 1e6:.1f}M"
    if "K" in shown or "k" in shown:
        return f"{prefix}{value / 1e3:.1f}K"
    return f"{prefix}{value:,.2f}".rstrip("0").rstrip(".")


@rule("arithmetic_inconsistent")
def arithmetic_inconsistent(ctx: Context) -> list[Hit]:
    return [h for h in (_table_totals(ctx), _percent_claims(ctx), _difference_claims(ctx)) if h is not None]


# ---------------------------------------------------------------------- guardrails called stable while they moved

_STABLE = re.compile(r"\b(stable|unchanged|unaffected|held (?:steady|flat|up|constant|level)|(?:guardrails?|metrics?) (?:\w+ )?held|flat|no (?:statistically )?(?:significant |meaningful )?"
                     r"(?:change|movement|impact|harm|difference|effect)|did not (?:significantly )?(?:change|move|worsen|differ)|"
                     r"no cost|within (?:normal|the usual) variation)\b", lx.I)
# the significance reported with it, in the same clause: "was unaffected (2.3% vs 3.2%, p = 0.004)"
_SIG_AFTER = re.compile(r"^[^;]{0,90}?\bp\s*(?:-?\s*values?)?\s*(?P<op>=|<|≤|&lt;)\s*(?P<p>0?\.\d+)", lx.I)
_GUARDRAIL_LIST = re.compile(r"\bguardrails?\b[^:.]{0,80}:\s*(?P<list>[^.]+)", lx.I)
_ROW_CI = re.compile(r"\((?P<lo>[-−+]?[$€£]?\d[\d.,]*)\s*\w*\s*(?:to|,|–)\s*(?P<hi>[-−+]?[$€£]?\d[\d.,]*)\s*\w*\)")


def _signed(text: str) -> float | None:
    t = text.replace("−", "-").replace("$", "").replace("€", "").replace("£", "").replace(",", "")
    try:
        return float(t)
    except ValueError:
        return None


_ROW_WORDS_IGNORED = {"the", "rate", "share", "guardrail", "guardrails", "primary", "secondary", "metric", "metrics",
                      "per", "and", "for", "total", "avg", "average", "mean"}
_RATIO_ROW = re.compile(r"\b(ratio|odds|hazard|relative|multiplier|fold|roas|roi)\b|\b(?:OR|RR|HR|IRR)\b", lx.I)
_DIFF_HEADER = re.compile(r"\b(difference|diff|change|effect|lift|uplift|delta|impact)\b|Δ", lx.I)


def _called_stable(v, s: Sentence, m: re.Match, metric: str, interval: str) -> Hit:
    return quoted_hit(
        v, s, m,
        title="A metric called stable while its own interval excludes zero",
        issue=(f"\"{v.quote(s, m, max_words=16)}\" calls {metric} stable, but {interval} gives an interval that "
               "excludes zero: by the document's own numbers it moved."),
        fix=("Say that the metric moved, by how much and in which direction, and make the decision on that "
             "trade-off rather than on 'stable'."), strength=2.5,
    )


_CHANGE_VERB = re.compile(r"^(?:rose|fell|grew|dropped|moved|changed|was|were|is|are|went|stayed|held|came|"
                          r"\w+ed|\w+s)$", lx.I)


def _named_in(clause: str, label: set[str]) -> bool:
    """The clause names the metric: it shares at least half of the metric's words (and two, when it has two)."""
    words = set(re.findall(r"[a-z0-9]+", clause.lower()))
    shared = len(label & words)
    return bool(label) and shared >= min(2, len(label)) and 2 * shared >= len(label)


def _stable_prose_named(ctx: Context, sentences, claims) -> Hit | None:
    """A metric the text calls stable whose own estimate, reported in another sentence of prose
    ("Refund rate (guardrail): +0.25 pts (95% CI +0.05 to +0.45)"), has an interval that excludes zero.
    The estimate's metric is named by the words of its clause before its first number."""
    for s in sentences:
        if s.kind == "table" or s.role == LIMITATIONS:
            continue
        for lo, hi, start, _ in ci_spans(s.text):
            if lo <= 0 <= hi:
                continue
            a, _b = clause_of(s.text, start, start)
            lead = re.split(r"[-−+]?\s?[$€£]?\d", s.text[a:start], maxsplit=1)[0]
            label = {w for w in content_words(re.sub(r"\([^)]*\)", " ", lead.lower()))
                     if w not in _ROW_WORDS_IGNORED and not _CHANGE_VERB.match(w)}
            if not label or _RATIO_ROW.search(lead):
                continue
            for c, m in claims:
                if c is s:
                    continue  # the same sentence is read clause by clause above
                ca, _cb = clause_of(c.text, m.start(), m.end())
                if _named_in(c.text[ca:m.start()], label):
                    return _called_stable(ctx.view, c, m, lead.strip(" :-*"),
                                          f"its estimate in \"{ctx.view.quote(s, None, max_words=14)}\"")
    return None


def _stable_row_named(ctx: Context, sentences) -> Hit | None:
    """A metric the text calls stable ('the refund rate held steady') whose own row in a results table
    gives a difference with an interval that excludes zero."""
    claims = [(s, m) for s in sentences if s.kind != "table" and s.role != LIMITATIONS
              for m in [_STABLE.search(s.text)] if m and not negated_before(s.text, m.start(), 12)]
    if not claims:
        return None
    prose = _stable_prose_named(ctx, sentences, claims)
    if prose is not None:
        return prose
    for table in tables_with_cells(ctx):
        header = " ".join(table[0][1])
        # the table's measures, named by its column headings ("fill rate", "orders per visitor")
        measures = {w for c in table[0][1][1:] for w in re.findall(r"[a-z0-9]+", c.lower())
                    if len(w) > 3 and w not in _ROW_WORDS_IGNORED and not _DIFF_HEADER.search(w)}
        for row, cells in table[1:]:
            named = re.findall(r"[a-z0-9]+", re.sub(r"\([^)]*\)", " ", cells[0].lower()))
            label = {w for w in named if len(w) > 2 and w not in _ROW_WORDS_IGNORED}
            if not label or _RATIO_ROW.search(cells[0] + " " + header):
                continue
            for cell in cells[1:]:
                for lo, hi in ci_values(cell):
                    # a difference, not a level: signed bounds, or a column headed as a change
                    signed = re.search(r"[-−+]\s?\d", cell) is not None
                    if not (signed or _DIFF_HEADER.search(header)) or lo <= 0 <= hi:
                        continue
                    for s, m in claims:
                        # the clause that calls something stable ("..., while the number of handyman pros was flat")
                        clause = re.split(r"[,;:]|\b(?:while|whereas|but)\b", s.text[:m.start()], flags=re.I)[-1]
                        words = set(re.findall(r"[a-z0-9]+", clause.lower()))
                        if len(label & words) < min(2, len(label)):
                            continue
                        # a one-word row is a segment ("Handyman"): the claim must name the table's metric too,
                        # or it may be about another measure of that segment (its count of pros, not its fill rate)
                        if len(named) == 1 and not (measures & words):  # "refund rate" names its measure
                            continue
                        return _called_stable(ctx.view, s, m, cells[0].strip(), f"its row in the results ({cell.strip()})")
    return None


@rule("guardrail_contradiction")
def guardrail_contradiction(ctx: Context) -> Hit | None:
    v = ctx.view
    sentences = ctx.features.text_sentences
    # a metric called stable in the same breath as a significant test of it
    for s in sentences:
        if s.kind == "table" or s.role == LIMITATIONS:
            continue
        for m in _STABLE.finditer(s.text):
            if negated_before(s.text, m.start(), 12) and not m.group(0).lower().startswith(("no ", "did not")):
                continue
            sig = _SIG_AFTER.search(s.text[m.end():])
            if sig is None or re.search(r"\b(while|whereas|but|although|though)\b", s.text[m.end():m.end() + sig.start("p")], lx.I):
                continue
            value = float(sig.group("p"))
            if value < 0.05 or (sig.group("op") in ("<", "≤", "&lt;") and value <= 0.05):
                return quoted_hit(
                    v, s, m,
                    title="A metric called unchanged while its own test says it moved",
                    issue=(f"\"{v.quote(s, m, max_words=20)}\" says the metric held, but the test reported with it is "
                           f"significant (p {sig.group('op')} {sig.group('p')}): by the document's own numbers it moved. "
                           "Calling it unchanged hides a cost the decision should weigh."),
                    fix=("Say that the metric moved, by how much and in which direction, with its interval, and make the "
                         "decision on that trade-off rather than on 'held'."),
                    strength=3,
                )
    # a metric called stable in the same clause as its own interval, which excludes zero (another metric's
    # interval in the same sentence is not this one's: "conversion rose (CI ...) and the refund rate held steady")
    for s in sentences:
        m = _STABLE.search(s.text) if s.kind != "table" else None
        if m is None:
            continue
        a, b = clause_of(s.text, m.start(), m.end())
        moved = [(lo, hi) for lo, hi, start, end in ci_spans(s.text) if a <= start and end <= b and (lo > 0 or hi < 0)]
        if moved:
            lo, hi = moved[0]
            return _called_stable(v, s, m, "the metric", f"the interval given with it ({lo:+g} to {hi:+g})")
    named = _stable_row_named(ctx, sentences)
    if named is not None:
        return named
    claim = next(
        ((s, m) for s in sentences if s.kind != "table" and re.search(r"\bguardrails?\b", s.text, lx.I)
         for m in [_STABLE.search(s.text)] if m),
        None,
    )
    if claim is None:
        return None
    names: list[set[str]] = []
    for s in sentences:
        lm = _GUARDRAIL_LIST.search(s.text)
        if lm:
            for part in re.split(r",|\band\b", lm.group("list")):
                words = {w for w in re.findall(r"[a-z0-9]+", part.lower()) if len(w) > 2 and w not in {"the", "share", "rate", "within", "our"}}
                if words:
                    names.append(words)
    moved = []
    for table in tables_with_cells(ctx):
        # a table whose first column is headed "guardrail(s)" lists guardrails, named or not
        guardrail_table = bool(re.search(r"\bguardrails?\b", table[0][1][0] if table[0][1] else "", lx.I))
        for s, cells in table[1:]:
            label = {w for w in re.findall(r"[a-z0-9]+", cells[0].lower()) if len(w) > 2}
            if not guardrail_table and names and not any(len(label & n) >= min(2, len(n)) for n in names):
                continue
            if not guardrail_table and not names:
                continue
            ci = next((m for c in cells[1:] for m in [_ROW_CI.search(c)] if m), None)
            if ci is None:
                continue
            lo, hi = _signed(ci.group("lo")), _signed(ci.group("hi"))
            if lo is None or hi is None or (lo <= 0 <= hi) or (hi < 0 <= lo):
                continue
            moved.append((s, cells))
    if not moved:
        return None
    s, m = claim
    rows = "; ".join(f"{c[0]}: {c[-1]}" for _, c in moved[:3])
    return quoted_hit(
        v, s, m,
        title="Guardrails called stable while the results show them moving",
        issue=(
            f"The text says \"{v.quote(s, m, max_words=12)}\", but guardrail rows in the results have intervals that "
            f"exclude zero: {rows}."
        ),
        fix=(
            "Report each guardrail's change with its interval next to the primary result, say which ones moved, and make "
            "the rollout decision on the trade-off rather than on 'stable'."
        ), strength=2.5,
    )


# ---------------------------------------------------------------------- "in every city" against a table

_UNIVERSAL = re.compile(
    r"\b(?:in|across|for|at)\s+(?:every|each|all(?:\s+(?:the|\d+|of\s+the))?)\s+(?:(?:\w+)\s+){0,2}?"
    r"(?P<unit>cit(?:y|ies)|regions?|markets?|countr(?:y|ies)|segments?|stores?|cohorts?|zones?|channels?|"
    r"categor(?:y|ies)|states?|sites?|branches|branch|teams?|groups?|variants?|weeks?|months?|locales?)\b"
    r"|\b(?:every|each|all(?:\s+\d+)?)\s+(?:(?:\w+)\s+){0,2}?(?P<unit2>cit(?:y|ies)|regions?|markets?|countr(?:y|ies)|"
    r"segments?|stores?|cohorts?|zones?|channels?|categor(?:y|ies)|states?|sites?|teams?|locales?)\b"
    r"(?=[^.]{0,60}\b(?:improv\w*|gain\w*|rose|grew|increas\w*|fell|dropped|decreas\w*|declin\w*|shortened|cut|"
    r"reduc\w*|lift\w*|benefit\w*|better|faster)\b)",
    lx.I,
)
_MOVED = re.compile(r"\b(improv\w*|gain\w*|rose|grew|increas\w*|fell|dropped|decreas\w*|declin\w*|shortened|cut|"
                    r"reduc\w*|lift\w*|benefit\w*|better|faster|slower|worse)\b", lx.I)
_CHANGE_HEADER = re.compile(r"\b(change|difference|diff|delta|lift|uplift|effect|impact|growth|vs\.?|gain)\b|Δ", lx.I)
_SIGNED = re.compile(r"^\s*(?P<sign>[-−+])?\s*[$€£]?(?P<num>\d[\d,]*(?:\.\d+)?)")


def _stem(unit: str) -> str:
    return re.sub(r"(?:ies|y|es|s)$", "", unit.lower())


def _singular(unit: str) -> str:
    unit = unit.lower()
    if unit.endswith("ies"):
        return unit[:-3] + "y"
    if unit.endswith(("ches", "shes")):
        return unit[:-2]
    return unit[:-1] if unit.endswith("s") and not unit.endswith("ss") else unit


def _change_column(header: list[str], rows: list[list[str]]) -> int | None:
    """The column that holds a signed change: headed like one, with signed values."""
    for col, name in enumerate(header):
        if col == 0 or not _CHANGE_HEADER.search(name) or re.search(r"\b(?:ci|interval)\b", name, lx.I):
            continue
        values = [r[col] for r in rows if col < len(r)]
        if sum(1 for v in values if _SIGNED.match(v)) >= max(2, len(values) // 2):
            return col
    return None


# registered through analysis_readings, which reads more before falling back to it
def universal_claim_contradicted(ctx: Context) -> Hit | None:
    """A summary or conclusion that claims an effect for every city (segment, market...) while a
    results table broken down by that unit shows one that moved the other way from the rest."""
    v = ctx.view
    statements = ctx.features.closing + [s for s in ctx.features.results if s not in ctx.features.closing]
    claims = [(s, m) for s in statements if s.kind not in ("table", "heading")
              for m in [_UNIVERSAL.search(s.text)] if m and _MOVED.search(s.text)
              and not negated_before(s.text, m.start(), 25) and not CONDITIONAL.search(s.text[: m.start()])]
    if not claims:
        return None
    for s, m in claims:
        if re.search(r"\b(except|apart from|other than|save for|excluding|but not)\b", s.text, re.I):
            continue  # the claim names its exception ("in every region except North America")
        word = _singular(m.group("unit") or m.group("unit2"))
        unit = _stem(word)
        for table in tables_with_cells(ctx):
            header, rows = table[0][1], [(row_s, cells) for row_s, cells in table[1:]]
            if len(rows) < 3 or not any(_stem(w) == unit for w in re.findall(r"[a-z]+", " ".join(header[:2]).lower())):
                continue
            col = _change_column(header, [c for _, c in rows])
            if col is None:
                continue
            signs = []
            for row_s, cells in rows:
                mm = _SIGNED.match(cells[col]) if col < len(cells) else None
                if mm and float(mm.group("num").replace(",", "")) != 0:
                    signs.append((-1 if mm.group("sign") in ("-", "−") else 1, row_s, cells))
            ups = [x for x in signs if x[0] > 0]
            downs = [x for x in signs if x[0] < 0]
            if not ups or not downs:
                continue
            minority = ups if len(ups) < len(downs) else downs
            if len(minority) * 3 > len(signs):
                continue  # a mixed picture, not one exception to a claim
            odd = "; ".join(f"{c[0]}: {c[col]}" for _, _, c in minority[:3])
            return quoted_hit(
                v, s, m,
                title=f"Claimed in every {word}, but the table shows an exception",
                issue=(
                    f"The text says \"{v.quote(s, m, max_words=16)}\", but the table of results by "
                    f"{header[0].lower()} ({v.location(minority[0][1])}) has {len(minority)} of {len(signs)} rows moving "
                    f"the other way: {odd}. Readers acting on 'every {word}' will miss it."
                ),
                fix=(f"Say which {header[0].lower()} moved the other way and why, and base the decision on the "
                     "breakdown rather than on 'every'."),
                strength=2.5,
            )
    return None
