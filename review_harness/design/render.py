"""Markdown of a design review: one file per persona, and ``summary.md``.

Both follow the formats of the design-review spec (per-reviewer output format, summary format).
The summary is also the sample's answer shown in ``inspect view``, so it is written for a reader:
what the verdict is, why, and each finding with who flagged it and how severe they judged it.

Functions that show a finding accept either a ``DesignFinding`` or its flat JSONL record (a dict
written by ``artifacts.finding_record``), so triage can re-render parts of the summary from disk.
"""

from __future__ import annotations

import re

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from review_harness.design.personas import default_personas
from review_harness.design.synthesis import outcome_text
from review_harness.design.models import (
    PHASES,
    SEVERITIES,
    DesignFinding,
    DesignReview,
    PersonaReport,
    Severity,
)

# Above this many findings, findings are not walked one by one; they are processed from the files.
INTERACTIVE_LIMIT = default_personas().synthesis.interactive_limit
DISPOSITIONS_HEADING = "## Finding Dispositions"
PHASE_LABELS = {
    "survey": "Survey gaps",
    "calibrate": "Calibrate gaps",
    "design": "Design flaws",
    "plan": "Plan concerns",
}

FindingLike = DesignFinding | Mapping[str, Any]


# ---------------------------------------------------------------------------- persona names


@lru_cache(maxsize=1)
def persona_names() -> dict[str, str]:
    """Persona id -> display name, from prompts/design/personas.yaml."""
    return {pid: persona.name for pid, persona in default_personas().personas.items()}


def persona_name(persona_id: str, names: Mapping[str, str] | None = None) -> str:
    names = persona_names() if names is None else names
    return names.get(persona_id) or persona_id.replace("-", " ").replace("_", " ").title()


