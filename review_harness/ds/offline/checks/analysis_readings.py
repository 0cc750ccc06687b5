"""Detectors built on general readings of a write-up, for problems that sink real analyses: group
sizes that depart from the planned split (and groups whose make-up differs), a null result given
without its size, a summary that states what the body only suggests or a comparison does not
support, conclusions that disagree with each other, a universal claim the document itself hedges,
inputs that are only known after the fact, rows dropped without a word on who they were, a
balance test that failed, a comparison group the change reached too.

Each reads the document's own words and numbers; none is a rule about one document.
"""

from __future__ import annotations

import math
import re

from review_harness.core.text import content_words
from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.analysis_logic import unsupported_conclusion as logic_unsupported_conclusion
from review_harness.ds.offline.checks.analysis_logic import universal_claim_contradicted
from review_harness.ds.offline.checks.analysis_methodology import covariate_imbalance_ignored, leakage, selection_bias_unaddressed
from review_harness.ds.offline.checks.helpers import evidence_kind, first_words, quoted_hit, tables_with_cells, unmarked
from review_harness.ds.offline.features import numeric_uncertainty
from review_harness.ds.offline.features import numbers
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import (
    APPENDIX, CONCLUSION, LIMITATIONS, RECOMMENDATION, RESULTS, SUMMARY, TITLE, Sentence,
)

I = re.IGNORECASE

# ---------------------------------------------------------------------- groups and their sizes

EQUAL_SPLIT = re.compile(
    r"\b(equal (?:probabilit\w+|chances?|shares?|sizes?|proportions?)|with equal probabilit\w+|50\s*[/-]\s*50|"
    r"even(?:ly)? (?:split|divided|assigned|allocated)|split (?:equally|evenly)|equally(?:[- ]sized)? (?:groups|arms)|"
    r"same (?:probability|share) of being)\b", I)
_GROUP = (r"(?:(?:[\w-]+ )?(?:group|arm|cohort)|test|treatment|control|controls|variant(?: [A-F])?|enabled|disabled|"
          r"holdout|experimental|new design|old design)")
_N = r"(?P<n>\d{1,3}(?:,\d{3})+|\d{3,})(?![\d.,%]|\s?(?:%|k\b|K\b|percent|pts?\b))"
_COUNT_NEAR_GROUP = [
    # "the test group consisted of 3019 users", "control group: 2,560", "the treatment arm had 4,100 visitors"
    re.compile(rf"\b(?P<group>{_GROUP})\b\s*(?:consisted of|contained|had|has|held|included|of|with|:|=|n\s*=)\s*(?:about |around )?(?<![\d.,]){_N}", I),
    # "3019 users received the new design", "106,250 in the control group", "2560 were selected as controls"
    re.compile(rf"(?<![\d.,]){_N}\s+(?:[a-z]+\s+){{0,3}}?(?:in|into|to|as|received|got|saw) (?:the )?(?P<group>{_GROUP})\b", I),
]
_ROUNDED = re.compile(r"\b(around|about|approximately|roughly|~|nearly|almost|over|more than|some)\s*$", I)
SRM_DISCUSSED = re.compile(
    r"\b(sample ratio|srm\b|imbalance|unbalanced|uneven|more (?:users|sessions|people) (?:in|were)|disproportionat\w*|"
    r"group sizes? (?:differ|are not equal)|why the groups differ)|\bp\s*=\s*0?\.\d+ for (?:a|an|the) (?:50\s*/\s*50|equal|even) "
    r"(?:split|allocation)", I)


def _group_key(label: str) -> str:
    label = label.lower().strip()
    if re.match(r"(?:the )?controls?\b", label) or label.startswith("control"):
        return "control"
    if label in ("test", "test group", "treatment", "treatment group", "experiment", "experimental", "variant", "enabled",
                 "new design", "treatment arm", "test arm"):
        return "treatment"
    return re.sub(r"\s+(?:group|arm|cohort)$", "", label)


