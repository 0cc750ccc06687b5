"""What the user sees around a review (issue 23), through the commands a user types:

- a one-document run of each kind, by task name from another folder (`inspect eval
  review_harness/<kind>_review ... --model offline/rules`), prints the document's verdict line,
  with `--display plain` and with `--display none` (on stderr), and how to read the review;
- a one-epoch run records no across-epoch figure (spread, stability), several epochs do;
- `review-harness show` renders in a terminal, prints markdown with `--raw` or into a pipe, and
  says which log and document it shows; `--details` adds the scoring internals;
- the CLI's start-up imports no kind, Inspect or pandas; every command has help with an example;
- a task file given by an absolute path gets a one-line hint.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from helpers import interruptible, load_task_file
from review_harness.cli import LAZY_COMMANDS, cli, main
from review_harness.core.kinds import get_kind
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.show import show_review

BIN = Path(sys.executable).parent
INSPECT = str(BIN / "inspect")
FIXTURES = PROJECT_ROOT / "fixtures"
KINDS = ("ds", "design", "code", "impact")
DISPLAYS = ("plain", "none")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def user_documents(folder: Path) -> dict[str, list[str]]:
    """Each kind's one-document `-T` arguments, with the user's files copied to `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "ds" / "dark-mode-retention.md", folder / "memo.md")
    for name in ("design.md", "requirements.md"):
        shutil.copy(FIXTURES / "design" / "api-rate-limiter" / name, folder / name)
    shutil.copy(FIXTURES / "impact" / "ci-excludes-estimate.json", folder / "impact_results.json")
    repo = folder / "repo"
    shutil.copytree(FIXTURES / "code" / "bare-except" / "base", repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base")
    shutil.rmtree(repo / "sync")
    shutil.copytree(FIXTURES / "code" / "bare-except" / "head", repo, dirs_exist_ok=True)
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "head")
    shutil.copy(FIXTURES / "code" / "bare-except" / "spec.md", folder / "SPEC.md")
    return {
        "ds": [f"document={folder / 'memo.md'}"],
        "design": [f"design={folder / 'design.md'}", f"requirements={folder / 'requirements.md'}"],
        "code": [f"repo={repo}", "base=HEAD~1", "head=HEAD", f"spec={folder / 'SPEC.md'}"],
        "impact": [f"artifact={folder / 'impact_results.json'}"],
    }


@pytest.fixture(scope="module")
def by_name_runs(tmp_path_factory):
    """Every kind x display: `inspect eval review_harness/<kind>_review` on the user's document
    from a folder that is not the project (no .env there), run side by side."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    args = user_documents(elsewhere / "docs")
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_EVAL_MODEL"} | {"PWD": str(elsewhere)}  # as a shell sets it
    runs = {}
    for kind in KINDS:
        for display in DISPLAYS:
            command = [INSPECT, "eval", f"review_harness/{kind}_review", "--model", "offline/rules",
                       "--log-dir", f"logs-{kind}-{display}", "--display", display]
            for arg in args[kind]:
                command += ["-T", arg]
            runs[kind, display] = subprocess.Popen(command, cwd=elsewhere, env=env, text=True,
                                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = {key: (p.wait(timeout=600), *p.communicate()) for key, p in runs.items()}
    return elsewhere, done


@pytest.mark.parametrize("display", DISPLAYS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_one_document_run_by_name_from_elsewhere_says_its_verdict(by_name_runs, kind, display):
    elsewhere, done = by_name_runs
    code, out, err = done[kind, display]
    assert code == 0, err[-2000:]
    [log] = list((elsewhere / f"logs-{kind}-{display}").glob("*.eval"))
    lines = [line for line in err.splitlines() if line.startswith(f"{kind} review of ")]
    assert len(lines) == 1, err[-2000:]  # one line per document, on stderr whatever the display
    from review_harness.core.logs import read_log, reviewed_samples

    [(sample, review)] = reviewed_samples(read_log(log))
    verdict = get_kind(kind).verdict_line(review)
    assert lines[0] == f"{kind} review of {sample.id}: {verdict.line()}"
    assert f"read it: review-harness show logs-{kind}-{display}/{log.name} --sample {sample.id}" in err
    assert f"browse:  inspect view --log-dir logs-{kind}-{display}" in err
    assert "Traceback" not in err
    if display == "none":
        assert out.strip() == ""  # nothing else on stdout


def test_the_verdict_line_names_the_verdict_and_whole_scores(by_name_runs):
    _, done = by_name_runs
    err = done["ds", "none"][2]
    # the floor-adjusted verdict, why a floor rule capped it and its band by score when one did, the
    # computed score in whole points, the counts
    bands = "(?:Good to Go|Minor Fix|Major Rework)"
    line = re.search(rf"^ds review of memo: ({bands})(?: \(capped: ([^;)]+); ({bands}) by score\))?, score \d+/100, "
                     r"\d+ findings \(", err, re.M)
    assert line, err
    assert line.group(1) != "Good to Go" and (line.group(3) is None or line.group(3) != line.group(1))


def test_a_gold_run_prints_no_verdict_lines(tmp_path):
    [log] = inspect_eval(load_task_file("impact_review")(), model="offline/rules", limit=2, log_dir=str(tmp_path),
                         display="none")
    assert log.status == "success" and not log.eval.metadata.get("user_documents")


# ---------------------------------------------------------------------------- recorded metrics

ACROSS_EPOCHS = {"score_spread", "score_within_10", "stable_findings", "flaky_findings", "never_findings",
                 "overall_spread", "epoch_consistent"}


@pytest.mark.parametrize("task", ["ds_review", "design_review", "impact_review"])
def test_one_epoch_records_no_across_epoch_figure_and_two_do(task, tmp_path):
    recorded = {}
    for epochs in (1, 2):
        [log] = inspect_eval(load_task_file(task)(), model="offline/rules", limit=2, epochs=epochs,
                             log_dir=str(tmp_path / str(epochs)), display="none")
        names = {score.name for score in log.results.scores}
        keys = {k for r in log.reductions for s in r.samples for k in s.value}
        recorded[epochs] = names | keys
        for score in log.results.scores:  # every metric is named, none is 'nanmean' (the verdict's: named for the verdict)
            assert all(name in ("average", "ranking_agreement_metric", "per_correct") or metric.group == "verdict"
                       for name, metric in score.metrics.items()), score
    assert not recorded[1] & ACROSS_EPOCHS
    assert recorded[2] & ACROSS_EPOCHS


def test_a_user_document_run_records_no_gold_figure(by_name_runs):
    elsewhere, _ = by_name_runs
    from review_harness.core.logs import read_log

    for kind in KINDS:
        [path] = list((elsewhere / f"logs-{kind}-none").glob("*.eval"))
        log = read_log(path)
        assert {s.scorer for s in log.results.scores} == {get_kind(kind).synthesis_scorer}
        assert log.eval.metadata["user_documents"] is True


# ---------------------------------------------------------------------------- show


@pytest.fixture(scope="module")
def ds_log(by_name_runs) -> Path:
    elsewhere, _ = by_name_runs
    return next((elsewhere / "logs-ds-none").glob("*.eval"))


def test_show_renders_for_a_terminal(ds_log, capsys):
    out = io.StringIO()
    show_review(ds_log, None, None, None, terminal=True, out=out)
    text = out.getvalue()
    assert "\x1b[" in text  # rendered: styles, not markdown syntax
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert "DS analysis review of memo" in plain.splitlines()[0]
    assert f"log: {ds_log}" in plain
    assert "**Score:" not in plain and "# DS Analysis Review" not in plain
    assert re.search(r"Score: \d+/100 -- (Minor Fix|Major Rework)", plain)
    assert "Where: " in plain and "Issue: " in plain  # each on a line of its own, as the viewer shows them


def test_show_raw_and_into_a_pipe_is_the_markdown(ds_log, capsys):
    assert main(["show", str(ds_log), "--raw"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# DS Analysis Review: ")
    assert captured.err.strip() == f"DS analysis review of memo in {ds_log}"
    assert main(["show", str(ds_log)]) == 0  # not a terminal: the same markdown
    assert capsys.readouterr().out == captured.out


def test_show_keeps_internals_for_details_and_rounds_scores(ds_log, capsys):
    assert main(["show", str(ds_log), "--raw"]) == 0
    plain = capsys.readouterr().out
    assert main(["show", str(ds_log), "--raw", "--details"]) == 0
    detailed = capsys.readouterr().out
    assert "Deductions" not in plain and "**Deductions:**" in detailed
    assert not re.search(r"\d+\.\d+/100", plain)  # whole numbers in prose
    fixes = re.findall(r"^### \d\. (.+) \((?:CRITICAL|MAJOR|MINOR)\)$", plain, re.M)
    assert fixes
    for title in fixes:  # a top fix is told once in full, then only named in its lens
        assert plain.count(f"**[") and f"{title}**: priority fix" in plain


def test_show_picks_the_newest_log_of_a_kind(by_name_runs, tmp_path, capsys):
    elsewhere, _ = by_name_runs
    folder = tmp_path / "mixed"
    folder.mkdir()
    for kind in ("design", "ds", "impact"):  # the impact log is the newest
        source = next((elsewhere / f"logs-{kind}-none").glob("*.eval"))
        shutil.copy(source, folder / source.name)
        os.utime(folder / source.name)
    assert main(["show", str(folder), "--kind", "design", "--raw"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("design review of design in ")
    assert main(["show", str(folder), "--kind", "code"]) == 2
    assert capsys.readouterr().err == f"review-harness: {folder}: folder has no code review logs\n"
    assert main(["show", str(folder), "--kind", "nope"]) == 2
    assert "--kind nope: not a review kind; choose one of: ds, design, code, impact" in capsys.readouterr().err


# ---------------------------------------------------------------------------- the CLI itself


def test_start_up_imports_no_kind_inspect_or_pandas():
    code = ("import sys, review_harness.cli as c; c.main(['--help']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('inspect_ai', 'pandas', 'pydantic') "
            "or m.startswith('review_harness.') and m not in ('review_harness.cli', 'review_harness.core', "
            "'review_harness.core.commands', 'review_harness.core.paths', 'review_harness.core.files', "
            "'review_harness._startup')))")
    # (core.files, which numbers a run's outputs, imports the standard library only; _startup, which every
    # start of this Python imports through the package's start-up file, too)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_every_command_has_help_with_an_example_and_described_options(capsys):
    import click

    def walk(command: click.Command, path: list[str]):
        yield path, command
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                yield from walk(command.get_command(click.Context(command), name), [*path, name])

    commands = list(walk(cli, []))
    assert {p[0] for p, _ in commands if p} >= {"summary", "show", "gate", "lint-prompts", *LAZY_COMMANDS}
    for path, command in commands:
        assert main([*path, "--help"]) == 0
        text = capsys.readouterr().out
        assert command.help, path
        if not isinstance(command, click.Group):
            assert "Example" in text, path
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, (path, param.name)
            elif param.metavar:  # positionals: the help text names and describes them
                assert param.metavar.strip("[].") in (command.help or ""), (path, param.name)


def test_version_and_usage_errors(capsys):
    assert main(["--version"]) == 0
    assert re.fullmatch(r"review-harness \d+\.\d+\.\d+\n", capsys.readouterr().out)
    assert main(["gate", "--nope"]) == 2
    assert capsys.readouterr().err == "review-harness gate: No such option '--nope' (see review-harness gate --help)\n"
    assert main(["nope"]) == 2
    assert capsys.readouterr().err == "review-harness: No such command 'nope' (see review-harness --help)\n"
    assert main(["verdict", "--fail-on"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_no_help_text_runs_a_task_file_of_the_checkout(capsys):
    """`inspect eval tasks/<kind>_review.py` finds no task in a user's folder: the help names the
    task by name, as the docs do."""
    import click

    def walk(command: click.Command, path: list[str]):
        yield path
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                yield from walk(command.get_command(click.Context(command), name), [*path, name])

    for path in walk(cli, []):
        assert main([*path, "--help"]) == 0
        text = capsys.readouterr().out
        assert "tasks/" not in text, path
    assert main(["--help"]) == 0
    assert "inspect eval review_harness/<kind>_review" in " ".join(capsys.readouterr().out.split())


def test_a_task_file_by_absolute_path_gets_a_one_line_hint(tmp_path):
    result = subprocess.run([INSPECT, "eval", str(PROJECT_ROOT / "tasks" / "impact_review.py"), "--model",
                             "offline/rules", "--display", "none", "--log-dir", str(tmp_path)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"review-harness: inspect eval cannot load a task file by an absolute path "
        f"({PROJECT_ROOT / 'tasks' / 'impact_review.py'}); run the task by name from any folder "
        f"(inspect eval review_harness/impact_review --model offline/rules), or by a relative path"]


def test_show_falls_back_to_the_stored_report_of_an_older_log(ds_log, tmp_path, capsys):
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(ds_log))
    log.samples[0].scores["review_synthesis"].metadata["review"]["status"] = "a status no longer known"
    old = tmp_path / "old.eval"
    write_eval_log(log, str(old))
    assert main(["show", str(old), "--raw"]) == 0
    assert capsys.readouterr().out == log.samples[0].output.completion.rstrip("\n") + "\n"


def test_ctrl_c_during_a_command_is_one_line(tmp_path):
    """A SIGINT that arrives while a command runs ends it with one line and exit code 130."""
    code = ("import os, signal, sys, time, click\n"
            "from review_harness.cli import cli, main\n"
            "@cli.command('wait')\n"
            "def wait():\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    time.sleep(30)\n"
            "sys.exit(main(['wait']))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                            preexec_fn=interruptible)
    assert result.returncode == 130
    assert [line for line in result.stderr.splitlines() if line.strip()] == ["review-harness: interrupted"]
    assert "Traceback" not in result.stderr and result.stdout == ""
