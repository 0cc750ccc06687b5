"""The code half of the design synthesis: everything except grouping, phases, contradictions
and patterns (which come from the synthesizer model, or from the deterministic grouping when
its answer breaks the rules).

Computed here: the traceability check of the synthesizer's answer (every reviewer finding
used exactly once, no unknown ids), severity ranges with the highest counting, finding ids
`v{N}-{persona}-{seq}`, counts by severity and phase, systemic issues, the partial/failed
status, the hedge rate and the verdict.

Only a persona whose run is `complete` counts towards the threshold and the review; what parsed
of a malformed answer is named in the warnings, never used as that persona's review.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from review_harness.core.matching import normalize_space
from review_harness.core.member import MemberResult, MemberRun
from review_harness.design.autofix import check_proposals
from review_harness.design.grouping import finding_id, group_findings
from review_harness.design.models import (
    CAP_MARK,
    KIND_NAME,
    PHASES,
    SEVERITIES,
    DesignFinding,
    DesignReview,
    PersonaFinding,
    PersonaReport,
    Severity,
    SeverityVote,
    SynthesisAnswer,
    SystemicIssue,
)
from review_harness.design.personas import PersonaConfig


@dataclass
class ReviewContext:
    """What the synthesis needs besides the reports: the request and the documents."""

    topic: str
    stage: str
    personas: list[str]
    design_path: str
    requirements_path: str
    date: str
    iteration: int = 1
    design_text: str = ""
    requirements_text: str = ""
    warnings: list[str] = field(default_factory=list)
    prompt_version: str = ""
    calibration_version: str = ""
    prompt_prefix_hashes: dict[str, str] = field(default_factory=dict)
    reviewed: str = "design"  # which document is under review (the stage's `reviews`)
    document: str = ""  # what the topic reviews: a path, 'inline', or a gold case
    folder: str = ""  # the topic folder the review is written to ('' : none)
    reviewed_file: str | None = None  # the reviewed document's file, when it is a local file (git, auto-fix)
    reviewed_blob: str = ""  # git blob id of the reviewed file's text, recorded for the next iteration
    revised_from: int | None = None  # the earlier iteration whose text this one revises (None: first, or same text)
    changes: str = ""  # sections of the reviewed document changed since the last reviewed version
    changes_since: str = ""
    changed_sections: list[str] = field(default_factory=list)
    budget_note: str = ""  # the documents were cut to the input budget
    kept: list[str] = field(default_factory=list)  # personas whose report is kept from the partial iteration this run completes

    @property
    def reviewed_text(self) -> str:
        return self.requirements_text if self.reviewed == "requirements" else self.design_text


def check_answer(answer: SynthesisAnswer, reports: dict[str, PersonaReport], max_patterns: int) -> list[str]:
    """Why the synthesizer's answer cannot be used (empty: it can). It must account for every
    reviewer finding exactly once and invent none."""
    known = {finding_id(p, n) for p, r in reports.items() for n in range(1, len(r.findings) + 1)}
    used = Counter(member for group in answer.groups for member in group.members)
    problems = []
    unknown = sorted(set(used) - known)
    if unknown:
        problems.append(f"it names findings that no reviewer reported: {', '.join(unknown[:5])}")
    twice = sorted(m for m, n in used.items() if n > 1 and m in known)
    if twice:
        problems.append(f"it uses findings more than once: {', '.join(twice[:5])}")
    dropped = sorted(known - set(used))
    if dropped:
        problems.append(f"it drops findings: {', '.join(dropped[:5])}")
    if any(not group.members for group in answer.groups):
        problems.append("it has an empty group")
    if len(answer.patterns) > max_patterns:
        problems.append(f"it has {len(answer.patterns)} patterns, over the cap of {max_patterns}")
    return problems


def _severity_of(votes: list[SeverityVote]) -> Severity:
    return min((v.severity for v in votes), key=lambda s: s.rank)


def _verified(quote: str | None, documents: list[str]) -> bool | None:
    """Whether `quote` occurs in one of `documents` (already whitespace-normalized and lower-cased)."""
    if not quote:
        return None
    needle = normalize_space(quote).lower().strip(" .\"'")
    return any(needle in doc for doc in documents)


def _hedge_rate(reports: dict[str, PersonaReport], hedge_words: list[str]) -> float:
    """Hedge words per 100 words of the reviewers' prose (issue, why it matters, suggestion)."""
    text = " ".join(
        f"{f.title} {f.issue} {f.why_it_matters} {f.suggestion}" for r in reports.values() for f in r.findings
    )
    words = re.findall(r"[A-Za-z']+", text.lower())
    if not words:
        return 0.0
    hedges = set(hedge_words)
    return round(100 * sum(1 for w in words if w in hedges) / len(words), 3)


