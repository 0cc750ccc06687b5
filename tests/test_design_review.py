"""The design review: activation matrix, failure threshold, verdict rules, systemic issues, ids,
synthesizer traceability, partial/failed status, parsing and hedge rate (unit); then the task end
to end through inspect_ai.eval() on the offline model (gold set, artifact folder over two
iterations, bad input, injected faults, parallel dispatch)."""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.gold import gold_document
from inspect_ai.log import EvalLog

from review_harness.core.member import MemberResult, MemberRun
from review_harness.core.paths import PROJECT_ROOT, absent_shared
from review_harness.design.models import (
    PHASES,
    Contradiction,
    ContradictionPosition,
    DesignReview,
    FindingGroup,
    Pattern,
    PersonaFinding,
    PersonaReport,
    Severity,
    SynthesisAnswer,
)
from review_harness.design.parse import parse_persona_output, parse_synthesis_output
from review_harness.design.personas import PersonaError, default_personas
from review_harness.design.render import render_summary, severity_range_text
from review_harness.design.synthesis import ReviewContext, completion_note, synthesize_design

C, I, M = Severity.CRITICAL, Severity.IMPORTANT, Severity.MINOR
CONFIG = default_personas()
MODEL = "offline/rules"
TASK_FILE = PROJECT_ROOT / "tasks" / "design_review.py"
GOLD_FIXTURES = PROJECT_ROOT / "fixtures" / "design"
# the fixture cases and the real designs whose gold files point outside the repository (gold/design/real/)
FIXTURE_CASES = sorted(p.name for p in GOLD_FIXTURES.iterdir() if p.is_dir())
REAL_GOLD = sorted((PROJECT_ROOT / "gold" / "design" / "real").glob("*.yaml"))
# the real designs the gold set reviews: those whose documents are here (a fresh clone has none)
REAL_CASES = sorted(p.stem for p in REAL_GOLD if not absent_shared(gold_document(p)))
GOLD_CASES = sorted(FIXTURE_CASES + REAL_CASES)

# the activation matrix of prompts/design/personas.yaml (the spec)
REQUIREMENTS_STAGE = ["assumption-hunter", "requirement-auditor", "first-principles", "prior-art-scout",
                      "product-strategist"]
DESIGN_STAGE = ["assumption-hunter", "edge-case-prober", "requirement-auditor", "feasibility-skeptic",
                "first-principles", "prior-art-scout"]
PLAN_STAGE = ["edge-case-prober", "requirement-auditor", "feasibility-skeptic", "prior-art-scout",
              "systems-architect", "code-realist"]


# ---------------------------------------------------------------------------- builders


def pf(title: str, severity: Severity = I, phase: str = "design", contributing: str | None = None, *,
       section: str = "Design > Queue", issue: str | None = None, why: str = "Blocks 3 of 4 consumers.",
       suggestion: str = "Bound the queue.", evidence: str | None = None) -> PersonaFinding:
    return PersonaFinding(title=title, severity=severity, phase=phase, contributing_phase=contributing,
                          section=section, issue=issue or f"{title}.", why_it_matters=why,
                          suggestion=suggestion, evidence=evidence)


def report(persona: str, findings: list[PersonaFinding]) -> PersonaReport:
    return PersonaReport(persona=persona, findings=findings, checked_and_fine=[],
                         blind_spot_check=f"{persona} did not look at cost.")


def panel(**by_persona: list[PersonaFinding]) -> dict[str, PersonaReport]:
    """Reports of every design-stage persona; those not named report no findings."""
    return {p: report(p, by_persona.get(p.replace("-", "_"), [])) for p in DESIGN_STAGE}


def context(iteration: int = 1, personas: list[str] | None = None, design_text: str = "") -> ReviewContext:
    return ReviewContext(topic="queue", stage="design", personas=list(personas or DESIGN_STAGE),
                         design_path="design.md", requirements_path="requirements.md", date="2026-01-01",
                         iteration=iteration, design_text=design_text)


def run_of(member: str, status: str = "complete", reason: str | None = None, attempts: int = 1) -> MemberRun:
    return MemberRun(kind="design", member=member, status=status, reason=reason, attempts=attempts)


def ok_runs(personas: list[str] = DESIGN_STAGE) -> list[MemberRun]:
    return [run_of(p) for p in personas]


def results(reports: dict[str, PersonaReport], runs: list[MemberRun], personas: list[str] = DESIGN_STAGE,
            salvaged: dict[str, PersonaReport] | None = None) -> dict[str, MemberResult[PersonaReport]]:
    """Each dispatched persona's result: its run, its report when the run completed, and what
    parsed of a malformed answer."""
    by_member = {r.member: r for r in runs}
    return {p: MemberResult(by_member[p], report=reports.get(p) if by_member[p].completed else None,
                            salvaged=(salvaged or {}).get(p)) for p in personas}


def synthesis_result(ans: SynthesisAnswer | None, run: MemberRun | None = None) -> MemberResult[SynthesisAnswer] | None:
    """The synthesizer's result: a completed run with `ans`, or `run` (one that did not complete)."""
    if ans is not None:
        return MemberResult(run_of("synthesizer"), report=ans)
    return MemberResult(run) if run is not None else None


def group(*members: str, phase: str = "design", contributing: str | None = None, title: str = "g") -> FindingGroup:
    return FindingGroup(members=list(members), title=title, primary_phase=phase, contributing_phase=contributing,
                        phase_rationale=f"{title} is a {phase} issue.")


