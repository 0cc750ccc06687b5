"""Issue detectors, one per checklist concern, each registered under its rubric issue type.

Detectors look at the ``DocView`` through ``ctx.features`` and return a ``Hit`` (or None).
They quote the document verbatim for evidence and write the issue in terms of what the
document actually says (the metric, the claim, the heading). Which lens owns an issue type,
and its severity, come from the rubric (routing is the rubric's; see ``rules.py``).
"""

from __future__ import annotations

import re
from collections import Counter

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.features import numbers
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import (
    APPENDIX,
    CLOSING_ROLES,
    CONCLUSION,
    DATA,
    LIMITATIONS,
    METHOD,
    RECOMMENDATION,
    RESULTS,
    SUMMARY,
    Sentence,
    clean_heading,
)


def _short(text: str, words: int = 14) -> str:
    parts = text.split()
    out = " ".join(parts[:words])
    return out + ("..." if len(parts) > words else "")


def _plain(text: str) -> str:
    """Text for use inside our own sentences: markdown emphasis removed."""
    return re.sub(r"[*_`]+", "", text).strip()


def _metric_terms(text: str) -> set[str]:
    terms = set()
    for pat in (lx.POS_METRIC, lx.NEG_METRIC):
        for m in pat.finditer(text):
            t = m.group(0).lower().replace("-", " ")
            terms.add(re.sub(r"s$", "", t))
    return terms


def _negated_before(text: str, start: int, window: int = 40) -> bool:
    return bool(lx.NEGATION_NEAR.search(text[max(0, start - window) : start]))


# ====================================================================== analysis.methodology


_CAUSAL_EXTRA = lx.rx(
    r"\b(explains? the (?:lift|increase|gain|rise|drop|decline|change|difference|growth|improvement)|"
    r"(?:is|was|as) the (?:mechanism|driver|cause|reason|active ingredient)|the (?:mechanism|driver) (?:is|was|behind))\b"
)
_CONFOUNDER = lx.rx(
    r"\b(also|at the same time|meanwhile|in parallel|same (?:week|month|time)|simultaneously|coincided)\b"
    r"[^.]{0,80}\b(launch\w*|chang\w*|refresh\w*|updat\w*|redesign\w*|releas\w*|moved|shipped|introduc\w*|campaign|promotion|price)"
    r"|\b(launch\w*|chang\w*|refresh\w*|updat\w*|redesign\w*|releas\w*|shipped|introduc\w*)\b[^.]{0,60}\b(also|at the same time|same (?:week|month))\b"
)


_DRIVE = re.compile(r"(?i)drove|drives|driven by|driving")
_INTERVENTION = lx.rx(
    r"\b(launch\w*|campaign\w*|e-?mails?|events?|features?|programm?e?s?|redesign\w*|releases?|series|buttons?|mode|"
    r"notifications?|nudges?|promotions?|offers?|discounts?|pric\w+|updates?|checklists?|ads?|advertising|TV|changes?|"
    r"new \w+|version \d+|v\d+)\b"
)


def _causal_candidates(ctx: Context) -> list[tuple[float, Sentence, re.Match[str]]]:
    f = ctx.features
    out = []
    for s in f.text_sentences:
        if s.role in (LIMITATIONS, APPENDIX) or s.kind in ("table", "heading"):
            continue
        text = s.text
        if text.rstrip("*_ ").endswith("?"):
            continue
        m = lx.CAUSAL_STRONG.search(text) or lx.CAUSAL_DUE.search(text) or _CAUSAL_EXTRA.search(text)
        if m is None:
            im = lx.CAUSAL_IMPACT.search(text)
            if im and f.nums(s):
                m = im
        if m is None:
            continue
        window = text[max(0, m.start() - 60) : m.end() + 15]
        if lx.HEDGE.search(window):
            continue
        if _DRIVE.fullmatch(m.group(0)) and not _INTERVENTION.search(text[max(0, m.start() - 50) : m.end() + 50]):
            continue  # "outage calls are driven by weather": a description, not a claim about what a change did
        if not (lx.CHANGE_WORD.search(text) or f.nums(s) or lx.POS_METRIC.search(text) or lx.NEG_METRIC.search(text)):
            continue
        score = 1.0
        if s.role in CLOSING_ROLES:
            score += 2
        if any(n.notable for n in f.nums(s)):
            score += 1
        if lx.CAUSAL_STRONG.search(text):
            score += 0.5
        out.append((score, s, m))
    out.sort(key=lambda t: (-t[0], t[1].line))
    return out


@rule("causal_claim_without_design")
def causal_claim_without_design(ctx: Context) -> Hit | None:
    f = ctx.features
    if f.design is not None or f.comparison_design is not None:
        return None
    cands = _causal_candidates(ctx)
    if not cands:
        return None
    _, s, m = cands[0]
    v = ctx.view
    before_after = v.first(lx.BEFORE_AFTER, f.text_sentences)
    confounder = v.first(_CONFOUNDER, [x for x in f.body if x.role != LIMITATIONS])
    basis = (
        "The only comparison in the document is before versus after the change"
        if before_after
        else "The document shows a correlation, not a comparison against a group that did not get the change"
    )
    issue = (
        f"The text states a causal effect (\"{_plain(m.group(0))}\") in \"{_short(_plain(s.text), 18)}\". "
        f"{basis}, with no control group, holdout or adjustment, so seasonality, mix shifts or other changes in the same "
        f"window could explain the difference."
    )
    if confounder:
        issue += f" The document itself mentions another change in that window: \"{_short(_plain(confounder[0].text), 16)}\"."
    return Hit(
        title="Causal claim rests on a before/after comparison" if before_after else "Causal claim without a comparison design",
        issue=issue,
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix=(
            "Either add a comparison that can support the claim (a holdout that did not get the change, a region or segment "
            "not yet launched used as a difference-in-differences control, or a regression adjusting for seasonality and other "
            "launches), or reword to an association, e.g. 'retention rose after the launch; we have not yet isolated the "
            "launch's contribution'."
        ),
        strength=cands[0][0],
    )