def join_names(names: Sequence[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


# ---------------------------------------------------------------------------- finding accessors


def _get(finding: FindingLike, key: str, default: Any = None) -> Any:
    if isinstance(finding, Mapping):
        return finding.get(key, default)
    return getattr(finding, key, default)


def _severity(value: Any) -> str:
    return value.value if isinstance(value, Severity) else str(value)


def _rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def severity_votes(finding: FindingLike) -> list[tuple[str, str]]:
    """(persona id, severity) per reviewer: the most severe vote of each, in order of appearance."""
    best: dict[str, str] = {}
    for vote in _get(finding, "severity_range") or []:
        persona = _get(vote, "persona")
        severity = _severity(_get(vote, "severity"))
        if persona not in best or _rank(severity) < _rank(best[persona]):
            best[persona] = severity
    if not best:
        severity = _severity(_get(finding, "severity"))
        best = {persona: severity for persona in _get(finding, "reviewers") or []}
    return list(best.items())


def severities_disagree(finding: FindingLike) -> bool:
    return len({severity for _, severity in severity_votes(finding)}) > 1


def severity_range_text(finding: FindingLike, names: Mapping[str, str] | None = None) -> str:
    """'Flagged Critical by Assumption Hunter, Important by Feasibility Skeptic'; when every
    reviewer agrees, 'Flagged Important by Assumption Hunter and Edge Case Prober'."""
    votes = severity_votes(finding)
    if not votes:
        return f"Flagged {_severity(_get(finding, 'severity'))}"
    groups: dict[str, list[str]] = {}
    for persona, severity in votes:
        groups.setdefault(severity, []).append(persona_name(persona, names))
    parts = [f"{severity} by {join_names(groups[severity])}" for severity in sorted(groups, key=_rank)]
    return "Flagged " + ", ".join(parts)


def consensus_text(finding: FindingLike, of: int | None = None, names: Mapping[str, str] | None = None) -> str:
    """'Flagged by Assumption Hunter, Feasibility Skeptic (2/6 reviewers)'."""
    reviewers = [persona_name(p, names) for p in _get(finding, "reviewers") or []]
    text = "Flagged by " + (", ".join(reviewers) if reviewers else "no reviewer recorded")
    if of:
        text += f" ({len(reviewers)}/{of} reviewers)"
    return text


def phase_text(finding: FindingLike) -> str:
    primary = _get(finding, "primary_phase") or _get(finding, "phase")
    text = f"{primary} (primary)"
    contributing = _get(finding, "contributing_phase")
    if contributing:
        text += f", {contributing} (contributing)"
    rationale = (_get(finding, "phase_rationale") or "").strip()
    if rationale:
        text += f" — {rationale}"
    return text


def _field(label: str, value: str | None) -> str:
    return f"- **{label}:** {_one_line(value)}"


def _one_line(value: str | None) -> str:
    """Keep a model-written value inside its bullet: no blank lines, no headings that break the file."""
    text = (value or "").strip()
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "  \n  ".join(line.strip().lstrip("#").strip() if line.lstrip().startswith("#") else line for line in lines)


def _evidence_text(finding: FindingLike) -> str | None:
    evidence = (_get(finding, "evidence") or "").strip()
    if not evidence:
        return None
    quote = " ".join(evidence.split())
    verified = _get(finding, "evidence_verified")
    if verified is False:
        return f"“{quote}” (not found verbatim in the documents)"
    return f"“{quote}”"


# ---------------------------------------------------------------------------- per persona


def render_persona_markdown(
    persona_name: str,
    report: PersonaReport | None,
    failure_reason: str | None = None,
    *,
    iteration: int | None = None,
) -> str:
    """One reviewer's file. With ``iteration``, each finding also carries its id
    (``v{iteration}-{persona}-{n:03d}``) so it can be found in the summary and the JSONL."""
    lines = [f"# {persona_name} Review", ""]
    if report is None:
        reason = (failure_reason or "no report was recorded").strip().rstrip(".")
        lines += [
            f"**Status:** did not complete — {reason}.",
            "",
            "This reviewer returned no findings in this iteration, so the summary does not include its view. "
            "Re-run the review to get it.",
            "",
        ]
        return "\n".join(lines)
    lines += ["## Findings", ""]
    if not report.findings:
        lines += ["No findings.", ""]
    for n, finding in enumerate(report.findings, start=1):
        phase = finding.phase + (f" (contributing: {finding.contributing_phase})" if finding.contributing_phase else "")
        lines += [
            f"### Finding {n}: {_one_line(finding.title)}",
            _field("Severity", finding.severity.value),
            _field("Phase", phase),
            _field("Section", finding.section),
            _field("Issue", finding.issue),
            _field("Why it matters", finding.why_it_matters),
            _field("Suggestion", finding.suggestion),
        ]
        evidence = _evidence_text({"evidence": finding.evidence})
        if evidence:
            lines.append(_field("Evidence", evidence))
        if iteration is not None:
            lines.append(_field("ID", f"v{iteration}-{report.persona}-{n:03d}"))
        lines.append("")
    if report.checked_and_fine:
        lines += ["## Checked and Sound", ""]
        lines += [f"- {_one_line(item)}" for item in report.checked_and_fine]
        lines.append("")
    lines += ["## Blind Spot Check", "", (report.blind_spot_check or "").strip() or "(none given)", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- summary


def completion_text(review: DesignReview, names: Mapping[str, str] | None = None) -> str:
    """'5/6 reviewers completed, Feasibility Skeptic timed out' (or the review's own note)."""
    if review.completion_note.strip():
        return review.completion_note.strip()
    completed = [p for p in review.personas if p in review.reviewers_completed]
    text = f"{len(completed)}/{len(review.personas)} reviewers completed"
    failed = [p for p in review.personas if p not in review.reviewers_completed]
    if failed:
        text += ", " + ", ".join(f"{persona_name(p, names)} {failure_reason(review, p)}" for p in failed)
    return text


def failure_reason(review: DesignReview, persona: str) -> str:
    """'timed out (no answer within 120s)', 'returned malformed output (...)', or why no run is known."""
    runs = [r for r in review.reviewer_runs if r.member == persona]
    for run in reversed(runs):
        if not run.completed:
            return outcome_text(run, with_reason=True)
    return "returned no report"


def count_by_severity(findings: Iterable[FindingLike]) -> dict[str, int]:
    counts = {severity: 0 for severity in SEVERITIES}
    for finding in findings:
        severity = _severity(_get(finding, "severity"))
        counts[severity] = counts.get(severity, 0) + 1
    return counts


def render_dispositions(findings: Sequence[FindingLike], names: Mapping[str, str] | None = None) -> str:
    """The '## Finding Dispositions' section: each finding's outcome, or pending."""
    lines = [DISPOSITIONS_HEADING, ""]
    if not findings:
        return "\n".join(lines + ["No findings to process.", ""])
    ordered = sorted(findings, key=lambda f: _rank(_severity(_get(f, "severity"))))
    tally = {"accepted": 0, "rejected": 0, None: 0}
    for finding in ordered:
        tally[_get(finding, "disposition")] = tally.get(_get(finding, "disposition"), 0) + 1
    lines.append(f"Accepted: {tally['accepted']} · Rejected: {tally['rejected']} · Pending: {tally[None]}")
    if len(findings) > INTERACTIVE_LIMIT:
        lines += [
            "",
            f"{len(findings)} findings, more than {INTERACTIVE_LIMIT}: they are not walked one at a time. "
            "Record decisions in a decisions file and apply it with "
            "`review-harness design process <folder> --decisions FILE`.",
        ]
    lines.append("")
    for finding in ordered:
        head = f"- **{_get(finding, 'id')}** ({_severity(_get(finding, 'severity'))}) {_one_line(_get(finding, 'title'))}"
        disposition = _get(finding, "disposition")
        if disposition:
            note = _one_line(_get(finding, "disposition_note"))
            head += f" — {disposition}" + (f": {note}" if note else "")
        else:
            head += " — pending"
        lines.append(head)
    lines.append("")
    return "\n".join(lines)


def _member_text(review: DesignReview | None, member_id: str, names: Mapping[str, str]) -> str:
    """'v1-code-realist-002 (Code Realist: "T1 uses the queue that T3 creates")': a grouped
    reviewer finding with its own title, so every reviewer's finding can be read from the summary."""
    m = re.match(r"v\d+-(.+)-(\d+)$", member_id)
    report = review.persona_reports.get(m.group(1)) if (review is not None and m) else None
    n = int(m.group(2)) if m else 0
    if report is None or not 0 < n <= len(report.findings):
        return member_id
    return f"{member_id} ({persona_name(m.group(1), names)}: \"{_one_line(report.findings[n - 1].title)}\")"


def _render_finding(finding: DesignFinding, of: int, names: Mapping[str, str], review: DesignReview | None = None) -> list[str]:
    lines = [
        f"### {finding.id}: {_one_line(finding.title)}",
        _field("Section", finding.section),
        _field("Consensus", consensus_text(finding, of, names)),
    ]
    if severities_disagree(finding):
        lines.append(_field("Severity range", severity_range_text(finding, names)))
    lines += [
        _field("Phase", phase_text(finding)),
        _field("Issue", finding.issue),
        _field("Why it matters", finding.why_it_matters),
        _field("Suggestion", finding.suggestion),
    ]
    evidence = _evidence_text(finding)
    if evidence:
        lines.append(_field("Evidence", evidence))
    others = [m for m in finding.member_ids if m != finding.id]
    if others:
        lines.append(_field("Also reported as", "; ".join(_member_text(review, m, names) for m in others)))
    lines.append("")
    return lines


def _header(review: DesignReview, names: Mapping[str, str]) -> list[str]:
    config = default_personas()
    info = config.stage(review.stage)
    paths = {"design": review.design_path, "requirements": review.requirements_path}
    lines = [f"# Review Summary: {review.topic}", "", f"**Date:** {review.date}"]
    for slot in (info.reviews, info.reference):
        under = " (under review)" if slot == info.reviews else ""
        lines.append(f"**{info.nouns[slot][0].upper() + info.nouns[slot][1:]}:** {paths[slot]}{under}")
    lines += [f"**Stage:** {review.stage}", f"**Verdict:** {review.verdict or 'none'}"]
    if review.verdict == "escalate" and review.escalation_target:
        phase = config.phases[review.escalation_target]
        lines.append(f"**Revisit:** {review.escalation_target} ({phase.label.lower()}: {phase.action.lower()})")
    lines.append(f"**Iteration:** {review.iteration}")
    if review.changed_sections:
        shown = "; ".join(review.changed_sections[:8]) + (f" and {len(review.changed_sections) - 8} more"
                                                          if len(review.changed_sections) > 8 else "")
        lines.append(f"**Changed since {review.changes_since}:** {shown}")
    if review.status != "complete" or set(review.personas) - set(review.reviewers_completed):
        if review.status == "failed" and not review.completion_note.strip():  # the reviewers are listed below
            done = sum(1 for p in review.personas if p in review.reviewers_completed)
            lines.append(f"**Status:** failed — {done}/{len(review.personas)} reviewers completed")
        else:
            lines.append(f"**Status:** {review.status} — {completion_text(review, names)}")
    lines.append("")
    return lines


def render_summary(review: DesignReview, names: Mapping[str, str] | None = None) -> str:
    names = persona_names() if names is None else names
    lines = _header(review, names)
    if review.status == "failed" or review.verdict is None:
        reason = review.verdict_reasoning.strip() or (review.warnings[-1] if review.warnings else "")
        lines += [
            "The review did not reach a verdict" + (f": {reason.rstrip('.')}." if reason else "."),
            "",
            "## Reviewers",
            "",
        ]
        for persona in review.personas:
            outcome = "completed" if persona in review.reviewers_completed else failure_reason(review, persona)
            lines.append(f"- {persona_name(persona, names)}: {outcome}")
        lines.append("")
        if review.warnings:
            lines += ["## Warnings", ""] + [f"- {_one_line(w)}" for w in review.warnings] + [""]
        return "\n".join(lines)

    counts = count_by_severity(review.findings)
    lines += ["## Finding Counts"]
    lines += [f"- {severity}: {counts[severity]}" for severity in SEVERITIES]
    lines += [f"- Contradictions: {len(review.contradictions)}"]
    if review.fixed_findings:
        lines.append(f"- Fixed by auto-fix (not counted): {len(review.fixed_findings)}")
    lines.append("")

    lines += ["## Verdict Reasoning", "", review.verdict_reasoning.strip() or "(no reasoning recorded)", ""]

    of = len(review.reviewers_completed) or len(review.personas)
    for severity in SEVERITIES:
        lines += [f"## {severity} Findings", ""]
        group = [f for f in review.findings if f.severity.value == severity]
        if not group:
            lines += ["None.", ""]
        for finding in group:
            lines += _render_finding(finding, of, names, review)

    lines += ["## Contradictions", ""]
    if not review.contradictions:
        lines += ["None.", ""]
    for n, contradiction in enumerate(review.contradictions, start=1):
        lines.append(f"### Contradiction {n}: {_one_line(contradiction.topic)}")
        for position in contradiction.positions:
            ref = f" ({position.finding})" if position.finding else ""
            lines.append(f"- **{persona_name(position.persona, names)}**{ref}: {_one_line(position.position)}")
        lines.append(_field("Tension", contradiction.tension))
        if contradiction.tie_breakers:
            lines.append("- **Tie-breakers:**")
            lines += [f"  - {_one_line(t)}" for t in contradiction.tie_breakers]
        lines.append("")

    lines += ["## Findings by Phase"]
    primary = {phase: 0 for phase in PHASES}
    contributing = {phase: 0 for phase in PHASES}
    for finding in review.findings:
        primary[finding.primary_phase] += 1
        if finding.contributing_phase:
            contributing[finding.contributing_phase] += 1
    lines += [f"- {PHASE_LABELS[phase]}: {primary[phase]}" for phase in PHASES]
    upstream = [f"{phase} {n}" for phase, n in contributing.items() if n]
    if upstream:
        lines.append(f"- Contributing phases: {', '.join(upstream)}")
    lines.append("")

    if review.systemic:
        lines += ["## Systemic Issues", ""]
        for issue in review.systemic:
            lines.append(
                f"- **{issue.phase}**: contributing phase of {issue.count} of the {issue.of} findings that "
                f"name one ({issue.share:.0%}); the cause is upstream of the design."
            )
        lines.append("")

    if review.patterns:
        lines += ["## Patterns", ""]
        for pattern in review.patterns:
            lines.append(f"- **{pattern.id}**: {_one_line(pattern.theme)} ({len(pattern.members)} reviewer finding{'s' if len(pattern.members) != 1 else ''})")
        lines.append("")

    lines += _delta_lines(review)
    lines += _auto_fix_lines(review)
    if review.reviewer_runs:
        from review_harness.core.prices import cost_line, run_cost

        lines += ["## Cost", "", cost_line(run_cost(review.reviewer_runs)) + ".", ""]

    if review.warnings:
        lines += ["## Warnings", ""] + [f"- {_one_line(w)}" for w in review.warnings] + [""]

    lines.append(render_dispositions(review.findings, names))
    return "\n".join(lines)


def _delta_lines(review: DesignReview) -> list[str]:
    delta = review.delta
    if delta is None:
        return []
    if delta.method == "grader":
        offline = delta.grader_model.startswith("offline/")
        how = ("paired by the offline grader, the deterministic matcher" if offline else
               f"paired by the grader model{' ' + delta.grader_model if delta.grader_model else ''}")
    else:
        how = "paired offline by what each finding is about: requirement, section, quoted text and wording"
    counts = delta.findings.counts
    lines = [f"## Since Iteration {delta.from_iteration}", "",
             f"Resolved {counts['resolved']} · Persisting {counts['persisting']} · New {counts['new']}"
             + (f" · Still rejected {counts['rejected']}" if counts.get("rejected") else "") + f" ({how}).", ""]
    lines += [f"- Resolved: {item.id} {_one_line(item.title)}" + (f" ({_one_line(item.note)})" if item.note else "")
              for item in delta.findings.resolved]
    lines += [f"- Persisting: {item.current} {_one_line(item.current_title)} (was {item.previous}"
              + (f"; {_one_line(item.reason)}" if item.reason else "") + ")"
              for item in delta.findings.persisting]
    lines += [f"- New: {item.id} {_one_line(item.title)}" + (f" ({_one_line(item.note)})" if item.note else "")
              for item in delta.findings.new]
    lines += [f"- Still rejected: {item.id} {_one_line(item.title)}" for item in delta.findings.rejected]
    return lines + [""]


def _auto_fix_lines(review: DesignReview) -> list[str]:
    if not review.auto_fixes:
        return []
    lines = ["## Auto-fixes", ""]
    for fix in review.auto_fixes:
        line = f"- {fix.finding} ({fix.kind}): “{_one_line(fix.find)}” → “{_one_line(fix.replace)}” — {fix.status}"
        lines.append(line + (f": {_one_line(fix.reason)}" if fix.reason else ""))
    if review.fixed_findings:
        lines += ["", f"The fixed document was reviewed again: the findings above are of that review. Fixed by auto-fix "
                      f"and not counted ({len(review.fixed_findings)}):"]
        lines += [f"- {f.id}: {_one_line(f.title)} — fixed" for f in review.fixed_findings]
    return lines + [""]


def replace_dispositions(summary: str, section: str) -> str:
    """``summary`` with its '## Finding Dispositions' section replaced by ``section`` (appended when absent)."""
    lines = summary.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == DISPOSITIONS_HEADING), None)
    if start is None:
        return summary.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    before = "\n".join(lines[:start]).rstrip("\n")
    after = "\n".join(lines[end:]).strip("\n")
    out = before + "\n\n" + section.rstrip("\n") + "\n"
    if after:
        out += "\n" + after + "\n"
    return out
