"""Code review: the implementer agent (react() with a text editor and bash in the local sandbox, on
a throwaway git worktree), driven end to end by a scripted model through the offline provider
(issue 20, part 2)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ToolEvent

import scripted_agent  # noqa: F401  (registers offline-scripted)
from review_harness.code.change import ChangeSet
from review_harness.code.implementer import Workspace, WorkspaceError
from review_harness.code.models import CodeReview
from review_harness.code.panel import CHANGE_KEY
from test_code_review import repo, task_function  # noqa: F401  (the repository fixture)

STORE = "services/orders/orders/store.py"
PLANTED = "conn.execute(f\"SELECT id, customer, total FROM orders WHERE customer = '{customer}'\")"
FIXED = "conn.execute(\"SELECT id, customer, total FROM orders WHERE customer = ?\", (customer,))"


def run_agent(log_dir: Path, script: list[dict], sample: str | None = "sql-injection", **task_args):
    return inspect_eval(task_function()(**task_args), model=scripted_agent.MODEL, model_args={"implementer": script},
                        display="none", log_dir=str(log_dir), **({"sample_id": sample} if sample else {}))[0]


def review_of(log) -> CodeReview:
    return CodeReview.model_validate(log.samples[0].scores["code_synthesis"].metadata["review"])


def test_the_agent_fixes_a_planted_bug_and_the_next_round_reviews_its_diff(tmp_path: Path):
    script = [
        {"tool": "bash", "arguments": {"cmd": f"grep -n execute {STORE}"}},
        {"tool": "text_editor", "arguments": {"command": "str_replace", "path": STORE, "old_str": PLANTED, "new_str": FIXED}},
        {"tool": "bash", "arguments": {"cmd": "python -c 'import ast,sys; ast.parse(open(sys.argv[1]).read())' " + STORE}},
        {"tool": "submit", "arguments": {"answer": "The customer lookup uses a placeholder now."}},
    ]
    log = run_agent(tmp_path, script, implementer="agent")
    assert log.status == "success"
    review = review_of(log)
    fix = review.fixes[0]
    assert (fix.implementer, fix.outcome, fix.turns, fix.applied) == ("agent", "applied", 4, [STORE])
    assert fix.run.status == "complete" and fix.run.role == "implementer" and fix.run.input_tokens == 400
    assert f"-    cur = {PLANTED}" in fix.diff and f"+    cur = {FIXED}" in fix.diff
    assert fix.reason == "The customer lookup uses a placeholder now."
    # the next round reviewed the agent's version of the file: the injection is gone, the task complete
    assert fix.reviewed_in == 1 and [it.iteration for it in review.iterations] == [0, 1]
    assert review.iterations[1].quality is not None and review.iterations[1].quality.findings == []
    assert review.final_status == "complete" and review.fix_iterations == 1
    change = ChangeSet.model_validate(log.samples[0].store[CHANGE_KEY])
    assert f"    cur = {FIXED}" in change.file(STORE).text
    tools = [e for e in log.samples[0].events if isinstance(e, ToolEvent)]
    assert [e.function for e in tools] == ["bash", "text_editor", "bash", "submit"]
    assert "10:    cur = conn.execute(f" in str(tools[0].result)  # bash ran in the working folder
    report = log.samples[0].output.completion
    assert "## Fix attempt 1 (implementer agent)" in report and "```diff" in report


def test_the_editor_refuses_paths_outside_the_working_folder(tmp_path: Path):
    script = [{"tool": "text_editor", "arguments": {"command": "view", "path": "/etc/hostname"}},
              {"tool": "text_editor", "arguments": {"command": "create", "path": "../escape.py", "file_text": "x = 1\n"}},
              {"tool": "submit", "arguments": {"answer": "nothing to do"}}]
    log = run_agent(tmp_path, script, implementer="agent")
    errors = [e.error.message for e in log.samples[0].events if isinstance(e, ToolEvent) and e.error]
    assert len(errors) == 2 and all("is outside the working folder" in m for m in errors)
    review = review_of(log)
    assert review.fixes[0].outcome == "no-change"  # the agent changed nothing: not reviewed again
    assert len(review.iterations) == 1 and review.fixes[0].reviewed_in is None
    assert "The fix changed nothing, so the change was not reviewed again." in log.samples[0].output.completion


def test_the_turn_limit_escalates(tmp_path: Path):
    script = [{"tool": "bash", "arguments": {"cmd": "ls"}}] * 8
    log = run_agent(tmp_path, script, implementer="agent", fix_timeout_turns="5")
    review = review_of(log)
    fix = review.fixes[0]
    assert (fix.outcome, fix.turns, fix.run.status) == ("timeout", 5, "timed_out")
    assert review.final_status == "escalated" and "not done within fix_timeout_turns=5" in review.escalation


def test_a_repository_worktree_is_removed_after_the_fix(repo: Path, tmp_path: Path):  # noqa: F811
    script = [{"tool": "bash", "arguments": {"cmd": "git log --oneline | head -1 && echo x >> services/orders/store.py"}},
              {"tool": "submit", "arguments": {"answer": "appended"}}]
    log = run_agent(tmp_path, script, sample=None, repo=str(repo), base="HEAD~1", spec=str(repo / "SPEC.md"),
                    human="reject", max_fix_iterations="1")
    review = review_of(log)
    fix = review.fixes[0]
    assert fix.outcome == "applied" and fix.applied == ["services/orders/store.py"] and "+x" in fix.diff
    worktrees = subprocess.run(["git", "-C", str(repo), "worktree", "list"], capture_output=True, text=True).stdout
    assert len(worktrees.strip().splitlines()) == 1  # only the repository itself
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True,
                          text=True).stdout.strip() == "?? SPEC.md"  # the user's checkout is untouched


def test_a_working_folder_that_cannot_be_made_fails_the_attempt(tmp_path: Path):
    change = ChangeSet(source="x", files=[])
    with pytest.raises(WorkspaceError, match="git worktree"):
        Workspace.create({"repo": str(tmp_path), "head": "HEAD"}, change)  # not a repository