def answer(*groups: FindingGroup) -> SynthesisAnswer:
    return SynthesisAnswer(groups=list(groups), contradictions=[], patterns=[])


def synth(reports, ans, *, iteration: int = 1, runs=None, personas=None, synthesizer_run=None) -> DesignReview:
    dispatched = list(personas or DESIGN_STAGE)
    runs = runs if runs is not None else ok_runs(dispatched)
    return synthesize_design(context(iteration, dispatched), results(reports, runs, dispatched),
                             synthesis_result(ans, synthesizer_run), CONFIG)


def all_reviewer_ids(reports: dict[str, PersonaReport], iteration: int = 1) -> list[str]:
    return sorted(f"v{iteration}-{p}-{n:03d}" for p, r in reports.items() for n in range(1, len(r.findings) + 1))


def member_ids(review: DesignReview) -> list[str]:
    return [m for f in review.findings for m in f.member_ids]


# ---------------------------------------------------------------------------- 1-2 personas and threshold


@pytest.mark.parametrize("stage,expected", [
    ("requirements", REQUIREMENTS_STAGE), ("design", DESIGN_STAGE), ("plan", PLAN_STAGE),
])
def test_activation_matrix(stage, expected):
    assert CONFIG.active(stage) == expected
    assert len(CONFIG.active(stage)) == {"requirements": 5, "design": 6, "plan": 6}[stage]
    # a copy: changing it does not change the matrix
    CONFIG.active(stage).append("code-realist")
    assert CONFIG.active(stage) == expected


def test_override_keeps_given_order_and_ignores_the_stage_set():
    assert CONFIG.active("design", ["prior-art-scout", "assumption-hunter"]) == ["prior-art-scout", "assumption-hunter"]
    assert CONFIG.active("requirements", ["code-realist", "systems-architect"]) == ["code-realist", "systems-architect"]
    assert CONFIG.active("plan", ["code-realist", "edge-case-prober", "code-realist"]) == ["code-realist", "edge-case-prober"]


def test_unknown_persona_or_stage_is_named():
    with pytest.raises(PersonaError, match="nobody"):
        CONFIG.active("design", ["assumption-hunter", "nobody"])
    with pytest.raises(PersonaError, match="banana"):
        CONFIG.active("banana")
    with pytest.raises(PersonaError, match="ghost"):
        CONFIG.persona("ghost")


@pytest.mark.parametrize("dispatched,needed", [(6, 4), (5, 4), (4, 3), (3, 2)])
def test_min_successes(dispatched, needed):
    assert CONFIG.failure.min_successes(dispatched) == needed


# ---------------------------------------------------------------------------- 3 verdict rules


def test_calibrate_gap_at_minor_escalates_to_calibrate():
    reports = panel(assumption_hunter=[pf("Requirements disagree on retention", M, phase="calibrate")],
                    edge_case_prober=[pf("Queue has no bound", C)])
    review = synth(reports, answer(group("assumption-hunter-001", phase="calibrate"), group("edge-case-prober-001")))
    assert review.status == "complete"
    assert (review.verdict, review.escalation_target) == ("escalate", "calibrate")
    assert "v1-assumption-hunter-001" in review.verdict_reasoning
    assert review.phase_counts == {"survey": 0, "calibrate": 1, "design": 1, "plan": 0}


def test_survey_gap_wins_over_calibrate_gap():
    reports = panel(assumption_hunter=[pf("Requirements disagree", C, phase="calibrate")],
                    prior_art_scout=[pf("Managed queues not compared", M, phase="survey")])
    review = synth(reports, answer(group("assumption-hunter-001", phase="calibrate"),
                                   group("prior-art-scout-001", phase="survey")))
    assert (review.verdict, review.escalation_target) == ("escalate", "survey")


def test_critical_design_finding_revises():
    reports = panel(edge_case_prober=[pf("Queue has no bound", C)], assumption_hunter=[pf("Load unsourced", M)])
    review = synth(reports, answer(group("edge-case-prober-001"), group("assumption-hunter-001")))
    assert (review.verdict, review.escalation_target) == ("revise", None)
    assert review.counts == {"Critical": 1, "Important": 0, "Minor": 1, "Contradictions": 0}


def test_important_and_minor_only_proceed():
    reports = panel(edge_case_prober=[pf("Retry count unstated", I)], assumption_hunter=[pf("Load unsourced", M)])
    review = synth(reports, answer(group("edge-case-prober-001"), group("assumption-hunter-001", phase="plan")))
    assert (review.verdict, review.escalation_target) == ("proceed", None)
    assert "1 Important, 1 Minor" in review.verdict_reasoning


def test_severity_range_counts_the_highest():
    reports = panel(assumption_hunter=[pf("Queue unbounded", I)], edge_case_prober=[pf("Queue has no bound", C)])
    review = synth(reports, answer(group("assumption-hunter-001", "edge-case-prober-001")))
    [finding] = review.findings
    assert finding.severity == C
    assert [(v.persona, v.severity) for v in finding.severity_range] == [("edge-case-prober", C), ("assumption-hunter", I)]
    assert finding.reviewers == ["edge-case-prober", "assumption-hunter"]
    assert review.verdict == "revise"
    names = {p: CONFIG.personas[p].name for p in DESIGN_STAGE}
    assert severity_range_text(finding) == (
        f"Flagged Critical by {names['edge-case-prober']}, Important by {names['assumption-hunter']}")
    assert severity_range_text(finding) == "Flagged Critical by Edge Case Prober, Important by Assumption Hunter"
    assert "Flagged Critical by Edge Case Prober, Important by Assumption Hunter" in render_summary(review)