def group_counts(ctx: Context) -> tuple[dict[str, int], Sentence | None]:
    """Exact unit counts per group as the text states them ('the test group consisted of 3019
    users'), with the first sentence that gives one; rounded counts ('around 16.5K') are left out."""
    counts: dict[str, int] = {}
    first: Sentence | None = None
    for s in ctx.features.statements:
        if s.kind in ("heading", "table") or s.role in (LIMITATIONS, APPENDIX):
            continue
        for pattern in _COUNT_NEAR_GROUP:
            for m in pattern.finditer(s.text):
                if _ROUNDED.search(s.text[max(0, m.start("n") - 14):m.start("n")]):
                    continue
                key = _group_key(m.group("group"))
                value = int(m.group("n").replace(",", ""))
                if key not in counts and value >= 100:
                    counts[key] = value
                    first = first or s
    # a total taken for a group ("212,400 deliveries: 106,150 in the text group and 106,250 ..."): not a group
    for key, value in list(counts.items()):
        rest = [v for k, v in counts.items() if k != key]
        if len(rest) >= 2 and abs(sum(rest) - value) <= 0.01 * value:
            del counts[key]
    return counts, first


def chi_square_p(observed: list[float], expected: list[float]) -> float:
    """Upper tail of the chi-square statistic of observed against expected counts (df = k - 1)."""
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected) if e > 0)
    df = max(1, len(observed) - 1)
    # Wilson-Hilferty: the chi-square tail through a normal approximation, fine for these sizes
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def _equal_allocation(ctx: Context) -> Sentence | None:
    """Where the document says units were split equally between groups: in words, or as the same
    share given to each group ('1% of the total queries ... group A', '1% ... group B')."""
    hit = ctx.view.first(EQUAL_SPLIT, ctx.features.statements)
    if hit is not None:
        return hit[0]
    shares: dict[str, list[Sentence]] = {}
    for s in ctx.features.statements:
        m = re.search(rf"(\d+(?:\.\d+)?)\s?%[^.]{{0,80}}\b(?:group|arm|variant|{_GROUP})\b", s.text, I)
        if m and s.kind in ("bullet", "prose"):
            shares.setdefault(m.group(1), []).append(s)
    same = next((group for group in shares.values() if len(group) >= 2), None)
    return same[0] if same else None


@rule("sample_ratio_mismatch")
def sample_ratio_mismatch(ctx: Context) -> Hit | None:
    """Units assigned to groups with equal probability, yet the group sizes (or each group's share
    of a segment, in a table) differ far beyond chance: assignment or logging is broken, and the
    comparison cannot be trusted until that is explained."""
    v = ctx.view
    allocation = _equal_allocation(ctx)
    if allocation is None or v.has(SRM_DISCUSSED, [s for s in ctx.features.statements if s.role != APPENDIX and
                                                   not re.search(r"\bsampl\w+ (?:down|bias)", s.text, I)]):
        return _composition(ctx, allocation) if allocation is not None else None
    counts, where = group_counts(ctx)
    if len(counts) >= 2 and where is not None:
        values = list(counts.values())
        total = sum(values)
        p = chi_square_p(values, [total / len(values)] * len(values))
        if p < 0.001:
            shares = ", ".join(f"{k} {n:,} ({n / total:.1%})" for k, n in counts.items())
            return quoted_hit(
                v, where, None,
                title="Group sizes differ far beyond chance (sample ratio mismatch)",
                issue=(f"Units were assigned with equal probability (\"{first_words(unmarked(allocation.text), 14)}\"), yet the "
                       f"groups hold {shares}: a split this uneven happens by chance with probability below 1 in 1,000 "
                       f"(chi-square p ≈ {p:.1g}). Broken assignment or logging that differs by group can produce the very "
                       "difference being measured, and the document does not mention it."),
                fix=("Find why the groups differ in size before reading the result (assignment code, logging per variant, "
                     "bots, exclusions applied to one group), and report the check; rerun if the cause touches the outcome."),
                strength=3,
            )
    return _composition(ctx, allocation)


def _share_cells(cells: list[str]) -> list[float] | None:
    out = []
    for c in cells:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s?\\?%\s*", c.strip("* "))
        if not m:
            return None
        out.append(float(m.group(1)))
    return out


