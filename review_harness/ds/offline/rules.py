"""The offline reviewer's rule engine: rubric checklists as deterministic detectors.

``review_with_rules`` answers a reviewer prompt without a model. One engine serves every
dimension: the rubric says which lenses a dimension has and which issue types each lens owns
(its deduction rows); detectors are registered per issue type (the ``checks`` package, one
module per lens) and per credit (``strengths.py``). The engine runs the detectors of the
requested dimension's lenses, takes severity from the rubric row, applies draft mode, merges
duplicates, orders and caps findings per lens, rates each lens from its worst finding and picks
2-3 specific positives.

Document text is only ever matched against patterns: instructions inside a document
("ignore previous instructions...") are reviewed as text and change nothing else.
"""

from __future__ import annotations

import re

from review_harness.ds.models import (
    AUDIENCES,
    MODES,
    WORKFLOWS,
    LensAssessment,
    LensRating,
    Positive,
    ReviewerFinding,
    ReviewerReport,
    Severity,
)
from review_harness.ds.offline import checks as _checks  # noqa: F401  (registers detectors)
from review_harness.ds.offline import strengths as _strengths  # noqa: F401  (registers strengths)
from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.precision import checks_off
from review_harness.ds.offline.purpose import DEMONSTRATION
from review_harness.ds.positives import quotes_faulted
from review_harness.ds.offline.registry import (
    DETECTORS, STRENGTHS, Context, Detector, DetectorError, Hit, Strength, StrengthDetector,
)
from review_harness.ds.offline.view import DATA, METHOD, build_view
from review_harness.ds.offline.voice import reviewer_voice, without_voice
from review_harness.ds.rubric import Rubric, default_rubric

__all__ = ["review_with_rules", "rule_table", "CREDIT_LENS", "CREDIT_CONFLICTS"]


#: Lens a strength credit speaks to (credits are per dimension in the rubric).
CREDIT_LENS: dict[str, str] = {
    "sound_design": "methodology",
    "assumptions_explicit": "methodology",
    "traceable_reasoning": "logic",
    "uncertainty_reported": "metrics",
    "baselines_given": "metrics",
    "tldr_effective": "structure",
    "signpost_headings": "structure",
    "limitations_clear": "audience",
    "audience_calibrated": "audience",
    "actionable_recommendations": "actionability",
}

#: A credit is not given when a finding says the opposite.
CREDIT_CONFLICTS: dict[str, frozenset[str]] = {
    "sound_design": frozenset({"causal_claim_without_design", "method_cannot_answer_question", "selection_bias_unaddressed",
                               "early_stopping", "leakage", "covariate_imbalance_ignored"}),
    "uncertainty_reported": frozenset({"no_uncertainty", "sample_size_missing", "early_stopping"}),
    "assumptions_explicit": frozenset({"assumption_unstated"}),
    "baselines_given": frozenset({"metric_without_baseline"}),
    "traceable_reasoning": frozenset({"untraceable_number", "unsupported_conclusion", "conclusion_contradicts_results",
                                      "arithmetic_inconsistent", "guardrail_contradiction"}),
    "tldr_effective": frozenset({"tldr_missing", "weak_tldr", "buried_lede"}),
    "actionable_recommendations": frozenset({"no_recommendation", "recommendation_vague"}),
    "limitations_clear": frozenset({"limitations_missing", "overreach_unbounded"}),
    "signpost_headings": frozenset({"generic_headings", "no_structure"}),
    "audience_calibrated": frozenset({"jargon_unexplained", "wrong_detail_level", "handoff_risk"}),
}

#: Issue types a draft is not penalised for (seed: lighter on polish for drafts).
DRAFT_SKIPPED = frozenset({"polish", "visual_unclear", "appendix_in_body", "placeholder_left"})  # placeholders are expected


def rule_table(rubric: Rubric | None = None) -> dict[tuple[str, str], list[str]]:
    """(dimension, lens) -> issue types that have a detector, in rubric order."""
    rubric = rubric or default_rubric()
    return {
        (dim_id, lens.id): [row.id for row in lens.deductions if row.id in DETECTORS]
        for dim_id, dim in rubric.dimensions.items()
        for lens in dim.lenses
    }


def _run(detector: Detector | StrengthDetector, name: str, ctx: Context) -> Hit | list | Strength | None:
    """What one detector returns. A detector that raises has a bug: the review fails with its name
    and message (the offline provider then fails the model call) instead of reading as "no finding"."""
    try:
        return detector(ctx)
    except Exception as exc:
        raise DetectorError(f"offline rule {name!r} failed: {type(exc).__name__}: {exc}") from exc


