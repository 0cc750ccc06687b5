"""What detectors of several lenses share: short quotes, text without markdown emphasis, metric
terms, negation close before a match, the evidence a result sentence gives (null or significant),
the document's headline number and how a TL;DR falls short.
"""

from __future__ import annotations

import re

from review_harness.ds.offline import lexicon as lx
from review_harness.core.text import split_sentences
from review_harness.ds.offline.features import numbers
from review_harness.ds.offline.registry import Context, Hit
from review_harness.ds.offline.view import (
    APPENDIX, BACKGROUND, CONCLUSION, DATA, LIMITATIONS, METHOD, RECOMMENDATION, SUMMARY, Sentence,
)


def first_words(text: str, words: int = 14) -> str:
    parts = text.split()
    out = " ".join(parts[:words])
    return out + ("..." if len(parts) > words else "")


def unmarked(text: str) -> str:
    """Text for use inside our own sentences: markdown emphasis removed."""
    return re.sub(r"[*_`]+", "", text).strip()


def metric_terms(text: str) -> set[str]:
    terms = set()
    for pat in (lx.POS_METRIC, lx.NEG_METRIC):
        for m in pat.finditer(text):
            t = m.group(0).lower().replace("-", " ")
            terms.add(re.sub(r"s$", "", t))
    return terms


def negated_before(text: str, start: int, window: int = 40) -> bool:
    return bool(lx.NEGATION_NEAR.search(text[max(0, start - window) : start]))


def ci_spans(text: str) -> list[tuple[float, float, int, int]]:
    """Every interval in a text with where it stands: (low, high, start, end)."""
    out = []
    for pat in (lx.CI, lx.BRACKET_INTERVAL):
        for m in pat.finditer(text):
            try:
                lo = float(re.sub(r"[^\d.\-]", "", m.group("lo").replace("−", "-")))
                hi = float(re.sub(r"[^\d.\-]", "", m.group("hi").replace("−", "-")))
            except ValueError:
                continue
            out.append((lo, hi, m.start(), m.end()))
    return out


def ci_values(text: str) -> list[tuple[float, float]]:
    return [(lo, hi) for lo, hi, _, _ in ci_spans(text)]


# where one clause of a sentence ends and the next begins: a semicolon, a contrast, or "and" opening a new subject
CLAUSE_BREAK = re.compile(r";|,\s*(?:and|but|while|whereas|yet)\b|\b(?:while|whereas|but|although|though)\b|"
                          r"\band (?=(?:the|its|our|their|all|every|each|[A-Z])\b)", re.IGNORECASE)