# ---------------------------------------------------------------------------- 4 systemic issues


def _systemic_review(calibrate: int) -> DesignReview:
    """10 findings with a contributing phase (`calibrate` of them calibrate, the rest spread so no
    other phase exceeds 3) and 2 with none, spread over the panel."""
    others = ["survey", "survey", "survey", "plan", "plan", "plan", "design"][: 10 - calibrate]
    plan = [("design", "calibrate")] * calibrate + [("plan" if c == "design" else "design", c) for c in others]
    plan += [("design", None), ("design", None)]
    assert sum(1 for _, c in plan if c) == 10
    by_persona: dict[str, list] = {p: [] for p in DESIGN_STAGE}
    groups = []
    for k, (primary, cause) in enumerate(plan):
        persona = DESIGN_STAGE[k % len(DESIGN_STAGE)]
        by_persona[persona].append(pf(f"Finding {k}", I, phase=primary, contributing=cause))
        groups.append(group(f"{persona}-{len(by_persona[persona]):03d}", phase=primary, contributing=cause))
    reports = {p: report(p, fs) for p, fs in by_persona.items()}
    return synth(reports, answer(*groups))


def test_three_of_ten_is_not_systemic():
    review = _systemic_review(3)
    assert Counter(f.contributing_phase for f in review.findings if f.contributing_phase)["calibrate"] == 3
    assert review.systemic == []


def test_four_of_ten_is_systemic():
    review = _systemic_review(4)
    assert len(review.findings) == 12
    assert [(s.phase, s.count, s.of) for s in review.systemic] == [("calibrate", 4, 10)]
    assert review.systemic[0].share == pytest.approx(0.4)


def test_contributing_phase_equal_to_primary_is_dropped():
    reports = panel(assumption_hunter=[pf("x", I)])
    review = synth(reports, answer(group("assumption-hunter-001", phase="design", contributing="design")))
    assert review.findings[0].contributing_phase is None


# ---------------------------------------------------------------------------- 5 ids


def test_finding_ids_and_member_ids():
    scout = [pf(f"Scout finding {k}", M) for k in range(1, 11)]
    reports = panel(assumption_hunter=[pf("Queue unbounded", I)],
                    edge_case_prober=[pf("Retry storm", I), pf("Queue has no bound", C)],
                    prior_art_scout=scout)
    groups = [group("assumption-hunter-001", "edge-case-prober-002", "prior-art-scout-010"),
              group("edge-case-prober-001")] + [group(f"prior-art-scout-{k:03d}") for k in range(1, 10)]
    review = synth(reports, answer(*groups), iteration=2)
    ids = [f.id for f in review.findings]
    assert len(ids) == len(set(ids)) == 11
    assert all(re.fullmatch(r"v2-[a-z-]+-\d{3}", i) for i in ids), ids
    merged = next(f for f in review.findings if len(f.member_ids) > 1)
    # the lead is the most severe member; its id is the finding's id
    assert merged.id == "v2-edge-case-prober-002"
    assert merged.member_ids == ["v2-edge-case-prober-002", "v2-assumption-hunter-001", "v2-prior-art-scout-010"]
    assert merged.title == "Queue has no bound"
    assert sorted(member_ids(review)) == all_reviewer_ids(reports, 2)
    assert {f.id for f in review.findings} >= {"v2-edge-case-prober-001", "v2-prior-art-scout-009"}


# ---------------------------------------------------------------------------- 6 traceability


def _trace_reports() -> dict[str, PersonaReport]:
    return panel(
        assumption_hunter=[pf("Load figure unsourced", I, section="Design > Load", evidence="10k events per second")],
        edge_case_prober=[pf("Queue has no bound", C), pf("Retries unbounded", I, section="Design > Retry")],
        feasibility_skeptic=[pf("Too many services", M, section="Design > Components")],
    )


VALID = answer(group("edge-case-prober-001", "feasibility-skeptic-001"), group("edge-case-prober-002"),
               group("assumption-hunter-001"))


@pytest.mark.parametrize("bad,problem", [
    (answer(group("edge-case-prober-001"), group("edge-case-prober-002"), group("assumption-hunter-001")),
     "it drops findings: feasibility-skeptic-001"),
    (answer(group("edge-case-prober-001", "feasibility-skeptic-001"), group("edge-case-prober-002"),
            group("assumption-hunter-001", "edge-case-prober-001")),
     "it uses findings more than once: edge-case-prober-001"),
    (answer(group("edge-case-prober-001", "feasibility-skeptic-001"), group("edge-case-prober-002"),
            group("assumption-hunter-001"), group("first-principles-007")),
     "it names findings that no reviewer reported: first-principles-007"),
    (None, "the synthesizer timed out (no answer within 120s)"),
], ids=["drops", "twice", "unknown", "no-answer"])
def test_broken_synthesizer_answer_falls_back_to_deterministic_grouping(bad, problem):
    reports = _trace_reports()
    timed_out = run_of("synthesizer", "timed_out", "timed out (no answer within 120s)", attempts=2)
    review = synth(reports, bad, synthesizer_run=timed_out if bad is None else None)
    assert review.synthesis == "deterministic"
    notes = [w for w in review.warnings if "answer was not used" in w]
    assert len(notes) == 1 and problem in notes[0], review.warnings
    ids = member_ids(review)
    assert Counter(ids) == Counter(all_reviewer_ids(reports)) and len(ids) == len(set(ids))
    assert review.verdict == "revise"


