"""Detectors for what careful reviewers catch in real write-ups (issue 11): early stopping or
peeking, leakage, ignored covariate imbalance, arithmetic that does not add up, guardrails that
worsen while the text calls them stable, and results with no sample size.

Each one is a check of the document's own text and numbers (recomputed sums, percentages,
intervals), never a canned answer; evidence is a quote, and a suggested fix uses the document's
own figures or stays generic.
"""

from __future__ import annotations

import re

from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import LIMITATIONS, Sentence

_I = re.IGNORECASE

def _hit(v, s: Sentence, m: re.Match[str] | None, *, title: str, issue: str, fix: str, strength: float = 1.0) -> Hit:
    """A finding that quotes sentence `s` (at match `m`) and points to where it is."""
    return Hit(title=title, issue=issue, evidence=v.quote(s, m), location=v.location(s), suggested_fix=fix, strength=strength)


def _first_in(sentences, pattern: re.Pattern[str], roles: tuple[str, ...]) -> tuple[Sentence, re.Match[str]] | None:
    """The first prose sentence in one of `roles` that matches `pattern`."""
    return _first_where(sentences, pattern, lambda s, n: s.role in roles and s.kind not in ("table", "heading"))


def _first_where(sentences, pattern: re.Pattern[str], keep) -> tuple[Sentence, re.Match[str]] | None:
    """The first sentence matching `pattern` for which keep(sentence, index) holds."""
    for n, s in enumerate(sentences):
        m = pattern.search(s.text)
        if m and keep(s, n):
            return s, m
    return None


# ---------------------------------------------------------------------- early stopping / peeking

_STOPPED = re.compile(
    r"\b(stopped (?:the test|the experiment|it|early)|called (?:the|it|the test|the experiment)\b|ended (?:the test|it) early|"
    r"stop(?:ped)? (?:the test )?(?:as soon as|once|when)|cut (?:the test|it) short|shipped (?:it )?early|ship (?:it )?a week early)",
    _I,
)
_SIGNIFICANCE = re.compile(r"\b(significan\w*|p\s*(?:-?\s*value)?\s*(?:=|<|dropped|fell)|p-value)", _I)
_PEEK = re.compile(r"\b(checked (?:the (?:dashboard|results?) )?(?:every|each) (?:day|morning|week)|peek\w*|daily (?:look|check)s?)\b", _I)
_NO_PEEK = re.compile(r"\b(did not (?:look|peek)|didn'?t (?:look|peek)|without (?:looking|peeking)|no (?:interim|early) (?:look|peek)s?|sequential (?:test|design|method|boundar\w+)|alpha[- ]spending|pre-?registered stopping)\b", _I)
_PLANNED = re.compile(r"\bplanned (?:duration|length|run)\b[^.]{0,40}?\b(\d+)\s*(days?|weeks?)\b|\b(\d+)[- ](day|week)s?\b[^.]{0,30}\bplanned\b", _I)


@rule("early_stopping")
def early_stopping(ctx: Context) -> Hit | None:
    v = ctx.view
    sentences = [s for s in ctx.features.text_sentences if s.kind != "table" and s.role != LIMITATIONS]
    if any(_NO_PEEK.search(s.text) for s in sentences):
        return None
    for n, s in enumerate(sentences):
        stop = _STOPPED.search(s.text)
        if not stop:
            continue
        nearby = " ".join(x.text for x in sentences[max(0, n - 1) : n + 2])
        if not _SIGNIFICANCE.search(nearby):
            continue
        peek = next((x for x in sentences if _PEEK.search(x.text)), None)
        planned = next((m for x in sentences for m in [_PLANNED.search(x.text)] if m), None)
        issue = (
            f"The test was stopped when it reached significance (\"{v.quote(s, stop, max_words=16)}\")"
            + (f" after results were checked repeatedly (\"{v.quote(peek, _PEEK.search(peek.text), max_words=10)}\")" if peek else "")
            + (f", before its planned {planned.group(0)}" if planned else "")
            + ". Stopping at the first p-value under 0.05 with repeated looks makes a false positive far more likely than 5%, "
            "so the reported significance and the lift built on it are not reliable."
        )
        return _hit(
            v, s, stop,
            title="Test stopped early when it reached significance",
            issue=issue,
            fix=(
                "Rerun the test for its full planned duration without acting on interim looks, or analyse it with a sequential "
                "method designed for repeated looks, and report the result that method gives."
            ), strength=3,
        )
    return None


