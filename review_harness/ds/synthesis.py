"""Lead synthesis (seed 000 s8): reviewer reports in, one ``Review`` out.

Handles the failure paths of s3.4 too: one reviewer missing gives a partial review scored on
the dimension that was reviewed; none gives a deferred review with no score.
"""

from __future__ import annotations

from collections import defaultdict

from rapidfuzz import fuzz

from review_harness.ds.models import (
    DashboardRow,
    DimensionResult,
    DocumentInfo,
    Finding,
    Review,
    ReviewerReport,
    ReviewerRun,
    Severity,
    SynthesizedPositive,
)
from review_harness.ds.rubric import Dimension, Rubric
from review_harness.ds import scoring

DEFER_MESSAGE = (
    "This review could not be completed: no reviewer returned a usable report. "
    "Run the review again; if it keeps failing, check the model provider (see the warnings) "
    "or try -T mode=quick."
)
CROSS_CUTTING_SIMILARITY = 72


def _cap_findings(
    report: ReviewerReport, dimension: Dimension, cap: int, draft: bool, warnings: list[str]
) -> list:
    by_lens: dict[str, list] = defaultdict(list)
    for finding in report.findings:
        if draft and finding.severity == Severity.CRITICAL:
            finding = finding.model_copy(update={"severity": Severity.MAJOR})
        by_lens[finding.lens].append(finding)
    kept = []
    for lens in dimension.lenses:
        ranked = sorted(by_lens.get(lens.id, []), key=lambda f: f.severity.rank)
        if len(ranked) > cap:
            warnings.append(
                f"{dimension.title} / {lens.title}: kept the {cap} most severe of {len(ranked)} findings (cap per lens)"
            )
        kept.extend(ranked[:cap])
    return kept


def _dimension_result(
    dimension: Dimension,
    report: ReviewerReport | None,
    rubric: Rubric,
    mode: str,
    draft: bool,
    warnings: list[str],
) -> tuple[DimensionResult, list[Finding]]:
    if report is None:
        return DimensionResult(dimension=dimension.id, title=dimension.title, reviewed=False), []
    raw_findings = _cap_findings(report, dimension, rubric.scoring.finding_caps[mode], draft, warnings)
    prefix = dimension.id[0].upper()
    findings = [
        Finding(
            **f.model_dump(),
            id="",
            dimension=dimension.id,
            deduction=scoring.finding_deduction(f, dimension, rubric),
        )
        for f in raw_findings
    ]
    findings = scoring.priority_order(findings)
    for n, finding in enumerate(findings, 1):
        finding.id = f"{prefix}{n}"
    reported = {r.lens: r.rating for r in report.lens_ratings}
    ratings = {
        lens.id: scoring.lens_rating(
            reported.get(lens.id), [f for f in findings if f.lens == lens.id]
        )
        for lens in dimension.lenses
    }
    earned = scoring.earned_credits(report.positives, dimension)
    score, raw, effective, credits = scoring.dimension_score(
        [(f.deduction, f.severity) for f in findings], list(earned.values()), rubric
    )
    result = DimensionResult(
        dimension=dimension.id,
        title=dimension.title,
        reviewed=True,
        score=None if draft else score,
        lens_ratings=ratings,
        raw_deductions=raw,
        effective_deductions=effective,
        credits=credits,
        credits_earned=earned,
        self_reported_score=report.score,
        status_label=scoring.dimension_status(findings),
    )
    return result, findings


def find_cross_cutting(findings: list[Finding]) -> list[str]:
    """Issues raised by both reviewers (same evidence, or closely similar wording)."""
    notes = []
    analysis = [f for f in findings if f.dimension == "analysis"]
    others = [f for f in findings if f.dimension != "analysis"]
    for a in analysis:
        for c in others:
            same_evidence = bool(a.evidence) and (
                a.evidence in c.evidence or c.evidence in a.evidence
            ) and min(len(a.evidence), len(c.evidence)) >= 20
            similar = fuzz.token_set_ratio(f"{a.title} {a.issue}", f"{c.title} {c.issue}")
            if same_evidence or similar >= CROSS_CUTTING_SIMILARITY:
                notes.append(
                    f"{a.id} / {c.id}: \"{a.title}\" touches both the analysis and how it is communicated "
                    f"(see also \"{c.title}\")."
                )
    return notes


