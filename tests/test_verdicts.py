"""`review-harness verdict`, the CI step (issue 33, point 6), and the defaults it shares with
`summary` and `show` (point 9): each exit code, with the expected outcome read from the log's
recorded values rather than assumed.

- exit 0: no review meets a chosen condition (or none was chosen, for one's own documents);
- exit 1: a review meets one (each of the kind's verdicts, `not-passed`, `no-verdict`), a gold
  run's case missed its gold verdict or a must-catch finding, a document could not be reviewed;
- exit 2: bad input (a condition the kind does not have, `missed` without gold, no log).
"""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from helpers import load_task_file
from review_harness.cli import main
from review_harness.core.commands import progress
from review_harness.core.kinds import get_kind
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.verdicts import spelled

DS = get_kind("ds")
FIXTURES = PROJECT_ROOT / "fixtures" / "ds"


def run_ds(log_dir: Path, limit: int | None = None, **args) -> Path:
    [log] = inspect_eval(load_task_file("ds_review")(**args), model="offline/rules", log_dir=str(log_dir),
                         display="none", limit=limit)
    return Path(log.location)


@pytest.fixture(scope="module")
def own_log(tmp_path_factory) -> Path:
    """The user's own documents: a strong analysis and two weak ones (no gold)."""
    folder = tmp_path_factory.mktemp("own")
    docs = folder / "docs"
    docs.mkdir()
    for name in ("strong-analysis", "causal-without-method", "dark-mode-retention"):
        shutil.copy(FIXTURES / f"{name}.md", docs / f"{name}.md")
    return run_ds(folder / "logs", document=str(docs))


@pytest.fixture(scope="module")
def gold_log(tmp_path_factory) -> Path:
    return run_ds(tmp_path_factory.mktemp("gold") / "logs", limit=6)


def recorded_verdicts(log: Path) -> dict[str, str]:
    from inspect_ai.log import read_eval_log

    return {str(s.id): s.scores[DS.synthesis_scorer].value[DS.verdict_key] for s in read_eval_log(str(log)).samples}


