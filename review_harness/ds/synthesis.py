"""Lead synthesis (seed 000 s8): reviewer reports in, one ``Review`` out.

Handles the failure paths of s3.4 too: one reviewer missing gives a partial review scored on
the dimension that was reviewed; none gives a deferred review with no score.
"""

from __future__ import annotations

import re
from collections import defaultdict

from rapidfuzz import fuzz

from review_harness.core.member import MemberRun
from review_harness.ds.models import (
    PanelRecord,
    LensRating,
    DashboardRow,
    DimensionResult,
    DocumentInfo,
    Finding,
    Review,
    ReviewerReport,
    Severity,
    SynthesizedPositive,
)
from review_harness.ds.rubric import Dimension, Rubric
from review_harness.ds import scoring
from review_harness.ds import domain_dim
from review_harness.ds.positives import positives_lost, unfaulted, withheld_note
from review_harness.ds.domain_dim import DomainInput
from review_harness.domain.dedup import DedupDecision

DEFER_MESSAGE = (
    "This review could not be completed: no reviewer returned a usable report. "
    "Run the review again; if it keeps failing, check the model provider (each reviewer's reason is listed) "
    "or try -T mode=quick."
)
# one issue seen by both reviewers: same quoted evidence, or very close wording
CROSS_CUTTING_SIMILARITY = 85


def reroute(
    reports: dict[str, ReviewerReport | None], rubric: Rubric, notes: list[str]
) -> dict[str, ReviewerReport | None]:
    """Findings a reviewer filed under another dimension's lens ("communication.structure")
    move to that dimension (the routing table gives every lens one owner), with a note."""
    routed = {d: (r.model_copy(update={"findings": [f for f in r.findings if "." not in f.lens]}) if r else None)
              for d, r in reports.items()}
    for dim_id, report in reports.items():
        if report is None:
            continue
        reviewer = rubric.dimension(dim_id).reviewer
        for finding in report.findings:
            if "." not in finding.lens:
                continue
            target_id, lens_id = finding.lens.split(".", 1)
            target = rubric.dimension(target_id)
            where = f"{target.title} / {target.lens(lens_id).title}"
            if routed.get(target_id) is None:
                notes.append(
                    f"{reviewer} filed \"{finding.title}\" under {where}; the {target.title} dimension was not "
                    "reviewed, so the finding is not scored."
                )
                continue
            routed[target_id].findings.append(finding.model_copy(update={"lens": lens_id}))
            notes.append(
                f"Re-routed \"{finding.title}\" from {reviewer} to {where}: that lens belongs to the "
                f"{target.title} dimension (routing table)."
            )
    return routed


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


DRAFT_STATUS = re.compile(r"\b(draft|wip|work in progress|in progress)\b", re.IGNORECASE)


def lighter_polish(findings: list, rubric: Rubric, status: str | None) -> int:
    """A page marked as a draft (its status macro or line): polish findings weigh as MINOR.
    Returns how many were lightened."""
    if not status or not DRAFT_STATUS.search(status):
        return 0
    n = 0
    for i, f in enumerate(findings):
        if f.issue_type in rubric.scoring.draft_status_polish and f.severity != Severity.MINOR:
            findings[i] = f.model_copy(update={"severity": Severity.MINOR})
            n += 1
    return n


def _dimension_findings(
    dimension: Dimension, report: ReviewerReport | None, rubric: Rubric, mode: str, draft: bool, warnings: list[str],
    status: str | None = None, notes: list[str] | None = None,
) -> list[Finding]:
    if report is None:
        return []
    if draft:  # placeholders (TODO, TBD) are expected in a draft: not a finding
        expected = [f for f in report.findings if f.issue_type == "placeholder_left"]
        if expected and notes is not None:
            notes.append(f"Placeholders (TODO, TBD) are expected in a draft: {len(expected)} finding(s) about them "
                         "are not counted.")
        report = report.model_copy(update={"findings": [f for f in report.findings if f.issue_type != "placeholder_left"]})
    raw_findings = _cap_findings(report, dimension, rubric.scoring.finding_caps[mode], draft, warnings)
    lightened = lighter_polish(raw_findings, rubric, status)
    if lightened and notes is not None:
        notes.append(f"The page is marked '{status}': {lightened} polish finding(s) of the {dimension.title} dimension "
                     "weigh as MINOR (drafts get lighter polish penalties).")
    prefix = dimension.id[0].upper()
    findings = [
        Finding(**f.model_dump(), id="", dimension=dimension.id, deduction=scoring.finding_deduction(f, dimension, rubric))
        for f in raw_findings
    ]
    findings = scoring.priority_order(findings)
    for n, finding in enumerate(findings, 1):
        finding.id = f"{prefix}{n}"
    return findings