def test_valid_synthesizer_answer_is_used():
    reports = _trace_reports()
    review = synth(reports, VALID)
    assert review.synthesis == "model"
    assert not any("answer was not used" in w for w in review.warnings)
    assert sorted(member_ids(review)) == all_reviewer_ids(reports)
    # sorted by severity, then phase, then id
    assert [f.member_ids for f in review.findings] == [
        ["v1-edge-case-prober-001", "v1-feasibility-skeptic-001"], ["v1-assumption-hunter-001"],
        ["v1-edge-case-prober-002"]]


def test_patterns_and_contradictions_of_the_answer_are_kept_with_prefixed_ids():
    reports = _trace_reports()
    contradiction = Contradiction(
        topic="Queue size", tension="bound versus simplicity", tie_breakers=["Which requirement"],
        positions=[ContradictionPosition(persona="edge-case-prober", finding="edge-case-prober-001", position="add"),
                   ContradictionPosition(persona="feasibility-skeptic", finding=None, position="cut")])
    ans = VALID.model_copy(update={
        "contradictions": [contradiction],
        "patterns": [Pattern(id="p1-unbounded", theme="Unbounded", members=["edge-case-prober-001", "edge-case-prober-002"])],
    })
    review = synth(reports, ans, iteration=3)
    assert review.synthesis == "model"
    assert review.patterns[0].members == ["v3-edge-case-prober-001", "v3-edge-case-prober-002"]
    assert review.counts["Contradictions"] == 1 and review.contradictions == [contradiction]
    assert not any(w.startswith("Pattern") for w in review.warnings)


def test_a_pattern_member_no_reviewer_reported_is_named_not_dropped_silently():
    ans = VALID.model_copy(update={"patterns": [
        Pattern(id="p1-unbounded", theme="Unbounded", members=["edge-case-prober-001", "edge-case-prober-009"])]})
    review = synth(_trace_reports(), ans)
    assert review.patterns[0].members == ["v1-edge-case-prober-001"]
    assert ("Pattern p1-unbounded names findings no reviewer reported (edge-case-prober-009): they are left out of it."
            in review.warnings)


def test_evidence_is_verified_against_both_documents():
    reports = panel(assumption_hunter=[pf("Load unsourced", I, evidence="Peak load is 10k events per second.")],
                    edge_case_prober=[pf("Invented quote", I, section="Design > Retry", evidence="We never retry.")],
                    feasibility_skeptic=[pf("Absence", M, section="Design > Cost", evidence=None)])
    ctx = context(design_text="## Load\n\nPeak load is   10k events\nper second, measured in May.")
    ans = answer(group("assumption-hunter-001"), group("edge-case-prober-001"), group("feasibility-skeptic-001"))
    review = synthesize_design(ctx, results(reports, ok_runs()), synthesis_result(ans), CONFIG)
    verified = {f.id: f.evidence_verified for f in review.findings}
    assert verified == {"v1-assumption-hunter-001": True, "v1-edge-case-prober-001": False,
                        "v1-feasibility-skeptic-001": None}
    assert any("v1-edge-case-prober-001" in w and "v1-assumption-hunter-001" not in w
               for w in review.warnings if w.startswith("Evidence quotes not found"))


# ---------------------------------------------------------------------------- 7 status


def test_two_failed_of_six_is_partial_with_a_note():
    reports = {p: r for p, r in _trace_reports().items() if p not in ("feasibility-skeptic", "prior-art-scout")}
    ans = answer(group("edge-case-prober-001"), group("edge-case-prober-002"), group("assumption-hunter-001"))
    runs = ok_runs([p for p in DESIGN_STAGE if p in reports]) + [
        run_of("feasibility-skeptic", "timed_out", "timed out (no answer within 120s)", attempts=2),
        run_of("prior-art-scout", "failed", "model call failed: OfflineFault: boom", attempts=2),
    ]
    review = synth(reports, ans, runs=runs)
    note = ("4/6 reviewers completed, Feasibility Skeptic timed out, "
            "Prior Art Scout failed (model call failed: OfflineFault: boom)")
    assert review.status == "partial"
    assert review.completion_note == note == completion_note(DESIGN_STAGE, runs, CONFIG)
    assert review.reviewers_completed == ["assumption-hunter", "edge-case-prober", "requirement-auditor", "first-principles"]
    assert review.verdict == "revise"
    assert review.verdict_reasoning.endswith(f"Partial review: {note}.")
    assert "Feasibility Skeptic timed out" in render_summary(review)


def test_three_of_six_is_failed_without_verdict():
    keep = ("assumption-hunter", "edge-case-prober", "requirement-auditor")
    reports = {p: r for p, r in _trace_reports().items() if p in keep}
    runs = ok_runs(list(keep)) + [run_of(p, "timed_out", "timed out (x)") for p in DESIGN_STAGE if p not in keep]
    review = synth(reports, VALID, runs=runs)
    assert review.status == "failed"
    assert review.verdict is None and review.escalation_target is None
    assert review.findings == []
    assert review.completion_note.startswith("3/6 reviewers completed, Feasibility Skeptic timed out")
    assert "at least 4 of 6 must complete" in review.verdict_reasoning
    assert "did not reach a verdict" in render_summary(review)


