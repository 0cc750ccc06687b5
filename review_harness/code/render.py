"""The review report (the sample's answer): header, confidence line, auto-decision line, spec
and quality tables with all four merge categories, the findings, the fix loop, and the task
table row with Fix Iterations."""

from __future__ import annotations

from review_harness.code.config import ReviewConfig
from review_harness.code.merge import decision_note
from review_harness.code.models import CodeReview, FixAttempt, IterationRecord, MergedFinding, StageMerge
from review_harness.core.viewer import table_cell

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


def finding_line(m: MergedFinding) -> list[str]:
    """One finding as the report lists it: id, severity (and what memory lowered), place, who, text."""
    f = m.finding
    who = {"agreed": "both", "b_only": "B", "a_only": "A", "contradiction": f"{m.by} (contradiction)"}[m.category]
    if m.salvaged:
        who += ", from its malformed answer"
    severity = f.severity.value + (f" (was {m.severity_before.value}; lowered by memory {m.memory})"
                                   if m.memory and m.severity_before else "")
    lines = [f"- [{m.id}] **{severity}** `{f.where}` ({f.category}; {who}): {f.description}"
             + (f" Fix: {f.suggested_fix}" if f.suggested_fix else "")]
    if f.quote:
        lines.append(f"  > {f.quote}")
    if m.fine_note:
        lines.append(f"  The other model checked this place and found it fine: {m.fine_note}")
    if m.memory_note:
        lines.append(f"  {m.memory_note[0].upper()}{m.memory_note[1:]}")
    return lines


def stage_table(stage: StageMerge | None, title: str, reviewed_after: bool = False) -> list[str]:
    """`reviewed_after`: discarded results a human's spec approval then had reviewed (shown below)."""
    lines = [f"### {title} Findings", ""]
    if stage is None:
        return lines + ["Not run (the spec review failed).", ""]
    if stage.discarded:
        counts = ", ".join(f"{n} {severity}" for severity, n in stage.severity_counts().items())
        what = f"{len(stage.findings)} finding(s) ({counts}) were discarded" if stage.findings else "it found nothing"
        lines += [f"Discarded: the spec review failed, so the speculative quality results do not count: {what}. "
                  "They are re-checked once spec passes.", ""]
        unreviewed = [] if reviewed_after else stage.unreviewed_critical()
        if reviewed_after:
            lines += ["A human approved the spec stage, so these results are reviewed below.", ""]
        if unreviewed:
            lines += [f"⚠️ **Seen, not yet reviewed:** {len(unreviewed)} Critical or security finding(s) among them. "
                      "They do not decide this round (the spec review failed); they are shown so they are not lost, "
                      "and the implementer is told of them:", ""]
            for m in unreviewed:
                lines += finding_line(m)
            lines.append("")
        return lines
    verdicts = ", ".join(f"model {k}: {v or 'no verdict'}" for k, v in stage.verdicts.items())
    lines += [f"Verdict: **{stage.verdict}** ({verdicts})", ""]
    lines += ["| Category | Count | Severity | Action |", "|----------|-------|----------|--------|"]
    for key, name in CATEGORY_ROWS:
        found = stage.in_category(key)
        lines.append(f"| {name} | {len(found)} | {_severity(found)} | {_action(key, found)} |")
    lines.append("")
    for m in stage.findings:
        lines += finding_line(m)
    for letter, summary in stage.summaries.items():
        lines.append(f"- model {letter} says: {summary}")
    for reason in stage.reasons:
        lines.append(f"- note: {reason}")
    return lines + [""]


def confidence_text(value: float) -> str:
    """1.0, 0.9, 0.85: as the seed's table writes them."""
    return f"{value:.1f}" if round(value * 10) == value * 10 else f"{value:.2f}"


def _confidence_line(it: IterationRecord) -> str:
    return (f"**Confidence: {it.confidence.label} ({confidence_text(it.confidence.value)})** — "
            f"{it.confidence.scenario}: {it.confidence.action}")


def _decision_line(decision: str, note: str | None) -> str:
    return f"**Auto-decision: {DECISION_LINES[decision]}**" + (f" — {note}" if note else "")


def render_iteration(it: IterationRecord, heading: str, config: ReviewConfig | None = None) -> list[str]:
    config = config or ReviewConfig()
    note = decision_note(it.confidence, it.decision, config, it.counted())
    lines = [heading, "", f"**Strategy:** {it.strategy}", _confidence_line(it), _decision_line(it.decision, note)]
    if it.human_decision:
        lines.append(f"**Human decision:** {it.human_decision}" + _dismissed(it.dismissed))
    for run in it.runs:
        if not run.completed:
            lines.append(f"- ⚠️ {run.member} ({run.role}) {run.describe()}: it has no verdict")
    lines.append("")
    lines += stage_table(it.spec, "Spec")
    lines += stage_table(it.quality, "Quality", reviewed_after=it.after_approval is not None)
    check = it.after_approval
    if check is not None:
        how = ("its speculative results are reused (the change is unchanged)" if check.reused
               else "the quality reviewers ran now")
        lines += ["### Quality review after the spec approval", "",
                  f"A human approved the failed spec stage, so quality decides: {how}.",
                  f"**Confidence: {check.confidence.label} ({confidence_text(check.confidence.value)})** — "
                  f"{check.confidence.scenario}: {check.confidence.action}",
                  _decision_line(check.decision, decision_note(check.confidence, check.decision, config, [check.quality]))]
        if check.human_decision:
            lines.append(f"**Human decision:** {check.human_decision}" + _dismissed(check.dismissed))
        lines.append("")
        lines += stage_table(check.quality, "Quality")[2:]
    return lines


