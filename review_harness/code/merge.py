"""Merging two reviewers' reports of one stage, the confidence scenario, and the decision.

Merge: findings of model A and model B are matched one to one (same file, nearby lines,
same category, similar text); matched pairs are Agreed, the rest B-only or A-only, except a
finding at a place the other model explicitly checked and declared fine, which is a
Contradiction. A model's PASS/FAIL is derived here from its findings: FAIL when it reports a
Critical or Important finding. A stage fails when any model reports a blocking finding;
a model whose run did not complete counts as neither PASS nor agreement (the stage is
INCOMPLETE unless the remaining findings already fail it). What parsed of a malformed answer
is kept as that model's own findings, matched with none of the other's: it can fail the stage,
never pass it or agree.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from review_harness.code.config import ReviewConfig
from review_harness.code.models import CodeFinding, Confidence, MergedFinding, ReviewerAnswer, Severity, StageMerge
from review_harness.core.matching import one_to_one

MATCH_THRESHOLD = 0.6
LINE_WINDOW = 5

# (scenario, label, value, action), in the order they are tested: the first that applies wins
SCENARIOS: tuple[tuple[str, str, float, str], ...] = (
    ("incomplete", "Low", 0.4, "Human decides (a reviewer produced no report)"),
    ("both-fail-agreed-critical", "High", 0.9, "Auto-reject -> fix loop"),
    ("b-only-critical", "Medium", 0.7, "Human decides (stronger model found something)"),
    ("both-fail-disagree", "Medium", 0.6, "Human decides"),
    ("split", "Low", 0.4, "Human decides"),
    ("both-pass-clean", "Very High", 1.0, "Auto-approve"),
    ("both-pass-minor", "High", 0.85, "Auto-approve with notes"),
)


def model_verdict(report: ReviewerAnswer | None) -> str | None:
    if report is None:
        return None
    return "FAIL" if any(f.blocking for f in report.findings) else "PASS"


def similarity(a: CodeFinding, b: CodeFinding) -> float:
    if a.file != b.file:
        return 0.0
    if a.line is None and b.line is None:
        place = fuzz.token_set_ratio(a.quote or a.description, b.quote or b.description) / 100
    elif a.line is None or b.line is None:
        place = 0.3
    else:
        place = max(0.0, 1 - abs(a.line - b.line) / (LINE_WINDOW + 1))
    text = fuzz.token_set_ratio(a.description, b.description) / 100
    return 0.5 * place + 0.3 * (a.category == b.category) + 0.2 * text


def merge_stage(stage: str, reports: dict[str, ReviewerAnswer | None], letters: tuple[str, ...],
                reasons: dict[str, str] | None = None, pairs: list[tuple[int, int]] | None = None,
                matcher: str = "rules", salvaged: dict[str, ReviewerAnswer] | None = None) -> StageMerge:
    """`reports` holds the completed reviewers' reports (None: the run did not complete).
    `pairs` (A index, B index) from an LLM matcher replace the deterministic matching.
    `salvaged` holds what parsed of a model's malformed answer: its findings are that model's
    alone (never agreed) and it has no verdict."""
    salvaged = salvaged or {}
    verdicts = {letter: model_verdict(reports.get(letter)) for letter in letters}
    merged = StageMerge(stage=stage, models=list(letters), verdicts=verdicts, matcher=matcher if pairs is not None else "rules")
    merged.reasons = [f"{'model ' + k if k in letters else k}: {v}" for k, v in (reasons or {}).items() if v]
    a = reports.get("A") if "A" in letters else None
    b = reports.get("B")
    a_findings = a.findings if a else []
    b_findings = b.findings if b else []
    if pairs is None:
        pairs = [(i, j) for i, j, _ in one_to_one(a_findings, b_findings, similarity, MATCH_THRESHOLD)]
    used_a = {i for i, _ in pairs}
    used_b = {j for _, j in pairs}
    for i, j in pairs:
        # the stronger model's wording leads; the more severe severity counts
        finding = b_findings[j].model_copy()
        if a_findings[i].severity.rank < finding.severity.rank:
            finding.severity = a_findings[i].severity
        merged.findings.append(MergedFinding(category="agreed", finding=finding, other=a_findings[i]))
    for letter, own, other, used in (("B", b_findings, a, used_b), ("A", a_findings, b, used_a)):
        alone = [(f, False) for n, f in enumerate(own) if n not in used]
        if letter in letters and letter in salvaged:
            alone += [(f, True) for f in salvaged[letter].findings]
        for finding, from_malformed in alone:
            fine = next((c for c in (other.checked_fine if other else []) if c.covers(finding.file, finding.line)), None)
            category = "contradiction" if fine is not None else ("b_only" if letter == "B" else "a_only")
            merged.findings.append(MergedFinding(category=category, finding=finding, by=letter, salvaged=from_malformed,
                                                 fine_note=fine.note if fine is not None else None))
    order = {"agreed": 0, "b_only": 1, "a_only": 2, "contradiction": 3}
    merged.findings.sort(key=lambda m: (order[m.category], m.finding.severity.rank, m.finding.file, m.finding.line or 0))
    if any(m.finding.blocking for m in merged.findings):
        merged.verdict = "FAIL"
    elif any(v is None for v in verdicts.values()):
        merged.verdict = "INCOMPLETE"
    else:
        merged.verdict = "PASS"
    return merged


def _critical(findings: list[MergedFinding], category: str) -> bool:
    return any(m.category == category and m.finding.severity == Severity.CRITICAL for m in findings)


def counted_stages(spec: StageMerge, quality: StageMerge | None) -> list[StageMerge]:
    """The stages whose results count: quality is left out when it was discarded or not run."""
    return [spec] + ([quality] if quality is not None and not quality.discarded else [])


def confidence(spec: StageMerge, quality: StageMerge | None) -> Confidence:
    """The seed's discrete confidence scenarios (plus 'incomplete'), tested in SCENARIOS order."""
    stages = counted_stages(spec, quality)
    letters = spec.models
    overall: dict[str, str | None] = {}
    for letter in letters:
        per_stage = [s.verdicts.get(letter) for s in stages]
        overall[letter] = None if None in per_stage else ("FAIL" if "FAIL" in per_stage else "PASS")
    findings = [m for s in stages for m in s.findings]
    values = list(overall.values())
    if None in values:
        scenario = "incomplete"
    elif all(v == "FAIL" for v in values) and _critical(findings, "agreed"):
        scenario = "both-fail-agreed-critical"
    elif _critical(findings, "b_only") or (_critical(findings, "contradiction") and any(m.by == "B" for m in findings if m.category == "contradiction" and m.finding.severity == Severity.CRITICAL)):
        scenario = "b-only-critical"
    elif all(v == "FAIL" for v in values):
        scenario = "both-fail-disagree"
    elif "FAIL" in values:
        scenario = "split"
    elif not findings:
        scenario = "both-pass-clean"
    else:
        scenario = "both-pass-minor"
    name, label, value, action = next(row for row in SCENARIOS if row[0] == scenario)
    return Confidence(scenario=name, label=label, value=value, action=action)


