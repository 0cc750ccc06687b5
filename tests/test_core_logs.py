"""The one log reader: reviews by the log's registered kind, the summary table built from each
kind's summary row, and one-line errors."""

from __future__ import annotations

import json

import pytest
from inspect_ai.log import EvalLog, EvalSample, EvalSpec
from inspect_ai.scorer import Score

from review_harness.cli import main, merge_columns, summary_table
from review_harness.core.kinds import KindError
from review_harness.core.logs import LogError, reviewed_samples, reviews_in_log
from review_harness.design.models import DesignReview
from test_design_artifacts import review_v1


def _log(task: str, samples: list[EvalSample], metadata: dict | None = None) -> EvalLog:
    spec = EvalSpec(created="2026-02-16T00:00:00+00:00", task=task, dataset={}, model="offline/x", config={},
                    metadata=metadata)
    return EvalLog(eval=spec, samples=samples, location="test.eval")


def _sample(sid: str, scores: dict[str, Score], epoch: int = 1) -> EvalSample:
    return EvalSample(id=sid, epoch=epoch, input="x", target="", scores=scores)


def _design(review) -> dict[str, Score]:
    return {"design_synthesis": Score(value=1, metadata={"review": review})}


def test_reviews_are_read_by_the_kind_of_the_task():
    review = review_v1().model_dump(mode="json")
    log = _log("review_harness/design_review", [
        _sample("a", _design(review)),
        _sample("b", _design(json.dumps(review)), epoch=2),  # a review kept as JSON text reads the same
        _sample("c", {"design_synthesis": Score(value=1)}),  # no review: left out
        _sample("d", {"review_synthesis": Score(value=1, metadata={"review": {"not": "a design review"}})}),
    ])
    got = reviews_in_log(log)
    assert [(sid, epoch) for sid, epoch, _ in got] == [("a", 1), ("b", 2)]
    assert all(isinstance(r, DesignReview) and r.topic == review_v1().topic for _, _, r in got)
    assert [s.id for s, _ in reviewed_samples(log)] == ["a", "b"]


def test_the_recorded_kind_wins_over_the_task_name():
    log = _log("my_own_task", [_sample("a", _design(review_v1().model_dump(mode="json")))], metadata={"kind": "design"})
    assert [sid for sid, _, _ in reviews_in_log(log)] == ["a"]
    with pytest.raises(KindError, match="the log's task 'my_own_task' is not a review kind's task"):
        reviews_in_log(_log("my_own_task", []))


def test_a_reader_of_one_kind_refuses_another_kinds_log_and_bad_reviews():
    log = _log("design_review", [_sample("a", _design({"topic": 3}))])
    with pytest.raises(LogError, match=r"^test.eval: a design review log \(task design_review\), not a code review log$"):
        reviews_in_log(log, expected_kind="code")
    with pytest.raises(LogError, match=r"^test.eval: sample a has an invalid design review \(.+\)$"):
        reviews_in_log(log)


def test_summary_rows_come_from_the_kind():
    log = _log("design_review", [_sample("job-queue", _design(review_v1().model_dump(mode="json")))])
    lines = summary_table(log).splitlines()
    assert lines[0] == "log status: started"
    assert lines[1].split() == ["sample", "epoch", "status", "verdict", "findings", "critical", "reviewers"]
    review = review_v1()
    assert lines[3].split() == ["job-queue", "1", review.status, review.verdict, "4",
                                str(review.counts.get("Critical", 0)), "5/6"]


def test_columns_of_different_rows_keep_their_order():
    assert merge_columns([["s", "overall", "a", "b", "confidence"], ["s", "overall", "a", "c", "confidence"]]) == \
        ["s", "overall", "a", "b", "c", "confidence"]


def test_summary_of_a_log_of_no_kind_is_one_line(tmp_path, capsys):
    from inspect_ai.log import write_eval_log

    path = tmp_path / "other.eval"
    write_eval_log(_log("judge_meta", []), str(path))
    assert main(["summary", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        "review-harness: the log's task 'judge_meta' is not a review kind's task "
        "(ds_review, design_review, code_review, impact_review)")


def test_a_folder_of_runs_is_read_kind_by_kind(tmp_path):
    """A user's logs/ holds every kind's runs: `logs_of_kind` (what `code analytics FOLDER`
    reads) and `newest_log_of_kind` (`show --kind`, `summary --kind`, `verdict --kind`) pick the
    kind's logs by their header, whatever the others."""
    import os

    from inspect_ai.log import write_eval_log

    from review_harness.core.logs import logs_of_kind, newest_log_of_kind

    written = []
    for n, (task, kind) in enumerate([("review_harness/code_review", "code"), ("ds_review", None),
                                      ("review_harness/design_review", "design"), ("other", "code")]):
        path = tmp_path / f"{n}.eval"
        write_eval_log(_log(task, [], {"kind": kind} if kind else None), str(path))
        os.utime(path, (1000 + n, 1000 + n))
        written.append(path)
    assert logs_of_kind(tmp_path, "code") == [written[0], written[3]]  # the kind recorded wins over the task name
    assert logs_of_kind(tmp_path, "ds") == [written[1]]
    assert newest_log_of_kind(tmp_path, "code") == written[3] and newest_log_of_kind(tmp_path, "design") == written[2]
    assert logs_of_kind(tmp_path, "impact") == []
