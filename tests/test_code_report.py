"""What a person reads of a code review (issue 32): a Critical quality finding of a failed spec
round is shown as seen but not yet reviewed (show, show --details, the viewer), agreement labels
follow the seed's table, the report says when an automatic action is off and what happens
instead, decisions are words in the viewer, a human's answer naming no finding is refused with the
ids that exist, a reverse range is refused, and the plan says review-fix-N while a fix runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.cli import main
from review_harness.code.change import ChangeError, from_git
from review_harness.code.config import ReviewConfig
from review_harness.code.kind import columns, verdict_line
from review_harness.code.merge import confidence, decide, decision_note, merge_stage
from review_harness.code.models import CheckedFine, CodeFinding, CodeReview, ReviewerAnswer
from review_harness.code.plan import parse_plan
from review_harness.core.inspect_adapter import PrerequisiteError
from test_code_human_loop import PLAN, review_of, run_cases
from test_code_review import repo, run, task_function  # noqa: F401 (the repo fixture)

ROOT = Path(__file__).resolve().parent.parent
RAW = ("AUTO_APPROVE", "AUTO_REJECT_TO_IMPLEMENTER", "PRESENT_TO_HUMAN")


@pytest.fixture(scope="module")
def shell_log(tmp_path_factory):
    """The gold case whose spec stage fails while its discarded quality results hold a shell injection."""
    return inspect_eval(task_function()(), model="offline/rules", display="none", sample_id="spec-fail-shell",
                        log_dir=str(tmp_path_factory.mktemp("shell")))[0]


def test_a_critical_quality_finding_of_a_failed_spec_round_is_shown(shell_log, capsys):
    [sample] = shell_log.samples
    review = CodeReview.model_validate(sample.scores["code_synthesis"].metadata["review"])
    first = review.first
    assert first.spec.verdict == "FAIL" and first.quality.discarded  # the decision follows the seed
    assert first.decision == "AUTO_REJECT_TO_IMPLEMENTER"
    [shell] = first.quality.unreviewed_critical()
    assert shell.finding.category == "security" and shell.finding.line == 9
    for details in ([], ["--details"]):
        assert main(["show", shell_log.location, "--sample", "spec-fail-shell", *details]) == 0
        out = capsys.readouterr().out
        assert "Seen, not yet reviewed:** 1 Critical or security finding(s)" in out
        assert "ops/archive.py:9" in out and "shell=True" in out
    # the viewer: the sample's answer (its header) and the scoring explanation (the whole report)
    score = sample.scores["code_synthesis"]
    assert "1 critical or security quality finding seen, not yet reviewed" in score.answer
    assert "not yet reviewed: A shell command is built from strings" in score.answer
    assert "Seen, not yet reviewed" in score.explanation and "Seen, not yet reviewed" in sample.output.completion
    # the implementer is told too, though it decides nothing yet
    assert "Also seen, not yet reviewed" in review.fixes[0].message and "ops/archive.py:9" in review.fixes[0].message
    assert "not yet reviewed" in verdict_line(review).line()


def test_decisions_are_words_in_the_viewer(shell_log):
    [sample] = shell_log.samples
    assert sample.scores["code_synthesis"].value["decision"] == "auto-reject to the implementer"
    assert sample.scores["code_gold"].answer == "auto-reject to the implementer"
    decision = next(c for c in columns() if c.key == "decision")
    assert not set(decision.colors) & set(RAW)
    for raw in RAW:
        assert raw not in sample.scores["code_synthesis"].answer


# ---------------------------------------------------------------------------- labels and words


def F(severity="Critical", line=10, category="security", description="SQL built from strings"):
    return CodeFinding(severity=severity, category=category, file="a.py", line=line, description=description,
                       suggested_fix=None, quote=None)


def R(*findings, fine=()):
    return ReviewerAnswer(findings=list(findings), checked_fine=list(fine), summary="")


CLEAN = R()


@pytest.mark.parametrize("a, b, scenario", [
    (R(F("Important", category="bug", description="mutable default")), R(F("Important", category="bug", description="mutable default")),
     "both-fail-agreed"),  # both fail on the same issue: they agree
    (R(F("Important", category="bug", description="mutable default")), R(F("Important", 80, "resource", "file never closed")),
     "both-fail-disagree"),
    (R(F("Important", category="bug", description="mutable default"), F("Important", 80, "resource", "file never closed")),
     R(F("Important", category="bug", description="mutable default")), "both-fail-disagree"),  # partly the same
    (R(F()), R(F()), "both-fail-agreed-critical"),
])
def test_agreement_labels_follow_the_table(a, b, scenario):
    spec = merge_stage("spec", {"A": CLEAN, "B": CLEAN}, ("A", "B"))
    quality = merge_stage("quality", {"A": a, "B": b}, ("A", "B"))
    result = confidence(spec, quality)
    assert result.scenario == scenario
    assert ("disagree" in result.action) == (scenario == "both-fail-disagree")


@pytest.mark.parametrize("quality, flags, says", [
    (CLEAN, ReviewConfig(), "auto-approve is off (review.auto_approve: false, the default), so a human confirms this approval"),
    (R(F()), ReviewConfig(), "auto-reject is off (review.auto_reject: false, the default), so a human confirms sending it back"),
    (CLEAN, ReviewConfig(auto_approve=True), None),
    (R(F()), ReviewConfig(auto_reject=True), None),
])
def test_the_report_says_when_an_automatic_action_is_off(quality, flags, says):
    spec = merge_stage("spec", {"A": CLEAN, "B": CLEAN}, ("A", "B"))
    merged = merge_stage("quality", {"A": quality, "B": quality}, ("A", "B"))
    decision = decide(spec, merged, flags)
    note = decision_note(confidence(spec, merged), decision, flags, [spec, merged])
    assert (note is None) == (says is None) and (says is None or note.startswith(says))


def test_a_clean_change_with_auto_approve_off_says_so_in_the_report(tmp_path: Path):
    log = run_cases(tmp_path, ["clean-feature"], auto_approve="false")
    report = log.samples[0].output.completion
    assert "**Confidence: Very High (1.0)** — both-pass-clean: Auto-approve" in report
    assert "**Auto-decision: 👤 Human decides** — auto-approve is off" in report


# ---------------------------------------------------------------------------- the human's answers


def test_a_dismissal_of_an_id_no_finding_has_stops_the_review_naming_the_ids(tmp_path: Path, capsys):
    log = run_cases(tmp_path, ["unclosed-mutable"], human="approve:q9")
    review = review_of(log)
    assert review.final_status == "awaiting-human" and review.human_answers == [] and review.first.human_decision is None
    assert "approve:q9 names q9, which no finding of this decision point has (its findings: q1, q2" in review.answer_error
    assert "answer not applied" in verdict_line(review).line()
    assert "⚠️ the human's answer approve:q9 names q9" in log.samples[0].output.completion
    assert review.warnings == []  # not also called an answer 'not needed'


@pytest.mark.parametrize("value", ["approve:zz99", "reject:q1+s", "approve:i1q1"])
def test_an_answer_that_cannot_name_a_finding_is_refused_before_the_review(value: str):
    with pytest.raises(PrerequisiteError, match="cannot be a finding id: findings are numbered s1, s2"):
        task_function()(human=value)


# ---------------------------------------------------------------------------- ranges and the plan


def test_a_reverse_range_is_refused(repo: Path):  # noqa: F811
    with pytest.raises(ChangeError, match="head is an ancestor of base, so this would review the change backwards"):
        from_git(repo, "HEAD", "HEAD~1")
    with pytest.raises(PrerequisiteError, match="swap them: -T base=HEAD~1 -T head=HEAD"):
        task_function()(repo=str(repo), base="HEAD", head="HEAD~1", spec=str(repo / "SPEC.md"))


def test_the_plan_says_review_fix_n_while_a_fix_runs(tmp_path: Path, monkeypatch):
    import solvers.code_panel as panel

    seen: list[dict[str, str]] = []
    original = panel.agent_fix

    async def watching(record, change, workspace, **kwargs):
        written = parse_plan((tmp_path / "plan.md").read_text(), "plan.md")
        seen.append(dict(zip(written.header, written.row("1"))))
        return await original(record, change, workspace, **kwargs)

    monkeypatch.setattr(panel, "agent_fix", watching)
    case = ROOT / "fixtures" / "code" / "go-ignored-error"
    (tmp_path / "plan.md").write_text(PLAN)
    log = run(tmp_path / "logs", patch=str(case / "change.patch"), spec=str(case / "spec.md"), human="reject",
              plan=str(tmp_path / "plan.md"))
    assert [(row["Status"], row["Fix Iterations"]) for row in seen] == [("review-fix-1", "1"), ("review-fix-2", "2")]
    assert seen[0]["Quality"] == "❌→🔄"
    review = review_of(log)
    assert review.feature == "Feature" and review.final_status == "escalated"
    assert parse_plan((tmp_path / "plan.md").read_text(), "plan.md").status("1") == "escalated"


def test_merge_keeps_checked_fine_contradictions_apart():
    a = R(F("Important", 30, "error-handling", "broad except"))
    b = R(fine=[CheckedFine(file="a.py", line=28, end_line=33, note="handler re-raises")])
    merged = merge_stage("quality", {"A": a, "B": b}, ("A", "B"))
    assert [m.category for m in merged.findings] == ["contradiction"]
    assert confidence(merge_stage("spec", {"A": CLEAN, "B": CLEAN}, ("A", "B")), merged).scenario == "split"