def _composition(ctx: Context, allocation: Sentence) -> Hit | None:
    """A table of each group's share of every segment (rows: segments; columns: the groups, each
    row summing to 100%) where a large segment is split far from equally: the groups differ in
    make-up, so a difference in outcome may come from the mix."""
    v = ctx.view
    for table in tables_with_cells(ctx):
        header = [c.lower().strip("* ") for c in table[0][1]]
        group_cols = [i for i, c in enumerate(header) if re.fullmatch(r"[a-f]|control|test|treatment|variant \w|group \w", c)]
        total_col = next((i for i, c in enumerate(header) if c in ("total", "n", "count", "queries", "users", "sessions")), None)
        if len(group_cols) < 2 or total_col is None:
            continue
        worst = None
        for s, cells in table[1:]:
            if len(cells) <= max(group_cols + [total_col]):
                continue
            shares = _share_cells([cells[i] for i in group_cols])
            try:
                total = float(cells[total_col].replace(",", "").strip("* "))
            except ValueError:
                continue
            if shares is None or not 95 <= sum(shares) <= 105 or total < 200:
                continue
            observed = [total * x / 100 for x in shares]
            p = chi_square_p(observed, [total / len(shares)] * len(shares))
            if p < 1e-6 and (worst is None or total > worst[1]):
                worst = (s, total, cells[0].strip("* "), shares)
        if worst is not None:
            s, total, segment, shares = worst
            split = " / ".join(f"{x:g}%" for x in shares)
            return quoted_hit(
                v, s, None,
                title="Groups differ in make-up: a large segment is split far from equally",
                issue=(f"Units were meant to be split equally (\"{first_words(unmarked(allocation.text), 12)}\"), but "
                       f"'{segment}' ({total:,.0f} units) is split {split} across the groups. Groups that differ this much "
                       "in make-up are not comparable: any segment whose outcome differs shifts the group averages, so the "
                       "measured difference may come from the mix, not the change."),
                fix=("Find why assignment differs by segment and fix it; until then compare within segments (or reweight "
                     "to a common mix) and say that the pooled comparison is not interpretable."),
                strength=3,
            )
    return None


# ---------------------------------------------------------------------- null results without their size

_MDE = re.compile(r"\b(minimum detectable|\bMDE\b|power (?:to detect|of|analysis)|powered to|smallest effect)\b", I)


# a verdict that names where its estimates are: "(Appendix A.1)", "(see Table 3)", "as given by Model-12"
_ESTIMATES_THERE = re.compile(r"\((?:see |in )?(?:appendix|table|tab\.)\s*[A-Z]?[\d.]*\)|\b(?:as )?(?:given|shown|reported|estimated) "
                              r"(?:by|in) (?:the )?(?:model|table|appendix)[\s-]*[A-Z]?\d", I)


@rule("null_result_unsized")
def null_result_unsized(ctx: Context) -> Hit | None:
    """A result read as 'no (significant) effect' with no estimate and interval beside it and no
    statement of the smallest effect the test could detect: the reader cannot tell a small real
    effect from none, so 'not significant' reads as 'no effect'."""
    f = ctx.features
    v = ctx.view
    if v.has(_MDE, f.statements):
        return None
    statements = [s for s in f.statements if s.kind not in ("heading", "table") and s.role not in (LIMITATIONS, APPENDIX)]
    for n, s in enumerate(statements):
        if s.role not in (SUMMARY, CONCLUSION, TITLE):
            continue  # the verdict the reader takes away, not every subgroup note
        if evidence_kind(s.text) != "neg" or not lx.NONSIG.search(s.text + " " + s.section) and not re.search(
                r"\bsignifican\w*", s.text, I):
            continue
        if re.search(r"\b(balance|sample ratio|pre-?period|a/a|baseline characteristics)\b", s.text, I):
            continue
        near = " ".join(x.text for x in statements[max(0, n - 2): n + 3])
        if numeric_uncertainty(near) or _ESTIMATES_THERE.search(near):
            continue  # sized beside it, or in the table or appendix it sends the reader to
        return quoted_hit(
            v, s, lx.NONSIG.search(s.text),
            title="Null result given without its size",
            issue=(f"\"{first_words(unmarked(s.text), 18)}\" reads the result as no effect, but neither the estimated "
                   "difference with its interval nor the smallest effect the test could have detected is given. A real "
                   "effect too small for this test looks the same as no effect."),
            fix=("Report the estimated difference with its 95% interval next to the verdict, and say what size of effect "
                 "the test could detect (its minimum detectable effect); then say which effects the interval rules out."),
            strength=2,
        )
    return None