def _dimension_result(
    dimension: Dimension, report: ReviewerReport | None, findings: list[Finding], rubric: Rubric, draft: bool,
    with_domain: bool = False, salvaged: bool = False,
) -> DimensionResult:
    if report is None:
        return DimensionResult(dimension=dimension.id, title=dimension.title, reviewed=False)
    # a salvaged answer rates only the lenses it reached (a rating or a finding parsed); the others
    # are "Not reviewed" in the dashboard
    reached = {r.lens for r in report.lens_ratings} | {f.lens for f in findings}
    ratings = {lens.id: scoring.lens_rating([f for f in findings if f.lens == lens.id]) for lens in dimension.lenses
               if not salvaged or lens.id in reached}
    # a lens the reviewer said it could not judge, with nothing found under it, is shown as that, not SOUND,
    # with what the reviewer said a person should check
    notes: dict[str, str] = {}
    for r in report.lens_ratings:
        if r.rating == LensRating.NOT_ASSESSED and ratings.get(r.lens) == LensRating.SOUND:
            ratings[r.lens] = LensRating.NOT_ASSESSED
            if r.note and r.note.strip():
                notes[r.lens] = r.note.strip()
    earned = scoring.earned_credits(report.positives, dimension)
    in_final, raw, effective, credits = scoring.dimension_score(
        [(f.deduction, f.severity) for f in findings], list(earned.values()), rubric,
        **scoring.recalibration(rubric, dimension.id, with_domain), clamp=False,
    )
    return DimensionResult(
        dimension=dimension.id,
        title=dimension.title,
        reviewed=True,
        score=None if draft else max(0.0, in_final),
        score_in_final=None if draft else in_final,
        lens_ratings=ratings,
        lens_notes=notes,
        raw_deductions=raw,
        effective_deductions=effective,
        credits=credits,
        credits_earned=earned,
        self_reported_score=report.score,
        status_label=scoring.dimension_status(findings),
    )


def _in_final(result: DimensionResult) -> float | None:
    """The value the final score takes for a dimension (below 0 for a recalibrated dimension whose
    deductions pass 100; shown as 0)."""
    return result.score if result.score_in_final is None else result.score_in_final


def _same_issue(a: Finding, c: Finding) -> float:
    shared = bool(a.evidence) and bool(c.evidence) and min(len(a.evidence), len(c.evidence)) >= 20 and (
        a.evidence in c.evidence or c.evidence in a.evidence
    )
    similarity = fuzz.token_set_ratio(f"{a.title} {a.issue}", f"{c.title} {c.issue}")
    # quoting the same sentence is not enough: two different issues often quote one headline
    return similarity + (30.0 if shared else 0.0)


_VERDICT_RANK = [scoring.GOOD_TO_GO, scoring.MINOR_FIX, scoring.MAJOR_REWORK]