# ---------------------------------------------------------------------- leakage

_PREDICTIVE = re.compile(r"\b(forecast\w*|predict\w*|model|classifier|score[sd]?)\b", _I)
_AFTER_OUTCOME = re.compile(
    r"\b(end[- ]of[- ](?:week|day|month|period|quarter)|at the close of (?:each|the) (?:week|day|month|period)|"
    r"during the (?:forecast |target |same )?(?:week|month|period)|after (?:the )?(?:outcome|purchase|churn|cancellation|event|label)|"
    r"post[- ](?:outcome|purchase|churn|event)|(?:on|from) the (?:outcome|label) date|future (?:values?|sales|data))\b",
    _I,
)
_FEATURE_CONTEXT = re.compile(r"\b(features?|inputs?|predictors?|variables?|signals?)\b", _I)


@rule("leakage")
def leakage(ctx: Context) -> Hit | None:
    v = ctx.view
    sentences = ctx.features.text_sentences
    if not any(_PREDICTIVE.search(s.text) for s in sentences):
        return None
    found = _first_where(
        sentences, _AFTER_OUTCOME,
        lambda s, n: s.role != LIMITATIONS
        and bool(_FEATURE_CONTEXT.search(s.section) or _FEATURE_CONTEXT.search(s.text) or s.kind == "bullet"),
    )
    if found is not None:
        s, m = found
        return _hit(
            v, s, m,
            title="Features measured after the outcome (leakage)",
            issue=(
                f"A model input is recorded at or after the period being predicted (\"{v.quote(s, m, max_words=14)}\"). "
                "It would not be known when the prediction is made, so the reported accuracy overstates what the model can "
                "do in use."
            ),
            fix=(
                "Rebuild the features from data available at prediction time (for example values as of the forecast date), "
                "re-run the evaluation, and report that accuracy as the headline."
            ), strength=3,
        )
    return None


# ---------------------------------------------------------------------- covariate imbalance noted and ignored

_DISMISS = re.compile(
    r"\b(probably (?:just )?(?:chance|noise|random)|(?:should|does|did|will) not matter(?: much)?|unlikely to matter|"
    r"not (?:a )?(?:concern|problem|worry)|nothing to worry about|can be ignored|we ignore (?:it|this)|small enough to ignore)\b",
    _I,
)
_IMBALANCE = re.compile(r"\b(balance\w*|imbalanc\w*|more (?:\w+ ){0,3}(?:in|than) (?:the )?(?:treatment|control|variant|checklist|test)|differ\w* between (?:the )?(?:groups|arms))\b", _I)


@rule("covariate_imbalance_ignored")
def covariate_imbalance_ignored(ctx: Context) -> Hit | None:
    v = ctx.view
    sentences = ctx.features.text_sentences
    found = _first_where(
        sentences, _DISMISS,
        lambda s, n: any(_IMBALANCE.search(t) for t in [s.section] + [x.text for x in sentences[max(0, n - 2) : n + 1]]),
    )
    if found is not None:
        s, m = found
        n = sentences.index(s)
        noted = next((x for x in sentences[max(0, n - 2) : n] if _IMBALANCE.search(x.text)), None)
        return _hit(
            v, s, m,
            title="Covariate imbalance noted and dismissed",
            issue=(
                "The groups differ on a characteristic that can affect the outcome"
                + (f" (\"{v.quote(noted, None, max_words=16)}\")" if noted else "")
                + f", and the text dismisses it (\"{v.quote(s, m, max_words=12)}\") instead of checking how much of the "
                "effect it explains."
            ),
            fix=(
                "Re-estimate the effect adjusting for the imbalanced characteristic (regression adjustment or comparing "
                "within its levels) and report both estimates."
            ), strength=2.5,
        )
    return None


