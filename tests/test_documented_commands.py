"""Every command the README and docs/ show runs, offline, as written (issue 28 point 4, issue 33).

The commands are read from the shell code blocks (```bash) of README.md and docs/*.md when the
tests are collected, so a command another page adds is covered as soon as it is there. Each runs
as its own test, in page order, in one sandbox folder outside the checkout that holds what the
commands name (analysis.md, design.md, proposal.md, SPEC.md, a git repository with a change, out/impact_results.json,
docs/plan.md, ...), links to the project's scorers/ and fixtures/ (the documents and scorer files
the maintainers' pages name), and the project's .env (the offline reviewer). It has no tasks/: a
user's folder has none, so a page that runs a review runs it by name (`review_harness/ds_review`). A command passes when it exits as the docs say it does (0, or 1 where 1 is
the documented answer: a verdict that fails, a failed check) with no traceback.

What changes, and why (the rest runs as written):
- a real model (`anthropic/...`, `openai/...`, also as a `--model-role`) becomes the offline one
  (`offline/rules`; a `grader` `offline/judge`): no API key exists here;
- a run over a whole gold set gets `--limit 1`, unless a later command of its block gates that
  log (a gate needs the whole set); `--epochs N` becomes `--epochs 2`;
- placeholders become what they stand for: `LOG` and `logs/<file>.eval` the newest log of the
  command's kind, made first when the sandbox has none;
- commands that would write into the checkout write into the sandbox: `gate --write-baseline`
  gets `--baseline` there, `domain` commands read the sandbox's copy of knowledge/domain.

Excluded, each with its reason in EXCLUDED: installing (`pip`, `python -m venv`: .ci/run installs
from scratch, and these tests run inside that install), exporting an API key, `pytest` (this
suite), `inspect view` (a server that runs until stopped: tests/test_viewer_render.py starts it on
a free port and drives it), and Confluence addresses (a Confluence server: tests/test_confluence.py
drives the same code against a local stand-in). Python blocks are API sketches, not commands.

Slow (about as long as the rest of the suite): `pytest -m slow`, which .ci/run runs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from review_harness.core.paths import PROJECT_ROOT, shared_dir

BIN = Path(sys.executable).parent
FIXTURES = PROJECT_ROOT / "fixtures"
PAGES = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
SHELL = ("bash", "sh", "shell", "console")

EXCLUDED: list[tuple[str, str]] = [
    (r"^(pip|python3?) ", "installs packages: .ci/run installs from scratch and these tests run inside that install"),
    (r"^\. ", "activates a virtual environment: part of the install"),
    (r"^export ", "sets a real provider's API key or address: nothing to run offline"),
    (r"^pytest\b", "the test suite itself, which is running"),
    (r"^inspect view\b", "a server that runs until stopped: tests/test_viewer_render.py starts it on a free port"),
    (r"(document|confluence)=https?://|--confluence ",
     "a Confluence page needs a Confluence server: tests/test_confluence.py runs the same code on a local stand-in"),
    (r"^review-harness design process \S+$",
     "asks accept or reject for each finding at a terminal: tests/test_design_artifacts.py runs it with --decisions"),
]
# commands whose exit code 1 is a documented answer, not a failure
ANSWERS_1 = [r"^review-harness verdict\b", r"^review-harness impact check\b", r"^review-harness summary\b"]


@dataclass(frozen=True)
class Documented:
    page: str
    line: int
    argv: tuple[str, ...]  # as written (continuation lines joined, the comment dropped)
    block: tuple[str, ...]  # the commands after it in its code block (as text), for what follows it
    env: tuple[tuple[str, str], ...] = ()  # leading `NAME=value` assignments, set for this command only

    @property
    def text(self) -> str:
        return shlex.join(self.argv)

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def documented_commands() -> list[Documented]:
    found = []
    for page in PAGES:
        for token in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8")):
            if token.type != "fence" or token.info.strip() not in SHELL:
                continue
            commands, start, pending = [], token.map[0] + 2, ""
            for n, line in enumerate(token.content.splitlines()):
                if not pending:
                    start = token.map[0] + 2 + n
                if line.rstrip().endswith("\\"):
                    pending += line.rstrip()[:-1] + " "
                    continue
                argv = shlex.split(pending + line, comments=True)
                pending = ""
                while argv:
                    part = argv[:argv.index("&&")] if "&&" in argv else argv
                    commands.append((start, tuple(part)))
                    argv = argv[len(part) + 1:]
            for n, (line, argv) in enumerate(commands):
                env = []
                while argv and ASSIGNMENT.fullmatch(argv[0]):
                    env.append(tuple(argv[0].split("=", 1)))
                    argv = argv[1:]
                found.append(Documented(str(page.relative_to(PROJECT_ROOT)), line, argv,
                                        tuple(shlex.join(a) for _, a in commands[n + 1:]), tuple(env)))
    return found


ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]*=.*")


def excluded(command: Documented) -> str | None:
    return next((reason for pattern, reason in EXCLUDED if re.search(pattern, command.text)), None)


# ---------------------------------------------------------------------------- the sandbox


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True).stdout


def make_sandbox(root: Path) -> Path:
    """A user's folder with every file the docs name, a git repository with one change on a
    branch off `main`, links to the project's tasks, scorers and fixtures, and its .env."""
    root.mkdir(parents=True)
    for name in ("scorers", "fixtures", "prompts", "examples"):
        (root / name).symlink_to(PROJECT_ROOT / name, target_is_directory=True)
    shared = shared_dir()  # the real inputs beside the project, where maintainers' commands find them
    if shared is not None and not (root.parent / "shared").exists():
        (root.parent / "shared").symlink_to(shared, target_is_directory=True)
    shutil.copy(PROJECT_ROOT / ".env", root / ".env")
    shutil.copytree(PROJECT_ROOT / "knowledge", root / "knowledge")
    ds = FIXTURES / "ds"
    for target, source in {"analysis.md": "dark-mode-retention", "a.md": "strong-analysis", "b.md": "data-dump",
                           "D.md": "search-ranking-guardrails", "notes.md": "metrics-no-baseline"}.items():
        shutil.copy(ds / f"{source}.md", root / target)
    (root / "reviews").mkdir()
    for source in ("strong-analysis", "causal-without-method"):
        shutil.copy(ds / f"{source}.md", root / "reviews" / f"{source}.md")
    design = FIXTURES / "design" / "api-rate-limiter"
    (root / "docs").mkdir()
    for folder in (root, root / "docs"):
        for name in ("design.md", "requirements.md"):
            shutil.copy(design / name, folder / name)
    shutil.copy(design / "requirements.md", root / "brief.md")
    shutil.copy(design / "requirements.md", root / "reqs.md")
    # a proposal that states its own goals: the design, then the requirements under Goals / Non-Goals
    goals = (design / "requirements.md").read_text(encoding="utf-8").split("\n", 1)[1]
    goals = goals.replace("## Requirements", "## Goals").replace("## Non-requirements", "## Non-Goals")
    (root / "proposal.md").write_text((design / "design.md").read_text(encoding="utf-8") + "\n" + goals, encoding="utf-8")
    (root / "out").mkdir()
    shutil.copy(FIXTURES / "impact" / "heldout-clean-retention.json", root / "out" / "impact_results.json")
    shutil.copy(FIXTURES / "impact" / "heldout-clean-retention.json", root / "impact_results.json")
    (root / "review.yaml").write_text("backend: {type: offline, model: rules}\n", encoding="utf-8")
    case = FIXTURES / "code" / "unclosed-mutable"  # two quality findings (q1, q2) for the docs' examples
    code = [p.name for p in (case / "base").iterdir()]
    shutil.copytree(case / "base", root, dirs_exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", *code)
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "task-work")
    for name in code:
        shutil.rmtree(root / name)
    shutil.copytree(case / "head", root, dirs_exist_ok=True)
    git(root, "add", "-A", *code)
    git(root, "commit", "-qm", "the change")
    (root / "change.diff").write_text(git(root, "diff", "HEAD~1", "HEAD"), encoding="utf-8")
    shutil.copy(case / "spec.md", root / "SPEC.md")
    (root / "docs" / "plan.md").write_text(
        "# Feature\n\n| # | Task | Status | Assignee | Spec | Quality |\n|---|------|--------|----------|------|---------|\n"
        "| 1 | Sync worker | complete | — | ✅ | ✅ |\n| 2 | Sync all jobs | pending | — | — | — |\n"
        "| 3 | Docs | pending | — | — | — |\n\n### Dependencies\n- Task 2: depends on Task 1\n"
        "- Task 3: depends on Task 2\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    folder = make_sandbox(tmp_path_factory.mktemp("user") / "work")
    # a log of every kind, so a command that reads one runs even alone (`-k`); and the review of
    # task 3 the docs' override example names, by a team that keeps review memory
    for kind in KIND_TASKS:
        gold_run(folder, kind, "logs")
    made = run([str(BIN / "inspect"), "eval", "review_harness/code_review", "-T", "repo=.", "-T", "base=HEAD~1",
                "-T", "spec=SPEC.md", "-T", "task_number=3", "-T", "memory=update", "--log-dir", "logs/task-3",
                "--display", "none"], folder)
    assert made.returncode == 0, made.stderr[-2000:]
    return folder


def gold_run(folder: Path, kind: str, log_dir: str) -> None:
    made = run([str(BIN / "inspect"), "eval", f"review_harness/{KIND_TASKS[kind]}", "--limit", "2", "--display", "none",
                "--log-dir", log_dir], folder)
    assert made.returncode == 0, made.stderr[-2000:]


def environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")}  # the folder's .env decides
    return env | {"PWD": str(folder), "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "NO_COLOR": "1"}


def run(argv: list[str], folder: Path, timeout: float = 900,
        extra: tuple[tuple[str, str], ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=folder, env=environment(folder) | dict(extra), capture_output=True, text=True,
                          timeout=timeout)


# ---------------------------------------------------------------------------- adapting a command

KIND_TASKS = {"ds": "ds_review", "design": "design_review", "code": "code_review", "impact": "impact_review"}
INPUTS = ("document=", "design=", "requirements=", "repo=", "patch=", "artifact=")


def kind_of(text: str) -> str:
    for kind in ("design", "code", "impact"):
        if re.search(rf"\b{kind}(_review|_synthesis|_gold)?\b", text) and "ds_" not in text:
            return kind
    return "ds"


def newest_log(folder: Path, kind: str, sample: str | None = None) -> Path:
    """The newest log of the kind under the sandbox's logs/ (with the sample, when the command
    names one); one is made when there is none."""
    from inspect_ai.log import read_eval_log

    logs = sorted((folder / "logs").rglob(f"*_{KIND_TASKS[kind].replace('_', '-')}_*.eval"),
                  key=lambda p: p.stat().st_mtime)
    if sample is not None:
        logs = [p for p in logs if any(str(s.id) == sample for s in read_eval_log(str(p)).samples or [])]
        assert logs, f"no {kind} log with sample {sample}"
    assert logs, f"no {kind} log in {folder / 'logs'}"
    return logs[-1]


def gated_later(log_dir: str | None, block: tuple[str, ...]) -> bool:
    return log_dir is not None and any(t.startswith("review-harness gate") and log_dir.rstrip("/") in t for t in block)


def adapt(command: Documented, folder: Path) -> list[str]:
    argv = list(command.argv)
    kind = kind_of(command.text)
    out: list[str] = []
    for n, arg in enumerate(argv):
        previous = argv[n - 1] if n else ""
        if previous in ("--model", "-m") and re.match(r"(anthropic|openai)/", arg):
            arg = "offline/rules"
        elif previous == "--model-role" and re.search(r"=(anthropic|openai)/", arg):
            role = arg.split("=")[0]
            arg = f"{role}={'offline/judge' if role == 'grader' else 'offline/rules'}"
        elif previous == "--epochs":
            arg = "2"
        elif arg == "LOG" or re.fullmatch(r"logs/<[^>]+>\.eval", arg):
            sample = argv[argv.index("--sample") + 1] if "--sample" in argv else None
            arg = str(newest_log(folder, kind, sample).relative_to(folder))
        out.append(arg)
    if out[:2] == ["inspect", "eval"] and out[2].startswith("review_harness/") and not any(
            a.startswith(INPUTS) for a in out) and "--limit" not in out:
        log_dir = out[out.index("--log-dir") + 1] if "--log-dir" in out else None
        if not gated_later(log_dir, command.block):
            out += ["--limit", "1"]
    if out[:2] == ["inspect", "eval"] and "--display" not in out:
        out += ["--display", "none"]
    # a log folder another page's command makes (`review-harness verdict logs/gold`), when run alone
    if out[0] == "review-harness" and out[1] in ("summary", "show", "verdict", "gate"):
        for arg in out[2:]:
            if arg.startswith("logs/") and not (folder / arg).exists() and not arg.endswith(".eval"):
                gold_run(folder, kind, arg)
    if out[:2] == ["review-harness", "gate"] and "--write-baseline" in out and "--baseline" not in out:
        out += ["--baseline", str(folder / "baseline.json")]
    if out[:2] == ["review-harness", "domain"]:
        out[2:2] = ["--index", "knowledge/domain/domain-index.yaml", "--roster", "knowledge/domain/team-roster.yaml"]
    if out[0] in ("inspect", "review-harness"):
        out[0] = str(BIN / out[0])
    return out


def reused_gold_run(argv: list[str], folder: Path) -> bool:
    """A run over a kind's default gold set as .ci/run's gold runs make it (`inspect eval
    tasks/<task>.py --log-dir DIR`, offline, no task argument): where CI has made it already
    ($REVIEW_HARNESS_GOLD_LOGS), that log is copied into DIR instead of evaluating the set again."""
    from conftest import cached_gold_log

    if len(argv) < 3 or Path(argv[0]).name != "inspect" or argv[1] != "eval" or not argv[2].startswith("tasks/"):
        return False
    options = dict(zip(argv[3::2], argv[4::2]))
    if len(argv[3:]) % 2 or set(options) - {"--log-dir", "--display"} or "--log-dir" not in options:
        return False
    log = cached_gold_log(Path(argv[2]).stem)
    if log is None:
        return False
    target = folder / options["--log-dir"]
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(log.location, target)
    return True


COMMANDS = documented_commands()


def test_no_page_runs_a_task_file_of_the_checkout():
    """A user's folder has no tasks/: `inspect eval tasks/ds_review.py` there finds no task."""
    ran = [c for c in COMMANDS if c.argv[:2] == ("inspect", "eval")]
    assert ran and not [str(c) for c in ran if c.argv[2].startswith("tasks/")]


def test_the_docs_show_commands_and_each_page_is_read():
    assert len(COMMANDS) >= 40
    assert {c.page for c in COMMANDS} >= {"README.md", "docs/usage.md", "docs/ds.md", "docs/code.md", "docs/impact.md"}
    reasons = [excluded(c) for c in COMMANDS]
    assert sum(r is None for r in reasons) >= 30  # most run; the exclusions are the few EXCLUDED names


@pytest.mark.slow
@pytest.mark.parametrize("command", [pytest.param(c, marks=[pytest.mark.real()] if "../shared/real/" in c.text else [])
                                     for c in COMMANDS], ids=[f"{c.page}:{c.line}" for c in COMMANDS])
def test_a_documented_command_runs_offline(command, sandbox):
    reason = excluded(command)
    if reason:
        pytest.skip(f"excluded: {reason}")
    argv = adapt(command, sandbox)
    if reused_gold_run(argv, sandbox):
        return  # .ci/run ran this very command for its gate: its log is where the command writes it
    result = run(argv, sandbox, extra=command.env)
    allowed = {0, 1} if any(re.search(p, command.text) for p in ANSWERS_1) else {0}
    shown = " ".join(shlex.quote(a) for a in argv)
    assert "Traceback" not in result.stderr, f"{command}\n$ {shown}\n{result.stderr[-3000:]}"
    assert result.returncode in allowed, f"{command}\n$ {shown}\nexit {result.returncode}\n{result.stderr[-3000:]}"
