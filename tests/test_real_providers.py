"""Every review task through the official Anthropic and OpenAI SDKs, against a loopback server
that speaks both APIs, answers with schema-valid JSON and refuses what the real services refuse."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.schema import schema_problems

from loopback import LoopbackServer, Scripted

pytest.importorskip("anthropic")
pytest.importorskip("openai")

ANTHROPIC = "anthropic/claude-sonnet-4-5"
OPENAI_CHAT = "openai/gpt-4o-mini"
OPENAI_RESPONSES = "openai/gpt-5-mini"
SECRETS = ("sk-ant-loopback-secret", "sk-openai-loopback-secret")

# task file, task arguments for one small sample, the roles the task uses besides the evaluated model
TASKS = {
    "ds_review": ({}, ["grader"]),  # the first gold fixture: the judge runs under the grader role
    "design_review": ({"split": "dev"}, ["synthesizer"]),
    # reviewer_a, the grader (matcher) and the implementer on the other provider, reviewer_b on the evaluated one
    "code_review": ({}, ["reviewer_a", "grader", "implementer"]),
    "impact_review": ({}, []),
}


def usable(task: str, review: dict) -> bool:
    """Whether the review is complete or partial (never deferred or failed), in the kind's terms."""
    if task == "code_review":  # every reviewer of the first review answered something usable
        runs = review["iterations"][0]["runs"]
        return bool(runs) and any(run["status"] != "failed" for run in runs) and review["final_status"] is not None
    if task == "impact_review":
        return review["status"] in ("complete", "partial") and bool(review["result"]["dimensions"])
    return review["status"] in ("complete", "partial")


def load_task(name: str):
    path = PROJECT_ROOT / "tasks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_loopback", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@pytest.fixture(scope="module")
def server():
    # one server for the module: Inspect keeps provider clients (and their base URL) alive
    with LoopbackServer() as running, pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", SECRETS[0])
        env.setenv("ANTHROPIC_BASE_URL", running.url)
        env.setenv("OPENAI_API_KEY", SECRETS[1])
        env.setenv("OPENAI_BASE_URL", running.url + "/v1")
        yield running


@pytest.fixture
def loopback(server):
    server.requests.clear()
    server.state.queue.clear()
    server.state.full = True
    yield server


def run_task(name: str, model: str, roles: dict[str, str], tmp_path, **overrides) -> EvalLog:
    args, _ = TASKS[name]
    [log] = inspect_eval(
        load_task(name)(**{**args, **overrides}),
        model=model,
        model_roles=roles,
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=1,
        max_retries=3,
    )
    return log


@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("model,other", [(ANTHROPIC, OPENAI_CHAT), (OPENAI_CHAT, ANTHROPIC), (OPENAI_RESPONSES, ANTHROPIC)])
def test_every_task_runs_on_both_providers(task, model, other, loopback, tmp_path):
    _, roles = TASKS[task]
    log = run_task(task, model, {role: other for role in roles}, tmp_path)
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.error is None
    review = sample.scores[next(iter(sample.scores))].metadata["review"]
    assert usable(task, review), review
    assert log.stats.model_usage, "token usage reaches the log"
    assert all(r.status == 200 for r in loopback.requests)
    apis = {r.api for r in loopback.requests}
    expected = {"anthropic", "openai"} if roles else {model.split("/")[0]}
    assert apis == expected, "the task's other roles ran on the other provider"
    for request in loopback.requests:
        if request.schema is None:  # Inspect's own probe of the Responses API, not a review call
            assert "hello, world" in json.dumps(request.body["input"])
            continue
        assert schema_problems(request.schema) == []
        if request.api == "anthropic":
            assert request.body["stream"] is True and request.body["max_tokens"] == 32000
            assert "structured-outputs" in request.headers["anthropic-beta"]
            assert "cache_control" in json.dumps(request.body), "prompt-cache marks"
        else:
            assert request.strict is True
    log_text = Path(log.location).read_bytes()
    assert not any(secret.encode() in log_text for secret in SECRETS)



@pytest.mark.parametrize("model", [ANTHROPIC, OPENAI_CHAT])
def test_minimal_schema_valid_answers_still_review(model, loopback, tmp_path):
    loopback.state.full = False  # empty lists and nulls wherever the schema allows them
    for task in sorted(TASKS):
        log = run_task(task, model, {}, tmp_path / task)
        [sample] = log.samples
        review = sample.scores[next(iter(sample.scores))].metadata["review"]
        assert usable(task, review), task


def member_reasons(log: EvalLog) -> list[str]:
    """Every member's recorded failure or salvage reason in the DS review."""
    [sample] = log.samples
    review = sample.scores[next(iter(sample.scores))].metadata["review"]
    return [str(run.get("reason")) for run in review["reviewer_runs"]] + list(review.get("warnings", []))


def test_schema_invalid_answer_costs_one_member_not_the_review(loopback, tmp_path):
    # both reviewers' first answers, and the first retry: one member is malformed twice
    loopback.script(*[Scripted("invalid", api="anthropic")] * 3)
    log = run_task("ds_review", ANTHROPIC, {}, tmp_path)
    [sample] = log.samples
    review = sample.scores[next(iter(sample.scores))].metadata["review"]
    assert review["status"] == "partial"
    assert sorted((r["status"], r["attempts"]) for r in review["reviewer_runs"]) == [("complete", 2), ("malformed", 2)]
    assert any("no findings or lens ratings" in reason or "could not be parsed" in reason
               for reason in member_reasons(log)), member_reasons(log)