def _weigher(reports: dict[str, ReviewerReport | None], rubric: Rubric, with_domain: bool):
    """How bad a review is with the DS findings' current deductions: (verdict rank, -final score)
    (the domain dimension, the same whichever copy of a cross-cutting issue is charged, counts at
    a constant 100 so the weights are the review's)."""
    earned = {d: list(scoring.earned_credits(reports[d].positives, rubric.dimension(d)).values())
              for d in rubric.dimensions if reports.get(d) is not None}

    def weigh(findings: list[Finding]) -> tuple[int, float]:
        scores = {d: scoring.dimension_score([(f.deduction, f.severity) for f in findings if f.dimension == d],
                                             credits, rubric, **scoring.recalibration(rubric, d, with_domain),
                                             clamp=False)[0]
                  for d, credits in earned.items()}
        if with_domain:
            scores["domain"] = 100.0
        final = scoring.review_score(rubric, scores)[0] or 0.0
        charged = [f for f in findings if f.deduction > 0 and not f.merged_into]
        verdict, _ = scoring.apply_floor_rules(scoring.band_verdict(final, rubric), charged, rubric)
        return _VERDICT_RANK.index(verdict), -final

    return weigh


def find_cross_cutting(findings: list[Finding], weigh=None) -> list[str]:
    """One issue raised by both reviewers (the same quoted evidence, or very close wording),
    paired one to one. The issue is deducted once: the other copy is set to 0 (it still shows in
    its lens, marked as the same issue). Which copy keeps the deduction: `weigh(findings)`, the
    review's (verdict rank, final score) with the findings' current deductions, picks the copy
    whose deduction leaves the worse review (the verdict first, then the lower score; a tie, or
    no `weigh`: the larger deduction), so raising an issue a second time never lifts a score."""
    analysis = [f for f in findings if f.dimension == "analysis"]
    others = [f for f in findings if f.dimension != "analysis"]
    pairs = sorted(
        ((_same_issue(a, c), a, c) for a in analysis for c in others),
        key=lambda t: -t[0],
    )
    used: set[str] = set()
    notes = []
    for strength, a, c in pairs:
        if strength < CROSS_CUTTING_SIMILARITY or a.id in used or c.id in used:
            continue
        used |= {a.id, c.id}
        keep, drop = (a, c) if a.deduction >= c.deduction else (c, a)
        if weigh is not None:
            keep_points, drop_points = keep.deduction, drop.deduction
            drop.deduction = 0.0
            as_kept = weigh(findings)
            keep.deduction, drop.deduction = 0.0, drop_points
            as_swapped = weigh(findings)
            keep.deduction = keep_points
            if as_swapped > as_kept:
                keep, drop = drop, keep
        drop.deduction = 0.0
        notes.append(
            f"{a.id} / {c.id}: one issue that affects both the analysis and how it is communicated "
            f"(\"{keep.title}\"); deducted once, under {keep.id}."
        )
    return notes


def lead_positives(
    dimensions: dict[str, DimensionResult], rubric: Rubric, count: int = 3
) -> list[SynthesizedPositive]:
    """When the reviewers' positives were lost (cut off or unparseable), the lead writes its own
    from what the review established: lenses rated SOUND (seed s3.5)."""
    out = []
    for dim_id, result in dimensions.items():
        if not result.reviewed:
            continue
        dimension = rubric.dimension(dim_id)
        for lens in dimension.lenses:
            if result.lens_ratings.get(lens.id) == LensRating.SOUND and len(out) < count:
                out.append(SynthesizedPositive(
                    title=f"{lens.title}: nothing to fix",
                    detail=(f"The {dimension.title.lower()} review found no issue under {lens.title}. "
                            "(Written by the lead: the reviewers' own positives were lost.)"),
                    lens=lens.id, dimension=dim_id,
                ))
                break
    return out


def unscored_items(member: str, run: MemberRun, items: list[str]) -> str:
    """The warning for a member whose answer was malformed: what parsed is named, not scored."""
    what = f"{len(items)} item(s) that parsed are not scored: " + "; ".join(f'"{i}"' for i in items) if items \
        else "nothing in it could be used"
    return f"{member} {run.describe()}; {what}."


def _parsed_items(report: ReviewerReport) -> list[str]:
    return [f"{f.severity.value} {f.title}" for f in report.findings] + \
        [f"{r.lens}: {r.rating.value}" for r in report.lens_ratings]


def dimension_of_run(rubric: Rubric, member: str) -> str | None:
    return next((d for d, dim in rubric.dimensions.items() if dim.reviewer == member), None)