def _as_list(result) -> list[Hit]:
    if result is None:
        return []
    if isinstance(result, Hit):
        return [result]
    return [h for h in result if isinstance(h, Hit)]


def _cap_severity(severity: Severity, draft: bool) -> Severity:
    if draft and severity == Severity.CRITICAL:
        return Severity.MAJOR
    return severity


def _evidence_ok(evidence: str, content: str) -> str:
    """Evidence must be a verbatim quote of the content; drop it rather than misquote."""
    ev = (evidence or "").strip()
    if not ev:
        return ""
    if ev in content:
        return ev
    squeezed = re.sub(r"\s+", " ", content)
    return ev if ev in squeezed else ""


def _finding(hit: Hit, lens_id: str, severity: Severity, draft: bool, content: str) -> ReviewerFinding:
    issue = hit.issue
    title = hit.title
    if draft and hit.absence:
        consider = hit.consider or "Consider adding this before the final version."
        issue = f"{consider} {issue}"
        if hit.consider:
            words = hit.consider.rstrip(".").split()
            title = " ".join(words[:12])
    return ReviewerFinding(
        lens=lens_id,
        severity=severity,
        title=title,
        location=hit.location or "whole document",
        issue=issue,
        evidence=_evidence_ok(hit.evidence, content),
        suggested_fix=hit.suggested_fix,
        issue_type=hit.issue_type,
    )


_EXTERNAL_SOURCE = re.compile(r"https?://|\[\^\d+\]|\bdoi:|\baccording to\b|\bet al\.|[A-Z][a-z]+,? \((?:19|20)\d\d\)|\bsources?:", re.I)


def lenses_not_assessed(ctx: Context) -> dict[str, str]:
    """Lenses the rules cannot judge on this document, rated NOT ASSESSED rather than SOUND when
    nothing is found under them, each with one line on what a person should check: whether cited
    sources say what the document says they say (completeness, when it cites sources); a method the
    rules cannot check (a Bayesian structural time series, a survival model, a comparison of
    forecasts, a fitted model: purpose.py), or no method they recognise (methodology)."""
    f = ctx.features
    out: dict[str, str] = {}
    if ctx.dimension == "communication" and f.purpose.kind == DEMONSTRATION:
        what = f"a worked example of a method or tool ({f.purpose.because(ctx.view)})"
        out["structure"] = f"{what}: check that it says up front what it shows and what the reader will be able to do"
        out["actionability"] = f"{what}: no decision rests on it; check that it says when to use the method and when not"
        out["audience"] = f"{what}: check that it states the method's assumptions and where it does not apply"
    if ctx.dimension != "analysis":
        return out
    if _EXTERNAL_SOURCE.search(ctx.view.text) or re.search(r"https?://", ctx.view.content):  # not code: "get_look(4410)"
        out["completeness"] = "check that each source the document cites says what the document says it does"
    method = f.unchecked_method
    if method is not None:
        out["methodology"] = f"{method.name} (the rules cannot check it): {method.check}"
    elif f.design is None and f.comparison_design is None and not f.method_present:
        out["methodology"] = "no method the rules recognise: check how the numbers were produced and what they are compared with"
    return out


def _fallback_positives(ctx: Context, dimension: str, have: int) -> list[Positive]:
    """A strength with its evidence when the credit detectors found fewer than two: the question the
    document states, quoted. Nothing generic ("results are quantified", "shared for review"): a
    positive names what this document does well, or is not given."""
    f = ctx.features
    v = ctx.view
    out: list[Positive] = []
    if dimension == "analysis" and f.question is not None:
        s, m = f.question
        out.append(Positive(title="Clear question stated", detail=f"The document says what it set out to answer: \"{v.quote(s, m, 20)}\"."))
    return out[: max(0, 3 - have)]