def outcome_text(run: MemberRun, with_reason: bool) -> str:
    """'timed out', 'returned malformed output', 'failed (model call failed: ...)'; with the
    reason when asked (a reason that already starts with the outcome is not repeated)."""
    outcome = run.model_copy(update={"reason": None}).describe()
    reason = (run.reason or "").strip().rstrip(".")
    if not with_reason or not reason or run.completed:
        return outcome
    return reason if reason.startswith(outcome) else f"{outcome} ({reason})"


def completion_note(dispatched: list[str], runs: list[MemberRun], config: PersonaConfig) -> str:
    """'4/6 reviewers completed, Feasibility Skeptic timed out, Prior Art Scout returned malformed
    output': every dispatched persona whose run is not complete is named (a failure with its
    reason: it can be anything)."""
    last = {run.member: run for run in runs}
    missing = [last[p] if p in last else MemberRun(kind=KIND_NAME, member=p, reason="never ran") for p in dispatched
               if p not in last or not last[p].completed]
    note = f"{len(dispatched) - len(missing)}/{len(dispatched)} reviewers completed"
    if missing:
        note += ", " + ", ".join(f"{config.personas[run.member].name} {outcome_text(run, run.status == 'failed')}" for run in missing)
    return note


def salvage_warnings(results: dict[str, MemberResult[PersonaReport]], config: PersonaConfig) -> list[str]:
    """What parsed of a persona's malformed answer: named, never counted as its review."""
    warnings = []
    for persona, result in results.items():
        if result.run.completed or result.salvaged is None or not result.salvaged.findings:
            continue
        titles = "; ".join(f.title for f in result.salvaged.findings[:5])
        more = len(result.salvaged.findings) - 5
        warnings.append(
            f"{config.personas[persona].name} returned malformed output ({result.run.reason}); its "
            f"{len(result.salvaged.findings)} finding(s) that parsed are not part of the review: {titles}"
            + (f" and {more} more" if more > 0 else "") + "."
        )
    return warnings


def _systemic(findings: list[DesignFinding], threshold: float) -> list[SystemicIssue]:
    with_cause = [f.contributing_phase for f in findings if f.contributing_phase]
    out = []
    for phase, count in sorted(Counter(with_cause).items(), key=lambda kv: PHASES.index(kv[0])):
        share = count / len(with_cause)
        if share > threshold:
            out.append(SystemicIssue(phase=phase, count=count, of=len(with_cause), share=round(share, 4)))
    return out


def _carried(findings: list[DesignFinding]) -> str:
    return "; ".join(f"{f.id} ({f.title})" for f in findings[:5]) + (f"; and {len(findings) - 5} more" if len(findings) > 5 else "")


