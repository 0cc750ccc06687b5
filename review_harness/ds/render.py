"""Markdown reports from a ``Review``: full (seed 000 s9.1), quick (s9.2), degraded notice
(s9.3) and draft feedback (s10). The report is the sample's output; the JSON is the contract.

Scores read as whole points in the report (the JSON keeps the exact values), and a top fix is
not repeated in its lens section. `details=True` (`review-harness show --details`) adds the
scoring internals: each dimension's deductions and credits and each finding's points."""

from __future__ import annotations

import math

from review_harness.ds.models import DimensionResult, Finding, Review
from review_harness.ds.offline.limits import made_by_rules, rule_check_notice
from review_harness.ds.offline.precision import checks_off
from review_harness.ds.rubric import Rubric

RERUN_FULL_HINT = "Run again with `-T mode=full` for per-lens ratings and detailed findings."


def _score_text(value: float) -> str:
    return f"{value:g}"


def _points(value: float) -> str:
    """A score in prose: whole points, rounded down so it reads in the verdict band the exact
    score is in (79.6 is a Minor Fix: 79, not 80)."""
    return f"{math.floor(value):d}"


def _option(value: str, default: str) -> str:
    return f"{value} (default)" if value == default else value


def _header(review: Review) -> list[str]:
    lines = [f"# DS Analysis Review: {review.document.title}", ""]
    if review.domain is not None and review.domain.banner:  # the brief's warnings, above the results
        lines += [review.domain.banner, ""]
    notice = capacity_notice(review)
    if notice:
        lines += [f"> **[!] Capacity Notice:** {notice}", ""]
    if review.status == "deferred":
        return lines
    if made_by_rules(r.model for r in review.reviewer_runs):
        lines += [rule_check_notice(checks_off()), ""]
    if review.status == "no_analysis":
        return lines + [f"**No analysis to review** -- {no_analysis_text(review)}. Nothing was scored and no "
                        "reviewer was asked; add the question, the method, the results and the conclusion, then "
                        "run the review again.", ""]
    if review.draft:
        lines += ["**Draft feedback** -- qualitative only, no numeric score (draft scores are not comparable with full reviews).", ""]
    else:
        covers = ""
        if review.status == "partial":
            covered = [review.dimensions[d].title for d in review.scored_dimensions]
            if all(d.reviewed or not d.applicable for d in review.dimensions.values()):
                covers = " (partial: scored from what parsed of a cut-off answer; see warnings)"
            else:
                covers = f" (partial: covers the {' and '.join(covered)} dimension{'s' if len(covered) > 1 else ''} only)"
        lines += [f"**Score: {_points(review.final_score)}/100 -- {review.verdict}**{covers}"]
        if review.floor_rule:
            critical = [f"{f.title} ({f.id})" for f in review.findings
                        if f.severity.value == "CRITICAL" and not f.merged_into and (f.deduction > 0 or f.dimension == "domain")]
            named = f" CRITICAL: {'; '.join(critical)}." if critical and "CRITICAL" in review.floor_rule else ""
            lines += [
                f"Computed band: {review.band_verdict}; verdict: {review.verdict} (floor rule applied). "
                f"{review.floor_rule}{named}"
            ]
        lines.append("")
    mode = "Full" if review.mode == "full" else "Quick"
    lines.append(
        f"**Mode:** {mode} | **Audience:** {_option(review.audience, 'mixed')} | "
        f"**Workflow:** {_option(review.workflow, 'general')}"
    )
    doc = review.document
    structure = " - structure inferred from content" if doc.structure_inferred else ""
    lines += [
        f"**Processing:** Tier {review.tier} ({doc.word_count:,} words, ~{doc.reading_minutes:g} min read){structure}",
        f"**Status:** {review.status}",
    ]
    if review.domain is not None:
        lines.append(_domain_line(review))
    return lines + [""]


def _domain_line(review: Review) -> str:
    weights = " / ".join(f"{d} {w:g}" for d, w in review.domain.weights.items())
    versions = ", ".join(f"{d}@{v}" for d, v in review.domain.brief.get("versions", {}).items()) or "none"
    fit = "" if review.domain.applicable else " (not applicable to this document: not scored)"
    reference = f" | **Reference:** {review.domain.reference} (supplements the digests)" if review.domain.reference else ""
    return (f"**Domain:** {', '.join(review.domain.domains)}{fit} | **Deduction weights:** {weights} | "
            f"**Digests:** {versions}{reference}")