def synthesize(
    document: DocumentInfo,
    reports: dict[str, ReviewerReport | None],
    runs: list[ReviewerRun],
    rubric: Rubric,
    *,
    requested_mode: str,
    mode: str,
    audience: str,
    workflow: str,
    draft: bool = False,
    degradation_level: int = 0,
    warnings: list[str] | None = None,
    prompt_version: str = "",
    prompt_prefix_hashes: dict[str, str] | None = None,
) -> Review:
    warnings = list(warnings or [])
    dimensions: dict[str, DimensionResult] = {}
    findings: list[Finding] = []
    positives: dict[str, list] = {}
    for dim_id, dimension in rubric.dimensions.items():
        result, dim_findings = _dimension_result(
            dimension, reports.get(dim_id), rubric, mode, draft, warnings
        )
        dimensions[dim_id] = result
        findings.extend(dim_findings)
        report = reports.get(dim_id)
        positives[dim_id] = list(report.positives) if report else []

    reviewed = [d for d in dimensions.values() if d.reviewed]
    salvaged = [r for r in runs if r.status == "salvaged"]
    if not reviewed:
        status = "deferred"
        degradation_level = 2
        warnings.append(DEFER_MESSAGE)
    elif len(reviewed) < len(dimensions) or salvaged:
        status = "partial"
        for d in dimensions.values():
            if not d.reviewed:
                run = next((r for r in runs if r.dimension == d.dimension), None)
                why = f": {run.reason}" if run and run.reason else ""
                warnings.append(
                    f"{d.title} dimension not reviewed{why}. The score covers the reviewed dimension only."
                )
        for run in salvaged:
            warnings.append(
                f"{run.reviewer} output was incomplete ({run.reason}); used what could be parsed - partial review."
            )
    else:
        status = "complete"

    final = None
    band = verdict = floor_note = None
    if status != "deferred" and not draft:
        final = scoring.final_score(
            {d: r.score for d, r in dimensions.items()}, rubric.scoring.weights
        )
        band = scoring.band_verdict(final, rubric)
        verdict, floor_note = scoring.apply_floor_rules(band, findings, rubric)
        if status == "partial" and verdict == scoring.GOOD_TO_GO:
            # a review that did not fully happen must never read as a clean pass
            verdict = scoring.MINOR_FIX
            floor_note = (
                "Partial review: part of the document was not reviewed, so the verdict is capped "
                "at Minor Fix until a complete review confirms it."
            )

    dashboard = [
        DashboardRow(
            dimension=dimension.title,
            lens=lens.id,
            lens_title=lens.title,
            rating=dimensions[dim_id].lens_ratings.get(lens.id, "Not reviewed")
            if dimensions[dim_id].reviewed
            else "Not reviewed",
        )
        for dim_id, dimension in rubric.dimensions.items()
        for lens in dimension.lenses
    ]
    chosen = scoring.select_positives(positives)
    return Review(
        document=document,
        mode=mode,
        requested_mode=requested_mode,
        audience=audience,
        workflow=workflow,
        draft=draft,
        status=status,
        degradation_level=degradation_level,
        tier=document.tier,
        dimensions=dimensions,
        findings=findings,
        top_fixes=scoring.select_top_fixes(findings),
        positives=[SynthesizedPositive(**p.model_dump(), dimension=d) for d, p in chosen],
        cross_cutting=find_cross_cutting(findings),
        dashboard=dashboard,
        final_score=final,
        band_verdict=band,
        verdict=verdict,
        floor_rule=floor_note,
        warnings=warnings,
        reviewer_runs=runs,
        prompt_version=prompt_version,
        prompt_prefix_hashes=prompt_prefix_hashes or {},
        rubric_version=rubric.version,
    )