def clause_of(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the clause that holds text[start:end]."""
    before = [m.end() for m in CLAUSE_BREAK.finditer(text) if m.end() <= start]
    after = [m.start() for m in CLAUSE_BREAK.finditer(text) if m.start() >= end]
    return (before[-1] if before else 0, after[0] if after else len(text))


BALANCE_CHECK = lx.rx(r"\b(sample ratio|srm|balanced?|balance check|covariate balance|pre-?period|a/a|randomi[sz]ation check|as expected)\b")


def evidence_kind(text: str) -> str | None:
    """'neg' when a sentence reports a null / adverse result, 'pos' for a significant one.
    Design checks (sample ratio, covariate balance) are expected to be null and do not count."""
    if BALANCE_CHECK.search(text):
        return None
    if lx.NONSIG.search(text):
        return "neg"
    for lo, hi in ci_values(text):
        if lo < 0 < hi:
            return "neg"
    for m in lx.PVALUE.finditer(text):
        try:
            val = float(m.group("val"))
        except ValueError:
            continue
        op = m.group("op")
        if op in (">", "≥", ">=") and val >= 0.05:
            return "neg"
        if op not in ("<", "≤", "<=", ">", "≥", ">=") and val > 0.05:
            return "neg"
    for m in lx.POS_SIG.finditer(text):
        if not negated_before(text, m.start(), 25):
            return "pos"
    for m in lx.PVALUE.finditer(text):
        try:
            if float(m.group("val")) <= 0.05 and m.group("op") not in (">", "≥", ">="):
                return "pos"
        except ValueError:
            continue
    return None


IMPERATIVE = lx.rx(r"^(?:\W*(?:recommendation|ask|action|decision)\s*:\s*)?(roll|ship|launch|expand|scale|deploy|make|go|move|switch|adopt)\b")
NULL_ACKNOWLEDGED = lx.rx(r"\b(flat|unchanged|no (?:meaningful |significant |detectable |measurable )?(?:change|hit|difference|effect|impact|lift)|not (?:statistically )?significant|inconclusive|did not (?:change|improve|move))\b")


def primary_nulls(ctx: Context, neg: list[Sentence]) -> list[Sentence]:
    """Null results on the metric the decision rests on: labelled primary, or headlined in the
    summary without the summary admitting the null."""
    f = ctx.features
    out = [r for r in neg if re.search(r"\bprimary\b", r.text + " " + r.section, re.I)]
    if out:
        return out
    summary = " ".join(s.text for s in f.summary if s.kind != "heading")
    if not summary or NULL_ACKNOWLEDGED.search(summary):
        return []
    terms = metric_terms(summary)
    return [r for r in neg if terms & metric_terms(r.text)]


CONDITIONAL = lx.rx(r"\b(if|whether|unless|once|would|could|might|may|when|until|before any)\b")

_RANDOM_FROM_ALL = lx.rx(r"\b(?:randomly (?:assigned|selected|sampled)|randomi[sz]ed|sampled at (?:a )?rate|"
                         r"(?:chance|rate) of (?:\d+ in \d+|being (?:picked|selected|sampled)))\b")
_MEASURED = lx.rx(r"\b(fell|rose|grew|declined|dropped|improved|increased|decreased|held|was|were|moved)\b[^.]{0,40}\b(?:in|across) "
                  r"(?:all|every|each)\b|\bexcept\b")
_DESCRIBES_TEST = lx.rx(r"\b(during|throughout|before|in) the (?:test|experiment|campaign|pilot|trial)\b")
_CLAIMS = (SUMMARY, CONCLUSION, RECOMMENDATION)


def extended_results(ctx: Context, pattern: re.Pattern[str]) -> list[tuple[Sentence, re.Match[str]]]:
    """Sentences that apply a result beyond what was measured (`pattern` names the wider scope: "all
    markets", "global rollout"), in what the document concludes or recommends or in what it says will
    happen. Not one: a sentence that bounds itself, the test's own results described ("fell in every
    region"), the decision a readout feeds, the setting or the problem stated, a hypothetical, a
    negation, or "all users" when the test drew its users at random from all of them."""
    f = ctx.features
    v = ctx.view
    sampled = any(_RANDOM_FROM_ALL.search(s.text) or lx.SAMPLED_FROM_POPULATION.search(s.text) for s in f.statements)
    population = any(lx.SAMPLED_FROM_POPULATION.search(s.text) for s in f.statements)
    out = []
    for s in f.text_sentences:
        if s.role in (LIMITATIONS, APPENDIX, BACKGROUND, METHOD, DATA) or s.kind == "heading":
            continue
        m = pattern.search(s.text)
        if not m or v.has(lx.BOUNDARY, [s]):
            continue
        if (sampled and re.match(r"all (?:users|customers)", m.group(0), re.I)) or population:
            continue  # the data are a random sample of everyone it would apply to: all of them is what it measured
        if _DESCRIBES_TEST.search(s.text) or lx.DECISION_FRAMING.search(s.text) or _MEASURED.search(s.text):
            continue  # the test described, the decision a readout feeds, or the test's own results
        if s.role not in _CLAIMS and not re.search(r"\b(will|should|can|expect\w*)\b", s.text, re.I):
            continue  # "the autumn menu launched in all stores": a fact of the setting, not a claim extended
        if CONDITIONAL.search(s.text[max(0, m.start() - 60):m.start()]) or negated_before(s.text, m.start(), 30):
            continue  # a hypothetical ("it would be naive to send all offers to all customers") or a negation
        out.append((s, m))
    return out


# a number that sets something rather than measures it: a price, a discount or offer, a threshold
# ("customers that make more than $80,000"), a share allocated to a group, a target
_PARAMETER_AFTER = re.compile(r"^\s*(?:%\s*)?(?:\w+\s){0,2}?(?:discount|off\b|cheaper|price|prices|fee|coupon|voucher|offer|"
                              r"threshold|cap\b|minimum|maximum|limit|target|"
                              r"of (?:the )?(?:traffic|users|queries|sessions|sample) (?:were|was|are|is) (?:assigned|allocated|sampled|randomi))", re.I)
_CONFIDENCE_LEVEL = re.compile(r"^\s*%?[\s-]*(?:CI\b|confidence|credible|prediction|probability interval|interval|quantiles?|"
                               r"percentiles?|th percentile|power\b)", re.I)
_PER_PERIOD = re.compile(r"^\s*(?:per (?:month|year|seat|user)|/\s?mo\b|a month|a year|billed)", re.I)
_PRICE_CONTEXT = re.compile(r"\b(price[ds]?|pay|paying|paid|costs?|charge[sd]?|fees?|plan|subscription|billed|priced)\b", re.I)
_RESULT_VERB = re.compile(r"\b(sav(?:e|es|ed|ing)|generat\w+|add(?:s|ed)?|increas\w+|reduc\w+|grew|rose|fell|drop\w*|lift\w*|"
                          r"gain\w*|lost|loses?|worth|impact|uplift)\b", re.I)
_PARAMETER_BEFORE = re.compile(r"(?:\b(?:more than|less than|over|under|above|below|at least|at most|up to|minimum of|maximum of|"
                               r"threshold of|priced at|price of|costs?|pay|paying|charge[sd]?|offer(?:ing)?|for|a)\s*|[$€£])$", re.I)


_DURATION = re.compile(r"^-?(?:year|month|week|day|hour|minute|point|step)s?\b", re.I)


def is_parameter(text: str, start: int, end: int) -> bool:
    """Whether the number at text[start:end] is a parameter (a price, discount, threshold, target,
    allocation, a window length such as "30-year normals") rather than a measured result ("saves
    $120,000 a year" is a result)."""
    after = text[end:end + 60]
    before = text[max(0, start - 24):start]
    if _DURATION.match(after) or (_DURATION.match(after.lstrip()) and re.search(r"\b(?:next|last|past|first|every|each|per|over)\s*$",
                                                                             before, re.I)):
        return True  # "30-year normals", "for the next 12 months": a window, not a result
    if _PARAMETER_AFTER.match(after) or _CONFIDENCE_LEVEL.match(after):
        return True
    if _RESULT_VERB.search(text[max(0, start - 40):start]):
        return False
    if _PER_PERIOD.match(after) and _PRICE_CONTEXT.search(text):
        return True
    return bool(_PARAMETER_BEFORE.search(before) and not re.search(r"\b(?:by|of|to|from)\s*$", before, re.I)
                and re.search(r"\b(?:make|earn|spend|pay|price|cost|charge|offer|threshold|customers? (?:that|who))\b",
                              text[max(0, start - 60):end + 40], re.I))


# a number that sizes the data rather than reports a result: "35,064 hourly observations per station",
# "the 1.2 million trips taken in 2023", "a panel of 48 stations"
_DATA_SIZE_AFTER = re.compile(
    r"^\s*(?:\w+[- ]){0,2}?(?:observations|rows|records|(?:time )?series|data ?points|events|samples|trips|transactions|"
    r"documents|responses|entries|lines|files|images|queries in the|stations|products|items|sku?s)\b", re.I)
_DATA_SIZE_CONTEXT = re.compile(r"\b(data ?sets?|data|we (?:took|used|collected|pulled)|explores?|covers?|contains?|consists? of|"
                                r"includ\w+|drawn from|sample of|public|open data|recorded|logged)\b", re.I)


def is_data_size(text: str, start: int, end: int) -> bool:
    """Whether the number at text[start:end] sizes the data set (a count of observations, rows, series
    or records, in a sentence that describes the data, or "for 45 stores") rather than reports a result."""
    if not _DATA_SIZE_AFTER.match(text[end:end + 40]) or _RESULT_VERB.search(text[max(0, start - 40):start]):
        return False
    return bool(_DATA_SIZE_CONTEXT.search(text) or re.search(r"\b(?:for|across|in|of|from|over|covering) (?:all |the |about |around )?$",
                                                             text[max(0, start - 24):start], re.I))


def headline_number(ctx: Context) -> tuple[Sentence, re.Match[str] | None] | None:
    """The first result figure of the summary, the results, the closing or the text (a price,
    discount or threshold is a parameter, not a result)."""
    f = ctx.features
    text = [s for s in f.text_sentences if s.role not in ("data", "method")] + [s for s in f.text_sentences if s.role in ("data", "method")]
    for group in (f.summary, f.results, f.closing, text):
        # a figure that moves or compares first ("45% less likely to cancel"), then any ("61% of them were canceled")
        group = sorted(group, key=lambda s: not (lx.CHANGE_WORD.search(s.text) or lx.COMPARATIVE_ANSWER.search(s.text)))
        for s in group:
            if s.kind == "heading":
                continue
            for pattern in (lx.PERCENTLIKE, lx.MONEY):
                m = next((m for m in pattern.finditer(s.text) if not is_parameter(s.text, m.start(), m.end())
                          and not _DATA_SHARE_AFTER.match(s.text[m.end():m.end() + 40])), None)
                if m:
                    return s, m
    return None


# a share of the data's own rows ("about 75% of observations belong to the negative class"): the data
# described, no result
_DATA_SHARE_AFTER = re.compile(r"^\s*(?:of )?(?:the |all |our )?(?:observations|rows|records|samples|data points|examples|"
                               r"instances|entries|labels)\b", re.I)


def _answers(sentence: str) -> bool:
    """A summary sentence that states an answer: a result figure (a number that only sizes the data,
    as in "explores the 1.2 million trips", is none), a comparison ("as accurate as"), or a finding
    verb with a figure. A sentence that states the purpose, the question or a deferral answers nothing."""
    if (lx.TLDR_PURPOSE.search(sentence) or lx.QUESTION_SIGNAL.search(sentence) or lx.DEFERRAL.search(sentence)
            or sentence.rstrip("*_ )").endswith("?")):
        return False
    if lx.PERCENTLIKE.search(sentence) or lx.MONEY.search(sentence) or lx.COMPARATIVE_ANSWER.search(sentence):
        return True
    figures = [n for n in numbers(sentence) if n.notable and not is_data_size(sentence, n.start, n.end)]
    return bool(figures and lx.FINDING_VERB.search(sentence))


def tldr_weakness(ctx: Context) -> str | None:
    t = ctx.view.tldr
    if not t.found:
        return None
    text = unmarked(t.text)
    if not text:
        return "it is empty"
    has_number = bool(numbers(text))
    has_finding = bool(lx.FINDING_VERB.search(text))
    answers = any(_answers(sentence) for _, sentence in split_sentences(text))
    if lx.DEFERRAL.search(text) and not answers:
        return "it defers the answer"
    if lx.TLDR_PURPOSE.search(text) and not answers:
        return "it describes what the document covers instead of stating the answer"
    if lx.QUESTION_SIGNAL.search(text) and not answers:
        return "it restates the question without answering it"
    if not has_number and not has_finding:
        return "it states no finding and no number"
    if ctx.workflow == "proactive" and not lx.IMPACT.search(text):
        return "it does not say what the finding is worth or who it affects"
    if ctx.workflow == "reactive" and not (lx.DIRECT_ANSWER.search(text) or has_number):
        return "it does not answer the stakeholder's question directly"
    return None


def quoted_hit(v, s: Sentence, m: re.Match[str] | None, *, title: str, issue: str, fix: str, strength: float = 1.0) -> Hit:
    """A finding that quotes sentence `s` (at match `m`) and points to where it is."""
    return Hit(title=title, issue=issue, evidence=v.quote(s, m), location=v.location(s), suggested_fix=fix, strength=strength)


def first_in_roles(sentences, pattern: re.Pattern[str], roles: tuple[str, ...]) -> tuple[Sentence, re.Match[str]] | None:
    """The first prose sentence in one of `roles` that matches `pattern`."""
    return first_where(sentences, pattern, lambda s, n: s.role in roles and s.kind not in ("table", "heading"))


def first_where(sentences, pattern: re.Pattern[str], keep) -> tuple[Sentence, re.Match[str]] | None:
    """The first sentence matching `pattern` for which keep(sentence, index) holds."""
    for n, s in enumerate(sentences):
        m = pattern.search(s.text)
        if m and keep(s, n):
            return s, m
    return None


def tables_with_cells(ctx: Context) -> list[list[tuple[Sentence, list[str]]]]:
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