def _domain_breakdown(review: Review, details: bool = False) -> list[str]:
    """The domain knowledge dimension: findings by lens with their source, ADVISORY ones marked,
    unverified claims listed apart (no deduction), and the dedup decisions."""
    from review_harness.domain.reviewer import default_reviewer_rubric

    section = review.domain
    result = review.dimensions.get("domain")
    spec = default_reviewer_rubric().dimension
    if result is None:
        return []
    score = ("not applicable" if not result.applicable else "not reviewed") if not result.reviewed else (
        "draft" if result.score is None else f"{_points(result.score)}/100")
    lines = [f"## {spec.title} Dimension (Score: {score})", ""]
    if not result.applicable:
        reason = section.fit.reason if section.fit else "the document has no content of these domains"
        return lines + [f"Not applicable: {reason}.", ""]
    if not result.reviewed:
        return lines + ["Not reviewed (see warnings).", ""]
    if details:
        lines += [
            f"**Deductions:** -{_score_text(result.effective_deductions)} | **Credits:** +{_score_text(result.credits)}"
            + (f" ({', '.join(c.replace('_', ' ') for c in result.credits_earned)})" if result.credits_earned else ""),
            "",
        ]
    rows = {row.lens: row.rating for row in review.dashboard if row.dimension == spec.title}
    for lens in spec.lenses:
        rating = getattr(rows.get(lens.id), "value", rows.get(lens.id))
        lines += [f"### {lens.title} -- {rating}", ""]
        found = [f for f in section.findings if f.lens == lens.id]
        if not found:
            lines += ["No issues found.", ""]
        for f in found:
            where = section.charged.get(f.id, "domain")
            points = (f", -{f.points}" if details else "") if where == "domain" else f", deducted once, under {where}"
            lines.append(f"- **[{f.severity}{points}] {f.summary}** ({f.section or 'whole document'}; "
                         f"source: {f.source.cite()})")
            if f.quote:
                lines.append(f"  - Evidence: \"{f.quote}\"")
            if f.fix:
                lines.append(f"  - Suggested fix: {f.fix}")
        lines.append("")
    if section.unverified_claims:
        lines += ["### Unverified claims (no deduction)", ""] + [f"- {c}" for c in section.unverified_claims] + [""]
    merged = [d for d in section.dedup if d.duplicate]
    if merged:
        lines += [f"*Dedup: {len(merged)} analysis finding(s) were the same issue as a domain finding: the domain "
                  "version is shown, the pair is deducted once (see Notes).*", ""]
    return lines


def capacity_notice(review: Review) -> str | None:
    if review.status == "no_analysis":
        return None
    if review.status == "deferred":
        reasons = [w for w in review.warnings if " failed: " in w]
        message = review.warnings[-1] if review.warnings else "The review could not be completed."
        return message + ("".join(f" {r}." if not r.endswith(".") else f" {r}" for r in reasons))
    parts = []
    if review.degradation_level == 1:
        parts.append(
            f"Switched from {review.requested_mode} to quick mode for this document "
            "(see warnings). For the lens-by-lens breakdown, split the document or rerun "
            "with `-T mode=full` once the cause is fixed."
        )
    missing = [d.title for d in review.dimensions.values() if not d.reviewed and d.applicable]
    if missing:
        covered = [review.dimensions[d].title for d in review.scored_dimensions]
        parts.append(
            f"Partial review: the {', '.join(missing)} dimension was not reviewed; the score covers only "
            f"the {' and '.join(covered)} dimension{'s' if len(covered) > 1 else ''}."
        )
    return " ".join(parts) or None


SALVAGED = " [salvaged from a cut-off answer]"
NOT_ASSESSED_TEXT = ("Not assessed: the reviewer could not judge this lens from the text (for example whether cited sources "
                     "say what the document says, or a method it does not recognise); a person should check it.")


def _finding_block(n: int, finding: Finding) -> list[str]:
    lines = [
        f"### {n}. {finding.title} ({finding.severity.value}){SALVAGED if finding.salvaged else ''}",
        f"**Where:** {finding.location or 'not given'}",
        f"**Issue:** {finding.issue}",
    ]
    if finding.evidence:
        unverified = " (not found verbatim in the document)" if finding.evidence_verified is False else ""
        lines.append(f"**Evidence:** \"{finding.evidence}\"{unverified}")
    lines += [f"**Suggested fix:** {finding.suggested_fix}", ""]
    return lines


def _top_fixes(review: Review, heading: str) -> list[str]:
    lines = [f"## {heading}", ""]
    if not review.top_fixes:
        lines += ["No issues found that need fixing before sharing.", ""]
    for n, finding_id in enumerate(review.top_fixes, 1):
        lines += _finding_block(n, review.finding(finding_id))
    return lines


