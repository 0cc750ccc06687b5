"""Code review: the human in the loop (-T human=, dismissals by id), an approval never skipping
the quality review, a rejection starting the fix loop, the plan table with blocked dependents, and
what memory learns from it (issue 20, parts 1 and 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_harness.core.inspect_adapter import PrerequisiteError

from review_harness.code.memory import read_patterns
from review_harness.code.models import CodeReview, HumanAnswer
from review_harness.code.plan import PlanError, apply_review, parse_plan, update_plan
from inspect_ai import eval as inspect_eval
from test_code_review import _review, run, task_function

ROOT = Path(__file__).resolve().parent.parent


def run_cases(log_dir: Path, ids: list[str], **task_args):
    """Some cases of the gold set (with their gold files), by sample id."""
    return inspect_eval(task_function()(**task_args), model="offline/rules", display="none", log_dir=str(log_dir),
                        sample_id=ids)[0]


def review_of(log, sample: str | None = None) -> CodeReview:
    found = [s for s in log.samples if sample is None or s.id == sample]
    return CodeReview.model_validate(found[0].scores["code_synthesis"].metadata["review"])


# ---------------------------------------------------------------------------- answers


@pytest.mark.parametrize("text, decision, dismiss", [
    ("approve", "approve", []), (" Reject ", "reject", []), ("approve:q2+q3", "approve", ["q2", "q3"]),
    ("reject:i1-s1", "reject", ["i1-s1"]),
])
def test_human_answers_parse(text, decision, dismiss):
    answer = HumanAnswer.parse(text)
    assert (answer.decision, answer.dismiss) == (decision, dismiss)
    assert HumanAnswer.parse(str(answer)) == answer


@pytest.mark.parametrize("value, message", [
    ("maybe", "-T human=maybe: 'maybe': expected approve or reject"),
    ("approve:", "no finding ids after ':'"),
    ("approve,,reject", "expected approve or reject answers, comma-separated"),
    ("", "-T human=: empty value"),
])
def test_bad_human_answers_are_one_line_errors(value, message):
    with pytest.raises(PrerequisiteError, match=message):
        task_function()(human=value)


# ---------------------------------------------------------------------------- approval runs quality


def test_approving_a_failed_spec_stage_runs_quality_and_shows_its_findings(tmp_path: Path):
    log = run_cases(tmp_path, ["spec-approved-sql"], human="approve")
    review = review_of(log, "spec-approved-sql")
    first = review.first
    assert first.spec.verdict == "FAIL" and first.quality.discarded and first.human_decision == "approve"
    check = first.after_approval
    assert check is not None and check.reused  # the speculative results, the change being unchanged
    sql = check.quality.findings[0]
    assert (sql.id, sql.category, sql.finding.severity.value, sql.finding.line) == ("q1", "agreed", "Critical", 7)
    assert check.decision == "AUTO_REJECT_TO_IMPLEMENTER"  # the case turns auto_reject on
    report = next(s for s in log.samples if s.id == "spec-approved-sql").output.completion
    assert "1 finding(s) (1 Critical) were discarded. They are re-checked once spec passes." in report
    assert "### Quality review after the spec approval" in report and "[q1] **Critical** `orders/export.py:7`" in report
    # the fix loop ran on the quality finding; the re-review needs the human again, who has no answer left
    assert review.fixes[0].message.endswith("orders/export.py:7: [Critical] SQL passed to execute() is built from "
                                            "strings: values reach the query unescaped (SQL injection).")
    assert review.final_status == "review-fix-1"


def test_quality_not_run_before_the_approval_runs_after_it(tmp_path: Path):
    """Without speculative quality, the approval starts the quality reviewers (one more round trip)."""
    log = run_cases(tmp_path, ["spec-approved-sql"], human="approve", speculative_quality="false")
    first = review_of(log, "spec-approved-sql").first
    assert first.quality is None and first.after_approval is not None and not first.after_approval.reused
    assert first.critical_path_calls == 2
    assert [r.member for r in first.runs] == ["spec-A", "spec-B", "quality-A", "quality-B"]


@pytest.fixture(scope="module")
def gold_logs(tmp_path_factory):
    """The gold set with every human answer approve, and with every answer reject."""
    folder = tmp_path_factory.mktemp("human-modes")
    return {mode: run(folder / mode, human=",".join([mode] * 6)) for mode in ("approve", "reject")}


@pytest.mark.parametrize("mode", ["approve", "reject"])
def test_no_round_is_approved_without_its_quality_review(gold_logs, mode):
    """Over every gold case: a round that ends approved had a quality review that counted."""
    approved_rounds = 0
    for sample in gold_logs[mode].samples:
        review = CodeReview.model_validate(sample.scores["code_synthesis"].metadata["review"])
        for it in review.iterations:
            if it.approved:
                approved_rounds += 1
                assert any(s.stage == "quality" and not s.discarded for s in it.counted()), (sample.id, it.iteration)
            if it.spec.verdict == "FAIL" and it.human_decision == "approve":
                assert it.after_approval is not None, (sample.id, it.iteration)
        if review.final_status == "complete":
            assert review.last.approved
    assert approved_rounds > 0


def test_a_human_rejection_starts_the_fix_loop(gold_logs):
    reviews = {s.id: review_of(gold_logs["reject"], s.id) for s in gold_logs["reject"].samples}
    js = reviews["js-sql"]  # a fix is scripted once: fix 1 applies, fix 2 changes nothing
    assert [it.human_decision for it in js.iterations] == ["reject", "reject"]
    assert [f.outcome for f in js.fixes] == ["applied", "no-change"]
    assert js.final_status == "escalated" and js.escalation.startswith("Task 10 failed review after 2 fix attempts.")
    assert [f.reviewed_in for f in js.fixes] == [1, None]  # the fix that changed nothing is not reviewed again
    bare = reviews["bare-except"]  # no scripted fix at all
    assert len(bare.iterations) == 1 and [f.outcome for f in bare.fixes] == ["no-change", "no-change"]


def test_waiting_for_the_human_after_a_fix(tmp_path: Path):
    log = run_cases(tmp_path, ["js-sql"], human="reject")
    review = review_of(log, "js-sql")
    assert review.final_status == "review-fix-1" and review.human_answers == ["reject"] and review.warnings == []
    extra = review_of(run_cases(tmp_path / "extra", ["clean-feature"], human="approve,reject"), "clean-feature")
    assert extra.human_answers == [] and extra.warnings == ["2 of the human's answers were not needed: approve, reject"]
    assert "## Waiting for a human" in next(s for s in log.samples if s.id == "js-sql").output.completion


# ---------------------------------------------------------------------------- what memory learns


def test_only_a_dismissed_finding_becomes_a_false_positive(tmp_path: Path):
    kept = run_cases(tmp_path / "a", ["unclosed-mutable"], human="approve", memory="update")
    dismissed = run_cases(tmp_path / "b", ["unclosed-mutable"], human="approve:q1", memory="update")
    for log, expected in ((kept, []), (dismissed, ["q1"])):
        review = review_of(log, "unclosed-mutable")
        assert [f.id for f in review.first.quality.findings if f.finding.blocking] == ["q1", "q2"]
        assert review.first.dismissed == expected
        memory = read_patterns(Path(review.memory["root"]), "quality", review.service)
        q1, q2 = (f"{m.finding.description}" for m in review.first.quality.findings[:2])
        learned = [fp.pattern for fp in memory.false_positives]
        issues = [r.pattern for r in memory.issues]
        if expected:  # learned at its place; the pattern itself stays a known issue elsewhere
            assert len(learned) == 1 and q1.startswith(learned[0])
            assert memory.false_positives[0].file == review.first.quality.findings[0].finding.file
        else:
            assert learned == []  # an approval alone dismisses nothing
        assert any(q2.startswith(p) for p in issues)  # the finding nobody dismissed stays a known issue


def test_two_same_day_reviews_of_one_task_leave_two_review_files(tmp_path: Path):
    patch = ROOT / "fixtures" / "code" / "go-ignored-error"
    memory = tmp_path / "memory"
    for n in range(2):
        log = run(tmp_path / f"logs{n}", patch=str(patch / "change.patch"), spec=str(patch / "spec.md"),
                  memory="update", memory_dir=str(memory))
        assert log.status == "success"
    for kind in ("spec", "quality"):
        folder = memory / f"project-orchestrator-{kind}-reviewer"
        notes = sorted(p.name for p in (folder / "reviews").glob("*.md"))
        assert [n[11:] for n in notes] == ["task-1-2.md", "task-1.md"], notes  # {date}-task-1.md, then -2
        index = (folder / "MEMORY.md").read_text()
        assert "Reviews: 2" in index and "## Key learnings" in index and "## Cross-review patterns" in index
    quality = (memory / "project-orchestrator-quality-reviewer" / "MEMORY.md").read_text()
    assert "- The error return is discarded with _: fetch 2x" in quality  # seen in both reviews


def test_fix_rounds_update_memory_and_the_placeholder_is_no_rule(tmp_path: Path):
    log = run_cases(tmp_path, ["spec-gap"], memory="update")
    review = review_of(log, "spec-gap")  # two fixes, three rounds
    root = Path(review.memory["root"])
    note = next((root / "project-orchestrator-spec-reviewer" / "reviews").glob("*.md")).read_text()
    assert "## Re-review after fix 1" in note and "## Re-review after fix 2" in note
    assert "Fixed by attempt 2 (scripted): reports/export.py" in note
    patterns = read_patterns(root, "quality", review.service)
    assert patterns.rules == ""  # the empty rules section's placeholder is not read back as a rule
    from review_harness.code.memory import prompt_block
    assert "Service rules" not in prompt_block(patterns)


# ---------------------------------------------------------------------------- plan

PLAN = """# Feature

