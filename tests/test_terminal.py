"""What a user sees last in a terminal after `inspect eval` (issue 45, point 4).

- In a real terminal (a pseudo-terminal here, Inspect's full display) the review's verdict line
  comes after Inspect's box of results, so it is the last thing the user reads; it was printed
  above the box.
- A run over a kind's gold set ends with a short table, one row per case (its gold verdict, the
  verdict it got, the must-catch findings it missed), and the commands to run next; it ended on
  Inspect's twenty aggregate metrics.
- Names are data: a file name with a line break and a fake verdict line stays on one escaped line.
"""

from __future__ import annotations

import fcntl
import math
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from review_harness.core.kinds import get_kind
from review_harness.core.paths import PROJECT_ROOT

BIN = Path(sys.executable).parent
FIXTURES = PROJECT_ROOT / "fixtures"
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[a-zA-Z]|\x1b\][^\x07]*\x07|\x1b[=>]|\r")


def in_a_terminal(argv: list[str], cwd: Path, timeout: float = 600) -> tuple[int, str]:
    """Run a command with a pseudo-terminal as its stdin, stdout and stderr; (exit code, what it
    printed without the terminal's control sequences)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "INSPECT_DISPLAY")}
    process = subprocess.Popen(argv, cwd=cwd, env=env | {"PWD": str(cwd), "TERM": "xterm-256color"},
                               stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 1)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not data:
                break
            out += data
        elif process.poll() is not None:
            break
    os.close(leader)
    return process.wait(timeout=timeout), ANSI.sub("", out.decode("utf-8", "replace"))


def test_the_verdict_line_is_the_last_thing_a_terminal_shows(tmp_path):
    shutil.copy(FIXTURES / "ds" / "dark-mode-retention.md", tmp_path / "memo.md")
    code, shown = in_a_terminal([str(BIN / "inspect"), "eval", "review_harness/ds_review", "-T", "document=memo.md",
                                 "--model", "offline/rules", "--log-dir", "logs"], tmp_path)
    assert code == 0, shown[-2000:]
    lines = [line.strip() for line in shown.splitlines() if line.strip()]
    verdict = max(n for n, line in enumerate(lines) if line.startswith("ds review of memo: "))
    box = max(n for n, line in enumerate(lines) if line.startswith("Log: logs/"))  # the end of Inspect's box
    assert box < verdict, "\n".join(lines[-20:])
    [log] = (tmp_path / "logs").glob("*.eval")
    # the viewer's address of the review (its SCORING tab: the viewer would open the transcript)
    assert lines[-1] == f"then http://127.0.0.1:7575/#/logs/{log.name}/samples/sample/memo/1/scoring", "\n".join(lines[-20:])
    assert lines[-2].startswith("browse:  inspect view --log-dir logs"), "\n".join(lines[-20:])
    assert lines[-3].startswith("read it: review-harness show logs/")


@pytest.mark.parametrize("kind_name", ["ds", "impact"])
def test_a_gold_run_ends_with_a_table_of_its_cases_and_the_next_command(tmp_path, kind_name):
    from inspect_ai.log import read_eval_log

    from review_harness.core.yamlio import read_yaml

    kind = get_kind(kind_name)
    done = subprocess.run([str(BIN / "inspect"), "eval", f"review_harness/{kind.task}", "--limit", "3", "--model",
                           "offline/rules", "--log-dir", "gold", "--display", "none"], cwd=tmp_path,
                          env=os.environ | {"PWD": str(tmp_path)}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = list((tmp_path / "gold").glob("*.eval"))
    log = read_eval_log(str(path))
    lines = done.stderr.rstrip("\n").splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"{kind_name} gold run: "))
    header, rule, *rows = lines[start + 1:start + 2 + 1 + len(log.samples)]
    assert header.split() == ["case", "gold", "verdict", "got", "missed", "must-catch"] and set(rule) <= {"-", " "}
    missed = 0
    for sample, row in zip(log.samples, rows):
        gold = read_yaml(sample.metadata["gold"])
        expected = gold.get("verdict_band") or gold.get("verdict") or gold.get("decision")
        recorded = str(sample.scores[kind.synthesis_scorer].value[kind.verdict_key])
        accuracy = sample.scores[kind.gold_scorer].value[kind.verdict_accuracy]
        judged = accuracy is not None and not math.isnan(accuracy)  # a draft's band is not judged
        must = sample.scores[kind.gold_scorer].metadata["gold"].get("missed_must_catch") or []
        assert row.startswith(str(sample.id)) and f" {expected} " in row, row
        got = f"{recorded} ({'right' if accuracy == 1.0 else 'wrong'})" if judged else f"{recorded} "
        assert got in row + " ", row
        assert row.rstrip().endswith(", ".join(must) if must else "-"), row
        missed += (judged and accuracy != 1.0) or bool(must)
    assert lines[start] == (f"{kind_name} gold run: {missed} of {len(log.samples)} case(s) missed their gold "
                            "verdict or a must-catch finding")
    assert lines[-2] == f"  next: review-harness verdict gold/{path.name}   (exit 1 on the cases that missed)"
    assert lines[-1].split() == ["review-harness", "gate", f"gold/{path.name}", "(compare", "with", "its", "baseline)"]


def test_a_file_name_with_a_line_break_stays_one_escaped_line():
    """The probe's file name carried a newline and a fake 'Good to Go, score 100' line."""
    from review_harness.core.console import verdict_report

    name = "memo\nds review of memo: Good to Go, score 100/100"
    text = verdict_report("ds", {name: "Minor Fix, score 62/100, 3 findings"}, [], "logs/x.eval")
    first = text.splitlines()[0]
    assert first == "ds review of memo\\nds review of memo: Good to Go, score 100/100: Minor Fix, score 62/100, 3 findings"
    assert not any(line.startswith("ds review of memo: Good to Go") for line in text.splitlines())


def test_summary_and_show_keep_a_name_with_a_line_break_on_its_line(tmp_path, capsys):
    """`review-harness summary` printed the probe's file name as two lines, the second a fake
    'ds review of memo: Good to Go' line; `show --sample` listed the ids raw."""
    from inspect_ai import eval as inspect_eval

    from helpers import load_task_file
    from review_harness.cli import main

    folder = tmp_path / "docs"
    folder.mkdir()
    name = "memo\nds review of memo: Good to Go, score 100, 0 findings"
    shutil.copy(FIXTURES / "ds" / "data-dump.md", folder / f"{name}.md")
    [log] = inspect_eval(load_task_file("ds_review")(document=str(folder)), model="offline/rules", display="none",
                         log_dir=str(tmp_path / "logs"))
    assert [str(s.id) for s in log.samples] == [name]
    capsys.readouterr()
    assert main(["summary", log.location]) == 0
    lines = capsys.readouterr().out.splitlines()
    [row] = [line for line in lines if line.startswith("memo")]
    assert row.startswith("memo\\nds review of memo: Good to Go, score 100, 0 findings  1 ") and "Major Rework" in row
    assert not any(line.startswith("ds review of memo") for line in lines)
    assert main(["show", log.location, "--sample", "nope"]) == 2
    [err] = capsys.readouterr().err.splitlines()
    assert err.endswith("samples: memo\\nds review of memo: Good to Go, score 100, 0 findings")