def decide_verdict(findings: list[DesignFinding], config: PersonaConfig, stage: str) -> tuple[str, str | None, str]:
    """(verdict, escalation target, reasoning). A gap in one of the stage's upstream phases
    (personas.yaml `stages.<stage>.escalate`, earliest first) at any severity escalates to that
    phase; else a Critical finding (highest of its range) revises; else proceed. A finding about
    form only (hygiene: ids, modal verbs, headings) carries neither: it is noted. The reasoning
    names the findings that carried the verdict."""
    rule = config.verdicts
    info = config.stage(stage)
    substance = [f for f in findings if not f.hygiene]
    form = [f for f in findings if f.hygiene and (f.primary_phase in info.escalate or f.severity == rule.revise_severity)]
    noted = (f" Noted as form only, carrying no verdict: {_carried(form)}." if form else "")
    for phase in info.escalate:
        gaps = [f for f in substance if f.primary_phase == phase]
        if gaps:
            label = config.phases[phase].label.lower()
            return "escalate", phase, (
                f"{len(gaps)} {label}(s) carry the escalation: {_carried(gaps)}. The {info.reviewed_noun} cannot be "
                f"fixed without fixing the upstream phase first. {config.phases[phase].action}, then review again. The "
                f"verdict changes once no finding is classified as a {label}." + noted
            )
    critical = [f for f in substance if f.severity == rule.revise_severity]
    if critical:
        return "revise", None, (
            f"{len(critical)} finding(s) rated {rule.revise_severity.value} by at least one reviewer carry the verdict: "
            f"{_carried(critical)}. Fix the {info.reviewed_noun} and review again; the verdict becomes proceed when no "
            "Critical finding remains." + noted
        )
    counts = Counter(f.severity.value for f in findings)
    listed = ", ".join(f"{counts[s]} {s}" for s in SEVERITIES if counts[s]) or "no findings"
    return "proceed", None, (f"No Critical finding and no upstream gap ({listed}): proceed, and address the noted "
                             "improvements." + noted)


def _synthesizer_answer(
    synthesis: MemberResult[SynthesisAnswer] | None, used: dict[str, PersonaReport], config: PersonaConfig
) -> tuple[SynthesisAnswer | None, list[str], list[str]]:
    """(the synthesizer's answer if it can be used, why it cannot, what its parser dropped)."""
    if synthesis is None:
        if not any(r.findings for r in used.values()):  # nothing to group: the synthesizer is not asked
            return SynthesisAnswer(groups=[], contradictions=[], patterns=[]), [], []
        return None, ["no synthesizer answer"], []
    if not synthesis.run.completed or synthesis.report is None:
        return None, [f"the synthesizer {outcome_text(synthesis.run, with_reason=True)}"], []
    return synthesis.report, check_answer(synthesis.report, used, config.synthesis.max_patterns), synthesis.run.problems


