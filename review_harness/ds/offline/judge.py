"""The offline judge: deterministic answers to the judge and matcher prompts
(``prompts/ds/judge.v1.j2``, ``prompts/ds/matcher.v1.j2``), so the LLM-as-judge scorer, the LLM
matcher path and the judge meta-eval run with no API key (``--model-role grader=offline/judge``).

It reads only the structured blocks of the prompt (gold findings, review findings and
ratings, the document) and rates what it can compute honestly:

* finding accuracy: F1 of the deterministic matcher (review_harness.ds.matching) against the
  gold; a finding whose evidence quote is not in the document counts as invented (never a
  true positive); an unmatched but grounded finding gets half credit, since it may be a real
  issue the gold does not list;
* coverage: share of gold findings caught, must-catch and severe ones weighted up, at most
  5/10 when a must-catch finding is missed;
* severity calibration: severity distance over matched pairs;
* actionability: whether each suggested fix is concrete (a number, a quote, an example, a
  named part of the document or artefact, enough words; vague verbs alone do not count);
* consistency, internal only: duplicated findings, lens ratings without findings, a verdict
  that ignores a CRITICAL finding, self-reported scores far from the computed ones.

Limits: it cannot tell whether an unmatched finding is a real issue the gold missed, whether a
fix would actually solve the problem, or whether a finding's reasoning is sound; its matching
is lexical (lens, wording, keywords, evidence overlap), so a correct finding in unusual words
can go unmatched. It never reads the report's prose, which is why flattering or self-praising
language cannot move it, and equally why it cannot credit a well-argued review. Across-run
consistency is left to the epoch reducer. It is a stand-in that makes the pipeline testable
offline and a baseline for the meta-eval, not a substitute for an LLM judge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from review_harness.core.matching import normalize_space
from review_harness.ds.gold import GoldFinding
from review_harness.ds.judge import (
    JUDGE_TASK,
    MATCHER_TASK,
    SCALE,
    DimensionJudgement,
    JudgeAnswer,
    JudgedReview,
    MatcherAnswer,
    MatchPair,
    judge_task_of,
    read_block,
)
from review_harness.ds.matching import Match, match_findings
from review_harness.ds.models import Finding, LensRating, Severity

SEVERITY_WEIGHT = {Severity.CRITICAL: 3.0, Severity.MAJOR: 2.0, Severity.MINOR: 1.0}
QUOTE_MATCH = 92  # partial_ratio for a quote with small differences (punctuation, markup)
SELF_SCORE_GAP = 15  # points between self-reported and computed score that count as inflated
DUPLICATE_SIMILARITY = 90

_NUMBER = re.compile(r"\d")
_QUOTE = re.compile(r"[\"“”‘’`]|'[^']{3,}'")
_EXAMPLE = re.compile(r"\b(e\.g\.|for example|for instance|such as)", re.IGNORECASE)
_ARTEFACT = re.compile(
    r"\b(tl;dr|summary|section|heading|table|chart|figure|appendix|paragraph|column|row|"
    r"footnote|glossary|caveats?|limitations|owner|date|interval|baseline|control|holdout|"
    r"sample size|test|dashboard|notebook)\b",
    re.IGNORECASE,
)
_VAGUE = re.compile(
    r"\b(consider|maybe|perhaps|could|might|improve|clarify|clearer|more detail|revisit|"
    r"think about|look into|polish|strengthen)\b",
    re.IGNORECASE,
)


def _plain(text: str) -> str:
    return normalize_space(re.sub(r"[*_`]", "", text)).lower()


def evidence_in_document(evidence: str, document: str) -> bool:
    """True when the quote occurs in the document (markup and spacing ignored); an empty
    quote (a finding about something absent) is not a claim about the text."""
    quote = _plain(evidence).strip(" .…")
    if not quote:
        return True
    text = _plain(document)
    return quote in text or fuzz.partial_ratio(quote, text) >= QUOTE_MATCH


def _rating(score: float, reason: str) -> DimensionJudgement:
    return DimensionJudgement(score=round(max(0.0, min(SCALE, score)), 1), reason=reason)


def _ids(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "none"


def _accuracy(
    findings: Sequence[Finding], gold: Sequence[GoldFinding], matched: dict[str, str], invented: set[str]
) -> DimensionJudgement:
    if not findings and not gold:
        return _rating(SCALE, "No findings on a document with no expected issues: nothing false, nothing missed.")
    credit = {f.id: 1.0 if f.id in matched else 0.0 if f.id in invented else 0.5 for f in findings}
    weight = {f.id: SEVERITY_WEIGHT[f.severity] for f in findings}
    precision = sum(credit[i] * weight[i] for i in credit) / sum(weight.values()) if findings else 1.0
    recall = len(matched) / len(gold) if gold else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    unverified = [f.id for f in findings if credit[f.id] == 0.5]
    return _rating(
        SCALE * f1,
        f"{len(matched)} of {len(findings)} findings match the {len(gold)} gold findings "
        f"(precision {precision:.2f} with unmatched findings at half credit, recall {recall:.2f}); "
        f"evidence not in the document: {_ids(sorted(invented))}; unverified: {_ids(unverified)}.",
    )


def _coverage(gold: Sequence[GoldFinding], matched_gold: set[str]) -> DimensionJudgement:
    if not gold:
        return _rating(SCALE, "The document has no expected findings to cover.")
    weight = {g.id: SEVERITY_WEIGHT[g.severity] * (2 if g.must_catch else 1) for g in gold}
    share = sum(weight[g] for g in matched_gold) / sum(weight.values())
    missed_must = [g.id for g in gold if g.must_catch and g.id not in matched_gold]
    score = SCALE * share
    if missed_must:
        score = min(score, SCALE / 2)
    return _rating(
        score,
        f"Caught {len(matched_gold)} of {len(gold)} gold findings (weighted share {share:.2f}); "
        f"missed must-catch: {_ids(missed_must)}.",
    )


def _severity(matches: Sequence[Match], findings: dict[str, Finding], gold: dict[str, GoldFinding]) -> DimensionJudgement:
    if not matches:
        if not gold and not any(f.severity != Severity.MINOR for f in findings.values()):
            return _rating(SCALE, "No expected issues and no severe findings: nothing is mis-rated.")
        return _rating(SCALE / 2, "No finding corresponds to a gold finding, so calibration cannot be shown.")
    agreement = [
        1 - abs(findings[m.finding].severity.rank - gold[m.gold].severity.rank) / 2 for m in matches
    ]
    off = [
        f"{m.finding} {findings[m.finding].severity.value} vs {m.gold} {gold[m.gold].severity.value}"
        for m in matches
        if not m.severity_agrees
    ]
    return _rating(
        SCALE * sum(agreement) / len(agreement),
        f"{len(matches) - len(off)} of {len(matches)} matched findings have the gold severity; off: {_ids(off)}.",
    )


def fix_concreteness(fix: str) -> float:
    """0-1: how concrete a suggested fix is, from surface signals only."""
    words = len(fix.split())
    if words == 0:
        return 0.0
    signals = sum(
        bool(pattern.search(fix)) for pattern in (_NUMBER, _QUOTE, _EXAMPLE, _ARTEFACT)
    )
    score = 0.2 + (0.2 if words >= 12 else 0.0) + 0.2 * min(signals, 3)
    if signals == 0 and _VAGUE.search(fix):
        score = min(score, 0.2)
    return min(score, 1.0)


def _actionability(findings: Sequence[Finding], gold: Sequence[GoldFinding], invented: set[str]) -> DimensionJudgement:
    if not findings:
        if not gold:
            return _rating(SCALE, "Nothing needed fixing and nothing was asked of the author.")
        return _rating(0, "The review gives the author nothing to act on although the document has known issues.")
    per_finding = {f.id: 0.0 if f.id in invented else fix_concreteness(f.suggested_fix) for f in findings}
    vague = [i for i, s in per_finding.items() if s < 0.5 and i not in invented]
    return _rating(
        SCALE * sum(per_finding.values()) / len(per_finding),
        f"Concrete fixes (number, quote, example, named part) for {len(findings) - len(vague) - len(invented)} "
        f"of {len(findings)} findings; vague: {_ids(vague)}; fixes for invented problems count zero: "
        f"{_ids(sorted(invented))}.",
    )


def _consistency(review: JudgedReview) -> DimensionJudgement:
    problems: list[tuple[float, str]] = []
    findings = review.findings
    for i, a in enumerate(findings):
        for b in findings[i + 1 :]:
            same_quote = bool(a.evidence) and _plain(a.evidence) == _plain(b.evidence) and a.lens == b.lens
            same_text = fuzz.token_set_ratio(f"{a.title} {a.issue}", f"{b.title} {b.issue}") >= DUPLICATE_SIMILARITY
            if same_quote or same_text:
                problems.append((2, f"{a.id} and {b.id} repeat one finding"))
    for view in review.dimensions:
        for lens, rating in view.lens_ratings.items():
            under = [f for f in findings if f.dimension == view.dimension and f.lens == lens]
            if rating == LensRating.SOUND and under:
                problems.append((2, f"{view.dimension}/{lens} rated SOUND over {len(under)} finding(s)"))
            elif rating.rank >= LensRating.MAJOR_ISSUES.rank and not under:
                problems.append((1, f"{view.dimension}/{lens} rated {rating.value} with no finding"))
        if view.score is not None and view.self_reported_score is not None:
            gap = view.self_reported_score - view.score
            if abs(gap) > SELF_SCORE_GAP:
                problems.append(
                    (2, f"{view.dimension} self-reported {view.self_reported_score} vs computed {view.score:g}")
                )
    if review.verdict == "Good to Go" and any(f.severity == Severity.CRITICAL for f in findings):
        problems.append((3, "verdict Good to Go despite a CRITICAL finding"))
    penalty = sum(p for p, _ in problems)
    reason = "; ".join(text for _, text in problems) or "no internal contradictions found"
    return _rating(
        SCALE - penalty,
        f"One run, so internal consistency only: {reason}.",
    )


def judge_review_offline(document: str, review: JudgedReview, gold: Sequence[GoldFinding]) -> JudgeAnswer:
    invented = {f.id for f in review.findings if not evidence_in_document(f.evidence, document)}
    grounded = [f for f in review.findings if f.id not in invented]
    matches = match_findings(grounded, gold)
    matched = {m.finding: m.gold for m in matches}
    return JudgeAnswer(
        finding_accuracy=_accuracy(review.findings, gold, matched, invented),
        severity_calibration=_severity(matches, {f.id: f for f in review.findings}, {g.id: g for g in gold}),
        coverage=_coverage(gold, set(matched.values())),
        actionability=_actionability(review.findings, gold, invented),
        consistency=_consistency(review),
    )


def _gold(prompt: str) -> list[GoldFinding]:
    return [GoldFinding.model_validate(g) for g in json.loads(read_block(prompt, "gold_findings") or "[]")]


def answer_offline(prompt: str) -> str | None:
    """The JSON answer to a judge or matcher prompt; None for any other prompt."""
    task = judge_task_of(prompt)
    if task == JUDGE_TASK:
        review = JudgedReview.model_validate_json(read_block(prompt, "review_data") or "{}")
        review.report = read_block(prompt, "review_report") or ""
        answer = judge_review_offline(read_block(prompt, "document") or "", review, _gold(prompt))
        return answer.model_dump_json(indent=1)
    if task == MATCHER_TASK:
        findings = [Finding.model_validate(f) for f in json.loads(read_block(prompt, "review_findings") or "[]")]
        matches = match_findings(findings, _gold(prompt))
        return MatcherAnswer(
            matches=[MatchPair(finding_id=m.finding, gold_id=m.gold) for m in matches]
        ).model_dump_json(indent=1)
    return None
