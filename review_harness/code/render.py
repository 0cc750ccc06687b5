"""The review report (the sample's answer): header, confidence line, auto-decision line, spec
and quality tables with all four merge categories, the findings, the fix loop, and the task
table row with Fix Iterations."""

from __future__ import annotations

from review_harness.code.models import CodeReview, IterationRecord, MergedFinding, StageMerge

CATEGORY_ROWS = (("agreed", "Agreed"), ("b_only", "Model-B-only (reviewer_b)"), ("a_only", "Model-A-only (reviewer_a)"),
                 ("contradiction", "Contradictions"))
DECISION_LINES = {
    "AUTO_APPROVE": "✅ Approved (override with `review.auto_approve: false`)",
    "AUTO_REJECT_TO_IMPLEMENTER": "❌ Sent back to the implementer (override with `review.auto_reject: false`)",
    "PRESENT_TO_HUMAN": "👤 Human decides",
}
STATUS_MARK = {"PASS": "✅", "FAIL": "❌", "INCOMPLETE": "⚠️"}


def _action(category: str, findings: list[MergedFinding]) -> str:
    if not findings:
        return "—"
    if category == "contradiction":
        return "Human judges"
    if any(m.finding.blocking for m in findings):
        return "Fix before the next task"
    return "Noted, not blocking"


def _severity(findings: list[MergedFinding]) -> str:
    if not findings:
        return "—"
    names = []
    for m in sorted(findings, key=lambda m: m.finding.severity.rank):
        if m.finding.severity.value not in names:
            names.append(m.finding.severity.value)
    return ", ".join(names)


def stage_table(stage: StageMerge | None, title: str) -> list[str]:
    lines = [f"### {title} Findings", ""]
    if stage is None:
        return lines + ["Not run (the spec review failed).", ""]
    if stage.discarded:
        lines += ["Discarded: the spec review failed, so the speculative quality results do not count.", ""]
        return lines
    verdicts = ", ".join(f"model {k}: {v or 'no verdict'}" for k, v in stage.verdicts.items())
    lines += [f"Verdict: **{stage.verdict}** ({verdicts})", ""]
    lines += ["| Category | Count | Severity | Action |", "|----------|-------|----------|--------|"]
    for key, name in CATEGORY_ROWS:
        found = stage.in_category(key)
        lines.append(f"| {name} | {len(found)} | {_severity(found)} | {_action(key, found)} |")
    lines.append("")
    for m in stage.findings:
        f = m.finding
        who = {"agreed": "both", "b_only": "B", "a_only": "A", "contradiction": f"{m.by} (contradiction)"}[m.category]
        if m.salvaged:
            who += ", from its malformed answer"
        lines.append(f"- **{f.severity.value}** `{f.where}` ({f.category}; {who}): {f.description}"
                     + (f" Fix: {f.suggested_fix}" if f.suggested_fix else ""))
        if f.quote:
            lines.append(f"  > {f.quote}")
        if m.fine_note:
            lines.append(f"  The other model checked this place and found it fine: {m.fine_note}")
    for reason in stage.reasons:
        lines.append(f"- note: {reason}")
    return lines + [""]


def confidence_text(value: float) -> str:
    """1.0, 0.9, 0.85: as the seed's table writes them."""
    return f"{value:.1f}" if round(value * 10) == value * 10 else f"{value:.2f}"


def _confidence_line(it: IterationRecord) -> str:
    return (f"**Confidence: {it.confidence.label} ({confidence_text(it.confidence.value)})** — "
            f"{it.confidence.scenario}: {it.confidence.action}")


def render_iteration(it: IterationRecord, heading: str) -> list[str]:
    lines = [heading, "", f"**Strategy:** {it.strategy}", _confidence_line(it),
             f"**Auto-decision: {DECISION_LINES[it.decision]}**"]
    if it.human_decision:
        lines.append(f"**Human decision:** {it.human_decision}")
    for run in it.runs:
        if not run.completed:
            lines.append(f"- ⚠️ {run.member} ({run.role}) {run.describe()}: it has no verdict")
    lines.append("")
    lines += stage_table(it.spec, "Spec")
    lines += stage_table(it.quality, "Quality")
    return lines


def render_report(review: CodeReview) -> str:
    if not review.iterations:
        return f"## Review Result — Task {review.task}\n\nNo review was made."
    lines = render_iteration(review.first, f"## Review Result — Task {review.task}")
    lines[1:1] = ["", f"_{review.title}_ · service `{review.service}`"]
    change = review.change or {}
    notes = list(change.get("warnings") or []) + [f"cut to fit the prompt budget: {c}" for c in change.get("cuts") or []]
    notes += [f"{f['path']}: {f['note']}" for f in change.get("files", []) if f.get("binary")]
    if notes:
        lines += ["### Input notes", ""] + [f"- {n}" for n in notes] + [""]
    for fix, it in zip(review.fixes, review.iterations[1:]):
        lines += [f"## Fix attempt {fix.attempt}", "", "```", fix.message, "```",
                  f"Outcome: {fix.outcome}" + (f" ({fix.reason})" if fix.reason else "") + "", ""]
        lines += render_iteration(it, f"## Re-review after fix {fix.attempt}")
    if len(review.fixes) > len(review.iterations) - 1:
        fix = review.fixes[-1]
        lines += [f"## Fix attempt {fix.attempt}", "", "```", fix.message, "```",
                  f"Outcome: {fix.outcome}" + (f" ({fix.reason})" if fix.reason else ""), ""]
    if review.escalation:
        lines += ["## Escalated", "", review.escalation, ""]
    last = review.last
    spec = STATUS_MARK.get(last.spec.verdict, "—")
    quality = "—" if last.quality is None or last.quality.discarded else STATUS_MARK.get(last.quality.verdict, "—")
    if review.fixes and review.final_status != "complete":
        spec = f"{STATUS_MARK.get(review.first.spec.verdict, '—')}→{spec}"
    iterations = f"{review.fix_iterations}" + (" (max)" if review.final_status == "escalated" and review.fix_iterations >= review.config["max_fix_iterations"] else "")
    lines += ["## Task status", "",
              "| # | Task | Status | Assignee | Spec | Quality | Fix Iterations |",
              "|---|------|--------|----------|------|---------|----------------|",
              f"| {review.task} | {review.title} | {review.final_status} | implementer | {spec} | {quality} | {iterations} |", ""]
    return "\n".join(lines)