def test_schema_invalid_answer_once_is_retried(loopback, tmp_path):
    loopback.script(Scripted("invalid", api="anthropic"))
    log = run_task("ds_review", ANTHROPIC, {}, tmp_path)
    [sample] = log.samples
    review = sample.scores[next(iter(sample.scores))].metadata["review"]
    assert review["status"] == "complete"
    assert sorted(r["attempts"] for r in review["reviewer_runs"]) == [1, 2]


def test_truncated_answer_is_retried_then_reviewed_in_quick_mode(loopback, tmp_path):
    # both reviewers' first answers, and the first retry: one member is cut off twice in full mode
    loopback.script(*[Scripted("truncated", api="anthropic")] * 3)
    log = run_task("ds_review", ANTHROPIC, {}, tmp_path)
    [sample] = log.samples
    review = sample.scores[next(iter(sample.scores))].metadata["review"]
    assert review["status"] == "complete" and review["degradation_level"] == 1 and review["mode"] == "quick"
    assert any("was cut off: switched to quick mode" in reason for reason in member_reasons(log)), member_reasons(log)


@pytest.mark.parametrize("status,kind", [(429, "rate_limit_error"), (529, "overloaded_error")])
def test_transient_errors_are_retried_by_inspect(status, kind, loopback, tmp_path):
    loopback.script(Scripted("status", status=status, error_type=kind, message="slow down", api="anthropic"))
    log = run_task("ds_review", ANTHROPIC, {}, tmp_path)
    [sample] = log.samples
    review = sample.scores[next(iter(sample.scores))].metadata["review"]
    assert review["status"] == "complete"
    assert [r.status for r in loopback.requests].count(status) == 1


def cli(args: list[str], env_extra: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, **env_extra}
    return subprocess.run(["inspect", "eval", *args, "--display", "none", "--log-dir", env_extra["LOG_DIR"]],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_refused_request_is_one_line_and_non_zero(loopback, tmp_path):
    for _ in range(4):  # every member's call (and any retry) gets the provider's refusal
        loopback.script(Scripted("status", status=400, error_type="invalid_request_error",
                                 message="output_format.schema: unsupported keyword 'minimum'", api="anthropic"))
    result = cli(["tasks/ds_review.py", "-T", "document=fixtures/ds/metrics-no-baseline.md", "--model", ANTHROPIC],
                 {"ANTHROPIC_BASE_URL": loopback.url, "ANTHROPIC_API_KEY": SECRETS[0], "LOG_DIR": str(tmp_path)})
    assert result.returncode == 1, result.stderr[-2000:]
    [line] = [l for l in result.stderr.splitlines() if l.startswith("review-harness: ds_review failed")]
    assert "refused the request (HTTP 400): output_format.schema: unsupported keyword 'minimum'" in line


def test_unreachable_provider_is_named_within_a_minute(tmp_path):
    with socket.socket() as probe:  # a port with nothing listening: connections are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": SECRETS[0]}
    process = subprocess.Popen(
        ["inspect", "eval", "tasks/ds_review.py", "-T", "document=fixtures/ds/metrics-no-baseline.md",
         "--model", ANTHROPIC, "--display", "none", "--log-dir", str(tmp_path)],
        cwd=PROJECT_ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    started = time.monotonic()
    named = None
    try:
        for line in process.stderr:
            if line.startswith("review-harness:"):
                named = line
                break
            if time.monotonic() - started > 60:
                break
    finally:
        process.kill()
        process.wait()
    assert named is not None and time.monotonic() - started < 60
    assert "cannot reach the provider" in named and "claude-sonnet-4-5" in named


def test_missing_key_stops_before_any_sample(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    result = subprocess.run(
        ["inspect", "eval", "tasks/ds_review.py", "-T", "document=fixtures/ds/metrics-no-baseline.md",
         "--model", ANTHROPIC, "--display", "plain", "--log-dir", str(tmp_path)],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 1
    assert "No ANTHROPIC_API_KEY defined in the environment." in result.stdout + result.stderr


def test_made_up_evidence_is_kept_and_marked_unverified(loopback, tmp_path):
    log = run_task("ds_review", ANTHROPIC, {}, tmp_path)
    [sample] = log.samples
    review = sample.scores["review_synthesis"].metadata["review"]
    assert review["findings"], "the full schema instance carries a finding per reviewer"
    assert all(f["evidence_verified"] is False for f in review["findings"])
    assert any("kept, unverified" in w for w in review["warnings"])


def test_batch_mode_sends_the_reviews_through_the_batch_api_and_waits_past_the_member_timeout(loopback, tmp_path):
    """`--batch`: every reviewer call goes to the provider's batch API, and a batch that takes
    longer than a member's timeout (minutes to hours for a real one) is waited for, not failed."""
    from inspect_ai.model import BatchConfig

    loopback.state.batch_seconds = 2.5
    try:
        [log] = inspect_eval(
            load_task("ds_review")(timeout=1), model=ANTHROPIC, log_dir=str(tmp_path / "logs"), display="none",
            limit=2, batch=BatchConfig(size=4, send_delay=0.2, tick=0.2),
        )
    finally:
        loopback.state.batch_seconds = 0.0
    assert log.status == "success", log.error
    assert {r.path for r in loopback.requests} == {"/v1/messages/batches"}, "no call outside the batch API"
    assert len(loopback.requests) == 4 and len(loopback.state.batches) >= 1
    for sample in log.samples:
        review = sample.scores["review_synthesis"].metadata["review"]
        assert review["status"] == "complete", review["warnings"]
        assert [(r["status"], r["attempts"]) for r in review["reviewer_runs"]] == [("complete", 1)] * 2
        assert all(r["seconds"] >= 2.5 for r in review["reviewer_runs"])
