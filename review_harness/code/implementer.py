"""The implementer: an Inspect agent that fixes the reviewers' issues in a throwaway git worktree.

When a review is rejected (automatically, or by a human), the implementer role runs as a `react()`
agent with two tools, in the `local` sandbox:

- `text_editor`: Inspect's editor (view, str_replace, insert, create), refused for any path
  outside the working folder;
- `bash`: a command run with the working folder as its current directory.

The working folder is a throwaway git worktree: of the user's repository at the reviewed head
(`-T repo=`), or a scratch repository holding the change's files (a gold case's head folder, a
patch's complete files). The change as it stands (after earlier fixes) is committed there first,
so what the agent edits is exactly its fix: `git diff` after the agent is the fix, and the changed
files' new contents are the next round's change. `fix_timeout_turns` is its turn limit (one turn is
one model reply; an agent still working at the limit escalates); an agent that stops without
calling a tool is done. The worktree is removed when
the attempt ends, whatever happened.

Safety: the local sandbox is no isolation. `bash` runs as you, on your machine, with your network
and credentials; the working folder is only where it starts. Run the implementer with a real model
in a container or a disposable machine, or review its transcript: every command and edit is in the
log.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from inspect_ai.agent import AgentState, AgentSubmit, react
from inspect_ai.agent import run as run_agent
from inspect_ai.model import ChatMessageUser, get_model
from inspect_ai.tool import Tool, ToolError, text_editor, tool
from inspect_ai.util import LimitExceededError, sandbox, span

from review_harness.code.change import ChangeSet, apply_fix
from review_harness.code.models import IMPLEMENTER, KIND_NAME, FixAttempt
from review_harness.code.prompts import render_fix_prompt
from review_harness.core.calltag import tagged
from review_harness.core.member import MemberRun
from review_harness.core.panel import refused_request

GIT_IDENTITY = ("-c", "user.name=review-harness", "-c", "user.email=review-harness@localhost", "-c", "commit.gpgsign=false")
DIFF_LIMIT = 20_000
BASH_TIMEOUT = 180


class WorkspaceError(RuntimeError):
    """The working folder could not be made (git failed): the attempt fails with this message."""


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *GIT_IDENTITY, *args], capture_output=True, text=True)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        raise WorkspaceError(f"git {' '.join(args[:2])} in {root}: {message[-1] if message else 'failed'}")
    return done.stdout


@dataclass
class Workspace:
    """A throwaway git working folder holding the change as it stands."""

    root: Path
    holder: Path  # the temporary folder around it (removed at the end)
    repo: Path | None = None  # the user's repository, when the folder is a worktree of it
    baseline: str = ""
    files: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, source: dict, change: ChangeSet) -> Workspace:
        """`source`: {"repo": path, "head": rev} for a repository, {"tree": head folder} for a case
        with folders, {} for a patch (only the change's complete files are there)."""
        holder = Path(tempfile.mkdtemp(prefix="code-fix-"))
        root = holder / "work"
        space = cls(root=root, holder=holder)
        try:
            if source.get("repo"):
                space.repo = Path(source["repo"])
                _git(space.repo, "worktree", "add", "--detach", str(root), source.get("head") or "HEAD")
            else:
                if source.get("tree") and Path(source["tree"]).is_dir():
                    shutil.copytree(source["tree"], root)
                root.mkdir(exist_ok=True)
                _git(root, "init", "-q")
            for f in change.files:
                target = root / f.path
                if f.status == "deleted":
                    target.unlink(missing_ok=True)
                elif f.text is not None:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(f.text, encoding="utf-8")
                    space.files.append(f.path)
            _git(root, "add", "-A")
            _git(root, "commit", "-q", "--no-verify", "--allow-empty", "-m", "the change under review")
            space.baseline = _git(root, "rev-parse", "HEAD").strip()
        except (WorkspaceError, OSError) as ex:
            space.remove()
            raise WorkspaceError(str(ex)) from None
        return space

    def edits(self) -> tuple[dict[str, str | None], str]:
        """What the agent changed since the baseline: path -> new content (None: deleted), and
        the unified diff."""
        _git(self.root, "add", "-A")
        names = _git(self.root, "diff", "--cached", "--name-status", "--no-renames", self.baseline)
        diff = _git(self.root, "diff", "--cached", self.baseline)
        files: dict[str, str | None] = {}
        for line in names.splitlines():
            status, _, path = line.partition("\t")
            target = self.root / path
            if status.startswith("D"):
                files[path] = None
            else:
                data = target.read_bytes()
                files[path] = data.decode("utf-8", errors="replace") if b"\0" not in data[:8000] else None
        return files, diff

    def remove(self) -> None:
        if self.repo is not None and self.root.exists():
            subprocess.run(["git", "-C", str(self.repo), "worktree", "remove", "--force", str(self.root)],
                           capture_output=True)
        shutil.rmtree(self.holder, ignore_errors=True)
        if self.repo is not None:
            subprocess.run(["git", "-C", str(self.repo), "worktree", "prune"], capture_output=True)


def _inside(root: Path, path: str) -> Path:
    resolved = (root / path).resolve() if not Path(path).is_absolute() else Path(path).resolve()
    if resolved != root.resolve() and root.resolve() not in resolved.parents:
        raise ToolError(f"{path} is outside the working folder {root}; only files inside it may be read or changed")
    return resolved


@tool(name="text_editor")
def workspace_editor(root: Path) -> Tool:
    editor = text_editor()

    async def execute(
        command: str,
        path: str,
        file_text: str | None = None,
        insert_line: int | None = None,
        new_str: str | None = None,
        old_str: str | None = None,
        view_range: list[int] | None = None,
    ) -> str:
        """View, create and edit files of the working folder.

        Args:
          command: One of view, create, str_replace, insert, undo_edit.
          path: The file (or folder, for view), relative to the working folder or absolute inside it.
          file_text: The content of the file, for create.
          insert_line: For insert: the new text goes after this line.
          new_str: For str_replace the replacement, for insert the text to insert.
          old_str: For str_replace: the exact text to replace (it must occur once).
          view_range: For view: [first line, last line] (last -1 for the end).

        Returns:
          The result of the command.
        """
        target = _inside(root, path)
        arguments = {"command": command, "path": str(target), "file_text": file_text, "insert_line": insert_line,
                     "new_str": new_str, "old_str": old_str, "view_range": view_range}
        return str(await editor(**{k: v for k, v in arguments.items() if v is not None}))

    return execute


@tool(name="bash")
def workspace_bash(root: Path, timeout: int = BASH_TIMEOUT) -> Tool:
    async def execute(cmd: str) -> str:
        """Run a bash command with the working folder as the current directory.

        Args:
          cmd: The command.

        Returns:
          Its output (stdout, then stderr).
        """
        result = await sandbox().exec(["bash", "-c", cmd], cwd=str(root), timeout=timeout)
        output = result.stdout + (f"\n{result.stderr}" if result.stderr else "")
        if not result.success:
            output += f"\n(exit code {result.returncode})"
        return output.strip() or "(no output)"

    return execute


def count_usage(state: AgentState, seen: dict) -> None:
    """Add the latest reply's token usage once (the agent keeps only its last output)."""
    output = state.output
    if output.usage is not None and seen.get("last") is not output:
        seen["last"] = output
        seen["input"] = seen.get("input", 0) + output.usage.input_tokens
        seen["output"] = seen.get("output", 0) + output.usage.output_tokens


def turn_limit(limit: int, seen: dict) -> Callable[[AgentState], Awaitable[bool]]:
    """Stop the agent after `limit` replies, or as soon as it replies without calling a tool."""

    async def on_continue(state: AgentState) -> bool:
        count_usage(state, seen)
        seen["turns"] = sum(1 for m in state.messages if m.role == "assistant")
        if not state.output.message.tool_calls:
            seen["stopped"] = True
            return False
        if seen["turns"] >= limit:
            seen["limit"] = True
            return False
        return True

    return on_continue


async def agent_fix(record: FixAttempt, change: ChangeSet, source: dict, *, message: str, spec: str, task: str,
                    title: str, turns: int) -> list[str]:
    """One fix attempt by the implementer agent: fills `record` (run, turns, diff, outcome) and
    applies the agent's edits to `change`; returns the changed paths."""
    record.implementer = "agent"
    run = MemberRun(kind=KIND_NAME, member=IMPLEMENTER, role=IMPLEMENTER)
    record.run = run
    try:
        space = await anyio.to_thread.run_sync(Workspace.create, source, change)
    except WorkspaceError as ex:
        record.outcome, record.reason = "failed", f"no working folder for the implementer: {ex}"
        run.reason = record.reason
        return []
    try:
        model = get_model(role=IMPLEMENTER)
        run.model = str(model)
        prompt = render_fix_prompt(message=message, spec=spec, workspace=str(space.root), files=space.files, task=task,
                                   title=title, turns=turns)
        run.prompt_version, run.prefix_hash = prompt.version, prompt.prefix_hash
        seen: dict = {"turns": 0}
        agent = react(name=IMPLEMENTER, description="fixes the issues the reviewers named", prompt=prompt.system,
                      tools=[workspace_editor(space.root), workspace_bash(space.root)], model=model,
                      submit=AgentSubmit(answer_only=True), on_continue=turn_limit(turns, seen))
        started = anyio.current_time()
        try:
            async with span(f"implementer (attempt {record.attempt})", type="member"):
                with tagged(KIND_NAME, IMPLEMENTER):
                    state = await run_agent(agent, [ChatMessageUser(content=prompt.request)])
        except LimitExceededError:
            raise
        except Exception as ex:  # a misbehaving model fails the attempt (escalated), never the sample
            refused = refused_request(ex, model)
            if refused is not None:
                raise refused from None
            run.status, run.reason = "failed", f"the agent failed: {type(ex).__name__}: {ex}"
            record.outcome, record.reason = "failed", run.reason
            return []
        run.seconds = round(anyio.current_time() - started, 3)
        assistant = [m for m in state.messages if m.role == "assistant"]
        run.attempts = record.turns = len(assistant)
        count_usage(state, seen)
        run.input_tokens, run.output_tokens = seen.get("input", 0), seen.get("output", 0)
        edits, diff = await anyio.to_thread.run_sync(space.edits)
    finally:
        await anyio.to_thread.run_sync(space.remove)
    record.diff = diff[:DIFF_LIMIT] + ("\n... (diff cut)" if len(diff) > DIFF_LIMIT else "") if diff else None
    record.reason = (state.output.completion or "").strip()[:500] or None
    if state.output.stop_reason == "content_filter":
        run.status, run.reason = "refused", "the model declined to answer (content filter)"
        record.outcome, record.reason = "failed", run.reason
        return []
    if seen.get("limit"):  # seed E1: a fix that needs more turns escalates (its partial diff is kept)
        run.status, run.reason = "timed_out", f"not done within fix_timeout_turns={turns}"
        record.outcome, record.reason = "timeout", run.reason
        return []
    run.status = "complete"
    applied = apply_fix(change, {p: c for p, c in edits.items() if c is not None})
    applied += [p for p, c in edits.items() if c is None and _delete(change, p)]
    return applied


def _delete(change: ChangeSet, path: str) -> bool:
    """The agent deleted a file of the change: it is deleted in the next version."""
    target = change.file(path)
    if target is None or target.status == "deleted":
        return False
    target.status, target.lines, target.added, target.complete = "deleted", {}, [], True
    target.note = "deleted by the implementer"
    return True