def _positives(review: Review) -> list[str]:
    lines = ["## What You Did Well", ""]
    if not review.positives:
        lost = [r.member for r in review.reviewer_runs if r.status == "malformed" or r.truncated]
        lines.append(
            f"(The positives of {', '.join(lost)} were lost with the end of its output, and no lens was free of "
            "issues for the lead to credit.)" if lost else "(No reviewer reported positives.)"
        )
    for n, p in enumerate(review.positives, 1):
        lines.append(f"{n}. **{p.title}** -- {p.detail}")
    return lines + [""]


def _warnings(review: Review) -> list[str]:
    notice = capacity_notice(review) or ""
    shown = [w for w in review.warnings if w not in notice]
    lines = ["## Notes", ""] + [f"- {n}" for n in review.notes] + [""] if review.notes else []
    if not shown:
        return lines
    return lines + ["## Warnings", ""] + [f"- {w}" for w in shown] + [""]


def _dashboard(review: Review) -> list[str]:
    lines = ["### Lens Dashboard", "", "| Dimension | Lens | Rating |", "|---|---|---|"]
    for row in review.dashboard:
        rating = getattr(row.rating, "value", row.rating)  # an enum, or "Not reviewed"
        lines.append(f"| {row.dimension} | {row.lens_title} | {rating} |")
    return lines + [""]


def _status_table(review: Review) -> list[str]:
    lines = ["### Status", "", "| Dimension | Status |", "|---|---|"]
    for dim in review.dimensions.values():
        lines.append(f"| {dim.title} | {dim.status_label if dim.reviewed or not dim.applicable else 'Not reviewed'} |")
    return lines + [""]


def _lens_breakdown(review: Review, rubric: Rubric, details: bool = False) -> list[str]:
    lines: list[str] = []
    top = {finding_id: n for n, finding_id in enumerate(review.top_fixes, 1)}
    for dim_id, dimension in rubric.dimensions.items():
        result = review.dimensions[dim_id]
        score = "not reviewed" if not result.reviewed else (
            "draft" if result.score is None else f"{_points(result.score)}/100"
        )
        lines += [f"## {dimension.title} Dimension (Score: {score})", ""]
        if not result.reviewed:
            lines += ["Not reviewed.", ""]
            continue
        if details:
            lines += _score_breakdown(result, rubric) + [""]
        for lens in dimension.lenses:
            rating = result.lens_ratings.get(lens.id)
            lines += [f"### {lens.title} -- {rating.value if rating else 'Not reviewed'}", ""]
            lens_findings = [f for f in review.findings if f.dimension == dim_id and f.lens == lens.id]
            if not lens_findings:
                if rating and rating.value == "NOT ASSESSED":
                    note = result.lens_notes.get(lens.id)
                    lines += [f"Not assessed: {note}" if note else NOT_ASSESSED_TEXT, ""]
                else:
                    lines += ["No issues found.", ""]
            for f in lens_findings:
                points = f", -{_score_text(f.deduction)}" if details else ""
                if f.merged_into:  # the domain version is shown in full in the domain section
                    lines.append(f"- **[{f.severity.value}{points}] {f.title}**: the same issue as domain finding "
                                 f"{f.merged_into} (shown in the {review.dimensions['domain'].title} section; deducted "
                                 f"once{', here' if f.deduction else ', there'}).")
                    continue
                if f.id in top:  # told in full above: name it only
                    lines.append(f"- **[{f.severity.value}{points}] {f.title}**: priority fix {top[f.id]} above.")
                    continue
                lines.append(
                    f"- **[{f.severity.value}{points}] {f.title}**{SALVAGED if f.salvaged else ''} "
                    f"({f.location or 'location not given'}). {f.issue}"
                )
                if f.evidence:
                    lines.append(f"  - Evidence: \"{f.evidence}\"")
                lines.append(f"  - Suggested fix: {f.suggested_fix}")
            lines.append("")
    return lines


def _score_breakdown(result: DimensionResult, rubric: Rubric) -> list[str]:
    """How the dimension's number was made: deductions, the credits earned and how many applied."""
    if result.raw_deductions == result.effective_deductions:
        deductions = f"-{_score_text(result.raw_deductions)}"
    else:
        deductions = f"-{_score_text(result.effective_deductions)} (raw {_score_text(result.raw_deductions)}, diminishing returns)"
    earned = sum(result.credits_earned.values())
    names = ", ".join(f"{k.replace('_', ' ')} +{_score_text(v)}" for k, v in result.credits_earned.items())
    credits = f"+{_score_text(result.credits)}"
    if earned:
        credits += f" of {_score_text(earned)} earned ({names})"
        if result.credits < earned:
            rule = (
                "credits only offset MINOR findings, never a MAJOR or CRITICAL"
                if rubric.scoring.credits_offset == "minor"
                else f"capped at +{_score_text(rubric.scoring.credit_cap)}"
            )
            credits += f"; {rule}"
    return [f"**Deductions:** {deductions} | **Credits:** {credits}"]