def _dismissed(ids: list[str]) -> str:
    return f" (dismissed as not real: {', '.join(ids)})" if ids else ""


def _fix(fix: FixAttempt) -> list[str]:
    lines = [f"## Fix attempt {fix.attempt}" + (" (implementer agent)" if fix.implementer == "agent" else ""), "",
             "```", fix.message, "```",
             f"Outcome: {fix.outcome}" + (f" ({fix.reason})" if fix.reason else "")
             + (f"; {fix.turns} turn(s)" if fix.implementer == "agent" else "")]
    if fix.outcome == "no-change":
        lines.append("The fix changed nothing, so the change was not reviewed again.")
    if fix.diff:
        lines += ["", "```diff", fix.diff.rstrip(), "```"]
    return lines + [""]


def memory_line(memory: dict) -> str | None:
    """Where the review's memory came from and went (the user should never wonder)."""
    mode = memory.get("mode", "off")
    if mode == "off":
        return "Memory: off (-T memory=off): no earlier review was read or updated"
    root = memory.get("root")
    if root is None:
        return f"Memory ({mode}): none for this run (a patch without -T memory_dir, or a case without seeded memory)"
    if mode == "update" and not memory.get("error"):
        return f"Memory: read from and updated in {root} ({len(memory.get('updated', []))} files written)"
    return f"Memory: read from {root}" + (f"; {memory['error']}" if memory.get("error") else "")


def applied_lines(memory: dict) -> list[str]:
    """The memory entries the review applied, each with the findings it lowered."""
    lines = []
    for entry in memory.get("applied") or []:
        place = f" at {entry['file']}" + (f": `{entry['code']}`" if entry.get("code") else "") if entry.get("file") else ""
        lines.append(f"Memory applied: {entry['id']} (\"{entry['pattern']}\"{place}; {entry.get('why') or 'no reason given'}) "
                     f"lowered {', '.join(entry['findings'])} to Minor")
    if memory.get("read") and not lines:
        lines.append("Memory applied: none (no finding is at a place a human dismissed before)")
    return lines


def task_table(review: CodeReview) -> list[str]:
    if review.plan.get("table"):
        paused = review.plan.get("paused") or []
        note = [f"Paused until task {review.task} is resolved (they depend on it): {', '.join(paused)}", ""] if paused else []
        return ["## Task status", "", f"The living state table of {review.plan['path']}:", "",
                review.plan["table"], ""] + note
    last = review.last
    spec = STATUS_MARK.get(last.spec.verdict, "—") + (" (approved)" if last.after_approval else "")
    shown = last.after_approval.quality if last.after_approval else last.quality
    quality = "—" if shown is None or shown.discarded else STATUS_MARK.get(shown.verdict, "—")
    first = STATUS_MARK.get(review.first.spec.verdict, "—")
    if review.fixes and review.final_status != "complete" and first != STATUS_MARK.get(last.spec.verdict, "—"):
        spec = f"{first}→{spec}"
    at_max = review.final_status == "escalated" and review.fix_iterations >= review.config["max_fix_iterations"]
    iterations = f"{review.fix_iterations}" + (" (max)" if at_max else "")
    return ["## Task status", "",
            "| # | Task | Status | Assignee | Spec | Quality | Fix Iterations |",
            "|---|------|--------|----------|------|---------|----------------|",
            f"| {review.task} | {table_cell(review.title)} | {review.final_status} | implementer | {spec} | {quality} | {iterations} |", ""]


def render_report(review: CodeReview) -> str:
    if not review.iterations:
        return f"## Review Result — Task {review.task}\n\nNo review was made."
    config = ReviewConfig.model_validate(review.config)
    lines = render_iteration(review.first, f"## Review Result — Task {review.task}", config)
    lines[1:1] = ["", f"_{review.title}_ · service `{review.service}`"]
    change = review.change or {}
    notes = list(change.get("warnings") or []) + [f"cut to fit the prompt budget: {c}" for c in change.get("cuts") or []]
    notes += [f"{f['path']}: {f['note']}" for f in change.get("files", []) if f.get("binary")]
    memory = memory_line(review.memory)
    notes += ([memory] if memory else []) + applied_lines(review.memory) + [f"⚠️ {w}" for w in review.warnings]
    if notes:
        lines += ["### Notes", ""] + [f"- {n}" for n in notes] + [""]
    rounds = {it.iteration: it for it in review.iterations}
    for fix in review.fixes:
        lines += _fix(fix)
        if fix.reviewed_in is not None and fix.reviewed_in in rounds:
            lines += render_iteration(rounds[fix.reviewed_in], f"## Re-review after fix {fix.attempt}", config)
    if review.final_status in ("awaiting-human",) or review.final_status.startswith("review-fix-"):
        lines += ["## Waiting for a human", ""] + ([f"⚠️ {review.answer_error}", ""] if review.answer_error else []) + [
                  "The review needs a human decision: run it again with the answer "
                  "(`-T human=approve` or `-T human=reject`, with `:id+id` to dismiss findings), or record it with "
                  "`review-harness code override`.", ""]
    if review.escalation:
        lines += ["## Escalated", "", review.escalation, ""]
    return "\n".join(lines + task_table(review))
