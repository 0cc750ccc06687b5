"""Analytics and overrides a team can trust (issue 32): every review appends its entries beside
its log; per-review and per-decision-point counts are both there and add up over several logs;
overrides change final_verdict, the resolutions and memory consistently, and the file rebuilt
from the logs says the same; a human's answer is recorded at the decision point it answered; no
tuning verdict on zero data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.cli import main
from review_harness.code.analytics import build_analytics, summarize, summary_lines
from review_harness.code.memory import read_patterns
from review_harness.core.logs import read_log
from test_code_review import task_function

ROOT = Path(__file__).resolve().parent.parent


def evaluate(log_dir: Path, ids: list[str] | None = None, **task_args):
    [log] = inspect_eval(task_function()(**task_args), model="offline/rules", display="none", log_dir=str(log_dir),
                         sample_id=ids)
    assert log.status == "success"
    return log


def adds_up(summary: dict) -> None:
    """The summary's counts agree with each other."""
    total = summary["total_reviews"]
    assert summary["auto_approved"] + summary["auto_rejected"] + summary["human_decided"] == total
    points = summary["decision_points"]
    assert points["auto_approved"] + points["auto_rejected"] + points["human_decided"] == points["total"]
    assert total <= points["total"] and points["human_answered"] <= points["human_decided"]
    assert sum(summary["final_verdict"].values()) == total == sum(summary["final_status"].values())
    assert sum(info["reviews"] for info in summary["by_service"].values()) == total
    assert summary["human_answers"] == points["human_answered"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Three runs writing their logs into one folder (two of the gold set's cases twice over)."""
    logs = tmp_path_factory.mktemp("analytics") / "logs"
    evaluate(logs, ["spec-approved-sql", "unclosed-mutable", "clean-feature", "loop-never"])
    evaluate(logs, ["bare-except", "js-sql"])
    evaluate(logs, ["clean-feature", "bare-except"], human="reject")
    return logs


def test_each_review_appends_its_entries_beside_its_log(folder: Path):
    data = json.loads((folder / "review-analytics.json").read_text())
    logs = sorted(p.name for p in folder.glob("*.eval"))
    assert sorted({e["log"] for e in data["reviews"]}) == logs
    reviews = {(e["log"], e["sample"]) for e in data["reviews"]}
    assert len(reviews) == 8 and data["summary"]["total_reviews"] == 8 and data["summary"]["logs"] == 3
    adds_up(data["summary"])
    # the file says what the logs say: rebuilt from them, the same entries and summary
    rebuilt = build_analytics([read_log(p) for p in sorted(folder.glob("*.eval"))])
    key = lambda e: (e["log"], e["sample"], e["iteration"], e["stage"])  # noqa: E731
    assert sorted(data["reviews"], key=key) == sorted(rebuilt["reviews"], key=key)
    assert data["summary"] == rebuilt["summary"]


def test_overrides_change_final_verdict_resolutions_and_memory_and_add_up(folder: Path, tmp_path: Path, capsys):
    logs = {p.name: p for p in folder.glob("*.eval")}
    before = json.loads((folder / "review-analytics.json").read_text())
    first = next(e for e in before["reviews"] if e["sample"] == "loop-never")  # escalated: its last round has findings
    third = next(e for e in before["reviews"] if e["sample"] == "bare-except" and e["human_decision"] == "reject")
    memory = tmp_path / "memory"
    assert main(["code", "override", str(logs[first["log"]]), "--sample", "loop-never", "--decision", "reject",
                 "--memory-dir", str(memory)]) == 0
    assert main(["code", "override", str(logs[third["log"]]), "--sample", "bare-except", "--decision", "approve",
                 "--dismiss", "q1", "--memory-dir", str(memory), "--note", "the handler is a retry loop"]) == 0
    out = capsys.readouterr().out
    assert out.count("analytics updated in") == 2
    after = json.loads((folder / "review-analytics.json").read_text())
    summary = after["summary"]
    adds_up(summary)
    assert summary["total_reviews"] == 8 and summary["human_overrides"] == 2
    verdicts = {(e["log"], e["sample"]): (e["final_verdict"], e["human_override"]) for e in after["reviews"]}
    assert verdicts[(first["log"], "loop-never")] == ("rejected", "reject")
    assert verdicts[(third["log"], "bare-except")] == ("complete", "approve")
    untouched = {k: v for k, v in verdicts.items() if k not in ((first["log"], "loop-never"), (third["log"], "bare-except"))}
    assert all(override is None for _, override in untouched.values())
    assert summary["final_verdict"].get("rejected") == 1
    bare = [e for e in after["reviews"] if (e["log"], e["sample"]) == (third["log"], "bare-except")]
    dismissed = [f for e in bare for f in e["findings"] if f["id"] == "q1"]
    assert dismissed and all(f["resolution"] == "dismissed" and f["false_positive"] for f in dismissed)
    # memory follows the same overrides: the dismissal at its place, the rejection's findings as issues
    quality = read_patterns(memory, "quality", bare[0]["service"])
    assert [fp.why for fp in quality.false_positives] == ["the handler is a retry loop"]
    assert read_patterns(memory, "quality", first["service"]).issues  # the rejection confirmed loop-never's findings
    last = [e for e in after["reviews"] if (e["log"], e["sample"]) == (first["log"], "loop-never") and e["iteration"] == 2]
    assert {f["resolution"] for e in last for f in e["findings"]} == {"confirmed"}
    # and the file rebuilt from the logs with the overrides beside them says the same
    rebuilt = tmp_path / "rebuilt.json"
    assert main(["code", "analytics", str(folder), "--output", str(rebuilt)]) == 0
    assert json.loads(rebuilt.read_text())["summary"] == summary


def test_a_reject_override_on_a_minor_only_review_teaches_memory(folder: Path, tmp_path: Path):
    logs = sorted(folder.glob("*.eval"))
    log = next(p for p in logs if any(s.id == "clean-feature" for s in read_log(p).samples or []))
    copy = tmp_path / "logs"
    copy.mkdir()
    shutil.copy(log, copy / log.name)
    memory = tmp_path / "memory"
    # debug-print is approved with a Minor finding: a human rejects it after the fact
    [minor_log] = inspect_eval(task_function()(), model="offline/rules", display="none", log_dir=str(copy),
                               sample_id="debug-print")
    assert main(["code", "override", minor_log.location, "--sample", "debug-print", "--decision", "reject",
                 "--memory-dir", str(memory)]) == 0
    [minor] = [m for s in read_log(minor_log.location).samples for m in
               s.scores["code_synthesis"].metadata["review"]["iterations"][0]["quality"]["findings"]]
    assert minor["finding"]["severity"] == "Minor"
    service = read_log(minor_log.location).samples[0].scores["code_synthesis"].metadata["review"]["service"]
    assert [r.severity for r in read_patterns(memory, "quality", service).issues] == ["Minor"]


def test_a_human_answer_is_recorded_at_the_point_it_answered(tmp_path: Path):
    """approve at the failed spec stage, reject at the quality review that follows: the spec
    entry records the approval (its findings stay open), the quality entry the rejection (its
    findings are confirmed)."""
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "fixtures" / "code" / "spec-approved-sql", cases / "spec-approved-sql")  # no gold: a user's case
    log = evaluate(tmp_path / "logs", cases=str(cases), human="approve,reject", auto_reject="false")
    entries = build_analytics([read_log(log.location)])["reviews"]
    first = {e["stage"]: e for e in entries if e["iteration"] == 0}
    assert (first["spec"]["human_decision"], first["spec"]["decision_point"]) == ("approve", 0)
    assert (first["quality-after-approval"]["human_decision"], first["quality-after-approval"]["decision_point"]) == ("reject", 1)
    assert first["quality-after-approval"]["auto_decision"] == "PRESENT_TO_HUMAN"
    assert {f["resolution"] for f in first["spec"]["findings"]} == {"open"}  # approved past, not confirmed
    assert {f["resolution"] for f in first["quality-after-approval"]["findings"]} == {"confirmed"}
    assert all(f["resolution"] == "discarded" for f in first["quality"]["findings"])


def test_zero_data_is_said_and_never_called_no_tuning_needed(tmp_path: Path, capsys):
    log = evaluate(tmp_path / "logs", ["clean-feature"], auto_approve="false")  # awaiting a human, no finding
    summary = build_analytics([read_log(log.location)])["summary"]
    assert summary["resolved_findings"] == 0
    [hint] = summary["tuning_hints"]
    assert hint.startswith("not enough data to tune on")
    assert not any("no tuning" in line for line in summary_lines(summary))
    assert summarize([])["tuning_hints"] == ["no data: these logs hold no code review"]
    assert main(["code", "analytics", str(tmp_path / "logs"), "--output", str(tmp_path / "a.json")]) == 0
    assert "not enough data to tune on" in capsys.readouterr().out


def test_analytics_off_and_elsewhere(tmp_path: Path):
    evaluate(tmp_path / "off", ["clean-feature"], analytics="off")
    assert not (tmp_path / "off" / "review-analytics.json").exists()
    target = tmp_path / "team" / "analytics.json"
    evaluate(tmp_path / "there", ["clean-feature"], analytics=str(target))
    assert json.loads(target.read_text())["summary"]["total_reviews"] == 1
    assert not (tmp_path / "there" / "review-analytics.json").exists()
