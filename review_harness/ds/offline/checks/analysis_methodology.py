"""Detectors of the analysis dimension's methodology lens: causal claims without a design,
selection bias, unstated assumptions, unjustified methods, early stopping, leakage, ignored
covariate imbalance and ranking models judged on offline metrics alone.
"""

from __future__ import annotations

import re

from review_harness.core.mood import hedged_before, prospective

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import (
    first_where, first_words, quoted_hit, unmarked,
)
from review_harness.ds.offline.purpose import BENCHMARK, DEMONSTRATION
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import APPENDIX, CLOSING_ROLES, DATA, LIMITATIONS, METHOD, Sentence


_CAUSAL_EXTRA = lx.rx(
    # an effect stated as established by the comparison: "confirming the positive reinforcement effect", "proves the impact"
    r"\b((?:confirm\w*|prov(?:es|ed|ing|e)|demonstrat\w*|establish\w*) (?:the |a |an |its |their |that )?(?:[\w-]+ ){0,3}"
    r"(?:effect|impact|influence|benefit|uplift|lift)s?|"
    r"explains? the (?:lift|increase|gain|rise|drop|decline|change|difference|growth|improvement)|"
    r"(?:is|was|as) the (?:mechanism|driver|cause|reason|active ingredient)|the (?:mechanism|driver) (?:is|was|behind))\b"
)
_CONFOUNDER = lx.rx(
    r"\b(also|at the same time|meanwhile|in parallel|same (?:week|month|time)|simultaneously|coincided)\b"
    r"[^.]{0,80}\b(launch\w*|chang\w*|refresh\w*|updat\w*|redesign\w*|releas\w*|moved|shipped|introduc\w*|campaign|promotion|price)"
    r"|\b(launch\w*|chang\w*|refresh\w*|updat\w*|redesign\w*|releas\w*|shipped|introduc\w*)\b[^.]{0,60}\b(also|at the same time|same (?:week|month))\b"
)
_DRIVE = re.compile(r"(?i)drove|drives|driven by|driving")
_WEAK_CAUSAL = re.compile(r"result(?:ed|s|ing)? in|lead(?:s|ing)? to|led to")
# a proposal's expected effect: "By distributing more customers to annual plans, we effectively reduce churn"
_PROPOSAL = re.compile(r"^\W*by \w+ing\b|\b(?:we|you|it|this) (?:would|could|will|might)\b|\bif we\b", re.I)
_INTERVENTION = lx.rx(
    r"\b(launch\w*|campaign\w*|e-?mails?|events?|features?|programm?e?s?|redesign\w*|releases?|series|buttons?|mode|"
    r"notifications?|nudges?|promotions?|offers?|discounts?|pric\w+|updates?|checklists?|ads?|advertising|TV|changes?|"
    r"new \w+|version \d+|v\d+)\b"
)


# "The new onboarding tour raised activation", "Ordering the suggestions by CTR lifted clicks": a change
# (an intervention noun, or a gerund) as the subject of a verb of change is a claim about what it did
_SUBJECT_VERB = re.compile(
    r"^[\W_]*(?P<subj>(?:[A-Z][a-z]+ing\b|(?:The|Our|This|These|Its|Their|A|An)\b)[^,;:]{2,90}?)\s+"
    r"(?P<verb>raised|lifted|cut|reduced|increased|decreased|improved|boosted|doubled|halved|shortened|lowered|"
    r"grew|drove up|drove down)\b"
)
_GERUND_SUBJECT = re.compile(r"^[\W_]*[A-Z][a-z]+ing\b")


