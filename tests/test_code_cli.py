"""Code review CLI: summary, analytics from a log, overrides into memory and analytics."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.cli import main
from review_harness.code.memory import read_patterns
from test_code_review import task_function


@pytest.fixture(scope="module")
def log_path(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("code-logs")
    log = inspect_eval(task_function()(), model="offline/rules", display="none", log_dir=str(folder))[0]
    assert log.status == "success"
    return Path(log.location)


def test_summary_lists_code_reviews(log_path: Path, capsys):
    assert main(["summary", str(log_path)]) == 0
    out = capsys.readouterr().out
    assert "spec-gap" in out and "discarded" in out and "escalated" in out


def test_analytics_json_and_html(log_path: Path, tmp_path: Path, capsys):
    out_json, out_html = tmp_path / "review-analytics.json", tmp_path / "report.html"
    assert main(["code", "analytics", str(log_path), "--output", str(out_json), "--html", str(out_html),
                 "--overrides", str(tmp_path / "none.jsonl")]) == 0
    data = json.loads(out_json.read_text())
    summary = data["summary"]
    assert summary["tasks"] == 17
    assert summary["model_accuracy"]["reviewer_b"]["missed"] == 0
    assert summary["model_accuracy"]["reviewer_a"]["missed"] > 0
    spec_gap = [e for e in data["reviews"] if e["sample"] == "spec-gap" and e["iteration"] == 0]
    assert {e["stage"]: e["discarded"] for e in spec_gap} == {"spec": False, "quality": True}
    assert "data:image/png;base64," in out_html.read_text()
    assert "hint:" in capsys.readouterr().out


def test_override_records_memory_and_analytics(log_path: Path, tmp_path: Path, capsys):
    overrides, memory = tmp_path / "overrides.jsonl", tmp_path / "memory"
    args = ["code", "override", str(log_path), "--sample", "broad-except-trap", "--decision", "approve",
            "--memory-dir", str(memory), "--overrides", str(overrides), "--note", "logs and re-raises"]
    assert main(args) == 0
    patterns = read_patterns(memory, "quality", "settings")
    assert patterns.false_positives == [("Broad `except Exception` handler", "logs and re-raises")]
    assert json.loads(overrides.read_text())["decision"] == "approve"
    assert main(["code", "analytics", str(log_path), "--overrides", str(overrides), "--output", str(tmp_path / "a.json")]) == 0
    data = json.loads((tmp_path / "a.json").read_text())
    assert data["summary"]["human_overrides"] == 2  # the spec and quality entries of the first round


def test_cli_errors_are_one_line(tmp_path: Path, log_path: Path, capsys):
    assert main(["code", "analytics", str(tmp_path / "missing.eval")]) == 2
    assert "no such log file" in capsys.readouterr().err
    assert main(["code", "override", str(log_path), "--sample", "nope", "--decision", "reject",
                 "--overrides", str(tmp_path / "o.jsonl")]) == 2
    assert "no code review for sample 'nope'" in capsys.readouterr().err


def test_memory_update_mode_writes_a_per_sample_copy(tmp_path: Path):
    log = inspect_eval(task_function()(memory="update", split="heldout"), model="offline/rules", display="none",
                       log_dir=str(tmp_path))[0]
    memory = {s.id: s.scores["code_synthesis"].metadata["review"]["memory"] for s in log.samples}
    assert memory["sql-percent"]["mode"] == "update" and memory["sql-percent"]["root"] != memory["bare-except"]["root"]
    rejected = Path(memory["sql-percent"]["updated"][-1]).read_text()  # the human rejected: an issue pattern
    assert f"| 1 | {datetime.date.today().isoformat()} | Critical | ledger/queries.py:8 |" in rejected
    approved = Path(memory["bare-except"]["updated"][-1]).read_text()  # the human approved: a false positive
    assert "dismissed by the lead in review of task 14" in approved