def test_four_of_five_completes_the_requirements_stage():
    personas = REQUIREMENTS_STAGE
    reports = {p: report(p, [pf("x", M)]) for p in personas[:4]}
    runs = ok_runs(personas[:4]) + [run_of(personas[4], "malformed", "malformed answer: x", attempts=2)]
    review = synth(reports, None, runs=runs, personas=personas)
    assert review.status == "partial" and review.verdict == "proceed"
    runs[3] = run_of(personas[3], "timed_out", "timed out")
    review = synth(reports, None, runs=runs, personas=personas)
    assert review.status == "failed" and review.verdict is None


# ---------------------------------------------------------------------------- 8 parser


def _finding_json(**update) -> dict:
    base = {"title": "Queue has no bound", "severity": "Critical", "phase": "design", "contributing_phase": None,
            "section": "Design > Queue", "issue": "Unbounded.", "why_it_matters": "Drops jobs.",
            "suggestion": "Bound it.", "evidence": None}
    return base | update


def test_parser_drops_a_bad_finding_and_keeps_the_others():
    text = "Here is my review:\n" + json.dumps({
        "persona": "edge-case-prober",
        "findings": [_finding_json(), _finding_json(title="Bad one", severity="Severe"),
                     _finding_json(title="Lower case", severity="important", phase="CALIBRATE")],
        "checked_and_fine": ["Design > Auth"],
        "blind_spot_check": "Cost.",
    })
    outcome = parse_persona_output(text, "edge-case-prober")
    assert outcome.usable and not outcome.malformed
    assert [f.title for f in outcome.report.findings] == ["Queue has no bound", "Lower case"]
    assert outcome.report.findings[1].severity == I and outcome.report.findings[1].phase == "calibrate"
    assert len(outcome.problems) == 1 and outcome.problems[0].startswith("finding 2: severity")


def test_parser_clean_answer_is_ok():
    text = json.dumps({"persona": "edge-case-prober", "findings": [_finding_json()], "checked_and_fine": [],
                       "blind_spot_check": "Cost."})
    outcome = parse_persona_output(text, "edge-case-prober")
    assert outcome.usable and outcome.problems == [] and len(outcome.report.findings) == 1


@pytest.mark.parametrize("text", ["I found no problems worth reporting.", "", "[1, 2, 3]"])
def test_parser_without_json_object_is_malformed(text):
    outcome = parse_persona_output(text, "edge-case-prober")
    assert outcome.malformed and outcome.report is None and outcome.problems
    synthesis = parse_synthesis_output(text)
    assert synthesis.malformed and synthesis.report is None


def test_synthesis_parser_drops_a_bad_group():
    text = json.dumps({"groups": [{"members": ["a-001"], "title": "t", "primary_phase": "Design",
                                   "contributing_phase": None, "phase_rationale": "r"},
                                  {"members": ["b-001"], "title": "t", "primary_phase": "nowhere",
                                   "contributing_phase": None, "phase_rationale": "r"}],
                       "contradictions": [], "patterns": []})
    outcome = parse_synthesis_output(text)
    assert outcome.usable and outcome.problems
    assert [g.members for g in outcome.report.groups] == [["a-001"]]
    assert outcome.problems[0].startswith("group 2: primary_phase")


# ---------------------------------------------------------------------------- 9 hedge rate


def test_hedge_rate():
    hedged = pf("Queue might overflow", I, issue="It could possibly drop jobs.", why="Blocks consumers.",
                suggestion="Bound it.")
    # 12 words (queue might overflow / it could possibly drop jobs / blocks consumers / bound it), 3 hedges
    review = synth(panel(edge_case_prober=[hedged]), answer(group("edge-case-prober-001")))
    assert review.hedge_rate == pytest.approx(25.0)
    plain = pf("Queue overflows", I, issue="It drops jobs.", why="Blocks consumers.", suggestion="Bound it.")
    review = synth(panel(edge_case_prober=[plain]), answer(group("edge-case-prober-001")))
    assert review.hedge_rate == 0.0
    assert synth(panel(), answer()).hedge_rate == 0.0


# ============================================================================ end to end