def usable_salvage(report: ReviewerReport | None) -> bool:
    """What parsed of a cut-off or malformed answer is worth scoring: at least one finding or
    lens rating (the reviewer's output is ordered, CRITICAL findings first)."""
    return report is not None and bool(report.findings or report.lens_ratings)


def salvage_warning(member: str, run: MemberRun, report: ReviewerReport, dimension: Dimension) -> str:
    """A reviewer scored from what parsed of its answer: what counts, and what was lost."""
    rated = {r.lens for r in report.lens_ratings} | {f.lens for f in report.findings}
    unassessed = [lens.title for lens in dimension.lenses if lens.id not in rated]
    lost = []
    if unassessed:
        lost.append(f"any finding under {', '.join(unassessed)} (no rating or finding parsed: 'Not reviewed')")
    lost.append("findings after the last one that parsed (the answer lists the most severe first)")
    if not report.positives:
        lost.append("its positives")
    n, r = len(report.findings), len(report.lens_ratings)
    kept = (f"the {n} finding(s) that parsed are scored (marked salvaged)" if n
            else f"no finding parsed; its {r} lens rating(s) stand")
    return f"{member} {run.describe()}; partial review: {kept}; lost: {'; '.join(lost)}."


def _charge_dedup_pairs(
    by_dim: dict[str, list[Finding]], reports: dict[str, ReviewerReport | None], absorbed: dict[str, list[Finding]],
    domain: DomainInput | None, rubric: Rubric, draft: bool,
) -> set[str]:
    """Where each dedup pair (a domain finding and the analysis findings it absorbed) is deducted:
    the domain finding ids charged in the domain dimension; the others are charged under analysis.
    Each pair goes where it lowers the final score more (starting from every pair under analysis,
    so the three-dimension score is never above the two-dimension score of the same reports)."""
    if not absorbed or domain is None or draft:
        return set()
    domain_rubric = domain_dim.default_domain_rubric()
    earned = {d: list(scoring.earned_credits(reports[d].positives, rubric.dimension(d)).values())
              for d in rubric.dimensions if reports.get(d) is not None}
    with_domain = scoring.uses_domain_weights(rubric, [*earned, "domain"])

    def final(charged: set[str]) -> float:
        scores = {d: scoring.dimension_score(
            [(0.0 if f.merged_into in charged else f.deduction, f.severity) for f in by_dim[d]], earned[d], rubric,
            **scoring.recalibration(rubric, d, with_domain), clamp=False)[0]
            for d in earned}
        scores["domain"] = domain_dim.domain_score(domain, rubric, domain_rubric, set(absorbed) - charged, with_domain)
        return scoring.review_score(rubric, scores)[0] or 0.0

    charged: set[str] = set()
    for domain_id in absorbed:
        if final(charged | {domain_id}) < final(charged):
            charged.add(domain_id)
    return charged