def verdict(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["verdict", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_own_documents_pass_without_a_condition(own_log, capsys):
    code, out, _ = verdict(capsys, str(own_log))
    assert code == 0
    assert out.splitlines()[0].startswith("log: ") and out.splitlines()[-1].startswith("verdict: PASS (3 documents")
    for sample in recorded_verdicts(own_log):
        assert any(line.startswith(sample) and line.endswith("pass") for line in out.splitlines())


@pytest.mark.parametrize("chosen", DS.verdicts)
def test_each_verdict_fails_the_step_on_it_and_anything_worse(own_log, capsys, chosen):
    verdicts = recorded_verdicts(own_log)
    worse = set(DS.verdicts[DS.verdicts.index(chosen):])
    code, out, _ = verdict(capsys, str(own_log), "--fail-on", spelled(chosen))
    assert code == (1 if worse & set(verdicts.values()) else 0)
    failing = {line.split()[0] for line in out.splitlines() if line.endswith(f"FAIL ({spelled(chosen)})")}
    assert failing == {s for s, v in verdicts.items() if v in worse}


def documented_orderings() -> dict[str, list[str]]:
    """The verdict table of docs/usage.md: kind -> verdicts from passing to strictest."""
    text = (PROJECT_ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (ds|design|code|impact) \| (`[^|]+`) \|$", text, flags=re.M)
    return {kind: re.findall(r"`([^`]+)`", cells) for kind, cells in rows}


@pytest.mark.parametrize("kind_name", ["ds", "design", "code", "impact"])
def test_each_kind_orders_its_verdicts_as_documented_and_fails_on_a_verdict_and_worse(kind_name):
    from review_harness.core.verdicts import Row, conditions_of, judge

    kind = get_kind(kind_name)
    documented = documented_orderings()[kind_name]
    assert [spelled(v) for v in kind.verdicts] == documented
    for n, condition in enumerate(documented):
        for m, recorded in enumerate(kind.verdicts):
            row = Row("doc", 1, verdict=recorded)
            judge(kind, row, conditions_of(kind, [condition], gold=False))
            assert row.failed == ([condition] if m >= n else []), (condition, recorded)


def test_code_human_decides_fails_an_auto_reject_and_impact_caution_an_unusable():
    from review_harness.core.verdicts import Row, judge

    for kind_name, condition, recorded, fails in [("code", "human-decides", "auto-reject to the implementer", True),
                                                  ("code", "auto-reject-to-the-implementer", "human decides", False),
                                                  ("impact", "caution", "unusable", True),
                                                  ("impact", "caution", "usable", False),
                                                  ("design", "revise", "escalate", True)]:
        row = Row("doc", 1, verdict=recorded)
        judge(get_kind(kind_name), row, [condition])
        assert bool(row.failed) == fails, (kind_name, condition, recorded)


def test_not_passed_fails_on_any_verdict_but_the_passing_one(own_log, capsys):
    verdicts = recorded_verdicts(own_log)
    assert set(verdicts.values()) - {DS.verdicts[0]}, "the documents should not all pass"
    code, out, _ = verdict(capsys, str(own_log), "--fail-on", "not-passed,no-verdict")
    assert code == 1
    assert out.splitlines()[-1].startswith(f"verdict: FAIL ({sum(v != DS.verdicts[0] for v in verdicts.values())} of 3")


def test_a_capped_verdict_says_why_in_its_line(own_log):
    """The verdict line carries the floor rule's reason exactly when it moved the verdict off
    the score's band (the terminal, `verdict` and the viewer's answer print that line)."""
    from inspect_ai.log import read_eval_log

    from review_harness.ds.kind import floor_reason

    for sample in read_eval_log(str(own_log)).samples:
        review = DS.review_from_score(sample.scores[DS.synthesis_scorer].metadata)
        line = DS.verdict_line(review).line()
        capped = review.verdict != review.band_verdict
        assert ("(capped: " in line) == capped, line
        if capped:
            assert line.startswith(f"{review.verdict} (capped: {floor_reason(review.floor_rule)}; "
                                   f"{review.band_verdict} by score), score ")


def test_no_verdict_fails_on_draft_feedback(tmp_path, capsys):
    log = run_ds(tmp_path / "logs", document=str(FIXTURES / "bullet-draft-pricing.md"), draft="true")
    assert recorded_verdicts(log) == {"bullet-draft-pricing": "draft"}
    assert verdict(capsys, str(log), "--fail-on", "major-rework")[0] == 0
    code, out, _ = verdict(capsys, str(log), "--fail-on", "no-verdict")
    assert code == 1 and "FAIL (no-verdict)" in out


def test_a_document_that_could_not_be_reviewed_fails_whatever_the_conditions(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(FIXTURES / "strong-analysis.md", docs / "memo.md")
    (docs / "broken.docx").write_bytes(b"not a word file")
    log = run_ds(tmp_path / "logs", document=str(docs))
    code, out, _ = verdict(capsys, str(log))
    assert code == 1
    assert any(line.startswith("broken") and "failed:" in line and line.endswith("FAIL (failed)")
               for line in out.splitlines())


def test_a_gold_run_lists_the_cases_that_missed(gold_log, capsys):
    from inspect_ai.log import read_eval_log

    missed = set()
    for sample in read_eval_log(str(gold_log)).samples:
        gold = sample.scores[DS.gold_scorer]
        right = gold.value[DS.verdict_accuracy]
        if (not math.isnan(right) and right == 0.0) or gold.metadata["gold"]["missed_must_catch"]:
            missed.add(str(sample.id))
    code, out, _ = verdict(capsys, str(gold_log))
    assert "gold verdict" in out.splitlines()[1] and "must-catch missed" in out.splitlines()[1]
    assert {line.split()[0] for line in out.splitlines() if line.endswith("FAIL (missed)")} == missed
    assert code == (1 if missed else 0)
    # with a condition of its own, the gold comparison no longer decides
    code, out, _ = verdict(capsys, str(gold_log), "--fail-on", "major-rework")
    assert code == (1 if "Major Rework" in recorded_verdicts(gold_log).values() else 0)


@pytest.mark.parametrize("args, message", [
    (["--fail-on", "escalate"], "--fail-on escalate: not a condition for DS analysis reviews (design verdict: add "
                                "--kind design for the newest design log); choose from: good-to-go"),
    (["--fail-on", "sometimes"], "--fail-on sometimes: not a condition for DS analysis reviews; choose from: good-to-go"),
    (["--fail-on", "missed"], "--fail-on missed: the log has no gold comparison"),
    (["--kind", "nope"], "--kind nope: not a review kind"),
    (["--fail-on", ","], "--fail-on ,: an empty condition"),
    (["--fail-on", ""], "--fail-on '': an empty condition"),
])
def test_bad_input_is_exit_2_and_one_line(own_log, capsys, args, message):
    code, out, err = verdict(capsys, str(own_log), *args)
    assert code == 2 and out == ""
    assert err.startswith(f"review-harness: {message}") and len(err.splitlines()) == 1


def test_no_log_is_exit_2(tmp_path, capsys):
    code, _, err = verdict(capsys, str(tmp_path))
    assert code == 2 and err == f"review-harness: {tmp_path}: folder has no .eval logs\n"


def test_summary_and_verdict_read_the_newest_log_of_the_folder_they_run_in(own_log, tmp_path, monkeypatch, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(own_log, logs / own_log.name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    assert main(["summary"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"log: logs/{own_log.name}" and out[1] == "log status: success"
    assert main(["verdict", "--kind", "ds"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"log: logs/{own_log.name}"


@pytest.mark.parametrize("command", ["verdict", "show", "summary"])
def test_without_a_log_and_without_logs_here_it_says_so_and_reads_no_other_folder(tmp_path, monkeypatch, capsys,
                                                                                  command):
    """Run from a folder without ./logs, the commands once read the checkout's stale logs/."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    assert main([command]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (f"review-harness: no ./logs folder in {tmp_path}: name a log or a folder of logs (the "
                       f"--log-dir of the run), or run where its logs/ is\n")


def test_progress_goes_to_stderr_and_counts_every_item(capsys):
    assert list(progress(range(5), "work", every=0.0)) == [0, 1, 2, 3, 4]
    err = capsys.readouterr()
    assert err.out == ""
    lines = err.err.splitlines()
    assert lines and lines[-1].startswith("review-harness work: 5/5 (100%)")
    assert [int(line.split(": ")[1].split("/")[0]) for line in lines] == sorted(int(line.split(": ")[1].split("/")[0]) for line in lines)


def test_without_gold_the_log_lists_the_runs_verdict(own_log):
    """The log list's SCORE of a run of one's own documents is the run's verdict: named for the
    verdicts its reviews got, valued at their mean place on the kind's scale (Good to Go 1, Minor
    Fix 0.5, Major Rework 0), so a Minor Fix reads apart from a Major Rework."""
    from inspect_ai.log import headline_metric, read_eval_log

    log = read_eval_log(str(own_log))
    headline = log.eval.headline_metric
    assert (headline.scorer, headline.score) == (DS.synthesis_scorer, DS.verdict_key)
    resolved = headline_metric(log)  # what the log list shows, as Inspect resolves it
    assert log.results.headline is not None and resolved.score.name == DS.verdict_key
    verdicts = [v for v in recorded_verdicts(own_log).values() if v in DS.verdicts]
    place = {"Good to Go": 1.0, "Minor Fix": 0.5, "Major Rework": 0.0}
    assert resolved.metric.value == pytest.approx(sum(place[v] for v in verdicts) / len(verdicts))
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in DS.verdicts if v in verdicts)
    assert resolved.metric.name == (verdicts[0] if len(set(verdicts)) == 1 else counts)