"""Detectors of the analysis dimension's metrics lens: results without uncertainty, sample size
or baseline, statistical significance read as practical importance, and undefined metrics.
"""

from __future__ import annotations

import re
from collections import Counter

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import (
    IMPERATIVE, first_in_roles, first_words, headline_number, negated_before, quoted_hit, tables_with_cells,
    unmarked,
)
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import DATA, LIMITATIONS, SUMMARY, Sentence


@rule("no_uncertainty")
def no_uncertainty(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if f.uncertainty is not None:
        return None
    effects = [s for s in f.text_sentences if lx.PERCENTLIKE.search(s.text) or lx.MONEY.search(s.text)]
    if len(effects) < 2:
        return None
    head = headline_number(ctx)
    if head is None:
        return None
    s, m = head
    return Hit(
        title="Headline numbers reported without uncertainty",
        issue=(
            f"Effects such as \"{first_words(unmarked(s.text), 16)}\" are given as point estimates: there is no confidence interval, "
            f"standard error or significance test anywhere in the document. Without them the reader cannot tell a real change "
            f"from noise."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Report the sample size and a 95% interval next to each headline number (estimate, interval, n per group).",
        absence=True,
        consider="Consider adding intervals and sample sizes to the headline numbers.",
        strength=1.5,
    )


_DESIGN_NUMBER = lx.rx(r"\b(holdout|hold-out|split|sample|randomi[sz]\w*|power|alpha|α|confidence level|per arm|traffic allocation)\b")
_STATE_VERB = lx.rx(r"\b(is|was|were|are|stands? at|stood at|reached|averaged|came in|scored|hit|sits? at|at|of|had|has)\b")
_EFFECT_STATED = lx.rx(
    r"\b(moved by|changed by|difference of|fewer|more \w+ than|lift of|effect of)\b|"
    r"(?:\bCI\b|confidence interval|credible interval)"
)


@rule("metric_without_baseline")
def metric_without_baseline(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    level_only: list[tuple[Sentence, re.Match[str]]] = []
    numeric = 0
    for s in f.summary + [x for x in f.results if x not in f.summary]:
        if s.kind in ("heading", "table") or lx.PROJECTION.search(s.text) or lx.RECOMMENDATION.search(s.text):
            continue
        if IMPERATIVE.match(unmarked(s.text)) or _DESIGN_NUMBER.search(s.text) or not _STATE_VERB.search(s.text):
            continue
        sample = {m.start() for m in lx.SAMPLE_SIZE.finditer(s.text)}
        nums = [n for n in f.nums(s) if n.notable and not any(abs(n.start - p) <= 2 for p in sample) and not re.match(r"\s*(?:%\s*)?of (?:the )?(?:sample|respondents)", s.text[n.end:])]
        if not nums or not lx.METRIC_NOUN.search(s.text):
            continue
        numeric += 1
        if lx.COMPARISON.search(s.text) or _EFFECT_STATED.search(s.text):
            continue  # a change with its interval, or an effect, is already a comparison
        m = lx.PERCENTLIKE.search(s.text) or lx.MONEY.search(s.text) or lx.NUMBER.search(s.text)
        level_only.append((s, m))
    if not level_only:
        return None
    # headline numbers: the summary's, or (with no summary) the first results reported
    if f.summary:
        headline = [t for t in level_only if t[0].role == SUMMARY]
    else:
        first_results = [x for x in f.results if x.kind not in ("heading", "table") and any(n.notable for n in f.nums(x))][:3]
        headline = [t for t in level_only if t[0] in first_results]
        if len(headline) < 2:
            headline = []
    if not headline:
        return None
    s, m = headline[0]
    return Hit(
        title="Headline number has no baseline",
        issue=(
            f"\"{first_words(unmarked(s.text), 18)}\" reports a level with nothing to judge it against: no prior period, control "
            f"group, target or benchmark. The reader cannot tell whether the number is good, bad or normal."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Put a comparison next to the number: the prior period, the same period last year, a target or a benchmark, with its source.",
    )


@rule("statistical_vs_practical")
def statistical_vs_practical(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    sig = None
    for s in f.text_sentences:
        m = lx.SIG_CLAIM.search(s.text)
        if m and not negated_before(s.text, m.start(), 25):
            sig = (s, m)
            break
    if sig is None:
        return None
    if v.has(lx.PRACTICAL, f.text_sentences):
        return None
    s, m = sig
    return Hit(
        title="Significance reported without practical size",
        issue=(
            f"\"{first_words(unmarked(s.text), 18)}\" stresses statistical significance but the document never says how big the "
            f"effect is in practical terms (absolute change, per-user value, money). A significant effect can still be too "
            f"small to matter."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Add the effect in absolute and business terms next to the test result (the size of the change and what it is worth), not only its significance.",
    )


_PROVISIONAL_DEF = lx.rx(
    r"\b((?:need|needs|have|has) to (?:confirm|agree|check|align on|settle) (?:the )?(?:\w+ )?definition|definition (?:is |still )?"
    r"(?:tbd|unclear|provisional|pending|not (?:yet )?(?:final|agreed|settled))|(?:agree|confirm|align on) (?:the )?\w+ definition|"
    r"(?:dashboard|team) shows? (?:slightly )?different (?:numbers|figures|values)|see the [\w ]{0,30}(?:dashboard|wiki|doc|page) for the (?:current )?definition)\b"
)


def _population(ctx: Context) -> str:
    """The units the document counts, in its own words ('sessions', 'members'), for a definition's example."""
    counted = Counter(m.group(0).lower() for s in ctx.features.text_sentences for m in re.finditer(_UNITS, s.text, re.I))
    return counted.most_common(1)[0][0] if counted else "units"


@rule("metric_undefined")
def metric_undefined(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    # 1) a definition the document itself says is unsettled or kept elsewhere
    prov = v.first(_PROVISIONAL_DEF, f.text_sentences)
    if prov is not None:
        s, m = prov
        name = re.match(r"\W*([A-Z][\w\- ]{0,30}?)\s*(?:=|:)", s.text)
        metric = (name.group(1).strip() if name else "") or "the metric"
        return Hit(
            title=f"Definition of {metric} is not settled",
            issue=(
                f"The document says the definition is not final or lives elsewhere (\"{unmarked(m.group(0))}\"). Readers "
                f"cannot interpret {metric} and the numbers may not match what others report."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix=f"Write the agreed definition of {metric} in the document (numerator, denominator, window, exclusions) and note any difference from the official dashboard.",
        )
    # 2) a custom metric name ("engagement score") used repeatedly and never defined
    counts: Counter[str] = Counter()
    first: dict[str, tuple[Sentence, re.Match[str]]] = {}
    for s in f.text_sentences:
        if s.kind == "heading":
            continue
        for m in lx.CUSTOM_METRIC.finditer(s.text):
            phrase = m.group(1).lower().strip()
            words = phrase.split()
            if any(phrase.endswith(std) for std in lx.STANDARD_METRICS):
                continue
            phrase = " ".join(words[-2:])  # the metric name: the noun and the word that qualifies it
            if words[-2] in ("the", "a", "an", "our", "this", "that", "its", "their", "of", "and", "or", "in", "on", "per", "with", "high", "low", "higher", "lower", "same", "new", "each", "every"):
                continue
            if any(phrase.endswith(std) for std in lx.STANDARD_METRICS):
                continue
            counts[phrase] += 1
            first.setdefault(phrase, (s, m))
    text = v.content
    for phrase, n in counts.most_common():
        s, m = first[phrase]
        if n < 2 and s.role != SUMMARY:
            continue
        esc = re.escape(phrase)
        if re.search(rf"{esc}\s*(?:\(|:|=|—|–| - )", text, re.I):
            continue
        if re.search(rf"\([^()]{{0,40}}{esc}\s*\)", text, re.I):
            continue  # named as the other side of a defined metric: "the bounce rate (increase the engagement rate)"
        if re.fullmatch(r"\w+s rate", phrase):
            continue  # a rate named by the events it counts ("zero results rate", "clicks rate")
        if any(re.search(esc, x.text, re.I) and lx.DEFINITION_CUE.search(x.text) for x in f.text_sentences):
            continue
        if any(re.search(esc, x.text, re.I) for x in f.text_sentences if x.role == DATA and x.kind == "bullet"):
            continue
        return Hit(
            title=f"'{phrase}' is never defined",
            issue=(
                f"The document relies on \"{phrase}\" ({n} mentions) but never says how it is calculated: which events, "
                f"which population, which time window. Readers will fill in their own definition."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix=(f"Define {phrase} where it is first used: which events are counted, out of which "
                           f"{_population(ctx)}, and over which period."),
        )
    return None


# ---------------------------------------------------------------------- results with no sample size

# groups compared (an experiment's arms, treated and control cohorts): a benchmark of models on one
# data set has no groups whose size the reader needs
_EXPERIMENTAL = re.compile(r"\b(a/b|ab test|randomi[sz]\w*|split at random|holdout (?:group|cohort)|arms?|control (?:group|arm|cohort)|"
                           r"treatment (?:group|arm|cohort)|test group|variants?|split[- ]test)\b", lx.I)
_RATIO_COUNT = re.compile(r"\b\d{1,3}(?:,\d{3})+\s*/\s*\d{1,3}(?:,\d{3})+\b|\b\d{3,}\s*/\s*\d{3,}\b")
_UNITS = (
    r"(?:users?|visitors?|customers?|people|members?|accounts?|sessions?|recipients?|emails?|subscribers?|shoppers?|"
    r"searchers?|workspaces?|orders?|interactions?|respondents?|participants?|stores?|queries|trials?|installs?|households?|"
    r"sign-?ups?|regions?|markets?|cities|zones?|deliveries|recipients?)"
)
_COUNT = re.compile(rf"\b(n\s*=\s*\d|\d[\d,.]*\s*(?:k|K|M|million|thousand)?\s+(?:\w+\s+){{0,2}}{_UNITS}\b|{_UNITS} per (?:arm|group)|sample (?:size|of) \d)", lx.I)
_RESULT_RATE = re.compile(r"\d+(?:\.\d+)?\s?%|\b0\.\d{2,}\b")


@rule("sample_size_missing")
def sample_size_missing(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    text_all = [s for s in v.sentences if s.role != LIMITATIONS]
    if not any(_EXPERIMENTAL.search(s.text) for s in text_all):
        return None
    if any(_COUNT.search(s.text) or _RATIO_COUNT.search(s.text) for s in text_all):
        return None  # counts written out, or as successes over trials ("28378 / 345543")
    for table in tables_with_cells(ctx):
        # a column of counts (its header a unit, n or count); the first column names the rows ("Region")
        columns = [c.lower().strip("* ") for c in table[0][1][1:]]
        if any(re.fullmatch(rf"(?:n|count|number of \w+|{_UNITS}|(?:\w+ )?{_UNITS}(?: / {_UNITS})?)", c)
               or re.search(r"\bn\b|\bn_|\bcount\b|/ ?(?:\w+ )?" + _UNITS, c) for c in columns):
            return None
    if re.search(r"\$N_\\?(?:text)?\{?[A-Z]|\bN_(?:T|C|test|control)\b", v.content):
        return None  # a LaTeX table with N per group
    headline = first_in_roles(f.text_sentences, _RESULT_RATE, ("summary", "results"))
    if headline is None:
        return None
    s, m = headline
    return quoted_hit(
        v, s, m,
        title="Results reported without sample sizes",
        issue=(
            f"The results are rates and lifts (\"{v.quote(s, m, max_words=14)}\") but the document never says how many "
            "units were in each group, so the reader cannot judge how precise the estimates are."
        ),
        fix="State the number of units in each group (and in each period or segment reported) next to the results.", strength=2,
    )
