"""Code review CLI and analytics: summary with the analytics summary, analytics keyed by log,
sample and epoch, overrides that change exactly the review they name (issue 20, part 4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from review_harness.cli import main
from review_harness.code.analytics import build_analytics
from review_harness.code.memory import read_patterns
from review_harness.core.logs import read_log


@pytest.fixture(scope="module")
def log_path(default_gold_log, tmp_path_factory) -> Path:
    log = default_gold_log("code_review")
    assert log.status == "success"
    # a copy in a folder of its own: what the commands write beside a log stays in it
    return Path(shutil.copy(log.location, tmp_path_factory.mktemp("code-logs")))


@pytest.fixture
def two_logs(log_path: Path, tmp_path: Path) -> list[Path]:
    """The gold set's log and a second log of the same run (as two runs of the gold set would be)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    first = folder / log_path.name
    second = folder / log_path.name.replace(".eval", "-again.eval")
    shutil.copy(log_path, first)
    shutil.copy(log_path, second)
    return [first, second]


def test_summary_lists_code_reviews_and_the_analytics_summary(log_path: Path, capsys):
    assert main(["summary", str(log_path)]) == 0
    out = capsys.readouterr().out
    assert "spec-gap" in out and "discarded" in out and "escalated" in out and "(after approval)" in out
    assert "analytics: 28 reviews (28 tasks, 1 log(s), " in out
    assert "reviewer_a=offline/rules: true positives" in out and "models: reviewer_a offline/rules" in out


def test_the_same_gold_set_in_two_logs_counts_twice(log_path: Path, two_logs: list[Path]):
    one = build_analytics([read_log(log_path)])
    two = build_analytics([read_log(p) for p in two_logs])
    for key in ("total_reviews", "rounds", "auto_approved", "auto_rejected", "human_decided", "human_answers"):
        assert two["summary"][key] == 2 * one["summary"][key], key
    assert two["summary"]["decision_points"] == {k: 2 * v for k, v in one["summary"]["decision_points"].items()}
    assert len(two["reviews"]) == 2 * len(one["reviews"])
    assert one["summary"]["total_reviews"] == 28 and one["summary"]["human_answers"] > 9
    for role, c in one["summary"]["model_accuracy"].items():
        assert two["summary"]["model_accuracy"][role] == {k: 2 * v for k, v in c.items()}
    assert one["summary"]["models"] == {"reviewer_a": ["offline/rules"], "reviewer_b": ["offline/rules"]}
    # the same file given twice also counts twice (each log argument is a set of reviews)
    same = build_analytics([read_log(log_path), read_log(log_path)])
    assert same["summary"]["total_reviews"] == 56


def test_an_override_changes_exactly_one_entry(two_logs: list[Path], tmp_path: Path, capsys):
    first, second = two_logs
    before = build_analytics([read_log(p) for p in two_logs])
    assert main(["code", "override", str(second), "--sample", "bare-except", "--decision", "reject",
                 "--memory-dir", str(tmp_path / "memory")]) == 0
    overrides = first.parent / "review-overrides.jsonl"  # beside the log it names
    assert json.loads(overrides.read_text())["sample"] == "bare-except"
    after_path = tmp_path / "analytics.json"
    assert main(["code", "analytics", *map(str, two_logs), "--output", str(after_path)]) == 0
    after = json.loads(after_path.read_text())
    changed = [(a["log"], a["sample"], a["stage"], a["iteration"]) for a, b in zip(after["reviews"], before["reviews"]) if a != b]
    assert [(log, sample) for log, sample, _, _ in changed] == [(second.name, "bare-except")] * len(changed)
    assert after["summary"]["human_overrides"] == 1
    entry = next(e for e in after["reviews"] if e["log"] == second.name and e["sample"] == "bare-except" and e["stage"] == "quality")
    assert entry["human_override"] == "reject"
    assert all(f["resolution"] == "confirmed" for f in entry["findings"] if f["category"] != "contradiction")