## Implementation Tasks

| # | Task | Status | Assignee | Spec | Quality |
|---|------|--------|----------|------|---------|
| 1 | Review command | pending | — | — | — |
| 2 | Fix loop | pending | — | — | — |
| 3 | Memory | pending | — | — | — |
| 4 | Analytics | pending | — | — | — |
| 5 | Docs | pending | — | — | — |

### Dependencies
- Tasks 1, 3: independent (wave 1)
- Task 2: depends on Task 1 (it uses the review's confidence)
- Task 4: depends on Tasks 2, 3
- Task 5: depends on all others (documentation)

Notes after the table stay as they are.
"""


def test_plan_dependencies_as_the_seed_writes_them():
    plan = parse_plan(PLAN, "plan.md")
    assert plan.depends == {"1": set(), "2": {"1"}, "3": set(), "4": {"2", "3"}, "5": {"1", "2", "3", "4"}}
    assert plan.dependents("1") == {"2", "4", "5"} and plan.dependents("3") == {"4", "5"}
    with pytest.raises(PlanError, match="no task table"):
        parse_plan("# Plan\n\nno table here\n", "plan.md")


def test_an_escalated_task_blocks_its_dependents_and_the_table_is_written_back(tmp_path: Path):
    case = ROOT / "fixtures" / "code" / "go-ignored-error"
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    log = run(tmp_path / "logs", patch=str(case / "change.patch"), spec=str(case / "spec.md"), human="reject", plan=str(plan))
    review = review_of(log)
    assert review.final_status == "escalated" and review.plan["paused"] == ["2", "4", "5"]
    written = parse_plan(plan.read_text(), "plan.md")
    status = {t: written.status(t) for t in written.tasks}
    assert status == {"1": "escalated", "2": "blocked", "3": "pending", "4": "blocked", "5": "blocked"}
    assert written.header[-1] == "Fix Iterations" and written.row("1")[-1] == "2 (max)"
    assert plan.read_text().endswith("Notes after the table stay as they are.\n")
    assert "Paused until task 1 is resolved (they depend on it): 2, 4, 5" in log.samples[0].output.completion


def test_a_task_that_completes_unblocks_its_dependents(tmp_path: Path):
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN.replace("| 1 | Review command | pending", "| 1 | Review command | escalated")
                    .replace("| 2 | Fix loop | pending", "| 2 | Fix loop | blocked"))
    log = run_cases(tmp_path / "logs", ["clean-feature"])
    clean = review_of(log, "clean-feature")  # task 1 in the gold set, approved at once
    clean.task = "1"
    update_plan(plan, clean)
    written = parse_plan(plan.read_text(), "plan.md")
    assert written.status("1") == "complete" and written.status("2") == "pending"


@pytest.mark.parametrize("content, message", [
    (PLAN.replace("| 1 | Review command | pending | — | — | — |\n", ""), "task 1 not in its task table"),
    ("# no table\n", "no task table"),
])
def test_bad_plans_are_one_line_errors(tmp_path: Path, content, message):
    case = ROOT / "fixtures" / "code" / "go-ignored-error"
    plan = tmp_path / "plan.md"
    plan.write_text(content)
    with pytest.raises(PrerequisiteError, match=message):
        task_function()(patch=str(case / "change.patch"), spec=str(case / "spec.md"), plan=str(plan))
    with pytest.raises(PrerequisiteError, match="-T plan=nope.md: .*no such file"):
        task_function()(patch=str(case / "change.patch"), spec=str(case / "spec.md"), plan="nope.md")
    with pytest.raises(PrerequisiteError, match=f"-T plan={tmp_path}: {tmp_path}: is a folder, not a file"):
        task_function()(patch=str(case / "change.patch"), spec=str(case / "spec.md"), plan=str(tmp_path))


def test_apply_review_marks_the_row(tmp_path: Path):
    log = run_cases(tmp_path, ["loop-never"])
    loop = review_of(log, "loop-never")  # task 8, escalated after 2 fixes
    plan = parse_plan(PLAN.replace("| 5 | Docs |", "| 8 | Docs |"), "plan.md")
    plan.depends["1"] = {"8"}
    blocked = apply_review(plan, loop)
    row = dict(zip(plan.header, plan.row("8")))
    assert row["Status"] == "escalated" and row["Fix Iterations"] == "2 (max)" and row["Quality"] == "❌"
    assert "1" in blocked and plan.status("1") == "blocked"
    assert _review(log)["final_status"] == "escalated"