def review_with_rules(
    dimension: str,
    content: str,
    *,
    mode: str = "full",
    audience: str = "mixed",
    workflow: str = "general",
    tier: int = 1,
    draft: bool = False,
    rubric: Rubric | None = None,
    off: frozenset[str] | None = None,
) -> ReviewerReport:
    """Review ``content`` (a document or a tier 3 extraction) for one rubric dimension. ``off``: the
    checks left out (default: those off by default, prompts/ds/offline_checks.yaml)."""
    rubric = rubric or default_rubric()
    dim = rubric.dimension(dimension)  # an unknown dimension is a caller error: raise
    mode = mode if mode in MODES else "full"
    audience = audience if audience in AUDIENCES else "mixed"
    workflow = workflow if workflow in WORKFLOWS else "general"
    content = content if isinstance(content, str) else ("" if content is None else str(content))
    # text that speaks as a reviewer is content, never evidence: the rules read the document without it
    voice = reviewer_voice(content)
    view = build_view(without_voice(content, voice))
    ctx = Context(view=view, dimension=dimension, mode=mode, audience=audience, workflow=workflow, tier=tier,
                  draft=bool(draft), voice=voice)
    cap = int(rubric.scoring.finding_caps.get(mode, 3 if mode == "full" else 2))

    findings: list[ReviewerFinding] = []
    ratings: list[LensAssessment] = []
    emitted: set[str] = set()
    unassessable = lenses_not_assessed(ctx)
    off = checks_off() if off is None else off
    deductions = 0.0
    for lens in dim.lenses:
        ranked: list[tuple[int, float, int, ReviewerFinding, float]] = []
        seen_types: set[tuple[str, str]] = set()
        checked = False
        for order, row in enumerate(lens.deductions):
            detector = DETECTORS.get(row.id)
            if detector is None or row.id in off or (draft and row.id in DRAFT_SKIPPED):
                continue
            checked = True
            hits = _as_list(_run(detector, row.id, ctx))
            for hit in sorted(hits, key=lambda h: -h.strength):
                if (row.id, hit.evidence) in seen_types:
                    continue  # the same problem at the same place is one finding; a check that lists several
                    # (two different sums that do not add up) reports each where it is
                seen_types.add((row.id, hit.evidence))
                hit.issue_type = row.id
                severity = _cap_severity(row.severity, ctx.draft)
                points = row.points if severity == row.severity else rubric.severity_points(severity)
                finding = _finding(hit, lens.id, severity, ctx.draft, content)
                ranked.append((severity.rank, -hit.strength, order, finding, points))
        ranked.sort(key=lambda t: (t[0], t[1], t[2]))
        kept = ranked[:cap]
        for _, _, _, finding, points in kept:
            findings.append(finding)
            emitted.add(finding.issue_type or "")
            deductions += points
        worst = min((f.severity for _, _, _, f, _ in kept), key=lambda s: s.rank, default=None)
        rating = LensRating.for_severity(worst)
        note = None
        if worst is None and lens.id in unassessable:
            rating, note = LensRating.NOT_ASSESSED, unassessable[lens.id]
        elif worst is None and not checked:  # no rule ran under this lens: nothing was checked, so nothing is sound
            rating, note = LensRating.NOT_ASSESSED, f"no rule check covers {lens.title.lower()}: a person should read for it"
        ratings.append(LensAssessment(lens=lens.id, rating=rating, note=note))

    findings.sort(key=lambda f: f.severity.rank)  # stable: lens order kept within a severity

    positives: list[Positive] = []
    found: list[Strength] = []
    for credit in dim.credits:
        detector = STRENGTHS.get(credit.id)
        if detector is None or emitted & CREDIT_CONFLICTS.get(credit.id, frozenset()):
            continue
        s = _run(detector, credit.id, ctx)
        if s is not None:
            s.credit = credit.id
            found.append(s)
    found.sort(key=lambda s: -s.strength)
    faulted = [x.evidence for x in findings if x.evidence]
    found = [s for s in found if not quotes_faulted(s.detail, faulted)]  # never praise what a finding faults
    for s in found[:3]:
        positives.append(Positive(title=s.title, detail=s.detail, lens=CREDIT_LENS.get(s.credit), credit=s.credit))
    toc = lx.TOC_LINE.search(view.content) if dimension == "communication" else None
    if toc and len(positives) < 3:  # seed 000 s5.3: a contents list is a structure signal
        positives.append(Positive(
            title="Table of contents up front",
            detail=f"The page opens with a contents list (\"{toc.group(0).strip()[:80]}\"), so the reader sees its "
                   "structure before reading.", lens="structure"))
    if len(positives) < 2:
        positives.extend(p for p in _fallback_positives(ctx, dimension, len(positives)) if not quotes_faulted(p.detail, faulted))
    seen_titles: set[str] = set()
    positives = [p for p in positives if not (p.title in seen_titles or seen_titles.add(p.title))][:3]

    score = int(round(max(0.0, min(100.0, 100.0 - deductions))))
    return ReviewerReport(dimension=dimension, lens_ratings=ratings, findings=findings, positives=positives, score=score)