# ---------------------------------------------------------------------- the summary says more than the body

_HEDGED_BODY = re.compile(r"\b(seems?|appears?|indications?|suggests?|might|may|possibly|likely|probably|hint\w*|"
                          r"does indeed seem|looks like|anecdotal)\b", I)
_FACT_CLAIM = re.compile(r"\b(did (?:increase|decrease|improve|reduce|raise|lower|drive|cause)|(?:was|were|is) a (?:major |main |key )?"
                         r"(?:driver|cause|confound\w*)|caused|drove|increased|decreased|led to)\b", I)
_RANGE = re.compile(r"\d+(?:\.\d+)?\s?%?\s?[-–]\s?\d+(?:\.\d+)?\s?%?")
_CANNOT = re.compile(r"\b(cannot conclude|can't conclude|not (?:statistically )?significant|inconclusive|no significant|"
                     r"is to say we cannot)\b", I)


def _subject_words(text: str) -> set[str]:
    return {w for w in content_words(unmarked(text).lower()) if len(w) > 3}


@rule("unsupported_conclusion")
def unsupported_conclusion(ctx: Context) -> Hit | None:
    """The summary states as fact what the body only suggests, or quotes a figure from a comparison
    the results themselves call inconclusive; then the logic lens's own reading."""
    found = _null_read_as_confirmation(ctx) or _unsupported_summary(ctx)
    return found if found is not None else logic_unsupported_conclusion(ctx)


# a test that fails to reject read as proof of what it tested: "since we do not reject the DAG, we consider
# the graph confirmed" (not rejecting says the data cannot tell; "does not prove it is correct" is the careful reading)
_NOT_REJECTED = re.compile(r"\b(?:do(?:es)? not|did not|don't|didn't|doesn't|cannot|can't|could not|fail(?:s|ed)? to) reject\b", I)
_CONFIRMED = re.compile(r"\b(confirm\w*|prov(?:e|es|ed|en)|validat(?:e|es|ed)|verifi\w*|establish(?:es|ed)?|"
                        r"(?:is|are|was|were) (?:correct|true|right|valid))\b", I)
_NEGATED_CLAIM = re.compile(r"\b(?:not|never|no|cannot|can't|doesn't|does not|nor)\W+(?:\w+\W+){0,2}$", I)


def _null_read_as_confirmation(ctx: Context) -> Hit | None:
    v = ctx.view
    for s in ctx.features.statements:
        if s.role in (LIMITATIONS, APPENDIX) or s.kind == "heading":
            continue
        null = _NOT_REJECTED.search(s.text)
        if null is None:
            continue
        claim = next((m for m in _CONFIRMED.finditer(s.text) if not _NEGATED_CLAIM.search(s.text[max(0, m.start() - 30):m.start()])), None)
        if claim is None:
            continue
        return quoted_hit(
            v, s, claim,
            title="A test that did not reject is read as confirming",
            issue=(f"\"{first_words(unmarked(s.text), 22)}\" takes a test that failed to reject as proof. Not rejecting only "
                   "says the data could not tell; it does not show the tested structure or assumption holds, and the "
                   "estimates built on it inherit that doubt."),
            fix=("Say the data did not contradict it rather than that it is confirmed, report how strong the test was, and "
                 "show how the result changes under the alternatives it could not rule out."),
            strength=2.5,
        )
    return None


