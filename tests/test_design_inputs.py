"""The design review's inputs and runs: public URLs as documents (from a local server), a partial
panel completed in place by re-running only its failed reviewers, the cost estimate with cached
input, one persona named twice, and two triage runs of one topic at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, modelapi

from review_harness.core.calltag import current_call
from review_harness.core.documents import DocumentError
from review_harness.core.documents.web import fetch_public
from review_harness.core.paths import PROJECT_ROOT
from review_harness.design.artifacts import iterations, read_run, runs
from review_harness.offline.provider import OfflineReviewerAPI
from test_design_review import reviews_of, run

WEBHOOK = PROJECT_ROOT / "fixtures" / "design" / "webhook-delivery-v1"


# ---------------------------------------------------------------------------- public URLs


def test_a_public_url_is_reviewed_from_a_local_server(httpserver, tmp_path):
    design = (WEBHOOK / "design.md").read_text(encoding="utf-8")
    html = "<html><body><h1>Webhook requirements</h1><ul>" + "".join(
        f"<li>{line[2:]}</li>" for line in (WEBHOOK / "requirements.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("- ")) + "</ul></body></html>"
    httpserver.expect_request("/docs/design.md").respond_with_data(design, content_type="text/plain; charset=utf-8")
    httpserver.expect_request("/wiki/requirements").respond_with_data(html, content_type="text/html")
    log = run(tmp_path / "logs", design=httpserver.url_for("/docs/design.md"),
              requirements=httpserver.url_for("/wiki/requirements"), topic="hooks")
    assert log.status == "success"
    review = reviews_of(log)["hooks"]
    assert review.status == "complete" and review.verdict is not None
    assert review.design_path == httpserver.url_for("/docs/design.md")
    assert review.requirements_path == httpserver.url_for("/wiki/requirements")
    assert log.samples[0].input == design  # markdown as published
    assert "Webhook requirements" in log.samples[0].metadata["requirements_text"]  # HTML converted to markdown
    assert "<li>" not in log.samples[0].metadata["requirements_text"]
    assert any(f.evidence and f.evidence in design for f in review.findings)


def test_a_url_that_fails_is_one_line(httpserver):
    httpserver.expect_request("/missing").respond_with_data("no", status=404)
    with pytest.raises(DocumentError, match=r"/missing could not be fetched: the server answered 404"):
        fetch_public(httpserver.url_for("/missing"))
    httpserver.expect_request("/empty").respond_with_data("   ", content_type="text/plain")
    with pytest.raises(DocumentError, match="is empty"):
        fetch_public(httpserver.url_for("/empty"))
    with pytest.raises(DocumentError) as raised:
        fetch_public("http://user:secret@127.0.0.1:1/design.md")
    assert "secret" not in str(raised.value) and "without credentials" in str(raised.value)


# ---------------------------------------------------------------------------- a partial panel, completed in place


@modelapi(name="flaky-personas")
def flaky_personas() -> type[ModelAPI]:
    return FlakyPersonasAPI


class FlakyPersonasAPI(OfflineReviewerAPI):
    """The offline reviewer, except that the personas named in `fail` time out (every attempt)."""

    calls: list[str] = []

    def __init__(self, model_name: str, fail: str = "", **model_args: Any) -> None:
        super().__init__(model_name, **model_args)
        self.fail = {p for p in fail.split(",") if p}

    async def generate(self, input, tools, tool_choice, config: GenerateConfig) -> ModelOutput:  # type: ignore[override]
        tag = current_call()
        member = tag.member if tag else ""
        FlakyPersonasAPI.calls.append(member)
        if member in self.fail:
            raise TimeoutError(f"{member} did not answer")
        return await super().generate(input, tools, tool_choice, config)


def test_a_partial_panel_is_completed_in_place(tmp_path):
    args = dict(design=str(WEBHOOK / "design.md"), requirements=str(WEBHOOK / "requirements.md"), topic="hooks",
                output_dir=str(tmp_path / "reviews"), timeout=60)
    FlakyPersonasAPI.calls = []
    first = reviews_of(run(tmp_path / "logs", model="flaky-personas/x",
                           model_args={"fail": "edge-case-prober,prior-art-scout"}, **args))["hooks"]
    assert first.status == "partial" and first.iteration == 1
    assert set(first.personas) - set(first.reviewers_completed) == {"edge-case-prober", "prior-art-scout"}
    folder = tmp_path / "reviews" / "hooks"
    assert read_run(folder, 1)["status"] == "partial"

    FlakyPersonasAPI.calls = []
    log = run(tmp_path / "logs", model="flaky-personas/x", **args)
    second = reviews_of(log)["hooks"]
    persona_calls = [m for m in FlakyPersonasAPI.calls if m in second.personas]
    assert sorted(set(persona_calls)) == ["edge-case-prober", "prior-art-scout"]  # only the failed reviewers ran
    assert second.iteration == 1 and second.status == "complete"  # the same iteration, now complete
    assert iterations(folder) == [1] and read_run(folder, 1)["status"] == "complete"
    assert sorted(second.reviewers_completed) == sorted(second.personas)
    kept = first.persona_reports["requirement-auditor"].model_dump()
    assert second.persona_reports["requirement-auditor"].model_dump() == kept
    assert any("completes iteration 1 in place" in w.lower() for w in second.warnings)
    assert [r["status"] for r in runs(folder)] == ["partial", "complete"]
    # a complete iteration is not reopened: the next run is iteration 2
    third = reviews_of(run(tmp_path / "logs", model="flaky-personas/x", **args))["hooks"]
    assert third.iteration == 2


def test_a_changed_document_is_a_new_iteration_not_a_completion(tmp_path):
    design = tmp_path / "design.md"
    design.write_text((WEBHOOK / "design.md").read_text(encoding="utf-8"), encoding="utf-8")
    args = dict(design=str(design), requirements=str(WEBHOOK / "requirements.md"), topic="hooks",
                output_dir=str(tmp_path / "reviews"), timeout=60)
    first = reviews_of(run(tmp_path / "logs", model="flaky-personas/x", model_args={"fail": "edge-case-prober"}, **args))["hooks"]
    assert first.status == "partial"
    design.write_text(design.read_text(encoding="utf-8") + "\nA new paragraph.\n", encoding="utf-8")
    second = reviews_of(run(tmp_path / "logs", model="flaky-personas/x", **args))["hooks"]
    assert second.iteration == 2 and second.status == "complete"


# ---------------------------------------------------------------------------- cost with cached input


@modelapi(name="caching-model")
def caching_model() -> type[ModelAPI]:
    return CachingModelAPI


class CachingModelAPI(OfflineReviewerAPI):
    """The offline reviewer, answering as a provider with prompt caching would report usage: the
    persona's shared prefix read from the cache after the first persona of a review."""

    async def generate(self, input, tools, tool_choice, config: GenerateConfig) -> ModelOutput:  # type: ignore[override]
        output = await super().generate(input, tools, tool_choice, config)
        if output.usage is not None:
            cached = int(output.usage.input_tokens * 0.8)
            output.usage.input_tokens -= cached
            output.usage.input_tokens_cache_read = cached
        return output