def test_model_accuracy_counts_resolved_findings_only(log_path: Path):
    data = build_analytics([read_log(log_path)])
    entries = {(e["sample"], e["stage"], e["iteration"]): e for e in data["reviews"]}
    # gold round: named by the gold file -> confirmed; B's finding in go-ignored-error is gold's, A missed it
    go = entries[("go-ignored-error", "quality", 0)]
    assert [(f["found_by"], f["resolution"]) for f in go["findings"]] == [(["B"], "confirmed")]
    # a later round's finding that is gone after the next fix: fixed (a true positive of who found it)
    spec_gap = entries[("spec-gap", "spec", 1)]
    assert [(f["id"], f["resolution"]) for f in spec_gap["findings"]] == [("i1-s1", "fixed")]
    # an automatic rejection confirms nothing: a finding still there after the last fix stays open
    loop = entries[("loop-never", "quality", 2)]
    assert [(f["id"], f["resolution"]) for f in loop["findings"]] == [("i2-q1", "open")]
    a = data["summary"]["model_accuracy"]["reviewer_a=offline/rules"]
    b = data["summary"]["model_accuracy"]["reviewer_b=offline/rules"]
    assert b["false_positive"] == 0 and b["missed"] == 0 and a["missed"] > 0 and a["false_positive"] > 0
    discarded = entries[("spec-gap", "quality", 0)]
    assert discarded["discarded"] and all(f["resolution"] == "discarded" for f in discarded["findings"])


def test_analytics_json_and_html_go_to_the_log_folder_by_default(two_logs: list[Path], tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    html = tmp_path / "out" / "report.html"
    assert main(["code", "analytics", str(two_logs[0]), "--html", str(html)]) == 0
    written = two_logs[0].parent / "review-analytics.json"
    data = json.loads(written.read_text())
    spec_gap = [e for e in data["reviews"] if e["sample"] == "spec-gap" and e["iteration"] == 0]
    assert {e["stage"]: e["discarded"] for e in spec_gap} == {"spec": False, "quality": True}
    assert "data:image/png;base64," in html.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "out"]  # nothing written where the command ran
    assert f"wrote {written}" in capsys.readouterr().out


def test_override_dismisses_single_findings_by_id(log_path: Path, tmp_path: Path, capsys):
    memory = tmp_path / "memory"
    overrides = tmp_path / "overrides.jsonl"
    args = ["code", "override", str(log_path), "--sample", "unclosed-mutable", "--decision", "approve",
            "--memory-dir", str(memory), "--overrides", str(overrides)]
    assert main(args) == 0  # an approval without dismissals teaches memory nothing
    assert not memory.exists() or read_patterns(memory, "quality", "inventory") is None
    assert main(args + ["--dismiss", "q2", "--note", "the caller closes it"]) == 0
    patterns = read_patterns(memory, "quality", "inventory")
    [entry] = patterns.false_positives  # the dismissed finding, with its place
    assert (entry.pattern, entry.why, entry.category, entry.file) == (
        "handle = open(...) is never closed", "the caller closes it", "resource", "inventory/tags.py")
    assert entry.code == 'handle = open(path, encoding="utf-8")'
    assert patterns.issues == []
    records = [json.loads(line) for line in overrides.read_text().splitlines()]
    assert [r["dismiss"] for r in records] == [[], ["q2"]] and records[1]["log"] == str(log_path.resolve())
    assert "dismissed q2" in capsys.readouterr().out


def test_cli_errors_are_one_line(tmp_path: Path, log_path: Path, capsys):
    assert main(["code", "analytics", str(tmp_path / "missing.eval")]) == 2
    assert "no such log file" in capsys.readouterr().err
    assert main(["code", "override", str(log_path), "--sample", "nope", "--decision", "reject",
                 "--overrides", str(tmp_path / "o.jsonl")]) == 2
    assert "no code review for sample 'nope'" in capsys.readouterr().err
    assert main(["code", "override", str(log_path), "--sample", "bare-except", "--decision", "approve",
                 "--dismiss", "q9", "--overrides", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "has no finding q9 (its findings: q1)" in err and len(err.strip().splitlines()) == 1
