"""Bounded work on long tables (issue 48, point 3): the probe's document of one 200,000-row table
took its review 84 s against an estimate of 18 s and ~0.4 GB (it took 1.9 GB), and the process
did not exit when done (38 s more here: Python's last collection over the readers' caches).

- the estimate counts table work, rows x columns, in time and memory, with its kind's rates; an
  input under the 1 MB mark that its kind takes long over is announced too;
- a review that runs past its estimate says so when it happens and in its last line;
- the process ends when its work is done (a real process; the probe's input in the slow suite).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from helpers import load_task_file
from review_harness.core import sizeguard
from review_harness.core.kinds import OfflineCost, get_kind
from review_harness.core.sizeguard import LONG_INPUT_CHARS, estimate, table_cells

BIN = Path(sys.executable).parent


def table(rows: int, columns: int = 5) -> str:
    head = "| " + " | ".join(["week", "region"] + [f"m{n}" for n in range(columns - 2)]) + " |"
    lines = ["# Weekly figures", "", head, "|" + "---|" * columns]
    lines += ["| " + " | ".join([str(r // 7), f"r{r % 13}"] + [str(1000 + (r * 7 + c) % 8999) for c in range(columns - 2)])
              + " |" for r in range(rows)]
    return "\n".join(lines) + "\n"


def prose(size: int) -> str:
    sentence = "Retention rose after the launch in the treatment cohort against the control group. "
    return "# A long analysis\n\n" + sentence * (size // len(sentence) + 1)


def test_table_cells_are_rows_times_columns():
    assert table_cells(table(1000, 5)) == 1002 * 5  # the header and the delimiter row are rows too
    assert table_cells(table(10, 20)) == 12 * 20
    assert table_cells("a | b\n|x|y|z|\n<table><tr><td>1</td><th>2</th></tr></table>\nno bar here") == 3 + 2
    assert table_cells(prose(10_000)) == 0


def test_the_estimate_counts_table_work_in_time_and_memory():
    """The probe's input: one table of 200,000 rows x 5 columns. Its estimate was prose's (18 s,
    0.4 GB); the DS review took 33 s of CPU and 1.9 GB."""
    text = table(200_000)
    rates = get_kind("ds").offline_cost
    long_table, same_size = estimate(text, rates), estimate(prose(len(text)), rates)
    assert long_table.cells == 200_002 * 5
    assert long_table.seconds == pytest.approx(same_size.seconds + long_table.cells * rates.seconds_per_cell, rel=0.01)
    assert 30 <= long_table.seconds <= 40 and 1700 <= long_table.memory_mb <= 2000
    assert same_size.seconds < 25 and same_size.memory_mb < 500
    line = sizeguard.cost_line("t.md", text, long_table)
    assert "1,000,010 table cells" in line and "takes about 36 s and ~1.9 GB of memory" in line


def test_each_kind_estimates_with_its_own_rates():
    text = table(20_000)
    slow = OfflineCost(seconds_per_mb=100.0, seconds_per_cell=1e-3, memory_mb_per_cell=0.0)
    cost = estimate(text, slow)
    assert cost.seconds == pytest.approx(cost.mb * 100 + cost.cells * 1e-3)
    assert cost.memory_mb == pytest.approx(slow.base_memory_mb + cost.mb * slow.memory_mb_per_mb)
    assert all(isinstance(get_kind(k).offline_cost, OfflineCost) for k in ("ds", "design", "code", "impact"))


def test_an_input_under_the_size_mark_that_its_kind_takes_long_over_is_announced(capfd):
    """The design review's offline reviewers take time with the square of the words they read, up to
    their input budget (a table of 20,000 rows, 0.7 MB, took 66 s of CPU): such a table is announced
    by the design review, not by the DS review (3 s)."""
    from inspect_ai.dataset import Sample

    text = table(20_000)
    assert len(text) < LONG_INPUT_CHARS
    sample = Sample(id="weekly", input=text, metadata={"source": "weekly.md"})
    assert sizeguard.size_guard("ds_review", [sample], get_kind("ds").offline_cost) == {}
    assert capfd.readouterr().err == ""
    design = get_kind("design").offline_cost
    marked = sizeguard.size_guard("design_review", [sample], design)
    assert marked["long_inputs"]["weekly"]["seconds"] >= sizeguard.LONG_REVIEW_SECONDS
    assert capfd.readouterr().err.startswith("design_review: weekly.md is a long input: 0.7 MB, ")
    # its reviewers read at most their budget: five times the rows take the same time
    assert estimate(table(100_000), design).seconds == pytest.approx(estimate(text, design).seconds, rel=0.01)
    assert estimate(prose(50_000), design).seconds < sizeguard.LONG_REVIEW_SECONDS  # a real design's size


def test_a_review_over_its_estimate_says_so_as_it_happens_and_at_the_end(tmp_path, capfd, monkeypatch):
    """The estimate made small: the line comes from a timer while the step still runs."""
    monkeypatch.setattr(sizeguard.Estimate, "over_after", property(lambda self: 0.3))
    path = tmp_path / "weekly.md"
    path.write_text(table(40_000) + prose(LONG_INPUT_CHARS))
    [log] = inspect_eval(load_task_file("ds_review")(document=str(path)), model="offline/rules", display="none",
                         log_dir=str(tmp_path / "logs"))
    assert log.status == "success"
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("review-harness: weekly:")]
    over = [n for n, line in enumerate(lines) if re.fullmatch(
        r"review-harness: weekly: \d+ s so far( \(in (solver|scorer) \w+\))?, over its estimate of about \d+ s; the review goes "
        r"on \(Ctrl-C stops it when this step ends\)", line)]
    assert len(over) == 1 and 0 < over[0] < len(lines) - 1, lines  # once, while the review runs
    assert re.fullmatch(r"review-harness: weekly: reviewed in \d+ s, over its estimate of about \d+ s", lines[-1])


@pytest.mark.slow
def test_the_probes_table_is_announced_and_the_process_ends_when_done(tmp_path):
    """The probe's input through `inspect eval`: the estimate names its cells, and the process
    exits within seconds of its last line (it took 38 s more; 84 s for the review on a busy machine)."""
    (tmp_path / "table.md").write_text(table(200_000))
    started = time.monotonic()
    process = subprocess.Popen([str(BIN / "inspect"), "eval", "review_harness/ds_review", "-T", "document=table.md",
                                "--model", "offline/rules", "--log-dir", "logs", "--display", "none"], cwd=tmp_path,
                               env=os.environ | {"PWD": str(tmp_path)}, text=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    lines, last = [], started
    for line in process.stderr:
        lines.append(line.rstrip("\n"))
        last = time.monotonic()
    assert process.wait(timeout=60) == 0, "\n".join(lines[-20:])
    assert time.monotonic() - last < 10, f"exited {time.monotonic() - last:.0f} s after its last line"
    assert "1,000,010 table cells" in lines[0] and "~1.9 GB of memory" in lines[0]
    [end] = [line for line in lines if line.startswith("review-harness: table: reviewed in ")]
    took = int(re.search(r"reviewed in (\d+) s", end).group(1))
    over_after = estimate((tmp_path / "table.md").read_text(), get_kind("ds").offline_cost).over_after
    assert ("over its estimate" in end) == (took > over_after), end  # said exactly when it ran over
