"""The impact review under misuse (issue 24): a folder with bad files reviews the others and names
every bad file; an error never echoes a whole bad value; bad -T values are one line (exit 1 through
`inspect eval`)."""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.text import short_value
from review_harness.impact.artifact import ArtifactError, load_artifact

FIX = PROJECT_ROOT / "fixtures" / "impact"
TASK = PROJECT_ROOT / "tasks" / "impact_review.py"
INSPECT = str(Path(sys.executable).with_name("inspect"))


def impact_task():
    spec = importlib.util.spec_from_file_location("impact_review_misuse_test", TASK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.impact_review


def error_of(**task_args) -> str:
    with pytest.raises(PrerequisiteError) as raised:
        impact_task()(**task_args)
    message = raised.value.message
    assert "\n" not in message
    return message


def folder_with_bad_files(tmp_path: Path) -> Path:
    folder = tmp_path / "results"
    folder.mkdir()
    for name in ("its-daily-checkout", "did-store-layout"):
        (folder / f"{name}.json").write_text((FIX / f"{name}.json").read_text())
    (folder / "broken-json.json").write_text('{"schema_version": "2.0", ')
    (folder / "no-estimate.json").write_text(json.dumps({"model_type": "its", "data": {"impact_estimates": {}}}))
    (folder / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    return folder


def test_a_folder_with_bad_files_reviews_the_others_and_names_every_bad_file(tmp_path, caplog):
    folder = folder_with_bad_files(tmp_path)
    with caplog.at_level("WARNING", logger="review_harness.impact.dataset"):
        [log] = inspect_eval(impact_task()(artifact=str(folder)), model="offline/rules",
                             log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"  # the bad files do not fail the run
    by_id = {str(s.id): s for s in log.samples}
    assert sorted(by_id) == ["binary", "broken-json", "did-store-layout", "its-daily-checkout", "no-estimate"]
    for good in ("did-store-layout", "its-daily-checkout"):
        assert by_id[good].error is None and by_id[good].scores["impact_synthesis"].metadata["verdict"] == "usable"
    reasons = {
        "broken-json": "broken-json.json: not valid JSON (Expecting property name enclosed in double quotes at line 1",
        "no-estimate": "no-estimate.json: data.impact_estimates.intervention_effect: missing required field",
        "binary": "binary.json: is not a text file (binary)",
    }
    for sample_id, reason in reasons.items():
        assert reason in by_id[sample_id].error.message, sample_id
        assert any(reason in record.getMessage() for record in caplog.records), sample_id  # named on the terminal


def test_a_folder_where_nothing_can_be_read_is_one_line_naming_each_file(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "a.json").write_text("[]")
    (folder / "b.json").write_text("")
    message = error_of(artifact=str(folder))
    assert message.startswith(f"-T artifact={folder}: no file can be reviewed: ")
    assert f"{folder / 'a.json'}: expected a JSON object at the top level, got list" in message
    assert f"{folder / 'b.json'}: the file is empty" in message


def test_a_non_utf8_file_name_is_its_own_sample_with_a_safe_id(tmp_path):
    folder = tmp_path / "odd"
    folder.mkdir()
    name = os.fsdecode(b"caf\xe9-results.json")
    (folder / name).write_text((FIX / "its-daily-checkout.json").read_text())
    (folder / "good.json").write_text((FIX / "did-store-layout.json").read_text())
    [log] = inspect_eval(impact_task()(artifact=str(folder)), model="offline/rules",
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and sorted(str(s.id) for s in log.samples) == ["caf\ufffd-results", "good"]


def test_an_error_never_echoes_a_whole_bad_value(tmp_path):
    """A 4M-element list where the estimate belongs used to print 53 MB: the message quotes a
    short prefix and the size."""
    envelope = json.loads((FIX / "its-daily-checkout.json").read_text())
    envelope["data"]["impact_estimates"]["intervention_effect"] = list(range(4_000_000))
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(envelope))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ArtifactError) as raised:
        load_artifact(path, label="huge.json")
    message = str(raised.value)
    assert message == ("huge.json: data.impact_estimates.intervention_effect: expected a number, got list "
                       "[0, 1, 2, 3, 4, 5, ...] (4,000,000 items)")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 1500  # reading the file costs memory; quoting it must not add gigabytes

    for field, value in [("model_type", {"k": "v" * 10_000_000}), ("metadata.executed_at", "x" * 5_000_000)]:
        bad = json.loads((FIX / "its-daily-checkout.json").read_text())
        if field == "model_type":
            bad["model_type"] = value
        else:
            bad["metadata"]["executed_at"] = value
        path.write_text(json.dumps(bad))
        with pytest.raises(ArtifactError) as raised:
            load_artifact(path, label="bad.json")
        assert len(str(raised.value)) < 200, field


def test_short_value_is_bounded_for_any_value():
    for value in (list(range(10**6)), "y" * 10**6, {i: [i] * 100 for i in range(10**4)}, b"z" * 10**6, 3.5, None):
        assert len(short_value(value)) <= 90


@pytest.mark.parametrize("args, message", [
    ({"timeout": 0}, "-T timeout=0: expected a number greater than 0"),
    ({"timeout": -5}, "-T timeout=-5: expected a number greater than 0"),
    ({"retries": -2}, "-T retries=-2: expected a whole number, 0 or more"),
    ({"retries": "x"}, "-T retries=x: expected a whole number"),
    ({"top_k": 0}, "-T top_k=0: expected a whole number greater than 0"),
    # an empty value: the core task helper's one line, the same in every kind
    ({"artifact": ""}, "-T artifact=: empty value; give a value, or leave -T artifact out for its default"),
    ({"config": ""}, "-T config=: empty value; give a value, or leave -T config out for its default"),
    ({"structured": "maybe"}, "-T structured=maybe: unknown structured; choose one of: auto, on, off"),
])
def test_bad_values_are_one_line(args, message):
    assert error_of(**args).startswith(message)


def test_a_missing_config_file_is_one_line(tmp_path):
    assert error_of(config=str(tmp_path / "nope.yaml")) == f"-T config={tmp_path / 'nope.yaml'}: {tmp_path / 'nope.yaml'}: not found"


@pytest.mark.parametrize("arg, line", [
    ("timeout=0", "impact_review: -T timeout=0: expected a number greater than 0"),
    ("timeout=-5", "impact_review: -T timeout=-5: expected a number greater than 0"),
    ("retries=-2", "impact_review: -T retries=-2: expected a whole number, 0 or more"),
])
def test_bad_values_through_inspect_eval_exit_1_with_one_line(tmp_path, arg, line):
    done = subprocess.run([INSPECT, "eval", "tasks/impact_review.py", "-T", arg, "--model", "offline/rules",
                           "--display", "none", "--log-dir", str(tmp_path / "logs")],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [line]
    assert not list((tmp_path / "logs").glob("*.eval"))