def design_review_task():
    spec = importlib.util.spec_from_file_location("design_review_task_file", TASK_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.design_review


def run(log_dir: Path, model_args: dict | None = None, model: str = MODEL, model_roles: dict | None = None,
        **task_args) -> EvalLog:
    """One eval in this process. A review of given documents writes its folder beside the logs
    unless the test names one (never into the folder pytest runs from)."""
    if ("design" in task_args or "requirements" in task_args) and "output_dir" not in task_args:
        task_args["output_dir"] = str(Path(log_dir) / "reviews")
    [log] = inspect_eval(design_review_task()(**task_args), model=model, model_args=model_args or {},
                         model_roles=model_roles, log_dir=str(log_dir), display="none")
    return log


def reviews_of(log: EvalLog) -> dict[str, DesignReview]:
    return {str(s.id): DesignReview.model_validate(s.scores["design_synthesis"].metadata["review"])
            for s in log.samples}


@pytest.fixture(scope="module")
def gold_log(default_gold_log) -> EvalLog:
    return default_gold_log("design_review")


@pytest.fixture(scope="module")
def fault_log(tmp_path_factory) -> EvalLog:
    return run(tmp_path_factory.mktemp("faults"), model_args={"fault_rate": 0.5, "fault_seed": 3})


def case_args(case: str, **extra) -> dict:
    folder = GOLD_FIXTURES / case
    return {"design": str(folder / "design.md"), "requirements": str(folder / "requirements.md")} | extra


# ---------------------------------------------------------------------------- 10 gold set


def test_gold_set_end_to_end(gold_log):
    assert gold_log.status == "success"
    assert len(FIXTURE_CASES) == 14 and REAL_GOLD  # the real designs: as many as gold/design/real holds
    assert sorted(str(s.id) for s in gold_log.samples) == GOLD_CASES
    found = reviews_of(gold_log)
    for sample in gold_log.samples:
        assert sample.error is None
        review = found[str(sample.id)]
        assert review.kind == "design" and review.status == "complete"
        assert review.verdict in ("proceed", "revise", "escalate")
        assert (review.escalation_target is not None) == (review.verdict == "escalate")
        assert review.personas == CONFIG.active(review.stage)
        assert review.findings or str(sample.id) in REAL_CASES  # a shipped design may draw no finding offline
        for finding in review.findings:
            assert finding.reviewers and set(finding.reviewers) <= set(review.personas)
            assert finding.severity_range
            assert finding.severity == min((v.severity for v in finding.severity_range), key=lambda s: s.rank)
            assert finding.primary_phase in PHASES
            assert re.fullmatch(rf"v{review.iteration}-[a-z-]+-\d{{3}}", finding.id)
        ids = member_ids(review)
        assert len(ids) == len(set(ids))
        expected = sorted(f"v{review.iteration}-{p}-{n:03d}" for p, r in review.persona_reports.items()
                          for n in range(1, len(r.findings) + 1))
        assert sorted(ids) == expected
        assert sample.output.completion.startswith(f"# Review Summary: {review.topic}")
    assert found["webhook-delivery-v1"].topic == found["webhook-delivery-v2"].topic
    assert found["webhook-delivery-v2"].iteration == 2
    assert found["deploy-cli-brief"].personas == REQUIREMENTS_STAGE
    assert found["feature-store-plan"].personas == PLAN_STAGE


@pytest.mark.real("design")
def test_the_gold_set_reviews_every_real_design(gold_log):
    assert REAL_CASES == [p.stem for p in REAL_GOLD]  # every document is here
    assert set(REAL_CASES) <= {str(s.id) for s in gold_log.samples}


def test_gold_set_evidence_quoted_from_the_design_is_verified(gold_log):
    checked = 0
    for case, review in reviews_of(gold_log).items():
        if case in REAL_CASES:
            continue
        design = " ".join((GOLD_FIXTURES / case / "design.md").read_text(encoding="utf-8").split()).lower()
        for finding in review.findings:
            if finding.evidence and " ".join(finding.evidence.split()).lower() in design:
                checked += 1
                assert finding.evidence_verified is True, (case, finding.id, finding.evidence)
    assert checked > 0


# ---------------------------------------------------------------------------- 11 artifact folder


def test_artifact_folder_over_two_iterations(tmp_path):
    """One design file reviewed twice (its text revised in between) under one topic: two
    iteration folders, summary.md the latest, two run lines and a delta that partitions both."""
    out = tmp_path / "reviews"
    design = tmp_path / "design.md"
    requirements = str(GOLD_FIXTURES / "webhook-delivery-v1" / "requirements.md")
    design.write_text((GOLD_FIXTURES / "webhook-delivery-v1" / "design.md").read_text())
    log1 = run(tmp_path / "logs", design=str(design), requirements=requirements, topic="t", output_dir=str(out))
    assert log1.status == "success"
    folder = out / "t"
    v1_dir = folder / "v1"
    persona_files = {f"{p}-v1.md" for p in DESIGN_STAGE}
    assert {p.name for p in folder.iterdir() if not p.name.startswith(".")} == {
        "summary.md", "runs.jsonl", "topic.json", "v1"}
    assert {p.name for p in v1_dir.iterdir()} == persona_files | {
        "summary-v1.md", "findings-v1.jsonl", "patterns-v1.json", "run-v1.json", "reports-v1.json"}
    review1 = reviews_of(log1)["t"]
    assert review1.iteration == 1 and review1.delta is None
    v1 = [json.loads(line) for line in (v1_dir / "findings-v1.jsonl").read_text().splitlines()]
    assert [r["id"] for r in v1] == [f.id for f in review1.findings]
    assert json.loads((v1_dir / "patterns-v1.json").read_text())["iteration"] == 1
    assert (folder / "summary.md").read_text() == (v1_dir / "summary-v1.md").read_text()
    assert (folder / "summary.md").read_text().startswith("# Review Summary: t")

    design.write_text((GOLD_FIXTURES / "webhook-delivery-v2" / "design.md").read_text())
    log2 = run(tmp_path / "logs", design=str(design), requirements=requirements, topic="t", output_dir=str(out))
    assert log2.status == "success"
    review2 = reviews_of(log2)["t"]
    assert review2.iteration == 2 and all(f.id.startswith("v2-") for f in review2.findings)
    v2_dir = folder / "v2"
    assert {"findings-v2.jsonl", "patterns-v2.json", "delta-v1-v2.json", "summary-v2.md"} <= {p.name for p in v2_dir.iterdir()}
    assert (v1_dir / "summary-v1.md").read_text().startswith("# Review Summary: t")  # history kept without git
    assert "**Iteration:** 2" in (folder / "summary.md").read_text()
    runs = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in runs] == [1, 2]

    delta = json.loads((v2_dir / "delta-v1-v2.json").read_text())
    assert (delta["from_iteration"], delta["to_iteration"], delta["method"]) == (1, 2, "offline")
    assert review2.delta is not None and review2.delta.model_dump(mode="json")["findings"] == delta["findings"]
    v2 = [json.loads(line) for line in (v2_dir / "findings-v2.jsonl").read_text().splitlines()]
    part = delta["findings"]
    assert sorted([r["id"] for r in part["resolved"]] + [p["previous"] for p in part["persisting"]]) == sorted(r["id"] for r in v1)
    assert sorted([p["current"] for p in part["persisting"]] + [r["id"] for r in part["new"]]) == sorted(r["id"] for r in v2)
    patterns_v1 = [p["id"] for p in json.loads((v1_dir / "patterns-v1.json").read_text())["patterns"]]
    pp = delta["patterns"]
    assert sorted([r["id"] for r in pp["resolved"]] + [p["previous"] for p in pp["persisting"]]) == sorted(patterns_v1)
    assert "## Since Iteration 1" in (folder / "summary.md").read_text()