def _unsupported_summary(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    summary = [s for s in f.summary if s.kind != "heading"]
    body = [s for s in f.body if s.kind not in ("heading",) and s.role not in (LIMITATIONS, APPENDIX)]
    for s in summary:
        # (a) a figure of the summary that the results give only for an inconclusive comparison
        for m in _RANGE.finditer(s.text):
            figure = re.sub(r"\s", "", m.group(0))
            sources = [b for b in body if figure in re.sub(r"\s", "", b.text)]
            if sources and all(_CANNOT.search(b.text) for b in sources):
                return quoted_hit(
                    v, s, m,
                    title="Summary quotes a figure its own results call inconclusive",
                    issue=(f"The summary reports \"{m.group(0)}\" as a finding, but the results give that figure only for a "
                           f"comparison they call inconclusive (\"{first_words(unmarked(sources[0].text), 22)}\"). The "
                           "headline is built from a result the document does not stand behind."),
                    fix=("Take the summary's figures from the comparisons the results support, say which comparison each "
                         "comes from, and state the inconclusive one as inconclusive."),
                    strength=2.5,
                )
        # (b) a claim of fact in the summary whose subject the body discusses only hedged
        fact = _FACT_CLAIM.search(s.text)
        if not fact or _HEDGED_BODY.search(s.text):
            continue
        words = _subject_words(s.text[:fact.start()])
        if len(words) < 2:
            continue
        related = [b for b in body if len(words & _subject_words(b.text)) >= 2]
        if related and all(_HEDGED_BODY.search(b.text) for b in related) and not any(numbers(b.text) for b in related
                                                                                     if not _HEDGED_BODY.search(b.text)):
            return quoted_hit(
                v, s, fact,
                title="Summary states as fact what the body only suggests",
                issue=(f"The summary says \"{first_words(unmarked(s.text), 20)}\", but where the document discusses it, it "
                       f"only suggests it (\"{first_words(unmarked(related[0].text), 20)}\") and gives no estimate."),
                fix="State the claim in the summary with the same hedge as the body, or measure it and give the estimate.",
                strength=2,
            )
    return None


# ---------------------------------------------------------------------- conclusions that disagree

_METRIC_FAMILIES = {
    "accuracy": r"accura\w+|errors?|wrmsse|rmse|mape|mae",
    "cost": r"costs?|expensive|cheap\w*|prices?|spend\w*",
    "speed": r"speed|fast\w*|slow\w*|run(?:ning)? time|latency",
    "revenue": r"revenue|arpu|sales",
    "retention": r"retention|churn\w*",
    "conversion": r"conversions?|convert\w*",
}
_SIMILAR = re.compile(r"\b(rather close|quite close|close|similar|comparable|on par|about the same|roughly (?:equal|the same)|"
                      r"no (?:real |meaningful |practical )?difference)\b", I)
_DIFFERENT = re.compile(r"\b(far (?:behind|ahead|better|worse)|much (?:better|worse|more|less)|\d+(?:\.\d+)?\s?%\s(?:less|more|better|worse)|"
                        r"\d+(?:\.\d+)?\s?times (?:more|less|better|worse|faster|slower)|outperform\w*|significantly (?:better|worse))\b", I)


@rule("conclusions_disagree")
def conclusions_disagree(ctx: Context) -> Hit | None:
    """Two statements of the conclusion about the same measure say different things: one that the
    systems are close on it, the other that one is far ahead."""
    f = ctx.features
    v = ctx.view
    closing = [s for s in f.text_sentences if (s.role in (SUMMARY, CONCLUSION, RECOMMENDATION, TITLE) or s.pos >= 0.8)
               and s.kind != "heading"]
    for family, pattern in _METRIC_FAMILIES.items():
        term = re.compile(rf"\b(?:{pattern})\b", I)
        similar = [(s, m) for s in closing for m in [_SIMILAR.search(s.text)] if m and term.search(s.text)]
        different = [(s, m) for s in closing for m in [_DIFFERENT.search(s.text)] if m and term.search(s.text)]
        for s1, m1 in similar:
            other = next(((s2, m2) for s2, m2 in different if s2 is not s1), None)
            if other is None:
                continue
            s2, m2 = other
            return quoted_hit(
                v, s1, m1,
                title=f"The conclusions disagree about {family}",
                issue=(f"One statement says the two are close on {family} (\"{first_words(unmarked(s1.text), 16)}\"), another "
                       f"that one is far ahead (\"{first_words(unmarked(s2.text), 16)}\"). The reader cannot tell which the "
                       "results support."),
                fix=f"Reconcile the two statements against the {family} results and keep the one they support, with its number.",
                strength=2,
            )
    return None


# ---------------------------------------------------------------------- a universal claim the document hedges

_UNIVERSAL = re.compile(r"\b(neither\b[^.]{0,60}\bnor|never|in (?:all|every) cases?|always|without exception|definitely not|"
                        r"in every (?:case|setting|data ?set))\b", I)
_SCOPE_HEDGE = re.compile(r"\b(in most cases|most of the time|in most (?:data ?sets|settings|experiments)|with (?:a few|some|the) "
                          r"exceptions?|except (?:for|on|in) |in \d+ of (?:the )?\d+|the majority of)\b", I)


@rule("universal_claim_contradicted")
def universal_claim_hedged(ctx: Context) -> Hit | None:
    """A conclusion that claims something in every case ("does not outperform neither in accuracy
    nor speed") while the document itself says it holds only in most cases."""
    f = ctx.features
    v = ctx.view
    hedge = next(((s, m) for s in v.sentences for m in [_SCOPE_HEDGE.search(s.text)] if m and s.role != LIMITATIONS), None)
    if hedge is None:
        return _table_universal(ctx)
    closing = [s for s in f.text_sentences if (s.role in (CONCLUSION, SUMMARY, RECOMMENDATION) or s.pos >= 0.75)
               and s.kind != "heading" and s is not hedge[0]]
    for s in closing:
        m = _UNIVERSAL.search(s.text)
        if m and (lx.COMPARISON.search(s.text) or re.search(r"\boutperform\w*|better|worse|accura|faster|slower", s.text, I)):
            return quoted_hit(
                v, s, m,
                title="Universal claim the document itself hedges",
                issue=(f"\"{first_words(unmarked(s.text), 20)}\" claims it in every case (\"{unmarked(m.group(0))}\"), but the "
                       f"document says elsewhere that it holds \"{unmarked(hedge[1].group(0))}\" (\"{first_words(unmarked(hedge[0].text), 14)}\"). "
                       "The exceptions it admits are exactly what the universal claim leaves out."),
                fix="Name the cases where the result does not hold and state the conclusion for the cases it covers.",
                strength=2,
            )
    return _table_universal(ctx)


def _table_universal(ctx: Context) -> Hit | None:
    return universal_claim_contradicted(ctx)


# ---------------------------------------------------------------------- inputs known only after the fact

_FORECAST = re.compile(r"\b(forecast\w*|predict\w*|projections?)\b", I)
_INPUTS_MUST_BE_FORECAST = re.compile(
    r"\b((?:first |by first )?project(?:ing|ed)? (?:all |the |each )?(?:of the )?(?:features|inputs|predictors|variables|covariates)"
    r"|(?:features|inputs|predictors|covariates|variables) (?:would|will) (?:need to|have to|themselves) be (?:forecast|projected|predicted|estimated)"
    r"|(?:need|needs|require|requires) (?:forecasts|projections) of (?:the |all )?(?:features|inputs|predictors|covariates|weather)"
    # "the degree days will have to be forecast first", "uses the actual degree days of each month in the test period"
    r"|(?:will|would) (?:have to|need to) be (?:forecast|projected|predicted|estimated) (?:first|themselves|in advance|ahead)"
    r"|uses? (?:the )?(?:actual|observed|realised|realized) (?:\w+ ){1,3}(?:of|for|in) (?:each|every|the) (?:\w+ )?(?:in|of) the "
    r"(?:test|evaluation|hold-?out|forecast) (?:period|set|year|months?|weeks?))\b", I)


# the test data used to choose the model: "hyperparameters were tuned with a grid search on the test period"
# (a verb of choosing, not the metric "calibration"; "train on the training data and assess its calibration on
# the test data" is the right practice, so no scoring verb may stand between the choice and the test data)
_TUNED_ON_TEST = re.compile(
    r"\b(?:tun(?:e|ed|es|ing)|select(?:ed|ing|s)?|chose|chosen|optimi[sz](?:e|ed|es|ing)|calibrat(?:e|ed|es|ing)|picked|"
    r"grid[- ]search\w*|early[- ]stopp\w+)\b"
    r"(?:(?!\b(?:assess\w*|evaluat\w*|scor\w+|measur\w+|report\w*|compar\w+|test(?:ed|ing)|check\w*)\b)[^.]){0,60}?\b"
    r"(?:on|using|with|against) the (?:test|hold-?out|evaluation) (?:set|period|data|sample|weeks|months)\b", I)


@rule("leakage")
def inputs_known_after_the_fact(ctx: Context) -> Hit | None:
    """A forecasting model scored with its inputs' actual values for the predicted period, which the
    document itself says must be forecast for real use, or a model tuned on the data it is scored
    on: either way its accuracy is not what a user will get."""
    found = leakage(ctx)
    if found is not None:
        return found
    v = ctx.view
    f = ctx.features
    tuned = v.first(_TUNED_ON_TEST, [s for s in f.statements if s.role != LIMITATIONS])
    if tuned is not None:
        s, m = tuned
        return quoted_hit(
            v, s, m,
            title="The model was tuned on the data it is scored on",
            issue=(f"The test data was used to choose the model (\"{v.quote(s, m, max_words=16)}\"), so the reported test "
                   "accuracy is optimistic: the settings were picked because they did well on exactly those data, and a "
                   "ranking built on it may not hold on new data."),
            fix=("Tune on a validation period carved out of the training data (or by cross-validation in time), keep the test "
                 "period untouched until the end, and report that accuracy."),
            strength=3,
        )
    if not any(_FORECAST.search(s.text) for s in f.text_sentences):
        return None
    hit = v.first(_INPUTS_MUST_BE_FORECAST, f.statements)
    if hit is None:
        return None
    s, m = hit
    return quoted_hit(
        v, s, m,
        title="Accuracy measured with inputs a forecast would not have",
        issue=(f"The document says that real predictions need the model's inputs to be forecast first (\"{v.quote(s, m, max_words=16)}\"), "
               "so its test scores were computed with the inputs' actual values for the predicted period. That measures fit, not "
               "forecasting skill, and overstates the accuracy a user will get."),
        fix=("Re-run the test with the inputs as they would be known at forecast time (lagged values, or the forecasts of the "
             "inputs), compare with a naive seasonal forecast, and report that accuracy as the headline."),
        strength=3,
    )


# ---------------------------------------------------------------------- rows dropped, a failed balance test, a contaminated control

_DROPPED = re.compile(r"\b(?:about |around |roughly |~)?(?P<share>\d{2}(?:\.\d+)?)\s?%\s(?:of (?:the )?(?:rows|records|users|"
                      r"observations|data|sample|customers|sessions|accounts) )?(?:were |was |are )?(?:dropped|removed|excluded|"
                      r"discarded|filtered out|lost)\b", I)
_WHY_DROPPED = re.compile(r"\b(?:dropped|removed|excluded|discarded|kept|remaining|missing)\b[^.]{0,80}\b(?:differ\w*|bias\w*|"
                          r"representative|similar|compar\w+|checked)\b|\b(?:differ\w*|bias\w*|representative|similar|compar\w+|"
                          r"checked)\b[^.]{0,80}\b(?:dropped|removed|excluded|discarded|kept|remaining|missing)\b", I)


@rule("selection_bias_unaddressed")
def dropped_rows_or_switchers(ctx: Context) -> Hit | None:
    """A large share of the data dropped with no word on whether what remains is representative;
    a group assigned by a later switch while its time is counted from before the switch; then the
    self-selection reading of the methodology lens."""
    v = ctx.view
    f = ctx.features
    for s in f.statements:
        m = _DROPPED.search(s.text)
        if m and float(m.group("share")) >= 25 and s.role != APPENDIX:
            n = f.statements.index(s)
            if not any(_WHY_DROPPED.search(x.text) for x in f.statements[n: n + 3]):
                return quoted_hit(
                    v, s, m,
                    title="A large share of the data dropped without checking what was lost",
                    issue=(f"\"{v.quote(s, m, max_words=16)}\": {m.group('share')}% of the data is set aside, and nothing says "
                           "whether the rows that remain look like the ones dropped. If the dropped rows differ on the outcome, "
                           "the result describes a selected subset."),
                    fix="Compare the dropped and kept rows on the outcome and key characteristics, and say how the result could change.",
                    strength=2,
                )
    switched = v.first(_LATER_SWITCH, f.statements)
    if switched is not None and v.has(_TIME_FROM_BEFORE, f.statements):
        s, m = switched
        return quoted_hit(
            v, s, m,
            title="Group defined by a later switch, with time counted from before it",
            issue=(f"Units are put in a group by something that happened later (\"{v.quote(s, m, max_words=18)}\"), while their "
                   "time is counted from before it. Only units that lasted long enough to switch can be in that group, so its "
                   "survival looks better than it is (survivorship, or immortal time)."),
            fix=("Count a unit's time in a group only from the day it joined it (a time-varying group), or compare units by the "
                 "group they started in."),
            strength=2.5,
        )
    return selection_bias_unaddressed(ctx)


_LATER_SWITCH = re.compile(r"\b(?:switched|upgraded|migrated|moved|converted)\b[^.]{0,60}\b(?:at some point|later|eventually|ever)\b"
                           r"[^.]{0,80}\b(?:considered|counted|classified|treated|labell?ed)\b", I)
_TIME_FROM_BEFORE = re.compile(r"\b(?:include|includes|including|counts?|counted)\b[^.]{0,20}\bthe time (?:that )?(?:they|it) (?:was|were|had been)\b", I)

_BALANCE_P = re.compile(r"\b(?:balance|imbalance|differ\w*|pre-?period|baseline)\b[^.]{0,100}?\bp\s*(?:=|<|of)\s*(?P<p>0?\.\d+)", I)


@rule("covariate_imbalance_ignored")
def failed_balance_test(ctx: Context) -> Hit | None:
    """A balance check between the groups that comes out significant and is not acted on, then
    the dismissed-imbalance reading of the methodology lens."""
    found = covariate_imbalance_ignored(ctx)
    if found is not None:
        return found
    v = ctx.view
    for s in ctx.features.statements:
        m = _BALANCE_P.search(s.text)
        if m and float(m.group("p")) < 0.05 and re.search(r"\b(groups?|arms?|treatment|control|variant)\b", s.text, I):
            if re.search(r"\b(adjust\w*|re-?weight\w*|stratif\w*|controll\w* for|re-?ran|re-?randomi[sz]\w*)\b", v.text, I):
                continue
            return quoted_hit(
                v, s, m,
                title="A balance check failed and the comparison was not adjusted",
                issue=(f"The groups differ on a characteristic measured before the change (\"{v.quote(s, m, max_words=16)}\", "
                       f"p = {m.group('p')}), and the comparison is not adjusted for it. Part of the measured effect may be "
                       "that difference."),
                fix="Re-estimate the effect adjusting for the unbalanced characteristic (or within its levels) and report both estimates.",
                strength=2.5,
            )
    return None


_SPILL = re.compile(r"\b(?:shared|spread|spilled? over|leaked|reached|seen|watched|forwarded)\b[^.]{0,40}\b(?:to|by|in|across) "
                    r"(?:users |people |viewers )?(?:from |in )?(?:other|neighbou?ring|nearby) (?P<unit>states?|regions?|markets?|"
                    r"countries|cities|stores?|areas?|zones?|provinces?|districts?)\b", I)
_CONTROL_FROM = re.compile(r"\b(?:control|comparison) (?:series|groups?|regions?|markets?|units?)\b", I)


@rule("control_contaminated")
def control_contaminated(ctx: Context) -> Hit | None:
    """The change reached units of the kind that serve as the comparison: the comparison is exposed
    too, which biases the estimated effect toward zero."""
    v = ctx.view
    f = ctx.features
    spill = v.first(_SPILL, f.statements)
    if spill is None:
        return None
    s, m = spill
    unit = m.group("unit").rstrip("s").lower()
    controls = [x for x in f.statements if _CONTROL_FROM.search(x.text) and re.search(rf"\b(?:other|neighbou?ring)?\s*\w*\s*{unit}", x.text, I)]
    if not controls or any(re.search(r"\bspill\w*|contaminat\w*", x.text, I) for x in f.statements if x.role == LIMITATIONS):
        return None
    return quoted_hit(
        v, s, m,
        title="The comparison group was reached by the change too",
        issue=(f"The document notes that the change reached other {m.group('unit')} (\"{v.quote(s, m, max_words=16)}\"), and "
               f"other {m.group('unit')} serve as the comparison (\"{first_words(unmarked(controls[0].text), 16)}\"). A comparison "
               "that was exposed moves with the treated one, so the estimated effect is biased toward zero."),
        fix=(f"Drop from the comparison the {m.group('unit')} the change reached (or those next to the treated one), re-estimate, "
             "and say how much the estimate moves."),
        strength=2,
    )