@rule("selection_bias_unaddressed")
def selection_bias_unaddressed(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if v.has(lx.BIAS_ADDRESSED, f.text_sentences):
        return None
    for s in f.text_sentences:
        if s.role in (LIMITATIONS, APPENDIX) or s.kind == "heading":
            continue
        m = lx.SELECTION.search(s.text)
        if not m:
            continue
        compares = f.nums(s) or re.search(
            r"\b(than|vs\.?|versus|against|compared|twice|double|higher|lower|more likely|less likely|better|worse)\b", s.text, re.I
        )
        if not compares:
            continue
        claimed = ctx.memo.setdefault("claimed_lines", set())
        for x in f.text_sentences:
            if x.line == s.line or (lx.SELECTION.search(x.text) and x.role not in (LIMITATIONS, APPENDIX)):
                claimed.add(x.line)
        return Hit(
            title="Self-selected group compared without addressing bias",
            issue=(
                f"The comparison in \"{_short(_plain(s.text), 18)}\" splits people by something they chose to do "
                f"(\"{_plain(m.group(0))}\"). People who opt in differ from those who do not (more motivated, more engaged "
                f"to begin with), so the gap may reflect who they are rather than the effect of the thing; the document does "
                f"not discuss this."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix=(
                "Name the selection effect and bound it: compare like with like (match on prior engagement or tenure, "
                "or compare intent-to-treat groups), or present the gap as descriptive, e.g. 'openers retained better, "
                "partly because engaged members are more likely to open emails'."
            ),
        )
    return None


_BROADER_SCOPE = lx.rx(
    r"\b(global(?:ly)?|worldwide|all (?:markets|regions|countries|customers|users)|every (?:market|region|country)|"
    r"company[- ]wide|at (?:full|global) (?:rollout|scale)|full rollout|(?:global|full|wider) rollout)\b"
)
_TRANSFER_ASSUMED = lx.rx(r"\b(same (?:\d[\d.]*[- ]point |)(?:lift|effect|uplift|impact|gain)|similar (?:lift|effect|results?)|holds? (?:in|outside|for|across)|other (?:markets|regions|countries)|generali[sz]\w*|transfer\w*)\b")
_MODEL_SOURCE = lx.rx(r"\b(based on (?:the |our |a )?[\w\- ]{0,30}(?:model|forecast|sizing|estimate)|sizing model|forecast model)\b")


def _annualised(nums) -> bool:
    """Two money figures in one sentence where one is the other times 2, 4, 12 or 52."""
    money = [n.value for n in nums if n.is_money and n.value]
    return any(
        abs(b / a - k) < 0.02 * k for a in money for b in money if b > a for k in (2, 4, 12, 52)
    )


@rule("assumption_unstated")
def assumption_unstated(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    projections = []
    for s in f.text_sentences:
        if s.role in (LIMITATIONS, METHOD, DATA) or s.kind == "heading":
            continue
        m = lx.PROJECTION.search(s.text)
        if m and _annualised(f.nums(s)):
            continue  # "$26,000 over six months, or $52,000 a year": restating a measured figure per year
        if m and any(n.notable and (n.is_money or 0 <= n.start - m.start() <= 60) for n in f.nums(s)):
            projections.append((s, m))
    if not projections:
        return None
    stated = [s for s in f.text_sentences if lx.ASSUMPTION.search(s.text)]
    stated += [
        s for s in f.text_sentences
        if s.role == LIMITATIONS and (_TRANSFER_ASSUMED.search(s.text) or re.search(r"\b(elsewhere|other (?:markets|regions|countries)|long(?:er)?[- ]term)\b", s.text, re.I))
    ]
    target = None
    why = ""
    if not stated and not v.is_extraction:  # an extraction may simply not show the assumptions
        target = projections[0]
        why = (
            "the document never says what it assumes: that the measured effect persists, transfers to new groups, and that "
            "volumes stay as they are"
        )
    else:
        for s, m in projections:
            scope = _BROADER_SCOPE.search(s.text)
            if scope and not any(_TRANSFER_ASSUMED.search(x.text) for x in stated):
                target = (s, m)
                why = (
                    f"it is applied \"{_plain(scope.group(0))}\", which assumes the tested effect carries over to places and "
                    f"customers that were not tested; the assumptions the document does list do not cover that"
                )
                break
    if target is None:
        return None
    s, m = target
    source = v.first(_MODEL_SOURCE, [x for x in f.text_sentences if x.section == s.section])
    issue = f"The figure in \"{_short(_plain(s.text), 18)}\" is a projection (\"{_plain(m.group(0))}\"), but {why}."
    if source is not None:
        issue += f" Its inputs are not shown either (\"{_short(_plain(source[0].text), 10)}\")."
    issue += " If the weakest assumption fails the number changes, and the reader cannot tell by how much."
    return Hit(
        title="Projection relies on unstated assumptions",
        issue=issue,
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix=(
            "List the assumptions behind the projection next to it (which effect is carried over, to which population, "
            "for how long) and show the range it gives when the weakest assumption is relaxed."
        ),
    )


@rule("method_unjustified")
def method_unjustified(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    hit = v.first(lx.MODEL_NAME, f.text_sentences)
    if not hit:
        return None
    method_text = [s for s in f.text_sentences if s.role in (METHOD, DATA)] or f.text_sentences
    if v.has(lx.JUSTIFY, method_text):
        return None
    s, m = hit
    return Hit(
        title=f"No reason given for using {_plain(m.group(0))}",
        issue=(
            f"The analysis uses {_plain(m.group(0))} but does not say why it was chosen over a simpler alternative or what "
            f"it adds. Readers cannot judge whether the method fits the question."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix=f"Add one or two sentences on why {_plain(m.group(0))} and not the obvious simpler method, and how it was checked.",
    )


# ====================================================================== analysis.logic


def _ci_values(text: str) -> list[tuple[float, float]]:
    out = []
    for pat in (lx.CI, lx.BRACKET_INTERVAL):
        for m in pat.finditer(text):
            try:
                lo = float(re.sub(r"[^\d.\-]", "", m.group("lo").replace("−", "-")))
                hi = float(re.sub(r"[^\d.\-]", "", m.group("hi").replace("−", "-")))
            except ValueError:
                continue
            out.append((lo, hi))
    return out


_BALANCE_CHECK = lx.rx(r"\b(sample ratio|srm|balanced?|balance check|covariate balance|pre-?period|a/a|randomi[sz]ation check|as expected)\b")


def _evidence_kind(text: str) -> str | None:
    """'neg' when a sentence reports a null / adverse result, 'pos' for a significant one.
    Design checks (sample ratio, covariate balance) are expected to be null and do not count."""
    if _BALANCE_CHECK.search(text):
        return None
    if lx.NONSIG.search(text):
        return "neg"
    for lo, hi in _ci_values(text):
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
        if not _negated_before(text, m.start(), 25):
            return "pos"
    for m in lx.PVALUE.finditer(text):
        try:
            if float(m.group("val")) <= 0.05 and m.group("op") not in (">", "≥", ">="):
                return "pos"
        except ValueError:
            continue
    return None


_IMPERATIVE = lx.rx(r"^(?:\W*(?:recommendation|ask|action|decision)\s*:\s*)?(roll|ship|launch|expand|scale|deploy|make|go|move|switch|adopt)\b")
_ACKNOWLEDGED = lx.rx(r"\b(flat|unchanged|no (?:meaningful |significant |detectable |measurable )?(?:change|hit|difference|effect|impact|lift)|not (?:statistically )?significant|inconclusive|did not (?:change|improve|move))\b")


def _primary_nulls(ctx: Context, neg: list[Sentence]) -> list[Sentence]:
    """Null results on the metric the decision rests on: labelled primary, or headlined in the
    summary without the summary admitting the null."""
    f = ctx.features
    out = [r for r in neg if re.search(r"\bprimary\b", r.text + " " + r.section, re.I)]
    if out:
        return out
    summary = " ".join(s.text for s in f.summary if s.kind != "heading")
    if not summary or _ACKNOWLEDGED.search(summary):
        return []
    terms = _metric_terms(summary)
    return [r for r in neg if terms & _metric_terms(r.text)]


_CONDITIONAL = lx.rx(r"\b(if|whether|unless|once|would|could|might|may|when|until|before any)\b")


def _adverse_move(text: str) -> bool:
    pos_m, neg_m = lx.POS_METRIC.search(text), lx.NEG_METRIC.search(text)
    if pos_m and not neg_m and lx.DECLINE.search(text):
        return True
    if neg_m and not pos_m and lx.RISE.search(text):
        return True
    return False


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
        kind = _evidence_kind(s.text)
        if kind == "neg" or (kind is None and s.kind != "table" and _adverse_move(s.text)):
            neg.append(s)
        elif kind == "pos":
            pos_count += 1
    if not neg:
        return None
    claims: list[tuple[int, Sentence, re.Match[str], Sentence]] = []
    for c in closing:
        if _evidence_kind(c.text) == "neg" or lx.NONSIG.search(c.text):
            continue
        for pat, kind in ((lx.POS_CLAIM, "claim"), (lx.ROLLOUT, "rollout")):
            for m in pat.finditer(c.text):
                if _negated_before(c.text, m.start(), 30) or _CONDITIONAL.search(c.text[max(0, m.start() - 70) : m.start()]):
                    continue
                if kind == "claim":
                    terms = _metric_terms(c.text)
                    for r in neg:
                        if terms & _metric_terms(r.text):
                            claims.append((3.5 if c.role == CONCLUSION else 3, c, m, r))
                            break
                else:
                    if not (c.role == RECOMMENDATION or lx.RECOMMENDATION.search(c.text) or _IMPERATIVE.match(_plain(c.text))):
                        break
                    primary = _primary_nulls(ctx, neg)
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
            f"The results report \"{_short(_plain(r.text), 22)}\" ({v.location(r)}), yet the {where} states "
            f"\"{_short(_plain(c.text), 18)}\". A null or adverse result is being presented as a win, which would lead readers "
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


@rule("unsupported_conclusion")
def unsupported_conclusion(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    candidates = [s for s in f.text_sentences if s.role not in (LIMITATIONS, METHOD, DATA, APPENDIX) and s.kind != "heading"]
    claimed = ctx.memo.get("claimed_lines", set())
    for s in candidates:
        m = lx.OVERCLAIM.search(s.text)
        if not m or _negated_before(s.text, m.start(), 20) or s.line in claimed:
            continue
        if s.text.rstrip("*_ ").endswith("?"):
            continue
        return Hit(
            title="Conclusion stated more strongly than the evidence",
            issue=(
                f"\"{_short(_plain(s.text), 18)}\" asserts a conclusion (\"{_plain(m.group(0))}\") that no reported result "
                f"backs at that strength. Readers will take it as established when the document only shows suggestive "
                f"evidence."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix=(
                f"Point \"{_plain(m.group(0))}\" at the result that supports it, or scale it down to what was actually "
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
                f"The document concludes \"{_short(_plain(s.text), 18)}\" but reports no results (no numbers, tables or "
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
            return Hit(
                title=f"Figure '{n.raw}' in the {('summary' if s.role == SUMMARY else 'conclusion')} is not in the results",
                issue=(
                    f"\"{_short(_plain(s.text), 18)}\" cites {n.raw}, but that figure (or a simple difference or ratio of "
                    f"reported figures) does not appear anywhere in the body. Readers cannot check where it comes from."
                ),
                evidence=v.quote(s, re.search(re.escape(n.raw), s.text)),
                location=v.location(s),
                suggested_fix=f"Show how {n.raw} is derived in the results (the inputs and the calculation), or replace it with the figure the results report.",
            )
    return None


# ====================================================================== analysis.completeness


@rule("missing_section")
def missing_section(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if f.word_count_small:
        return None
    missing = []
    if not f.method_present:
        missing.append("method")
    if not f.results_present:
        missing.append("results")
    if not f.conclusion_present:
        missing.append("conclusion")
    if not missing or (missing == ["conclusion"] and f.question is not None):
        return None  # an unanswered question is reported as key_question_unanswered
    names = " and ".join([", ".join(missing[:-1]), missing[-1]] if len(missing) > 1 else missing)
    placeholder = next((f.stubs[k] for k in missing if k in f.stubs), None) or next(
        (s for s in f.text_sentences if lx.PLACEHOLDER.search(s.text) and s.role in (METHOD, DATA, RESULTS, CONCLUSION, RECOMMENDATION)),
        None,
    )
    issue = (
        f"No {names} section could be found"
        + (" (only a placeholder is there)" if placeholder else "")
        + f", so the {names} cannot be evaluated. "
        + "A reader cannot tell how the numbers were produced or what they add up to."
    )
    return Hit(
        title=f"Missing {names}",
        issue=issue,
        evidence=v.quote(placeholder, lx.PLACEHOLDER.search(placeholder.text)) if placeholder else "",
        location=v.location(placeholder) if placeholder else "whole document",
        suggested_fix=(
            f"Add a short {missing[0]} section"
            + (": the data, the comparison and the test used" if missing[0] == "method" else "")
            + (": the headline metric with its change and interval" if missing[0] == "results" else "")
            + (": what the results mean and what to do" if missing[0] == "conclusion" else "")
            + "."
        ),
        absence=True,
        consider=f"Consider adding the {names} before the final version.",
        strength=len(missing),
    )


@rule("key_question_unanswered")
def key_question_unanswered(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    q = f.question
    if q is None or f.conclusion_present:
        return None
    qs, _ = q
    deferral = v.first(lx.DEFERRAL, [s for s in f.text_sentences if s.role in (SUMMARY, CONCLUSION, RECOMMENDATION, RESULTS)] or f.closing)
    s, m = deferral if deferral else (qs, None)
    return Hit(
        title="The question the document sets out to answer is left open",
        issue=(
            f"The document asks \"{_short(_plain(qs.text), 20)}\" but "
            + (f"its answer is deferred (\"{_plain(m.group(0))}\")" if m else "never gives an answer to it")
            + ", and no conclusion elsewhere answers it. A reader who needs the answer for a decision leaves without one."
        ),
        evidence=v.quote(qs, q[1]),
        location=v.location(qs),
        suggested_fix="State the best current answer to the question, with how confident you are and which pending analysis would change it.",
        absence=m is None,
        consider="Consider stating your current best answer to the question, even if provisional.",
    )

_IMPUTED = lx.rx(r"\b(imputed|imputation|backfilled|filled in with|set to (?:zero|0)|replaced (?:missing|nulls?) with|assumed (?:to be )?(?:zero|0))\b")
_CHECKED = lx.rx(r"\b(exclud\w+|drop\w*|without (?:the|those|these)|robust\w*|sensitivity|re-?ran|indicator)\b")


@rule("followup_missing")
def followup_missing(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    hit = v.first(_IMPUTED, f.text_sentences)
    if hit is None:
        return None
    s, m = hit
    if any(_IMPUTED.search(x.text) and _CHECKED.search(x.text) for x in f.text_sentences):
        return None
    return Hit(
        title="No check that the imputed values do not drive the result",
        issue=(
            f"Some values were imputed (\"{_short(_plain(s.text), 16)}\"), but no robustness check excludes those records or "
            f"flags them, so the reader cannot tell whether the imputation moves the estimate."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Add one robustness row that drops the imputed records (or adds an indicator for them) and report whether the estimate moves.",
        absence=True,
        consider="Consider adding a check without the imputed records.",
    )


@rule("unsourced_claim")
def unsourced_claim(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    pattern = lx.rx(
        r"\b(industry (?:benchmarks?|data|research|studies|standards?|averages?)|research (?:shows|suggests|has shown|finds|says)|"
        r"studies (?:show|suggest|have shown|find)|(?:it is|it's) (?:well[- ]known|well[- ]established|widely (?:known|accepted)|common knowledge)|"
        r"experts? (?:agree|say)|according to (?:industry|experts|research)|best practices? (?:says|suggests|show)|"
        r"benchmarks? (?:show|suggest))\b"
    )
    sourced = re.compile(r"https?://|\[\d+\]|\[[^\]]+\]\([^)]+\)|\((?:[A-Z][\w&.]+(?: et al\.?)?,? \d{4})\)|\bsource:|\bper [A-Z]\w+ \(\d{4}\)", re.I)
    for s, m in v.find(pattern, f.text_sentences):
        if sourced.search(s.text):
            continue
        return Hit(
            title="External claim with no source",
            issue=(
                f"\"{_short(_plain(s.text), 20)}\" leans on outside evidence (\"{_plain(m.group(0))}\") without naming it, "
                f"so the reader cannot check it or judge whether it applies here."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix="Cite the source (who, when, link) or drop the claim.",
        )
    return None


# ====================================================================== analysis.metrics


def _headline(ctx: Context) -> tuple[Sentence, re.Match[str] | None] | None:
    f = ctx.features
    for group in (f.summary, f.results, f.closing, f.text_sentences):
        for s in group:
            if s.kind == "heading":
                continue
            m = lx.PERCENTLIKE.search(s.text) or lx.MONEY.search(s.text)
            if m:
                return s, m
    return None


@rule("no_uncertainty")
def no_uncertainty(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if f.uncertainty is not None:
        return None
    effects = [s for s in f.text_sentences if lx.PERCENTLIKE.search(s.text) or lx.MONEY.search(s.text)]
    if len(effects) < 2:
        return None
    head = _headline(ctx)
    if head is None:
        return None
    s, m = head
    return Hit(
        title="Headline numbers reported without uncertainty",
        issue=(
            f"Effects such as \"{_short(_plain(s.text), 16)}\" are given as point estimates: there is no confidence interval, "
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
        if _IMPERATIVE.match(_plain(s.text)) or _DESIGN_NUMBER.search(s.text) or not _STATE_VERB.search(s.text):
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
            f"\"{_short(_plain(s.text), 18)}\" reports a level with nothing to judge it against: no prior period, control "
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
        if m and not _negated_before(s.text, m.start(), 25):
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
            f"\"{_short(_plain(s.text), 18)}\" stresses statistical significance but the document never says how big the "
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
                f"The document says the definition is not final or lives elsewhere (\"{_plain(m.group(0))}\"). Readers "
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
            suggested_fix=f"Define {phrase} where it is first used, e.g. '{phrase}: <numerator> / <denominator> over <window>'.",
        )
    return None


# ====================================================================== communication.structure


def _tldr_weakness(ctx: Context) -> str | None:
    t = ctx.view.tldr
    if not t.found:
        return None
    text = _plain(t.text)
    if not text:
        return "it is empty"
    has_number = bool(numbers(text))
    has_finding = bool(lx.FINDING_VERB.search(text))
    if lx.DEFERRAL.search(text) and not has_number:
        return "it defers the answer"
    if lx.TLDR_PURPOSE.search(text) and not has_number:
        return "it describes what the document covers instead of stating the answer"
    if lx.QUESTION_SIGNAL.search(text) and not has_number:
        return "it restates the question without answering it"
    if not has_number and not has_finding:
        return "it states no finding and no number"
    if ctx.workflow == "proactive" and not lx.IMPACT.search(text):
        return "it does not say what the finding is worth or who it affects"
    if ctx.workflow == "reactive" and not (lx.DIRECT_ANSWER.search(text) or has_number):
        return "it does not answer the stakeholder's question directly"
    return None


@rule("tldr_missing")
def tldr_missing(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if v.tldr.found or f.word_count_small:
        return None
    answer = next((s for s in f.prose if lx.CONCLUSION_SIGNAL.search(s.text) or s.role in (CONCLUSION, RECOMMENDATION)), None)
    result = next(
        (s for s in f.prose if s.role not in (METHOD, DATA) and (lx.CI.search(s.text) or lx.POS_SIG.search(s.text))),
        None,
    )
    if result is not None and answer is not None and result.line < answer.line:
        where = f" The first result only appears at {v.location(result)}, and the conclusion at {v.location(answer)}."
    elif answer is not None:
        where = f" The answer only appears in {v.location(answer)}."
    else:
        where = ""
    ask = "the direct answer to the question" if ctx.workflow == "reactive" else "the main finding, its impact and the recommendation"
    return Hit(
        title="No TL;DR up front",
        issue=(
            f"There is no summary at the top of the document: a reader has to read all {v.word_count:,} words to learn "
            f"the answer.{where}"
        ),
        evidence="",
        location="Top of document",
        suggested_fix=f"Open with a three-line TL;DR stating {ask}: the finding with its size, what it means, and the recommended action with its owner.",
        absence=True,
        consider="Consider adding a two-to-three sentence TL;DR at the top with the answer.",
        strength=2,
    )


_ANSWER_SIGNAL = lx.rx(
    r"\b(to answer the question|the answer (?:is|to)|short answer|in conclusion|to conclude|we conclude|(?:we|i) recommend|"
    r"my recommendations?|our recommendations?|(?:the )?bottom line|in summary|to summari[sz]e|key (?:finding|takeaway)s?|"
    r"overall,|so, to answer)\b"
)


def _late_answer(ctx: Context) -> Sentence | None:
    """The first explicit answer or recommendation statement, if it sits in the back half."""
    f = ctx.features
    first = next(
        (
            s
            for s in f.prose
            if s.role != SUMMARY and s.kind != "heading" and (_ANSWER_SIGNAL.search(s.text) or (s.role in (CONCLUSION,) and not s.guessed))
        ),
        None,
    )
    if first is None or first.pos < 0.4:
        return None
    return first


@rule("weak_tldr")
def weak_tldr(ctx: Context) -> Hit | None:
    v = ctx.view
    reason = _tldr_weakness(ctx)
    if reason is None:
        return None
    if _late_answer(ctx) is not None:
        return None  # the answer exists further down: reported as a buried lede
    first = next((s for s in ctx.features.summary if s.kind != "heading"), None)
    return Hit(
        title="TL;DR does not state the answer",
        issue=(
            f"A summary exists, but {reason}: \"{_short(_plain(v.tldr.text), 20)}\". Busy readers stop there, so they leave "
            f"without the finding."
        ),
        evidence=v.quote(first) if first else "",
        location=v.location(first) if first else "TL;DR",
        suggested_fix="Rewrite the TL;DR as answer + impact + action: the result with its interval, what it means for the business, and the recommended decision.",
    )


@rule("buried_lede")
def buried_lede(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    t = v.tldr
    if f.word_count_small or not t.found:
        return None  # no summary at all is tldr_missing
    late_tldr = not v.is_extraction and t.start_line is not None and t.start_line / max(v.n_lines, 1) > 0.4
    if late_tldr:
        target = next((s for s in f.summary if s.kind != "heading"), None)
    elif _tldr_weakness(ctx) is not None:
        target = _late_answer(ctx)
    else:
        return None
    if target is None:
        return None
    opening = next((s for s in f.summary if s.kind != "heading"), None)
    return Hit(
        title="Key finding is buried deep in the document",
        issue=(
            f"The answer (\"{_short(_plain(target.text), 18)}\") first appears at {v.location(target)}, about "
            f"{round(target.pos * 100)}% of the way through"
            + (f"; the opening only says \"{_short(_plain(opening.text), 14)}\"" if opening is not None and opening is not target else "")
            + ". Readers who skim the top will miss it."
        ),
        evidence=v.quote(target),
        location=v.location(target),
        suggested_fix="Move the answer and the recommendations to the first lines as a TL;DR (finding, size, action) and keep the detail below.",
    )


@rule("no_structure")
def no_structure(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if v.word_count < 250:
        return None
    if len(v.content_headings) >= 2:
        return None
    if v.is_extraction and not v.structure_inferred:
        return None
    first = next((s for s in f.prose), None)
    return Hit(
        title="Running text without sections",
        issue=(
            f"The {v.word_count:,}-word document has no section headings, so a reader cannot jump to the method, the "
            f"results or the recommendation; they have to read everything in order to find them."
        ),
        evidence="",
        location="whole document",
        suggested_fix="Break the text into sections whose headings carry the message: a TL;DR, how it was measured, one heading per finding stating the finding, and what we recommend.",
        absence=True,
        consider="Consider adding section headings (TL;DR, method, results, recommendation).",
        strength=1 if first else 0.5,
    )


@rule("generic_headings")
def generic_headings(ctx: Context) -> Hit | None:
    v = ctx.view
    heads = [h for h in v.content_headings if clean_heading(h.text)]
    content = [h for h in heads if not lx.NON_CONTENT_HEADING.match(clean_heading(h.text))]
    if not content:
        return None
    numbered = [h for h in content if lx.SECTION_NUMBERED_HEADING.match(clean_heading(h.text))]
    generic = [h for h in content if lx.GENERIC_HEADING.match(clean_heading(h.text))]
    if not (len(numbered) >= 2 or (len(generic) >= 3 and len(generic) / len(content) >= 0.6)):
        return None
    examples = ", ".join(f"'{h.text}'" for h in (numbered or generic)[:4])
    h = (numbered or generic)[0]
    return Hit(
        title="Headings are labels, not signposts",
        issue=(
            f"{len(numbered or generic)} of {len(content)} section headings ({examples}) only label the part of the "
            f"document; none tells the reader what the section found. Skimmers cannot get the story from the headings."
        ),
        evidence=h.text.strip(),
        location=f"Heading at line {h.line}" if not v.is_extraction else "Extraction, STRUCTURE",
        suggested_fix="Rename each heading to state its section's takeaway (the finding itself rather than 'Results').",
    )


# ====================================================================== communication.audience


@rule("limitations_missing")
def limitations_missing(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if f.word_count_small:
        return None
    if not f.conclusion_present:
        return None  # nothing concluded, nothing to over-apply
    if v.is_extraction:
        if not v.part_absent("LIMITATIONS STATED"):
            return None
        if f.limitation is not None:
            return None
    elif f.limitation is not None:
        return None
    return Hit(
        title="No limitations or scope stated",
        issue=(
            "Nowhere does the document say what the analysis does not cover or where the result may not hold (time window, "
            "population, data quality, design). Downstream readers may apply the numbers beyond what they support."
        ),
        evidence="",
        location="whole document",
        suggested_fix="Add a short 'Limitations' list: the population and period covered, what the design cannot rule out, and known data issues.",
        absence=True,
        consider="Consider adding a short limitations list.",
    )


@rule("jargon_unexplained")
def jargon_unexplained(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    audience = ctx.audience
    known = set(lx.COMMON_ACRONYMS)
    if audience in ("ds", "tech"):
        known |= lx.DS_ACRONYMS
    undefined = [(tok, s, m) for tok, s, m, d in f.acronyms if not d and tok not in known and tok.rstrip("S") not in known]
    jargon_words: list[tuple[str, Sentence, re.Match[str]]] = []
    if audience == "exec":
        seen = set()
        for s in f.prose:
            for m in lx.DS_JARGON.finditer(s.text):
                w = m.group(0).lower()
                if w in seen:
                    continue
                seen.add(w)
                after = s.text[m.end() : m.end() + 30]
                if re.match(r"\s*(?:\(|, (?:which|i\.e\.|that is|meaning)|:)", after):
                    continue
                jargon_words.append((m.group(0), s, m))
    threshold = {"exec": 2, "mixed": 3, "tech": 4, "ds": 4}.get(audience, 3)
    terms = undefined + jargon_words
    if len(terms) < threshold:
        return None
    tok, s, m = terms[0]
    names = ", ".join(t for t, _, _ in terms[:6])
    reader = {"exec": "an executive", "mixed": "the non-specialists in a mixed audience", "tech": "a technical lead outside the team", "ds": "a data scientist outside the team"}.get(audience, "the reader")
    return Hit(
        title="Acronyms and jargon used without explanation",
        issue=(
            f"{len(terms)} terms are used without being spelled out or explained ({names}); {reader} will not know all of "
            f"them, and several carry the key results."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix=f"Spell out each acronym on first use and explain the technical terms in plain words, e.g. '{tok} (…what it stands for and means…)', or add a short glossary.",
        strength=min(len(terms) / threshold, 3),
    )


@rule("wrong_detail_level")
def wrong_detail_level(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    audience = ctx.audience
    if audience == "exec":
        method_words = sum(len(s.text.split()) for s in f.text_sentences if s.role in (METHOD, DATA))
        total = max(sum(len(s.text.split()) for s in f.text_sentences), 1)
        jargon = {m.group(0).lower() for s in f.prose for m in lx.DS_JARGON.finditer(s.text)}
        heavy = (method_words / total >= 0.35 and total >= 400) or (v.code_lines >= 10 and total >= 100) or len(jargon) >= 6
        if not heavy:
            return None
        s = next((x for x in f.text_sentences if x.role in (METHOD, DATA) and x.kind != "heading"), None) or next(
            (x for x in f.prose if lx.DS_JARGON.search(x.text)), None
        )
        return Hit(
            title="Too much method detail for an executive reader",
            issue=(
                f"About {round(100 * method_words / total)}% of the text is method and data detail"
                + (f", with technical terms such as {', '.join(sorted(jargon)[:4])}" if jargon else "")
                + ". An executive needs the answer, its impact and the decision; the detail hides them."
            ),
            evidence=v.quote(s) if s else "",
            location=v.location(s),
            suggested_fix="Lead with the decision and impact in plain language and move the method detail to an appendix, keeping one sentence on how confident we are.",
        )
    deck = f.reads_as_deck
    if len(deck) < 2 and not (f.bullet_share >= 0.7 and v.word_count < 1500 and audience in ("ds", "tech")):
        return None
    thin = f.uncertainty is None or not f.method_present
    if audience in ("ds", "tech") or (audience == "mixed" and thin and len(deck) >= 2):
        s = deck[0] if deck else next((x for x in f.text_sentences if x.kind == "bullet"), None)
        missing = []
        if f.uncertainty is None:
            missing.append("no intervals, tests or sample sizes")
        if not f.method_present:
            missing.append("no method description")
        reader = {"ds": "data scientists", "tech": "technical reviewers", "mixed": "a mixed audience"}[audience if audience in ("ds", "tech", "mixed") else "mixed"]
        return Hit(
            title="Slide deck recycled for a different audience",
            issue=(
                f"The document is a presentation deck (slide markers, bullet fragments) pasted for {reader}"
                + (f", with {' and '.join(missing)}" if missing else "")
                + ". Headline claims that worked in a live readout cannot be checked by readers who were not in the room."
            ),
            evidence=v.quote(s) if s else "",
            location=v.location(s),
            suggested_fix="Rewrite as a document for this reader: a TL;DR, the design and metric definitions, results with intervals and sample sizes, and the caveats; keep the slides as an appendix link.",
            strength=2,
        )
    return None


@rule("handoff_risk")
def handoff_risk(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    strong = v.first(lx.HANDOFF_STRONG, f.text_sentences)
    if strong is None:
        return None
    s, m = strong
    return Hit(
        title="Relies on context only the author's team has",
        issue=(
            f"The document refers to \"{_plain(m.group(0))}\" without saying what it was. A reader who was not in the room, "
            f"or joins later, cannot follow or verify that part."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Replace the insider reference with the fact itself or a link (what was decided, where the definition lives, who owns it).",
    )


# ====================================================================== communication.conciseness


@rule("data_dump")
def data_dump(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    memo = ctx.memo.get("data_dump")
    if memo is not None:
        return memo or None
    table_rows = sum(1 for s in f.text_sentences if s.kind == "table")
    if v.is_extraction:
        tables = sum(1 for s in f.placeholders if s.text.startswith("[table"))
        tables = max(tables, len(re.findall(r"\[table\]", v.content)))
    else:
        tables = len(v.tables)
    prose_words = sum(len(s.text.split()) for s in f.prose if s.role not in ("meta",))
    numbers_total = sum(len(f.nums(s)) for s in f.text_sentences)
    interpret = len(f.interpretive)
    heavy = tables >= 5 or table_rows >= 30 or numbers_total >= 80
    per_table = prose_words / max(tables, 1)
    thin = interpret <= max(2, tables // 2) and per_table < 60
    hit = None
    if heavy and thin:
        first_table = next((s for s in f.text_sentences if s.kind == "table"), None) or next(iter(f.placeholders), None)
        intro = next(
            (s for s in f.prose if re.search(r"\b(tables? (?:below|above)|below (?:are|is)|the following tables?|see (?:the )?tables?)\b", s.text, re.I)),
            None,
        )
        target = intro or first_table
        hit = Hit(
            title="Tables and numbers without interpretation",
            issue=(
                f"The document presents {tables} tables ({table_rows} rows, about {numbers_total} numbers) with only "
                f"{interpret} sentence(s) that say what the numbers mean. The reader has to do the analysis themselves "
                f"and may pick the wrong takeaway."
            ),
            evidence=v.quote(target) if target else "",
            location=v.location(target),
            suggested_fix="Keep the two or three tables that carry the argument, put one sentence above each stating its takeaway, and move the rest to an appendix.",
            strength=2,
        )
    ctx.memo["data_dump"] = hit or False
    return hit


@rule("placeholder_left")
def placeholder_left(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    hits = [
        (s, m)
        for s in v.sentences
        if s.role not in ("meta", "structure") and s.kind != "placeholder"
        for m in [lx.PLACEHOLDER.search(s.text)]
        if m
    ]
    if not hits:
        return None
    s, m = hits[0]
    tokens = sorted({_plain(m2.group(0)) for s2, _ in hits for m2 in lx.PLACEHOLDER.finditer(s2.text)})
    return Hit(
        title="Placeholders left in the text",
        issue=(
            f"The document still contains {len(hits)} unfinished placeholder(s) ({', '.join(tokens[:5])}). "
            f"Shared like this, readers see unfinished work and cannot tell which parts are final."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Fill in or remove every TODO/TBD before sharing; if a part is genuinely pending, say so in one line with a date.",
    )


_REPRO = lx.rx(
    r"\b(for anyone who wants to reproduce|to reproduce (?:the|these|this)|for reproducibility|reproduction details?|"
    r"technical (?:note|details?)|implementation details?|for completeness|a note on how the data|how the data (?:were|was) (?:put together|built|assembled)|"
    r"pipeline details?|for the curious)\b"
)


_SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _method_heavy_opening(ctx: Context) -> Hit | None:
    """With no summary up front, pages of set-up detail come before the first result."""
    f = ctx.features
    v = ctx.view
    if v.tldr.found and _tldr_weakness(ctx) is None:
        return None
    first = None
    for s in f.prose:
        if s.role in (SUMMARY, "title", "meta"):
            continue
        if lx.CI.search(s.text) or lx.POS_SIG.search(s.text) or (
            s.role == RESULTS and not s.guessed and any(n.notable for n in f.nums(s)) and lx.CHANGE_WORD.search(s.text)
        ):
            first = s
            break
    if first is None or first.pos < 0.4:
        return None
    before = [s for s in f.prose if s.line < first.line and s.role not in (SUMMARY, "title", "meta")]
    words = sum(len(s.text.split()) for s in before)
    detail = [
        s for s in before
        if lx.METHOD_SIGNAL.search(s.text) or lx.DESIGN.search(s.text) or lx.DS_JARGON.search(s.text)
        or _SNAKE.search(s.text) or lx.UNCERTAINTY.search(s.text)
    ]
    share = sum(len(s.text.split()) for s in detail) / max(words, 1)
    if words < 500 or share < 0.45:
        return None
    target = next((s for s in detail if _SNAKE.search(s.text)), detail[0])
    return Hit(
        title="Set-up detail comes before the result",
        issue=(
            f"About {words:,} words of design, data and instrumentation detail come before the first result "
            f"(\"{_short(_plain(first.text), 12)}\", {v.location(first)}). Most readers need the result first; the "
            f"mechanics belong in an appendix or a short method section."
        ),
        evidence=v.quote(target, _SNAKE.search(target.text)),
        location=v.location(target),
        suggested_fix="Keep a five-line method summary (design, population, metric, test) before the results and move assignment, instrumentation and QA detail to an appendix.",
    )


@rule("appendix_in_body")
def appendix_in_body(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    repro = next(((s, m) for s, m in v.find(_REPRO, f.prose) if s.role != APPENDIX), None)
    if repro is not None:
        s, m = repro
        return Hit(
            title="Reproduction detail sits in the main body",
            issue=(
                f"The passage starting \"{_short(_plain(s.text), 16)}\" is supporting detail for reproducing the numbers. "
                f"It sits in the main flow and slows readers who only need the findings."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix="Move it to an appendix (or a linked notebook) and leave one sentence in the body saying where the detail lives.",
        )
    if v.is_extraction:
        return None
    opening = _method_heavy_opening(ctx)
    if opening is not None:
        return opening
    body_code = [(a, b) for a, b, role in v.code_blocks if role != APPENDIX]
    code_lines = sum(max(0, b - a - 1) for a, b in body_code)
    big_tables = [(start, rows, sec) for start, rows, sec, role in v.tables if role != APPENDIX and rows >= 16]
    if code_lines < 15 and not big_tables:
        return None
    if code_lines >= 15:
        a, _ = body_code[0]
        s = next((x for x in v.sentences if x.line >= a), None)
        detail = f"{code_lines} lines of code/query"
        line = a
    else:
        line, rows, sec = big_tables[0]
        detail = f"a {rows}-row table" + (f" in '{sec}'" if sec else "")
        s = next((x for x in v.sentences if x.line == line), None)
    return Hit(
        title="Supporting detail sits in the main body",
        issue=(
            f"The main body carries {detail} at line {line}. It supports the analysis but slows the reader down before the "
            f"conclusion."
        ),
        evidence=v.quote(s) if s else "",
        location=f"line {line}",
        suggested_fix="Move it to an appendix and keep a one-line summary (or the three rows that matter) in the body.",
    )


_CRYPTIC_CELL = re.compile(r"^(?:[A-Za-zΔδαβσμρ]|[a-z]+_[a-z_]+|[A-Z]_\w+|Δ\w*|d)$")


@rule("visual_unclear")
def visual_unclear(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    for line, alt, nxt in v.images:
        if lx.UNCAPTIONED_ALT.match(alt.strip().lower()) and not re.match(r"^(?:\*|_|figure|fig\.|chart|source)", nxt, re.I):
            raw = v.content.split("\n")[line - 1].strip()
            return Hit(
                title="Chart without caption or takeaway",
                issue=f"The image at line {line} has no descriptive caption or stated takeaway, so the reader must guess what it shows and why it is there.",
                evidence=raw[:200] if len(raw.split()) <= 30 else "",
                location=f"line {line}",
                suggested_fix="Give each chart a title that states its takeaway, labelled axes with units, and one sentence below saying what to notice.",
            )
    for ph in f.placeholders:
        m = re.match(r"\[table:\s*(.*?)\]", ph.text)
        if m:
            cells = [c.strip() for c in m.group(1).split("|")]
            cryptic = [c for c in cells if c and _CRYPTIC_CELL.match(c)]
            if len(cryptic) >= 2:
                return Hit(
                    title="Table uses codes instead of labels",
                    issue=(
                        f"A table in {v.location(ph)} labels its columns with codes ({', '.join(cryptic[:5])}), so readers "
                        f"outside the team cannot read it unaided."
                    ),
                    evidence="",
                    location=v.location(ph),
                    suggested_fix="Use plain column names with units and add one line above the table saying what it shows.",
                )
    seen_tables = set()
    for s in f.text_sentences:
        if s.kind != "table":
            continue
        key = (s.section, s.line)
        prev_table = any((s.section, s.line - d) in seen_tables for d in (1, 2))
        seen_tables.add(key)
        if prev_table:
            continue  # only header rows
        cells = [c.strip().strip("*") for c in s.text.strip().strip("|").split("|")]
        cryptic = [c for c in cells if c and _CRYPTIC_CELL.match(c)]
        if len(cryptic) >= 2:
            return Hit(
                title="Table uses codes instead of labels",
                issue=(
                    f"The table at line {s.line} labels its columns with codes ({', '.join(cryptic[:5])}) and states no units or "
                    f"takeaway, so readers outside the team cannot read it unaided."
                ),
                evidence=v.quote(s),
                location=v.location(s),
                suggested_fix="Use plain column names with units and add one line above the table saying what it shows.",
            )
    return None


@rule("polish")
def polish(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    problems: list[tuple[str, Sentence, re.Match[str]]] = []
    for s in f.prose:
        for pat, label in ((lx.TYPO, "typo"), (lx.BROKEN_REF, "broken reference")):
            m = pat.search(s.text)
            if m:
                problems.append((label, s, m))
        m = lx.REPEATED_WORD.search(s.text)
        if m and m.group(1).lower() not in ("that", "had", "is", "very", "bye", "ha", "no", "so"):
            problems.append(("repeated word", s, m))
    if not problems:
        return None
    label, s, m = problems[0]
    return Hit(
        title="Typos or broken references",
        issue=f"There are {len(problems)} polish problem(s), e.g. a {label} (\"{m.group(0)}\"). Small slips make careful readers doubt the numbers too.",
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Run a spell-check and fix the flagged spots; check every cross-reference resolves.",
    )


# ====================================================================== communication.actionability


@rule("no_recommendation")
def no_recommendation(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if f.word_count_small:
        return None
    if f.recommendations:
        return None
    decision = lx.rx(
        r"\b(we (?:should|will|plan|propose|suggest)|let's|decision:|we decided|(?:should|must|need to) (?:\w+ )?"
        r"(?:roll|launch|ship|stop|keep|continue|invest|expand|pause|switch))\b"
    )
    if any(decision.search(s.text) for s in f.closing):
        return None
    last = f.closing[-1] if f.closing else None
    return Hit(
        title="No recommendation or next step",
        issue=(
            "The document reports findings but never says what the reader should do with them: no recommendation, decision "
            "or next step appears anywhere. The reader cannot act on it."
        ),
        evidence="",
        location="whole document" if last is None else "End of document",
        suggested_fix="End with a short 'What we recommend' list: the action, who owns it and by when.",
        absence=True,
        consider="Consider adding what you expect to recommend, even provisionally.",
        strength=2,
    )


_HEDGED_ACTION = lx.rx(
    r"\b(pending (?:alignment|discussion|approval|review|sign-?off)|if there is appetite|at some point|when possible|as needed|"
    r"tbd|to follow|an option|could be considered|open question|possible recommendations?)\b"
)


def _has_owner(s: Sentence) -> bool:
    for m in lx.OWNER.finditer(s.text):
        word = m.group(0).split()[0].strip("(@")
        if lx.OWNER_STOP.match(word):
            continue
        if re.match(r"^[A-Z][a-z]+$", word) and re.search(rf"\b{word} will not\b|\b{word} won't\b", s.text):
            continue
        return True
    return False


@rule("recommendation_vague")
def recommendation_vague(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    recos = [s for s in f.recommendations if s.kind != "heading"]
    if not recos:
        return None
    owners = [s for s in recos if _has_owner(s)]
    timed = [s for s in recos if lx.TIMING.search(s.text)]
    # extraction input: an action table replaced by its column list still shows owners and dates
    for ph in f.placeholders:
        if ph.role in (RECOMMENDATION, CONCLUSION) and ph.text.startswith("[table"):
            if re.search(r"\b(owner|who|responsible|dri)\b", ph.text, re.I):
                owners.append(ph)
            if re.search(r"\b(due|date|deadline|when|by)\b", ph.text, re.I):
                timed.append(ph)
    vague = [(s, m) for s in recos for m in [lx.VAGUE_ACTION.search(s.text)] if m]
    hedged = [(s, m) for s in recos for m in [_HEDGED_ACTION.search(s.text + " " + s.section)] if m]
    questions = [(s, None) for s in recos if s.text.rstrip("*_ )").endswith("?")]
    problem = None
    if ctx.workflow == "proactive" and not owners:
        problem = "names no owner"
    elif len(questions) >= 2 and len(questions) >= len(recos) / 3:
        problem = "is posed as an open question, with no owner or decision"
    elif not owners and len(timed) < max(1, len(recos) / 2):
        problem = "has no owner and, like most of the list, no date"
    elif not owners and (vague or hedged) and len(vague) + len(hedged) >= len(recos) / 2:
        problem = "has no owner and a vague or conditional action"
    if problem is None:
        return None
    pick = (questions if problem.startswith("is posed") else []) or hedged or vague or [(recos[0], None)]
    if ctx.workflow == "proactive" and problem == "names no owner":
        problem = "names no owner (proactive work needs an owner for each recommendation)"
    s, m = pick[0]
    if m is not None and m.start() >= len(s.text):
        m = None  # the hedge was in the section name
    return Hit(
        title="Recommendations have no owner or next step",
        issue=(
            f"The recommendation \"{_short(_plain(s.text), 20)}\" {problem}"
            + (f" (\"{_plain(m.group(0))}\")" if m is not None else "")
            + ". Without a named owner, a date and a concrete first step it is unlikely to happen."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Turn each recommendation into an action with a named owner, a priority and a date or decision forum.",
    )


_DESCRIBES_TEST = lx.rx(r"\b(during|throughout|before|in) the (?:test|experiment|campaign|pilot|trial)\b")


@rule("overreach_unbounded")
def overreach_unbounded(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    # (a) a result pushed beyond what was measured, where the document does state limits
    #     (with no limits at all, limitations_missing owns the problem: routing table)
    if f.limitation is not None and not v.has(lx.BOUNDARY, [s for s in f.text_sentences if s.role == LIMITATIONS]):
        for s in f.text_sentences:
            if s.role in (LIMITATIONS, APPENDIX) or s.kind == "heading":
                continue
            m = lx.GENERALIZE.search(s.text)
            if not m or v.has(lx.BOUNDARY, [s]):
                continue
            if _DESCRIBES_TEST.search(s.text):
                continue  # "held flat in all regions during the test" describes the test, it extends nothing
            return Hit(
                title="Result extended beyond what the data covers",
                issue=(
                    f"\"{_short(_plain(s.text), 20)}\" extends the finding (\"{_plain(m.group(0))}\") beyond the population and "
                    f"period that were measured, and the caveats never say where the result stops applying."
                ),
                evidence=v.quote(s, m),
                location=v.location(s),
                suggested_fix="Say explicitly what the data does and does not support: the population, period and channel it was measured on, and what needs its own test before rollout.",
            )
    # (b) a rollout argued for while the primary result is null, and the caveats are silent on it
    null_primary = _primary_nulls(ctx, [
        s for s in f.body
        if s.role not in (LIMITATIONS, APPENDIX, METHOD) and s.kind != "heading" and _evidence_kind(s.text) == "neg"
    ])
    if null_primary:
        caveats = [s for s in f.text_sentences if s.role == LIMITATIONS]
        silent = not any(re.search(r"signific|interval|\bCI\b|uncertain|noise|did not (?:improve|change)|not improve|no (?:detectable|significant)", c.text, re.I) for c in caveats)
        pushes = [
            (s, m) for s in f.text_sentences
            if s.role in (RECOMMENDATION, CONCLUSION, SUMMARY) or s.pos > 0.85
            for m in [lx.ROLLOUT.search(s.text)] if m and not _negated_before(s.text, m.start(), 30)
            and not _CONDITIONAL.search(s.text[max(0, m.start() - 60) : m.start()])
        ]
        if silent and pushes:
            s, m = pushes[-1]
            return Hit(
                title="Nothing bounds what the test can support",
                issue=(
                    f"The primary result is null (\"{_short(_plain(null_primary[0].text), 14)}\"), yet the caveats never say so "
                    f"and the document argues for acting now (\"{_short(_plain(s.text), 16)}\"). Readers are not told what the "
                    f"data cannot support, such as a loss within the interval."
                ),
                evidence=v.quote(s, m),
                location=v.location(s),
                suggested_fix="Add to the caveats what the test cannot support (including the worst case its interval allows), and tie any rollout to a guardrail or follow-up test.",
            )
    if ctx.workflow == "reactive" and f.uncertainty is None:
        head = _headline(ctx)
        if head is not None:
            s, m = head
            return Hit(
                title="Answer given without a range to act on",
                issue=(
                    f"The stakeholder's answer (\"{_short(_plain(s.text), 16)}\") is a single number with no interval, so they "
                    f"cannot tell how much of it they can rely on when deciding."
                ),
                evidence=v.quote(s, m),
                location=v.location(s),
                suggested_fix="Give the answer as a range with its confidence (the estimate and its 95% interval), and say what it does not cover.",
            )
    return None


_STOP = frozenset(
    "the a an and or of to in on for with by at from is are was were be been this that these those it its as than then "
    "their our we they more less most who which what when how after before per over under into out up down not no".split()
)


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z\-]{2,}", text.lower()) if w not in _STOP}


@rule("so_what_missing")
def so_what_missing(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    implication = lx.rx(
        r"\b(this means|which means|means (?:that|we|about)|impl(?:ies|ication)|so (?:we|the business)|therefore|as a result|matters?|"
        r"worth|in (?:plain|practical|business) terms|translat\w+ (?:to|into)|for the business|we recommend|should|"
        r"decision|impact on|cost of|saves?|so what|supports? the|suggests?|consistent with|reassuring|rely on)\b"
    )
    # a key finding the document itself headlines, stated with numbers but without its consequence
    for h in v.content_headings:
        name = clean_heading(h.text)
        if lx.GENERIC_HEADING.match(name) or lx.NON_CONTENT_HEADING.match(name) or len(name.split()) < 4:
            continue
        words = _content_words(name)
        section = [s for s in f.prose if s.section == h.text and s.kind != "heading"]
        paras: dict[int, list[Sentence]] = {}
        for s in section:
            paras.setdefault(s.line, []).append(s)
        for line, sents in paras.items():
            text = " ".join(x.text for x in sents)
            if len([n for x in sents for n in f.nums(x) if n.notable]) < 2:
                continue
            if len(words & _content_words(text)) < 2:
                continue
            if implication.search(text) or lx.INTERPRET.search(text):
                continue
            if not lx.COMPARISON.search(text):
                continue
            s = sents[0]
            return Hit(
                title="Key finding reported without its implication",
                issue=(
                    f"The finding \"{_short(_plain(text), 18)}\" (headlined in '{h.text}') is stated with numbers but without "
                    f"saying what it means for the decision, for example whether it changes who should get the feature."
                ),
                evidence=v.quote(s),
                location=v.location(s),
                suggested_fix="Add one sentence after the finding on its consequence, e.g. 'so the rollout should prioritise longer-tenure customers' or 'no change to the plan'.",
            )
    # a document whose results never say what they mean (unless the data-dump rule covers it)
    findings = [s for s in f.results if s.kind != "table" and any(n.notable for n in f.nums(s))]
    if v.is_extraction or len(findings) < 3 or v.has(implication, f.text_sentences):
        return None
    if data_dump(ctx) is not None:
        return None
    s = findings[0]
    return Hit(
        title="Findings reported without their implication",
        issue=(
            f"Results such as \"{_short(_plain(s.text), 16)}\" are stated without saying what they mean for the reader: "
            f"no 'so what', no consequence, no decision they inform."
        ),
        evidence=v.quote(s),
        location=v.location(s),
        suggested_fix="After each key number add one sentence on its consequence for the reader: what it changes, for whom, and roughly what it is worth.",
    )