def synthesize(
    document: DocumentInfo,
    reports: dict[str, ReviewerReport | None],
    runs: list[MemberRun],
    rubric: Rubric,
    *,
    salvaged: dict[str, ReviewerReport] | None = None,
    requested_mode: str,
    mode: str,
    audience: str,
    workflow: str,
    draft: bool = False,
    degradation_level: int = 0,
    warnings: list[str] | None = None,
    prompt_version: str = "",
    prompt_prefix_hashes: dict[str, str] | None = None,
    domain: DomainInput | None = None,
) -> Review:
    """`domain`: the domain dimension's inputs (only with -T domain=); None is the two-dimension
    review, unchanged. `runs` are the reviewers' member runs: only a `complete` one has a report;
    `salvaged` holds what parsed of a malformed or cut-off answer: of a cut-off one, a finding or a
    lens rating is scored (its findings marked salvaged) in a partial review whose warning says what
    was lost; of an answer broken in the middle, it is named in the warnings, not scored."""
    warnings = list(warnings or [])
    notes: list[str] = []
    reports = dict(reports)
    # a reviewer whose answer was cut off at the output limit after its retry: what parsed counts
    # (seed 000 s3.4: use what is available and say the review is partial); an answer broken in the
    # middle (invalid JSON) is not trusted: what parsed of it is named in the warnings, not scored
    cut_off = {dimension_of_run(rubric, r.member) for r in runs if r.status == "malformed" and r.truncated}
    salvaged_dims = {d for d in rubric.dimensions
                     if d in cut_off and reports.get(d) is None and usable_salvage((salvaged or {}).get(d))}
    for d in salvaged_dims:
        reports[d] = salvaged[d]
    reports = reroute(reports, rubric, notes)
    by_dim: dict[str, list[Finding]] = {}
    for dim_id, dimension in rubric.dimensions.items():
        by_dim[dim_id] = _dimension_findings(dimension, reports.get(dim_id), rubric, mode, draft, warnings,
                                             document.status, notes)
        if dim_id in salvaged_dims:
            for f in by_dim[dim_id]:
                f.salvaged = True
    decisions: list[DedupDecision] = []
    if domain is not None and domain.reviewed and "analysis" in by_dim:
        decisions, dedup_notes = domain_dim.apply_dedup(by_dim["analysis"], domain, domain_dim.default_domain_rubric())
        notes += dedup_notes
    findings: list[Finding] = [f for fs in by_dim.values() for f in fs]
    with_domain = scoring.uses_domain_weights(
        rubric, [d for d in rubric.dimensions if reports.get(d) is not None]
        + (["domain"] if domain is not None and domain.reviewed else []))
    cross_cutting = find_cross_cutting(findings, _weigher(reports, rubric, with_domain))
    # one issue, counted once by the floor rules: a cross-cutting copy (deduction 0) and a merged
    # analysis finding are left out; its domain version counts at the worse of the two severities
    floor_findings = [f for f in findings if f.deduction > 0 and not f.merged_into]
    absorbed: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.merged_into:
            absorbed[f.merged_into].append(f)
    charge_domain = _charge_dedup_pairs(by_dim, reports, absorbed, domain, rubric, draft)
    for f in findings:
        if f.merged_into in charge_domain:
            f.deduction = 0.0  # deducted once, under its domain version
    dimensions: dict[str, DimensionResult] = {}
    positives: dict[str, list] = {}
    for dim_id, dimension in rubric.dimensions.items():
        report = reports.get(dim_id)
        dimensions[dim_id] = _dimension_result(dimension, report, by_dim[dim_id], rubric, draft, with_domain,
                                               salvaged=dim_id in salvaged_dims)
        positives[dim_id] = list(report.positives) if report else []
    domain_rows = []
    dimension_of = {rubric.dimension(d).reviewer: d for d in rubric.dimensions}
    charged: dict[str, str] = {}
    if domain is not None:
        elsewhere = set(absorbed) - charge_domain
        dimensions["domain"], domain_findings, domain_rows, domain_run = domain_dim.domain_dimension(
            domain, rubric, domain_dim.default_domain_rubric(), draft, charged_elsewhere=elsewhere,
            with_domain=with_domain)
        for f in domain_findings:
            charged[f.id] = ", ".join(a.id for a in absorbed[f.id]) if f.id in elsewhere else "domain"
            pair = [f] + absorbed.get(f.id, [])
            # one issue for the floor rules, at the worse severity of the pair, from every dimension it came from
            worst = min(pair, key=lambda x: x.severity.rank)
            floor_findings.append(scoring.FloorItem(worst.severity, frozenset(x.dimension for x in pair)))
        findings += domain_findings
        if domain_run is not None:
            runs = [*runs, domain_run]
            dimension_of[domain_run.member] = "domain"

    for run in runs:
        if run.status != "malformed":
            continue
        dimension = dimension_of.get(run.member)
        if dimension in salvaged_dims:
            warnings.append(salvage_warning(run.member, run, salvaged[dimension], rubric.dimension(dimension)))
        elif dimension in rubric.dimensions:
            parsed = (salvaged or {}).get(dimension)
            warnings.append(unscored_items(run.member, run, _parsed_items(parsed) if parsed else []))
        elif dimension == "domain" and domain is not None:
            warnings.append(unscored_items(run.member, run, domain_dim.salvaged_items(domain)))

    if domain is not None and not domain.applicable and domain.fit is not None:
        warnings.append(f"Domain knowledge ({', '.join(domain.domains)}): {domain.fit.reason}.")
    # the domain dimension alone is no DS review: without analysis and communication it defers
    reviewed = [d for d in dimensions.values() if d.reviewed and d.dimension in rubric.dimensions]
    if not reviewed:
        status = "deferred"
        degradation_level = 2
        for run in runs:  # a malformed answer is named above, with what parsed of it
            if run.status != "malformed" and (dimension_of.get(run.member) in rubric.dimensions or not run.completed):
                warnings.append(f"{run.member} {run.describe()}")
        warnings.append(DEFER_MESSAGE)
    elif salvaged_dims or any(not d.reviewed and d.applicable for d in dimensions.values()):
        status = "partial"
        for d in dimensions.values():
            if not d.reviewed and d.applicable:
                run = next((r for r in runs if dimension_of.get(r.member) == d.dimension), None)
                why = f": {run.reason}" if run and run.reason else ""
                covered = [x.title for x in dimensions.values() if x.reviewed]
                warnings.append(
                    f"{d.title} dimension not reviewed{why}. The score covers only the {' and '.join(covered)} "
                    f"dimension{'s' if len(covered) > 1 else ''}."
                )
    else:
        status = "complete"

    final = None
    band = verdict = floor_note = None
    scored = [d for d, r in dimensions.items() if r.reviewed] if status != "deferred" else []
    weights = scoring.review_weights(rubric, scored)
    if status != "deferred" and not draft:
        final, weights = scoring.review_score(rubric, {d: _in_final(dimensions[d]) for d in scored})
        band = scoring.band_verdict(final, rubric)
        verdict, floor_note = scoring.apply_floor_rules(band, floor_findings, rubric)
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
    ] + domain_rows
    # a positive never praises a sentence a finding faults (whichever reviewer raised the finding)
    faulted = [f.evidence for f in findings if f.evidence]
    kept = unfaulted(positives, faulted)
    chosen = [SynthesizedPositive(**p.model_dump(), dimension=d) for d, p in scoring.select_positives(kept)]
    if not chosen and status != "deferred" and positives_lost(positives, {d: reports.get(d) for d in rubric.dimensions},
                                                              runs):
        chosen = lead_positives({d: r for d, r in dimensions.items() if d in rubric.dimensions}, rubric)
    withheld = withheld_note(positives, len(chosen))
    if withheld:
        notes.append(withheld)
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
        top_fixes=scoring.select_top_fixes([f for f in findings if not f.merged_into]),
        positives=chosen,
        cross_cutting=cross_cutting,
        notes=notes,
        dashboard=dashboard,
        final_score=final,
        scored_dimensions=scored,
        band_verdict=band,
        verdict=verdict,
        floor_rule=floor_note,
        warnings=warnings,
        reviewer_runs=runs,
        prompt_version=prompt_version,
        prompt_prefix_hashes=prompt_prefix_hashes or {},
        rubric_version=rubric.version,
        domain=None if domain is None else domain_dim.domain_section(domain, decisions, weights, charged),
    )



def no_analysis_review(record: PanelRecord, rubric: Rubric) -> Review:
    """The review of a document that holds no analysis: said to be that, with no score, no verdict
    and no reviewer asked."""
    options, document = record.options, record.document
    dimensions = {d: DimensionResult(dimension=d, title=dim.title, reviewed=False) for d, dim in rubric.dimensions.items()}
    dashboard = [DashboardRow(dimension=dim.title, lens=lens.id, lens_title=lens.title, rating="Not reviewed")
                 for dim in rubric.dimensions.values() for lens in dim.lenses]
    return Review(
        document=document, mode=options.mode, requested_mode=options.requested_mode, audience=options.audience,
        workflow=options.workflow, draft=options.draft, status="no_analysis", degradation_level=record.degradation_level,
        tier=document.tier, dimensions=dimensions, dashboard=dashboard, warnings=list(record.warnings),
        prompt_version=record.prompt_version, rubric_version=rubric.version,
    )