def test_the_cost_estimate_shows_cached_input(tmp_path, monkeypatch):
    from review_harness.core import prices as cost

    table = cost.price_table().model_copy(update={"per_million_tokens": [
        cost.Price(match="caching-model/", input=3.0, output=15.0, cached_input=0.3)]})
    monkeypatch.setattr(cost, "price_table", lambda: table)
    log = run(tmp_path / "logs", model="caching-model/x", design=str(WEBHOOK / "design.md"),
              requirements=str(WEBHOOK / "requirements.md"), topic="hooks", output_dir=str(tmp_path / "reviews"))
    review = reviews_of(log)["hooks"]
    runs_ = [r for r in review.reviewer_runs if r.member in review.personas]
    assert all(r.cached_input_tokens > 0 for r in runs_)
    record = read_run(tmp_path / "reviews" / "hooks", 1)
    fresh, cached, out = record["input_tokens"], record["cached_input_tokens"], record["output_tokens"]
    assert cached == sum(r.cached_input_tokens for r in review.reviewer_runs) and cached > fresh
    expected = (fresh * 3.0 + cached * 0.3 + out * 15.0) / 1_000_000
    assert record["cost"]["estimated"] == pytest.approx(expected, rel=1e-4)
    assert record["cost"]["saved_by_cache"] == pytest.approx(cached * 2.7 / 1_000_000, rel=1e-4)
    assert all(t["cached_input"] > 0 for member, t in record["tokens"].items() if member in review.personas)
    assert f"{cached:,} of them read from the prompt cache" in log.samples[0].output.completion


# ---------------------------------------------------------------------------- one persona named twice (issue 34)


def test_a_persona_named_twice_is_one_line(tmp_path):
    from review_harness.core.inspect_adapter import PrerequisiteError
    from review_harness.design.dataset import parse_personas
    from review_harness.design.personas import default_personas

    with pytest.raises(PrerequisiteError, match="duplicate persona assumption-hunter"):
        parse_personas("assumption-hunter,assumption-hunter", default_personas())
    with pytest.raises(PrerequisiteError, match="duplicate persona"):
        parse_personas(["edge-case-prober", "assumption-hunter", "edge-case-prober"], default_personas())
    assert parse_personas("assumption-hunter,edge-case-prober", default_personas()) == ["assumption-hunter", "edge-case-prober"]


