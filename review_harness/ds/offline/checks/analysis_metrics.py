"""Detectors of the analysis dimension's metrics lens: results without uncertainty, sample size
or baseline, statistical significance read as practical importance, and undefined metrics.
"""

from __future__ import annotations

import re
from collections import Counter

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import (
    IMPERATIVE, is_data_size, is_parameter, first_in_roles, first_words, headline_number, negated_before, quoted_hit, tables_with_cells,
    unmarked,
)
from review_harness.ds.offline.checks.analysis_readings import group_counts
from review_harness.ds.offline.features import interval_with_bounds
from review_harness.ds.offline.purpose import BENCHMARK, EXPLORATORY
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import BACKGROUND, DATA, LIMITATIONS, RECOMMENDATION, SUMMARY, Sentence


_MODEL_ESTIMATE = lx.rx(r"\b(hazard ratios?|odds ratios?|coefficients?|regression|estimated (?:effect|impact|difference)|"
                       r"effect of|relative risk|elasticit\w+)\b")


@rule("no_uncertainty")
def no_uncertainty(ctx: Context) -> Hit | None:
    """Effects given as point estimates. A description of a whole data set (an exploratory write-up)
    reports no effect to put an interval on, and a comparison of methods is judged by whether its
    ranking holds across windows and runs (single_evaluation)."""
    f = ctx.features
    v = ctx.view
    if f.uncertainty is not None or f.purpose.kind == BENCHMARK or f.compares_methods:
        return None  # methods ranked by their error: whether the ranking holds is single_evaluation's question
    if f.purpose.kind == EXPLORATORY and not any(_MODEL_ESTIMATE.search(s.text) for s in f.statements):
        return None  # shares and counts of a whole data set, described: no estimate to put an interval on
    effects = [s for s in f.text_sentences if lx.PERCENTLIKE.search(s.text) or lx.MONEY.search(s.text)]
    if len(effects) < 2:
        return None
    head = headline_number(ctx)
    if head is None or head[0].role == BACKGROUND:
        return None  # the only figures are the setting's (an industry's churn rate, cited): no result of its own
    s, m = head
    unsized = _groups_compared(ctx) and not groups_sized(ctx)
    return Hit(
        title="Headline numbers reported without uncertainty" + (" or sample sizes" if unsized else ""),
        issue=(
            f"Effects such as \"{first_words(unmarked(s.text), 16)}\" are given as point estimates: there is no confidence interval, "
            f"standard error or significance test anywhere in the document"
            + (", and no sample size: it never says how many units were in each group" if unsized else "")
            + ". Without them the reader cannot tell a real change from noise."
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
        if lx.TLDR_PURPOSE.search(s.text):
            continue  # what the document sets out to do, sized: no level reported
        sample = {m.start() for m in lx.SAMPLE_SIZE.finditer(s.text)}
        nums = [n for n in f.nums(s) if n.notable and not any(abs(n.start - p) <= 2 for p in sample)
                and not re.match(r"\s*(?:%\s*)?of (?:the )?(?:sample|respondents)", s.text[n.end:])
                and not is_data_size(s.text, n.start, n.end) and not is_parameter(s.text, n.start, n.end)]
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
    if any((lx.PERCENTLIKE.search(x.text) or lx.MONEY.search(x.text)) and (lx.CHANGE_WORD.search(x.text) or lx.COMPARATIVE_ANSWER.search(x.text))
           for x in f.statements if x.role in (SUMMARY, "results", "conclusion") and x.kind != "heading"):
        return None  # the size is given ("a 3.64% higher probability of interacting with the page")
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
        if re.search(rf"{esc}[*_`]*\s*(?:\(|:|=|—|–| - )", text, re.I):  # "**Brier score**: an extension of ..."
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

# groups compared (an experiment's arms, treated and control cohorts, groups defined by what users did):
# a benchmark of models on one data set has no groups whose size the reader needs
_EXPERIMENTAL = re.compile(
    r"\b(a/b|ab test|randomi[sz]ed (?:(?:controlled )?(?:test|experiment|trial)|(?:\w+ ){0,3}(?:to|into|between|across|at|50/50))|"
    r"randomly (?:assigned|allocated|split)|(?:split|chosen|assigned) at random|split (?:\d+\s*/\s*\d+|evenly|equally)|assigned (?:at random )?to (?:the )?(?:control|treatment|test|group|arm|"
    r"variant|see|receive|get)|holdout (?:group|cohort)|arms?|control (?:group|arm|cohort|cities|regions|stores|zones)|"
    r"treatment (?:group|arm|cohort|cities|regions|stores|zones)|test group|variants?|split[- ]test)\b", lx.I)
# a test proposed or planned is no comparison reported: "We recommend an A/B test before launch"
_PLANNED = re.compile(r"\b(recommend\w*|should|will|plan(?:ned)? to|next (?:month|week|quarter)|before (?:launch|rollout|full)|"
                      r"than an?|(?:a/b|ab) (?:launch )?check)\b", lx.I)
_GROUP_COLUMN = re.compile(r"^\W*(?:groups?|cohorts?|arms?|variants?|conditions?|segments? compared)\W*$", lx.I)
# "71% ... against 48% for users who never turn it on": two groups of users compared by a rate
_GROUPS_COMPARED = re.compile(r"\d\s?%[^.]{0,80}\b(?:against|vs\.?|versus|compared (?:with|to))\b[^.]{0,30}\d\s?%[^.]{0,30}\b"
                              r"(?:users|customers|people|accounts|members|those) (?:who|that)\b", lx.I)
_RATIO_COUNT = re.compile(r"\b\d{1,3}(?:,\d{3})+\s*/\s*\d{1,3}(?:,\d{3})+\b|\b\d{3,}\s*/\s*\d{3,}\b")
_UNITS = (
    r"(?:users?|visitors?|customers?|people|members?|accounts?|sessions?|recipients?|emails?|subscribers?|shoppers?|"
    r"searchers?|workspaces?|orders?|interactions?|respondents?|participants?|stores?|queries|trials?|installs?|households?|"
    r"sign-?ups?|regions?|markets?|cities|zones?|deliveries|recipients?|pros|drivers|riders|merchants|sellers|patients|"
    r"students|schools|clinics|devices|pickers|agents)"
)
_NUMBER = r"\d[\d,]*(?:\.\d+)?\s*(?:k|K|M|million|thousand)?"
# how a write-up gives the size of each group compared
_SIZED = [
    re.compile(r"\b[nN]\s*=\s*\d"),  # "(n = 9,204)", "n = 4 and 14 zones"
    re.compile(rf"(?<![\w.,])(?<!per ){_NUMBER}\s+(?:\w+\s+){{0,2}}(?:per|in each|for each|each) (?:arm|group|variant|cell|condition|side)\b", lx.I),
    re.compile(rf"(?<![\w.,])(?<!per ){_NUMBER}\s+(?:\w+\s+){{0,3}}?(?:and|vs\.?|versus|against)\s+{_NUMBER}\s+(?:[\w-]+\s+){{0,3}}?{_UNITS}\b", lx.I),
    # "around 16.5K users in the control group", "3,200 customers in treatment cities"
    re.compile(rf"(?<![\w.,])(?<!per ){_NUMBER}\s+(?:[\w-]+\s+){{0,3}}?(?:in|into|to|for|saw|got|received) (?:the |each )?(?:control|treatment|test|"
               rf"holdout|hold-out|experiment(?:al)?|variant|enabled|disabled|[\w-]+ (?:group|arm|cohort))\b", lx.I),
    _RATIO_COUNT,  # successes over trials: "28,378 / 345,543"
]
_COUNT_HEADER = re.compile(rf"^(?:n|count|number of \w+|{_UNITS}|(?:\w+ )?{_UNITS}(?: / {_UNITS})?|sample(?: size)?)$|\bn\b|\bn_|"
                           rf"\bcount\b|/ ?(?:\w+ )?{_UNITS}|\(\s*(?:n\s*=\s*)?\d[\d,]*\s*\)", lx.I)
# a row of whole counts labelled by its unit, qualified or not ("sessions reaching the cart", "users enrolled")
_COUNT_ROW_LABEL = re.compile(rf"^(?:\w+ )?{_UNITS}\b", lx.I)
_WHOLE_COUNT = re.compile(r"\d{1,3}(?:,\d{3})+|\d+|\d+(?:\.\d+)?\s*(?:k|K|M)")
_TOTAL_WITH_SPLIT = re.compile(rf"(?<![\d.,])(?:\d{{1,3}}(?:,\d{{3}})+|\d{{3,}}|\d+(?:\.\d+)?\s*(?:k|K|M|million|thousand))\s+"
                               rf"(?:[\w-]+\s+){{0,2}}{_UNITS}\b", lx.I)
_NOT_A_SIZE = re.compile(r"(?:\bper|\bevery|more|fewer|additional|extra|another|\bby)\s*$|^\s*(?:more|fewer|a (?:month|week|day|year))\b", lx.I)
_IN_THE_TEST = re.compile(r"\b(?:in|across|over|from|during|of) (?:the|this|our) (?:test|experiment|trial|pilot)\b", lx.I)


def groups_sized(ctx: Context) -> bool:
    """Whether the write-up gives how many units each compared group had: counts per group in words
    or in a table (a count column, an 'n' in a group's header), a pair of counts, successes over
    trials, or a total with the even split it was divided by."""
    v = ctx.view
    own = [s for s in v.sentences if s.role != LIMITATIONS]
    counts, _ = group_counts(ctx)
    if counts:
        return True
    if any(p.search(s.text) for s in own for p in _SIZED):
        return True
    if re.search(r"\$N_\\?(?:text)?\{?[A-Z]|\bN_(?:T|C|test|control)\b", v.content):
        return True  # a LaTeX table with N per group
    for table in tables_with_cells(ctx):
        columns = [c.lower().strip("* ") for c in table[0][1][1:]]
        if any(_COUNT_HEADER.search(c) for c in columns):
            return True
        # groups as columns, and a row that counts their units ("| Visitors | 24,310 | 24,188 |")
        for _, cells in table[1:]:
            counts = [c for c in cells[1:] if _WHOLE_COUNT.fullmatch(c.strip("* "))]
            label = cells[0].lower().strip("* ")
            if (_COUNT_HEADER.search(label) or _COUNT_ROW_LABEL.match(label)) and len(counts) >= 2:
                return True
    # the test's total ("a randomized test with 82,338 customers", "(... ; 52,000 orders)"): each arm's size follows
    # from the design; a count of an effect ("19,000 more checkout starts") or a rate's base ("per 1,000") is none
    for s in own:
        for m in _TOTAL_WITH_SPLIT.finditer(s.text):
            if _NOT_A_SIZE.search(s.text[max(0, m.start() - 14):m.start()]) or _NOT_A_SIZE.match(s.text[m.end():m.end() + 12]):
                continue
            if _EXPERIMENTAL.search(s.text) or interval_with_bounds(s.text) or _IN_THE_TEST.search(s.text):
                return True
    return False


def _groups_compared(ctx: Context) -> bool:
    """Whether the write-up reports a comparison of groups: the arms of a test run (not one proposed),
    two groups compared by a rate, a table of groups."""
    v = ctx.view
    own = [s for s in v.sentences if s.role not in (LIMITATIONS, RECOMMENDATION)]
    if any(_EXPERIMENTAL.search(s.text) and not _PLANNED.search(s.text) for s in own):
        return True
    if any(_GROUPS_COMPARED.search(s.text) for s in own):
        return True
    return any(_GROUP_COLUMN.match(table[0][1][0]) and len(table) >= 3 for table in tables_with_cells(ctx) if table[0][1])


@rule("sample_size_missing")
def sample_size_missing(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if not _groups_compared(ctx) or groups_sized(ctx):
        return None
    if no_uncertainty(ctx) is not None:
        return None  # the same gap, told once there: effects with no interval, test or sample size
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


# a rate or share as written, not the escapes of a link ("Kaplan%E2%80%93Meier", "Case%20Study")
_RESULT_RATE = re.compile(r"(?<![%\w.])\d+(?:\.\d+)?\s?%(?![0-9A-Fa-f]{2})|\b0\.\d{2,}\b")


# ---------------------------------------------------------------------- a benchmark on one window

_SPREAD = re.compile(
    r"\b(rolling[- ](?:origins?|windows?|forecasts?|evaluations?|cross)|origins|cross[- ]validat\w*|back-?test\w*|folds?|windows|repeated runs?|"
    r"(?:several|multiple|\d+|five|ten|three) (?:runs|seeds|splits|windows|periods|origins)|seeds?|standard deviation|"
    r"spread|variabilit\w*|variation|vary|varies|across (?:the )?(?:\d+ )?(?:series|stations|stores|data ?sets|datasets|windows|runs|folds|origins|items)|"
    r"(?:better|worse) (?:on|in) \d+ of|on \d+ (?:of the )?(?:series|stations|stores|data ?sets))\b", lx.I)
_TEST_PERIOD = re.compile(r"\b(tested on [^.;]{3,40}|(?:test|hold-?out|evaluation|validation) (?:set|period|window|data) "
                          r"(?:is|was|covers|covered|runs|ran)\b[^.;]{0,40})", lx.I)
_TEST_WINDOW = re.compile(
    r"\b(forecast\w* \d+ (?:days?|weeks?|months?|hours?|steps?|periods?)(?: (?:ahead|forward))?|"
    r"\d+[- ](?:day|week|month|hour|step)s?[- ](?:ahead|horizon|forward)|horizon of \d+|"
    r"(?:test|hold-?out|evaluation|validation) (?:set|period|window|data)\b[^.]{0,40}|last \d+ (?:days|weeks|months|observations))", lx.I)


@rule("single_evaluation")
def single_evaluation(ctx: Context) -> Hit | None:
    """A comparison of methods ranked on one test window and one run: nothing shows the ranking would
    hold on another window, series or run."""
    f = ctx.features
    v = ctx.view
    if f.purpose.kind != BENCHMARK and not f.compares_methods:
        return None
    own = [s for s in f.statements if s.role != LIMITATIONS]
    # spread of the test error (a rolling origin, several runs, intervals); cross-validation used to tune is none
    if any((_SPREAD.search(s.text) and not re.search(r"\btun\w+|\bhyper-?parameters?\b", s.text, lx.I))
           or interval_with_bounds(s.text) for s in own):
        return None
    window = v.first(_TEST_PERIOD, own) or v.first(_TEST_WINDOW, own)
    if window is None:
        return None
    s, m = window
    return quoted_hit(
        v, s, m,
        title="Methods ranked on one test window",
        issue=(f"The comparison rests on one evaluation (\"{v.quote(s, m, max_words=14)}\") and one run of each method, "
               "with no interval and no variation of the errors across forecast windows, series or runs, so the reader "
               "cannot tell whether the ranking would hold on another period."),
        fix=("Repeat the evaluation over several windows (a rolling origin) or runs, and report the spread of each "
             "method's error beside its average."),
        strength=1,
    )
