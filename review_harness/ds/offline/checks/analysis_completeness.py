"""Detectors of the analysis dimension's completeness lens: missing sections, the key question
left unanswered, follow-ups not done and claims without a source.
"""

from __future__ import annotations

import re

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import first_words, unmarked
from review_harness.ds.offline.purpose import DECISION, DEMONSTRATION
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import CONCLUSION, DATA, METHOD, RECOMMENDATION, RESULTS, SUMMARY


@rule("missing_section")
def missing_section(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    if f.word_count_small:
        return None
    missing = []
    if not f.method_present:
        missing.append("method")
    demo = f.purpose.kind == DEMONSTRATION  # a worked example shows its numbers as it goes: no results or conclusion section owed
    if not f.results_present and not demo:
        missing.append("results")
    if not f.conclusion_present and not demo and not (f.results_state_answers and f.purpose.kind != DECISION):
        missing.append("conclusion")  # a measurement, benchmark or exploration answers in its results
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
    if deferral is None and f.results_state_answers:
        return None  # answered where the results are stated, if not in a section named for it
    s, m = deferral if deferral else (qs, None)
    return Hit(
        title="The question the document sets out to answer is left open",
        issue=(
            f"The document asks \"{first_words(unmarked(qs.text), 20)}\" but "
            + (f"its answer is deferred (\"{unmarked(m.group(0))}\")" if m else "never gives an answer to it")
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
            f"Some values were imputed (\"{first_words(unmarked(s.text), 16)}\"), but no robustness check excludes those records or "
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
                f"\"{first_words(unmarked(s.text), 20)}\" leans on outside evidence (\"{unmarked(m.group(0))}\") without naming it, "
                f"so the reader cannot check it or judge whether it applies here."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix="Cite the source (who, when, link) or drop the claim.",
        )
    return None
