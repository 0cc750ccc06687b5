"""Ctrl-C at any time ends `inspect eval` with one line (issue 48, point 4), real processes.

- While Inspect is still importing (before any code of the package's entry point could run),
  Ctrl-C printed some forty lines of KeyboardInterrupt traceback: the package installs a start-up
  file (`review_harness-startup.pth`, setup.py) that has Python answer it with one line and exit
  130 (review_harness/_startup.py).
- During the run, Inspect cancels it and writes the log as cancelled, but exited 0 and, under
  `--display none`, said nothing: the console hook says it in one line and exits 130.
"""

from __future__ import annotations

import os
import re
import signal
import site
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import interruptible
from review_harness._startup import LINE, eval_command

BIN = Path(sys.executable).parent
PTH = "review_harness-startup.pth"


def table_document(path: Path, rows: int) -> Path:
    lines = ["# Weekly sessions", "", "| week | region | sessions | orders | rate |", "|---|---|---|---|---|"]
    lines += [f"| {n // 7} | r{n % 13} | {1000 + n % 997} | {10 + n % 89} | 0.0{n % 9} |" for n in range(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def start(tmp_path: Path, document: Path) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "inspect"), "eval", "review_harness/ds_review", "-T", f"document={document}",
                             "--model", "offline/rules", "--log-dir", str(tmp_path / "logs"), "--display", "none"],
                            cwd=tmp_path, env=os.environ | {"PWD": str(tmp_path)}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=interruptible)


def lines_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.strip()]


def test_the_start_up_file_is_installed_with_the_package():
    """Without it nothing of the package runs before Inspect's imports end; `pip install -e .`
    (or a wheel) installs it (setup.py)."""
    found = [Path(folder) / PTH for folder in site.getsitepackages() if (Path(folder) / PTH).is_file()]
    assert found, f"{PTH} is not in {site.getsitepackages()}: reinstall the package (pip install -e .)"
    assert "review_harness._startup" in found[0].read_text()


def test_only_inspect_eval_commands_answer_ctrl_c_themselves():
    assert eval_command(["/venv/bin/inspect", "eval", "x"]) and eval_command(["inspect", "eval-set", "x"])
    assert not eval_command(["/venv/bin/inspect", "view"]) and not eval_command(["/usr/bin/python", "eval"])
    assert not eval_command(["inspect"]) and not eval_command([])


@pytest.mark.parametrize("delay", [0.2, 0.8, 2.0])
def test_ctrl_c_while_inspect_starts_is_one_line(tmp_path, delay):
    document = table_document(tmp_path / "report.md", 200)
    process = start(tmp_path, document)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert len(lines_of(err)) == 1, err[-3000:]
    assert process.returncode in (130, 1), err  # 1: click's 'Aborted!' in the instant before the run starts
    if process.returncode == 130 and not lines_of(err)[0].startswith("review-harness: interrupted: the run"):
        assert lines_of(err) == [LINE]


def test_ctrl_c_during_the_run_is_one_line_and_the_log_is_kept(tmp_path):
    from inspect_ai.log import read_eval_log

    document = table_document(tmp_path / "report.md", 20_000)  # a review of seconds
    process = start(tmp_path, document)
    deadline = time.monotonic() + 300
    while not list((tmp_path / "logs").glob("*.eval")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # the run has started when its log exists
    assert process.poll() is None, process.communicate()[1][-3000:]
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=600)
    assert "Traceback" not in err, err[-3000:]
    [line] = lines_of(err)
    assert re.match(r"review-harness: interrupted: the run was stopped after \d+ finished review\(s\); its log is "
                    r"marked cancelled", line), err
    assert process.returncode == 130
    [log] = list((tmp_path / "logs").glob("*.eval"))
    assert read_eval_log(str(log), header_only=True).status == "cancelled"