def decide(spec: StageMerge, quality: StageMerge | None, config: ReviewConfig) -> str:
    """AUTO_APPROVE / AUTO_REJECT_TO_IMPLEMENTER / PRESENT_TO_HUMAN, as the seed's decision logic,
    with auto-actions only when their flag is on and never on an incomplete review."""
    if spec.verdict == "FAIL":
        if _critical(spec.findings, "agreed") and config.auto_reject:
            return "AUTO_REJECT_TO_IMPLEMENTER"
        return "PRESENT_TO_HUMAN"
    if spec.verdict == "INCOMPLETE" or quality is None or quality.verdict == "INCOMPLETE":
        return "PRESENT_TO_HUMAN"
    everything = spec.findings + quality.findings
    if all(m.finding.severity == Severity.MINOR for m in everything):
        return "AUTO_APPROVE" if config.auto_approve else "PRESENT_TO_HUMAN"
    if quality.verdict == "FAIL" and _critical(quality.findings, "agreed") and config.auto_reject:
        return "AUTO_REJECT_TO_IMPLEMENTER"
    return "PRESENT_TO_HUMAN"


def blocking_issues(spec: StageMerge, quality: StageMerge | None) -> list[MergedFinding]:
    """What the implementer is asked to fix: blocking findings of the counted stages, disputed
    ones (contradictions) left out."""
    return [m for s in counted_stages(spec, quality) for m in s.findings
            if m.finding.blocking and m.category != "contradiction"]


def issue_line(m: MergedFinding) -> str:
    return f"{m.finding.where}: [{m.finding.severity.value}] {m.finding.description}"


def fix_message(attempt: int, maximum: int, issues: list[MergedFinding]) -> str:
    body = "\n".join(f"- {issue_line(m)}" for m in issues) or "- (no blocking findings listed; see the review)"
    return f"Fix attempt {attempt}/{maximum}: fix these issues\n{body}"


def escalation_message(task: str, maximum: int, issues: list[MergedFinding]) -> str:
    remaining = "; ".join(issue_line(m) for m in issues) or "none listed (the review still needs a human)"
    return f"Task {task} failed review after {maximum} fix attempts. Remaining issues: {remaining}"