def _subject_causal(text: str) -> re.Match[str] | None:
    m = _SUBJECT_VERB.search(text)
    if m and (_GERUND_SUBJECT.match(m.group("subj")) or _INTERVENTION.search(m.group("subj"))):
        return m
    return None


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
        subject = None if m else _subject_causal(text)
        if subject is not None:
            m = re.search(re.escape(subject.group("verb")), text[subject.start("verb"):]) and subject
        if m is None:
            im = lx.CAUSAL_IMPACT.search(text)
            if im and f.nums(s):
                m = im
        if m is None:
            continue
        window = text[max(0, m.start() - 60) : m.end() + 15]
        if lx.HEDGE.search(window) or hedged_before(text, m.start()):
            continue  # "it's difficult to say definitively that the banner caused it": a claim declined, not made
        if _PROPOSAL.search(text):
            continue  # what a proposed change would do is a projection, not a measured effect
        if s.role not in CLOSING_ROLES and not _INTERVENTION.search(text):
            continue  # "this occurs because of the large payments": an explanation of a pattern, not of a change
        if _WEAK_CAUSAL.fullmatch(m.group(0).lower()) and not (
                lx.POS_METRIC.search(text[m.end():m.end() + 60]) or lx.NEG_METRIC.search(text[m.end():m.end() + 60])):
            continue  # "a 15% discount resulting in an end price of $1010": arithmetic, not an effect
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


def _self_selected(ctx: Context, claim: Sentence) -> bool:
    """The claim itself compares people who opted in (joined, signed up, turned on...) with
    themselves or with those who did not, and the document does not address it: a selection
    problem first."""
    return bool(lx.SELECTION_PAST.search(claim.text)) and not ctx.view.has(lx.BIAS_ADDRESSED, ctx.features.text_sentences)


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
    if _self_selected(ctx, s):
        return None  # people who chose the thing: selection_bias_unaddressed names the right cause
    before_after = v.first(lx.BEFORE_AFTER, f.text_sentences)
    confounder = v.first(_CONFOUNDER, [x for x in f.body if x.role != LIMITATIONS])
    basis = (
        "The only comparison in the document is before versus after the change"
        if before_after
        else "The document shows a correlation, not a comparison against a group that did not get the change"
    )
    issue = (
        f"The text states a causal effect (\"{unmarked(m.group(0))}\") in \"{first_words(unmarked(s.text), 18)}\". "
        f"{basis}, with no control group, holdout or adjustment, so seasonality, mix shifts or other changes in the same "
        f"window could explain the difference."
    )
    if confounder:
        issue += f" The document itself mentions another change in that window: \"{first_words(unmarked(confounder[0].text), 16)}\"."
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


def _who(phrase: str) -> str:
    """The document's own name for the self-selected group ("members who opened", "beta accounts")."""
    return unmarked(phrase).strip().lower() or "self-selected group"


# registered through analysis_readings, which reads more before falling back to it
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
                f"The comparison in \"{first_words(unmarked(s.text), 18)}\" splits people by something they chose to do "
                f"(\"{unmarked(m.group(0))}\"). People who opt in differ from those who do not (more motivated, more engaged "
                f"to begin with), so the gap may reflect who they are rather than the effect of the thing; the document does "
                f"not discuss this."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix=(
                f"Name the selection effect and bound it: compare like with like (match the {_who(m.group(0))} with "
                "those who did not on what they did before, or compare everyone offered the option, whether they took it "
                f"or not), or present the gap as descriptive: '{_who(m.group(0))} did better, partly because of who chose to'."
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
                    f"it is applied \"{unmarked(scope.group(0))}\", which assumes the tested effect carries over to places and "
                    f"customers that were not tested; the assumptions the document does list do not cover that"
                )
                break
    if target is None:
        return None
    s, m = target
    source = v.first(_MODEL_SOURCE, [x for x in f.text_sentences if x.section == s.section])
    issue = f"The figure in \"{first_words(unmarked(s.text), 18)}\" is a projection (\"{unmarked(m.group(0))}\"), but {why}."
    if source is not None:
        issue += f" Its inputs are not shown either (\"{first_words(unmarked(source[0].text), 10)}\")."
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


_INCUMBENT = re.compile(
    r"\b(?:in production|current(?:ly)?|existing|incumbent|legacy|old|previous|today'?s|baseline|"
    r"(?:has|have) (?:run|been running|used) since|built in \d{4}|since \d{4}|we (?:replace|are replacing)|"
    r"(?:the )?status quo)\b", re.I)