def _cross_cutting(review: Review) -> list[str]:
    if not review.cross_cutting:
        return []
    return ["## Cross-cutting Issues", ""] + [f"- {c}" for c in review.cross_cutting] + [""]


PART_NAMES = {"question": "the question it answers", "summary": "a summary up front", "method": "a method",
              "results": "results", "conclusion": "a conclusion or recommendation"}


def _titles(findings: list[Finding], n: int = 2) -> str:
    return "; ".join(f"{f.title} ({f.id})" for f in findings[:n])


def _draft_assessment(review: Review) -> list[str]:
    """Seed 000 s10's qualitative feedback: where the analytical direction and the communication
    arc stand, what is there, what is missing; the top 3 things to do next follow."""
    parts = review.document.parts
    shown = [f for f in review.findings if not f.merged_into]
    analysis = [f for f in shown if f.dimension == "analysis"]
    method = [f for f in analysis if f.lens == "methodology"]
    communication = [f for f in shown if f.dimension == "communication"]
    lines = ["### Where the draft stands", ""]
    if not review.dimensions.get("analysis") or not review.dimensions["analysis"].reviewed:
        direction = "not reviewed (see warnings)."
    elif method:
        direction = f"rethink the approach before more work goes into it: {_titles(method)}."
    elif parts and not parts.get("method"):
        direction = ("not set yet: no method is written, so what will answer the question is still open; write down "
                     "the comparison you plan before collecting more numbers.")
    elif analysis:
        direction = f"the approach can stay; close these gaps as the analysis fills in: {_titles(analysis)}."
    else:
        direction = "the approach looks sound so far; nothing in the analysis needs to change yet."
    lines.append(f"- **Analytical direction:** {direction}")
    if not review.dimensions.get("communication") or not review.dimensions["communication"].reviewed:
        arc = "not reviewed (see warnings)."
    elif parts and not parts.get("summary") and not parts.get("conclusion"):
        arc = ("the answer is not written yet (no summary up front, no conclusion): write the answer you expect, even "
               "if provisional, so reviewers can steer towards it.")
    elif communication:
        arc = f"forming; what would make it land: {_titles(communication)}."
    else:
        arc = "forming well: the answer, its support and the next step are in order."
    lines.append(f"- **Communication arc:** {arc}")
    if parts:
        there = [name for key, name in PART_NAMES.items() if parts.get(key)]
        missing = [name for key, name in PART_NAMES.items() if key in parts and not parts.get(key)]
        lines.append(f"- **What is there:** {', '.join(there) or 'little yet'}.")
        lines.append(f"- **What is missing:** {', '.join(missing) or 'nothing essential'}.")
    lines.append("- **What to do next:** the three things below, most important first; placeholders (TODO, TBD) are "
                 "expected at this stage and are not counted.")
    return lines + [""]


def no_analysis_text(review: Review) -> str:
    """Why the document holds no analysis, as preparation said it ('the document is 22 words of text ...')."""
    return f"the document {review.document.no_analysis or 'holds no analysis'}"


def render_report(review: Review, rubric: Rubric, details: bool = False) -> str:
    lines = _header(review)
    if review.status == "no_analysis":
        return "\n".join(lines + _warnings(review)).rstrip() + "\n"
    if review.status == "deferred":
        lines += _warnings(review)
        return "\n".join(lines).rstrip() + "\n"
    if review.draft:
        lines += _draft_assessment(review)
        lines += ["---", ""] + _top_fixes(review, "Top 3 Things to Address Before Finalizing")
        lines += ["---", ""] + _positives(review)
    elif review.mode == "full":
        lines += _dashboard(review)
        lines += ["---", ""] + _top_fixes(review, "Top 3 Priority Fixes")
        lines += ["---", ""] + _positives(review)
        lines += _cross_cutting(review)
        lines += ["---", ""] + _lens_breakdown(review, rubric, details)
        if review.domain is not None:
            lines += _domain_breakdown(review, details)
    else:
        lines += _status_table(review)
        lines += ["---", ""] + _top_fixes(review, "Top 3 Priority Fixes")
        lines += ["---", ""] + _positives(review)
        lines += _cross_cutting(review)
        lines += ["---", "", f"*{RERUN_FULL_HINT}*", ""]
    lines += _warnings(review)
    return "\n".join(lines).rstrip() + "\n"