# ---------------------------------------------------------------------------- 12 bad input


def test_bad_input_raises_one_line_naming_the_parameter(tmp_path):
    task = design_review_task()
    empty = tmp_path / "empty.md"
    empty.write_text("  \n")
    missing = tmp_path / "missing.md"
    good = case_args("billing-export")
    cases = [
        (dict(good, design=str(missing)), "-T design=", "does not exist"),
        (dict(good, requirements=str(empty)), "-T requirements=", "empty"),
        (dict(good, topic="bad topic!"), "-T topic=bad topic!", "letters, digits"),
        (dict(good, stage="banana"), "-T stage=banana", "requirements, design, plan"),
        (dict(good, personas="nobody"), "-T personas=nobody", "unknown persona 'nobody'"),
        ({"design": good["design"]}, "-T requirements=", "required"),
        (dict(good, timeout=30), "-T timeout=30", "between 60 and 120"),
    ]
    for args, parameter, detail in cases:
        with pytest.raises(PrerequisiteError) as raised:
            task(**args)
        message = str(raised.value)
        assert message.startswith(parameter) and detail in message and "\n" not in message, (args, message)


# ---------------------------------------------------------------------------- 13 injected faults


def test_faults_degrade_reviews_without_failing_samples(fault_log):
    assert fault_log.status == "success"
    assert len(fault_log.samples) == len(GOLD_CASES)
    assert all(s.error is None for s in fault_log.samples)
    found = reviews_of(fault_log)
    degraded = {case: r for case, r in found.items() if r.status != "complete"}
    assert degraded
    for case, review in found.items():
        failed_runs = [r for r in review.reviewer_runs if not r.completed and r.member in review.personas]
        assert review.status == "complete" if not failed_runs else review.status in ("partial", "failed")
        assert sorted(review.reviewers_completed) == sorted(
            r.member for r in review.reviewer_runs if r.completed and r.member in review.personas)
        if review.status == "partial":
            assert review.verdict is not None
            assert re.search(r"timed out|failed \(|returned malformed output", review.completion_note), (
                case, review.completion_note)
            assert f"Partial review: {review.completion_note}" in review.verdict_reasoning
        elif review.status == "failed":
            assert review.verdict is None
            assert review.verdict_reasoning.startswith("No verdict:"), (case, review.verdict_reasoning)
        for run in failed_runs:
            assert CONFIG.personas[run.member].name in review.completion_note
        synth_runs = [r for r in review.reviewer_runs if r.member == "synthesizer"]
        if synth_runs and not synth_runs[-1].completed:
            assert review.synthesis == "deterministic"
            assert any(f"The synthesizer's answer was not used (the synthesizer {synth_runs[-1].describe().split(' (')[0]}" in w
                       for w in review.warnings), review.warnings


def test_every_persona_malformed_twice_leaves_no_persona_completed_and_no_verdict(tmp_path):
    log = run(tmp_path, model_args={"fault_rate": 1, "faults": "malformed"},
              **case_args("api-rate-limiter", topic="all-malformed"))
    review = reviews_of(log)["all-malformed"]
    assert log.samples[0].error is None
    assert review.status == "failed" and review.verdict is None and review.findings == []
    assert review.reviewers_completed == [] and review.persona_reports == {}
    persona_runs = [r for r in review.reviewer_runs if r.member in review.personas]
    assert [(r.member, r.status, r.attempts) for r in persona_runs] == [(p, "malformed", 2) for p in review.personas]
    assert not any(r.member == "synthesizer" for r in review.reviewer_runs)  # under the threshold: not asked
    names = [CONFIG.personas[p].name for p in review.personas]
    assert review.completion_note == "0/6 reviewers completed, " + ", ".join(f"{n} returned malformed output" for n in names)
    summary = log.samples[0].output.completion
    assert "did not reach a verdict" in summary and f"- {names[0]}: returned malformed output (malformed answer" in summary