def synthesize_design(
    context: ReviewContext,
    results: dict[str, MemberResult[PersonaReport]],
    synthesis: MemberResult[SynthesisAnswer] | None,
    config: PersonaConfig,
) -> DesignReview:
    """The review from each dispatched persona's result and the synthesizer's (None when it was
    not asked: too few personas completed, or there was nothing to group)."""
    warnings = list(context.warnings)
    dispatched = context.personas
    reports = {p: r.report for p, r in results.items() if r.run.completed and r.report is not None}
    runs = [results[p].run for p in dispatched if p in results] + ([synthesis.run] if synthesis else [])
    completed = [p for p in dispatched if p in reports]
    needed = config.failure.min_successes(len(dispatched))
    note = completion_note(dispatched, runs, config)
    review = DesignReview(
        topic=context.topic,
        stage=context.stage,
        iteration=context.iteration,
        design_path=context.design_path,
        requirements_path=context.requirements_path,
        reviewed=context.reviewed,
        document=context.document,
        reviewed_blob=context.reviewed_blob,
        changed_sections=context.changed_sections,
        changes_since=context.changes_since,
        date=context.date,
        status="complete" if len(completed) == len(dispatched) else "partial",
        personas=dispatched,
        reviewers_completed=completed,
        completion_note=note,
        reviewer_runs=runs,
        prompt_version=context.prompt_version,
        calibration_version=context.calibration_version,
        prompt_prefix_hashes=context.prompt_prefix_hashes,
        blind_spots={p: reports[p].blind_spot_check for p in completed},
        persona_reports={p: reports[p] for p in completed},
        hedge_rate=_hedge_rate({p: reports[p] for p in completed}, config.hedge_words),
    )
    warnings += salvage_warnings(results, config)
    warnings += [f"{config.personas[p].name} reports only part of what it found: "
                 + next(x for x in re.split(r"(?<=\.)\s+", reports[p].blind_spot_check) if CAP_MARK in x)
                 for p in completed if CAP_MARK in reports[p].blind_spot_check]
    if len(completed) < needed:
        review.status = "failed"
        review.verdict_reasoning = (
            f"No verdict: {note}; at least {needed} of {len(dispatched)} must complete. "
            "Re-run the review: only the failed reviewers are called again when the response cache is on."
        )
        review.warnings = warnings
        return review
    used = {p: reports[p] for p in completed}
    how = "model"
    answer, problems, dropped = _synthesizer_answer(synthesis, used, config)
    if problems or answer is None:
        warnings.append(
            "The synthesizer's answer was not used (" + "; ".join(problems) + "): findings were grouped "
            "deterministically instead."
        )
        answer = group_findings(used)
        how = "deterministic"
    elif dropped:
        warnings.append("Parts of the synthesizer's answer could not be read and are left out: " + "; ".join(dropped) + ".")
    items: dict[str, tuple[str, int, PersonaFinding]] = {
        finding_id(p, n): (p, n, f) for p, r in used.items() for n, f in enumerate(r.findings, 1)
    }
    documents = [normalize_space(context.design_text).lower(), normalize_space(context.requirements_text).lower()]
    findings = []
    for group in answer.groups:
        members = sorted(
            (items[m] for m in group.members),
            key=lambda t: (t[2].severity.rank, dispatched.index(t[0]), t[1]),
        )
        votes = [SeverityVote(persona=p, severity=f.severity) for p, _, f in members]
        persona, seq, lead = members[0]
        evidence = lead.evidence or next((f.evidence for _, _, f in members if f.evidence), None)
        findings.append(
            DesignFinding(
                id=f"v{context.iteration}-{persona}-{seq:03d}",
                title=lead.title,
                section=lead.section,
                issue=lead.issue,
                why_it_matters=lead.why_it_matters,
                suggestion=lead.suggestion,
                evidence=evidence,
                evidence_verified=_verified(evidence, documents),
                severity=_severity_of(votes),
                severity_range=votes,
                reviewers=list(dict.fromkeys(p for p, _, _ in members)),
                primary_phase=group.primary_phase,
                contributing_phase=group.contributing_phase if group.contributing_phase != group.primary_phase else None,
                phase_rationale=group.phase_rationale,
                member_ids=[f"v{context.iteration}-{p}-{n:03d}" for p, n, _ in members],
                hygiene=all(f.hygiene for _, _, f in members),
            )
        )
    findings.sort(key=lambda f: (f.severity.rank, PHASES.index(f.primary_phase), f.id))
    unverified = [f.id for f in findings if f.evidence_verified is False]
    if unverified:
        warnings.append(f"Evidence quotes not found verbatim in the documents: {', '.join(unverified)}.")
    prefix = f"v{context.iteration}-"
    review.findings = findings
    review.contradictions = answer.contradictions
    review.patterns = [
        p.model_copy(update={"members": [prefix + m for m in p.members if m in items]})
        for p in answer.patterns[: config.synthesis.max_patterns]
    ]
    strays = {p.id: [m for m in p.members if m not in items] for p in answer.patterns}
    for pattern_id, unknown in strays.items():
        if unknown:
            warnings.append(f"Pattern {pattern_id} names findings no reviewer reported ({', '.join(unknown[:5])}): "
                            "they are left out of it.")
    review.systemic = _systemic(findings, config.synthesis.systemic_share)
    review.counts = {s: sum(1 for f in findings if f.severity.value == s) for s in SEVERITIES}
    review.counts["Contradictions"] = len(answer.contradictions)
    review.phase_counts = {ph: sum(1 for f in findings if f.primary_phase == ph) for ph in PHASES}
    review.synthesis = how
    finding_of = {m.removeprefix(prefix): f.id for f in findings for m in f.member_ids}
    reviewed_file = Path(context.reviewed_file) if context.reviewed_file else None
    review.auto_fixes = check_proposals(answer.auto_fixes, finding_of, context.reviewed_text, config.auto_fix,
                                        reviewed_file)
    review.verdict, review.escalation_target, review.verdict_reasoning = decide_verdict(findings, config, context.stage)
    if review.status == "partial":
        review.verdict_reasoning += f" Partial review: {note}."
    review.warnings = warnings
    return review