# a flexible model whose extra complexity needs a reason over the obvious simpler one; a standard method
# for its question (a regression, a survival model, a structural time series) needs none
_COMPLEX_MODEL = lx.rx(
    r"\b(random forest|xgboost|lightgbm|catboost|gradient[- ]boost\w*|neural net\w*|lstm|deep learning|transformer model|"
    r"uplift model\w*)\b"
)


_NAMED_AS_EXAMPLE = re.compile(r"\b(?:as easily as|as simply as|as (?:easy|simple|quick) (?:to \w+ )?as|such as|e\.g\.|for example|for instance|like)\b[^.]{0,50}$", re.I)


# a result set against a simpler method's ("3.1% MAPE against 11.8% for the current moving-average forecast")
_AGAINST_SIMPLER = re.compile(r"\b(?:against|versus|vs\.?|compared (?:with|to)|than|beats?|outperform\w*)\b[^;]{0,60}?\b(?:current|"
                              r"baseline|existing|simple|simpler|naive|moving[- ]average|incumbent|rule[- ]based|heuristic)\b", lx.I)


@rule("method_unjustified")
def method_unjustified(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if f.purpose.kind in (BENCHMARK, DEMONSTRATION):
        return None  # the methods are what the document compares or teaches: their choice is its subject
    # the author's choice, not the system it is compared with ("the flag in production is a logistic regression")
    # nor a method named as an example ("as easily as you can run a regression or a random forest")
    hit = next(((s, m) for s, m in v.find(_COMPLEX_MODEL, f.statements)
                if not _INCUMBENT.search(s.text[max(0, m.start() - 80): m.end() + 60])
                and not _NAMED_AS_EXAMPLE.search(s.text[max(0, m.start() - 60): m.start()])), None)
    if not hit:
        return None
    method_text = [s for s in f.text_sentences if s.role in (METHOD, DATA)] or f.text_sentences
    if v.has(lx.JUSTIFY, method_text) or v.has(_AGAINST_SIMPLER, f.statements):
        return None  # a reason stated, or the method's result set against the simpler one it replaces
    s, m = hit
    return Hit(
        title=f"No reason given for using {unmarked(m.group(0))}",
        issue=(
            f"The analysis uses {unmarked(m.group(0))} but does not say why it was chosen over a simpler alternative or what "
            f"it adds. Readers cannot judge whether the method fits the question."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix=f"Add one or two sentences on why {unmarked(m.group(0))} and not the obvious simpler method, and how it was checked.",
    )


# ---------------------------------------------------------------------- early stopping / peeking

_STOPPED = re.compile(
    r"\b(stopped (?:the test|the experiment|it|early)|called (?:the|it|the test|the experiment)\b|ended (?:the test|it) early|"
    r"stop(?:ped)? (?:the test )?(?:as soon as|once|when)|cut (?:the test|it) short|shipped (?:it )?early|ship (?:it )?a week early)",
    lx.I,
)
_SIGNIFICANCE = re.compile(r"\b(significan\w*|p\s*(?:-?\s*value)?\s*(?:=|<|dropped|fell)|p-value)", lx.I)
_PEEK = re.compile(r"\b(checked (?:the (?:dashboard|results?) )?(?:every|each) (?:day|morning|week)|peek\w*|daily (?:look|check)s?)\b", lx.I)
_NO_PEEK = re.compile(r"\b(did not (?:look|peek)|didn'?t (?:look|peek)|without (?:looking|peeking)|no (?:interim|early) (?:look|peek)s?|sequential (?:test|design|method|boundar\w+)|alpha[- ]spending|pre-?registered stopping)\b", lx.I)
_PLANNED = re.compile(r"\bplanned (?:duration|length|run)\b[^.]{0,40}?\b(\d+)\s*(days?|weeks?)\b|\b(\d+)[- ](day|week)s?\b[^.]{0,30}\bplanned\b", lx.I)


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
            + (f", before the end of its planned run (\"{planned.group(0)}\")" if planned else "")
            + ". Stopping at the first p-value under 0.05 with repeated looks makes a false positive far more likely than 5%, "
            "so the reported significance and the lift built on it are not reliable."
        )
        return quoted_hit(
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

_PREDICTIVE = re.compile(r"\b(forecast\w*|predict\w*|model|classifier|score[sd]?)\b", lx.I)
_AFTER_OUTCOME = re.compile(
    r"\b(end[- ]of[- ](?:week|day|month|period|quarter)|at the close of (?:each|the) (?:week|day|month|period)|"
    r"during the (?:forecast |target |same )?(?:week|month|period)|after (?:the )?(?:outcome|purchase|churn|cancellation|event|label)|"
    r"post[- ](?:outcome|purchase|churn|event)|(?:on|from) the (?:outcome|label) date|future (?:values?|sales|data))\b",
    lx.I,
)
_FEATURE_CONTEXT = re.compile(r"\b(features?|inputs?|predictors?|variables?|signals?)\b", lx.I)


# registered through analysis_readings, which reads more before falling back to it
def leakage(ctx: Context) -> Hit | None:
    v = ctx.view
    sentences = ctx.features.text_sentences
    if not any(_PREDICTIVE.search(s.text) for s in sentences):
        return None
    found = first_where(
        sentences, _AFTER_OUTCOME,
        lambda s, n: s.role != LIMITATIONS
        and bool(_FEATURE_CONTEXT.search(s.section) or _FEATURE_CONTEXT.search(s.text) or s.kind == "bullet"),
    )
    if found is not None:
        s, m = found
        return quoted_hit(
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
    lx.I,
)
_IMBALANCE = re.compile(r"\b(balance\w*|imbalanc\w*|more (?:\w+ ){0,3}(?:in|than) (?:the )?(?:treatment|control|variant|checklist|test)|differ\w* between (?:the )?(?:groups|arms))\b", lx.I)


# registered through analysis_readings, which reads more before falling back to it
def covariate_imbalance_ignored(ctx: Context) -> Hit | None:
    v = ctx.view
    sentences = ctx.features.text_sentences
    found = first_where(
        sentences, _DISMISS,
        lambda s, n: any(_IMBALANCE.search(t) for t in [s.section] + [x.text for x in sentences[max(0, n - 2) : n + 1]]),
    )
    if found is not None:
        s, m = found
        n = sentences.index(s)
        noted = next((x for x in sentences[max(0, n - 2) : n] if _IMBALANCE.search(x.text)), None)
        return quoted_hit(
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


# ---------------------------------------------------------------------- ranking model shipped on offline metrics alone

_OFFLINE_RANKING = re.compile(r"\b(NDCG(?:@\d+)?|MRR|MAP@\d+|recall@\d+|precision@\d+|hit rate|AUC)\b", lx.I)
_SHIP = re.compile(r"\b(replac\w+|ship\w*|launch\w*|roll(?:ing)? (?:it )?out|deploy\w*|switch\w* to)\b", lx.I)
_ONLINE = re.compile(r"\b(a/b|ab test|online (?:test|experiment|evaluation)|interleav\w+|experiment\w*|randomi[sz]\w*|canary|holdout)\b", lx.I)


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
    # a change still to be made ("we recommend shipping v7"); a launch told as done ("the metrics following the
    # 16 April launch") is what the document measures, not a decision it asks for
    ship = first_where(sentences, _SHIP, lambda s, n: s.role in ("summary", "recommendation", "conclusion")
                       and s.kind not in ("table", "heading") and prospective(s.text, s.section))
    if ship is None:
        return None
    s, m = ship
    return quoted_hit(
        v, s, m,
        title="Model change recommended on offline metrics alone",
        issue=(
            f"\"{v.quote(s, m, max_words=16)}\" rests on offline ranking metrics computed on logged data, and no online "
            "test is planned; offline gains often shrink or reverse online because the logs were shaped by the current model."
        ),
        fix="Plan an online A/B (or interleaving) test with a primary business metric before replacing the model, and make the rollout conditional on it.", strength=2,
    )