def test_one_malformed_persona_is_named_not_counted_and_its_items_are_only_warnings(tmp_path):
    from scripted_members import MODEL as SCRIPTED

    log = run(tmp_path, model=SCRIPTED, model_args={"members": "prior-art-scout,synthesizer"},
              **case_args("api-rate-limiter", topic="one-malformed"))
    [sample] = log.samples
    review = reviews_of(log)["one-malformed"]
    scout = next(r for r in review.reviewer_runs if r.member == "prior-art-scout")
    assert (scout.status, scout.attempts, scout.kind) == ("malformed", 2, "design")
    assert scout.reason.startswith("malformed answer: invalid JSON")
    # what parsed of its answer is kept in the store, beside the run, and named in the warnings only
    salvaged = PersonaReport.model_validate(sample.store["design:member:prior-art-scout"]["salvaged"])
    assert salvaged.findings and sample.store["design:member:prior-art-scout"]["report"] is None
    assert review.status == "partial" and review.verdict is not None
    assert "prior-art-scout" not in review.reviewers_completed and len(review.reviewers_completed) == 5
    assert review.completion_note == "5/6 reviewers completed, Prior Art Scout returned malformed output"
    assert "prior-art-scout" not in review.persona_reports
    assert not any("prior-art-scout" in f.reviewers for f in review.findings)
    [warning] = [w for w in review.warnings if w.startswith("Prior Art Scout returned malformed output")]
    assert f"its {len(salvaged.findings)} finding(s) that parsed are not part of the review: {salvaged.findings[0].title}" in warning
    # the synthesizer's malformed answer is not used, and the summary says so
    synthesizer = next(r for r in review.reviewer_runs if r.member == "synthesizer")
    assert (synthesizer.status, synthesizer.attempts, synthesizer.role) == ("malformed", 2, "synthesizer")
    assert review.synthesis == "deterministic"
    summary = sample.output.completion
    assert "**Status:** partial — 5/6 reviewers completed, Prior Art Scout returned malformed output" in summary
    assert "The synthesizer's answer was not used (the synthesizer returned malformed output (malformed answer" in summary
    assert warning.split(":")[0] in summary


def test_a_cut_off_persona_answer_is_malformed_with_its_complete_findings_kept():
    text = json.dumps({"persona": "edge-case-prober", "findings": [_finding_json(), _finding_json(title="Second")],
                       "checked_and_fine": [], "blind_spot_check": "Cost."})
    outcome = parse_persona_output(text[: text.index("Second") + 20], "edge-case-prober")
    assert outcome.malformed and not outcome.usable
    assert [f.title for f in outcome.report.findings] == ["Queue has no bound"]
    assert outcome.problems[0] == "output was cut off; kept the complete part"


def test_offline_answers_are_routed_by_member_not_by_the_prompt():
    from review_harness.core.kinds import get_kind
    from review_harness.design.prompts import render_persona_prompt, render_synthesizer_prompt

    design = get_kind("design")
    folder = GOLD_FIXTURES / "api-rate-limiter"
    prompt = render_persona_prompt("assumption-hunter", CONFIG, stage="design", design=(folder / "design.md").read_text(),
                                   requirements=(folder / "requirements.md").read_text(), topic="t")
    # the member asking is the persona that answers, whichever persona the request names
    answer = PersonaReport.model_validate_json(design.offline_answer("edge-case-prober", prompt.text))
    assert answer.persona == "edge-case-prober"
    assert design.offline_answer("synthesizer", prompt.text) is None  # a persona request has no findings block
    synthesis = render_synthesizer_prompt(_trace_reports(), CONFIG, topic="t", stage="design")
    grouped = SynthesisAnswer.model_validate_json(design.offline_answer("synthesizer", synthesis.request))
    assert sorted(m for g in grouped.groups for m in g.members) == sorted(
        f"{p}-{n:03d}" for p, r in _trace_reports().items() for n in range(1, len(r.findings) + 1))


def test_synthesizer_items_its_parser_dropped_are_named_in_the_warnings():
    reports = _trace_reports()
    run = run_of("synthesizer").model_copy(update={"problems": ["pattern 1: theme: Field required"]})
    review = synthesize_design(context(), results(reports, ok_runs()), MemberResult(run, report=VALID), CONFIG)
    assert review.synthesis == "model"
    assert "Parts of the synthesizer's answer could not be read and are left out: pattern 1: theme: Field required." in review.warnings


# ---------------------------------------------------------------------------- 14 parallel dispatch


def test_personas_run_in_parallel(tmp_path):
    log = run(tmp_path, model_args={"latency": 1}, **case_args("billing-export", topic="latency"))
    assert log.status == "success"
    [sample] = log.samples
    review = reviews_of(log)["latency"]
    assert review.status == "complete" and len(review.personas) == 6
    assert all(r.seconds >= 1.0 for r in review.reviewer_runs if r.member in review.personas)
    assert any(r.member == "synthesizer" for r in review.reviewer_runs)
    # the personas run at once: every persona's model call starts before the first of them ends
    # (one after another, each would start after the one before it ended); the synthesizer after all
    calls = sorted((e for e in sample.events if e.event == "model"), key=lambda e: e.timestamp)
    personas, synthesizer = calls[:-1], calls[-1]
    assert len(personas) == 6
    first_end = min(e.completed for e in personas)
    assert all(e.timestamp < first_end for e in personas)
    assert synthesizer.timestamp >= max(e.completed for e in personas)


def test_rerun_with_cache_calls_only_the_failed_personas(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    args = case_args("billing-export", topic="rerun", cache="true")
    first = run(tmp_path / "a", model_args={"fault_rate": 0.4, "fault_seed": 0, "faults": "exception"}, **args)
    first_review = reviews_of(first)["rerun"]
    failed = [r.member for r in first_review.reviewer_runs if not r.completed and r.member in first_review.personas]
    assert failed  # the seed makes at least one persona fail twice
    second = run(tmp_path / "b", **args)
    review = reviews_of(second)["rerun"]
    assert review.status == "complete"
    [sample] = second.samples
    called = [e for e in sample.events if e.event == "model" and e.cache != "read"]
    # only the personas that failed, and the synthesizer (its input grew), reach the model
    assert len(called) == len(failed) + 1