# ---------------------------------------------------------------------- arithmetic

_NUM = r"[$€£]?\d[\d,]*(?:\.\d+)?\s?(?:[MKBk]|bn|m)?%?"
_FROM_TO_PCT = re.compile(
    rf"\bfrom (?P<a>{_NUM})(?!\d|[.,]\d) to (?P<b>{_NUM})(?!\d|[.,]\d|%)(?:(?!\bfrom\b|\bto\b)[^.;]){{0,40}}?(?:\(|,|—|–|-)?\s*(?:\*\*)?(?:an?|up|down|or)?\s*(?P<sign>[+−-])?(?<![\d.])(?P<x>\d+(?:\.\d+)?)\s?%(?!\s*(?:CI|interval))\s*(?:relative\s*)?(?P<what>increase|rise|lift|improvement|decrease|drop|decline|gain|growth|higher|lower)?",
    _I,
)
_PCT_POINTS = re.compile(r"\b(pp|points?|percentage points?)\b", _I)


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
            return _hit(
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


_CELL_NUM = re.compile(rf"^\s*(?:\*\*)?(?P<n>{_NUM})(?:\*\*)?\s*$")
_NOT_PARTS = re.compile(r"\b(avg|average|mean|median|per|rate|share|before|during|after|over \w+ weeks?)\b", _I)
_TOTAL_LABEL = re.compile(r"\b(total|all \w+|overall|sum)\b", _I)


def _table_rows(ctx: Context) -> list[list[tuple[Sentence, list[str]]]]:
    """Markdown tables as lists of (sentence, cells), one list per table."""
    tables: list[list[tuple[Sentence, list[str]]]] = []
    last_line = -10
    for s in ctx.view.sentences:
        if s.kind != "table":
            continue
        if re.fullmatch(r"[\s|:\-]+", s.text):
            last_line = s.line
            continue
        cells = [c.strip() for c in s.text.strip().strip("|").split("|")]
        if s.line > last_line + 2 or not tables:  # the separator row is not a sentence
            tables.append([])
        tables[-1].append((s, cells))
        last_line = s.line
    return tables


def _table_totals(ctx: Context) -> Hit | None:
    v = ctx.view
    for table in _table_rows(ctx):
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
            return _hit(
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
    return [h for h in (_table_totals(ctx), _percent_claims(ctx)) if h is not None]


# ---------------------------------------------------------------------- guardrails called stable while they moved

_STABLE = re.compile(r"\b(stable|unchanged|held (?:steady|flat|up)|flat|no (?:significant |meaningful )?(?:change|movement|impact|harm)|did not (?:change|move|worsen)|no cost)\b", _I)
_GUARDRAIL_LIST = re.compile(r"\bguardrails?\b[^:]{0,40}:\s*(?P<list>[^.]+)", _I)
_ROW_CI = re.compile(rf"\((?P<lo>[-−+]?[$€£]?\d[\d.,]*)\s*\w*\s*(?:to|,|–)\s*(?P<hi>[-−+]?[$€£]?\d[\d.,]*)\s*\w*\)")


def _signed(text: str) -> float | None:
    t = text.replace("−", "-").replace("$", "").replace("€", "").replace("£", "").replace(",", "")
    try:
        return float(t)
    except ValueError:
        return None


@rule("guardrail_contradiction")
def guardrail_contradiction(ctx: Context) -> Hit | None:
    v = ctx.view
    sentences = ctx.features.text_sentences
    claim = next(
        ((s, m) for s in sentences if s.kind != "table" and re.search(r"\bguardrails?\b", s.text, _I)
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
    for table in _table_rows(ctx):
        for s, cells in table[1:]:
            label = {w for w in re.findall(r"[a-z0-9]+", cells[0].lower()) if len(w) > 2}
            if names and not any(len(label & n) >= min(2, len(n)) for n in names):
                continue
            ci = next((m for c in cells[1:] for m in [_ROW_CI.search(c)] if m), None)
            if ci is None:
                continue
            lo, hi = _signed(ci.group("lo")), _signed(ci.group("hi"))
            if lo is None or hi is None or (lo <= 0 <= hi) or (hi < 0 <= lo):
                continue
            moved.append((s, cells))
    if not names or not moved:
        return None
    s, m = claim
    rows = "; ".join(f"{c[0]}: {c[-1]}" for _, c in moved[:3])
    return _hit(
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


# ---------------------------------------------------------------------- results with no sample size

_EXPERIMENTAL = re.compile(r"\b(a/b|ab test|experiment|randomi[sz]\w*|split at random|test set|held-out|holdout|arms?)\b", _I)
_UNITS = (
    r"(?:users?|visitors?|customers?|people|members?|accounts?|sessions?|recipients?|emails?|subscribers?|shoppers?|"
    r"searchers?|workspaces?|orders?|interactions?|respondents?|participants?|stores?|queries|trials?|installs?|households?|"
    r"sign-?ups?|regions?|markets?|cities|zones?|deliveries|recipients?)"
)
_COUNT = re.compile(rf"\b(n\s*=\s*\d|\d[\d,.]*\s*(?:k|K|M|million|thousand)?\s+(?:\w+\s+){{0,2}}{_UNITS}\b|{_UNITS} per (?:arm|group)|sample (?:size|of) \d)", _I)
_RESULT_RATE = re.compile(r"\d+(?:\.\d+)?\s?%|\b0\.\d{2,}\b")


@rule("sample_size_missing")
def sample_size_missing(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    text_all = [s for s in v.sentences if s.role != LIMITATIONS]
    if not any(_EXPERIMENTAL.search(s.text) for s in text_all):
        return None
    if any(_COUNT.search(s.text) for s in text_all):
        return None
    for table in _table_rows(ctx):
        header = " ".join(table[0][1]).lower()
        if re.search(_UNITS, header) or re.search(r"\bn\b|count", header):
            return None
    headline = _first_in(f.text_sentences, _RESULT_RATE, ("summary", "results"))
    if headline is None:
        return None
    s, m = headline
    return _hit(
        v, s, m,
        title="Results reported without sample sizes",
        issue=(
            f"The results are rates and lifts (\"{v.quote(s, m, max_words=14)}\") but the document never says how many "
            "units were in each group, so the reader cannot judge how precise the estimates are."
        ),
        fix="State the number of units in each group (and in each period or segment reported) next to the results.", strength=2,
    )


# ---------------------------------------------------------------------- ranking model shipped on offline metrics alone

_OFFLINE_RANKING = re.compile(r"\b(NDCG(?:@\d+)?|MRR|MAP@\d+|recall@\d+|precision@\d+|hit rate|AUC)\b", _I)
_SHIP = re.compile(r"\b(replac\w+|ship\w*|launch\w*|roll(?:ing)? (?:it )?out|deploy\w*|switch\w* to)\b", _I)
_ONLINE = re.compile(r"\b(a/b|ab test|online (?:test|experiment|evaluation)|interleav\w+|experiment\w*|randomi[sz]\w*|canary|holdout)\b", _I)


@rule("offline_only_evaluation")
def offline_only_evaluation(ctx: Context) -> Hit | None:
    """A ranking or recommendation model recommended for production on offline metrics alone,
    with no online test planned (offline gains often do not carry over)."""
    v = ctx.view
    sentences = ctx.features.text_sentences
    if not any(_OFFLINE_RANKING.search(s.text) for s in sentences):
        return None
    if any(_ONLINE.search(s.text) for s in sentences):
        return None
    ship = _first_in(sentences, _SHIP, ("summary", "recommendation", "conclusion"))
    if ship is None:
        return None
    s, m = ship
    return _hit(
        v, s, m,
        title="Model change recommended on offline metrics alone",
        issue=(
            f"\"{v.quote(s, m, max_words=16)}\" rests on offline ranking metrics computed on logged data, and no online "
            "test is planned; offline gains often shrink or reverse online because the logs were shaped by the current model."
        ),
        fix="Plan an online A/B (or interleaving) test with a primary business metric before replacing the model, and make the rollout conditional on it.", strength=2,
    )