# ---------------------------------------------------------------------------- two triage runs at once (issue 34)


def test_two_triage_runs_at_once_keep_both_decisions(tmp_path, monkeypatch):
    """Both runs read the findings before either writes (a barrier forces it); each records one
    decision; both decisions survive in findings-vN.jsonl and in calibration.yaml."""
    import threading

    from review_harness.design import triage
    from review_harness.design.artifacts import read_findings, write_artifacts
    from test_design_reading import review as offline_review

    review = offline_review((WEBHOOK / "design.md").read_text(encoding="utf-8"),
                            (WEBHOOK / "requirements.md").read_text(encoding="utf-8"))
    review = review.model_copy(update={"topic": "hooks", "document": "hooks"})
    folder = write_artifacts(review, tmp_path / "reviews")
    ids = [f.id for f in review.findings][:2]
    assert len(ids) == 2

    barrier = threading.Barrier(2, timeout=3)
    first_read = threading.local()
    original = triage.read_findings

    def read_after_both(folder_, n):
        records = original(folder_, n)
        if not getattr(first_read, "done", False):
            first_read.done = True
            try:
                barrier.wait()  # both runs have read before either writes
            except threading.BrokenBarrierError:
                pass
        return records

    monkeypatch.setattr(triage, "read_findings", read_after_both)
    errors: list[BaseException] = []

    def decide(fid: str, decision: str) -> None:
        try:
            triage.process(folder, mode="all", decisions={fid: {"decision": decision, "note": f"note on {fid}"}})
        except BaseException as ex:  # noqa: BLE001 (reported by the assertion below)
            errors.append(ex)

    threads = [threading.Thread(target=decide, args=(ids[0], "accept")),
               threading.Thread(target=decide, args=(ids[1], "reject"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    records = {r["id"]: r for r in read_findings(folder, 1)}
    assert records[ids[0]]["disposition"] == "accepted"
    assert records[ids[1]]["disposition"] == "rejected"
    assert f"note on {ids[1]}" in (folder / "calibration.yaml").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- a design that states its own goals

PROPOSAL = """# Proposal: retries for the export job

## Goals

- The nightly export finishes even when the storage service drops one request in a hundred.
- A failed export is reported to the on-call channel within 5 minutes.

## Non-Goals

- Changing the export format.

## Design

The export job retries each failed upload up to three times with exponential backoff starting at
1 second. After the third failure the job stops and posts the error to the on-call channel.
"""


def test_a_design_with_its_own_goals_is_reviewed_against_those_sections(tmp_path):
    from review_harness.core.inspect_adapter import PrerequisiteError
    from test_design_review import design_review_task

    proposal = tmp_path / "proposal.md"
    proposal.write_text(PROPOSAL, encoding="utf-8")
    log = run(tmp_path / "logs", design=str(proposal), requirements_sections="Goals,Non-Goals")
    assert log.status == "success"
    sample = log.samples[0]
    # the named sections are the requirements, the rest is the design under review; nothing is in both
    assert "one request in a hundred" in sample.metadata["requirements_text"]
    assert "Changing the export format" in sample.metadata["requirements_text"]
    assert "exponential backoff" not in sample.metadata["requirements_text"]
    assert "exponential backoff" in sample.input and "one request in a hundred" not in sample.input
    review = reviews_of(log)["proposal"]
    assert review.status == "complete" and review.verdict is not None
    assert review.requirements_path.endswith("proposal.md (Goals, Non-Goals)")

    # a heading the design lacks is named, with the headings it has
    with pytest.raises(PrerequisiteError, match=r"has no heading 'Requirements'; its headings: .*'Goals', 'Non-Goals'"):
        design_review_task()(design=str(proposal), requirements_sections="Requirements", output_dir=str(tmp_path))
    # both ways of giving the requirements at once, or with auto-fix editing that one file: refused
    with pytest.raises(PrerequisiteError, match=r"give it with -T design= alone"):
        design_review_task()(design=str(proposal), requirements=str(proposal), requirements_sections="Goals",
                             output_dir=str(tmp_path))
    with pytest.raises(PrerequisiteError, match=r"auto_fix=true edits the design file"):
        design_review_task()(design=str(proposal), requirements_sections="Goals", auto_fix=True,
                             output_dir=str(tmp_path))
    # a design without requirements says how to give them
    with pytest.raises(PrerequisiteError, match=r"-T requirements_sections=HEADING"):
        design_review_task()(design=str(proposal), output_dir=str(tmp_path))
