"""The DS reviewers, the domain expert and the impact reviewer on the one member call (issue 18):
an answer that is malformed twice is `malformed` -- never complete --, what parsed of it is kept
and named in the review's warnings, and the kind's degradation applies (DS: partial with the
other reviewer's dimension, deferred, or quick mode after a cut-off; impact: a partial or failed
review with the reason). An untagged prompt of these kinds gets no answer from the offline model.
"""

from __future__ import annotations

import anyio
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    get_model,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from helpers import ds_review_task, reviews
from review_harness.core.calltag import current_call, tagged
from review_harness.core.member import MemberRun
from review_harness.core.paths import FIXTURES_DIR
from review_harness.ds.models import ReviewerReport
from review_harness.ds.rubric import default_rubric
from review_harness.offline.provider import NOT_A_REVIEW, OfflineReviewerAPI
from test_impact_review import FIX, impact_task
from test_impact_review import reviews as impact_reviews

DS_DOC = str(FIXTURES_DIR / "ds" / "causal-without-method.md")
DOMAIN_DOC = str(FIXTURES_DIR / "domain" / "search" / "click-eval-no-position-bias.md")


class MemberFaultsAPI(OfflineReviewerAPI):
    """The offline model, except that every answer to one member (tagged by `call_member`) is
    spoiled: `malformed` (garbage inside the JSON), `truncated` (cut off at the output limit) or
    `drop_last` (the impact text format without its last dimension). With `when`, only prompts
    that contain it are spoiled."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), member: str = "", fault: str = "malformed",
                 when: str = "") -> None:
        super().__init__(model_name, base_url, api_key, config)
        self.member, self.fault, self.when = member, fault, when
        self.spoiled = 0

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        output = await super().generate(input, tools, tool_choice, config)
        tag = current_call()
        prompt = "\n\n".join(message.text for message in input)
        if tag is None or tag.member != self.member or self.when not in prompt:
            return output
        self.spoiled += 1
        text, stop_reason = output.completion, "stop"
        if self.fault == "malformed":
            cut = int(len(text) * 0.6)
            text = text[:cut] + ' <<garbage>> "' + text[cut:]  # a stray quote: invalid wherever it lands
        elif self.fault == "truncated":
            text, stop_reason = text[: len(text) // 2], "max_tokens"
        elif self.fault == "drop_last":
            text = text[: text.rindex("DIMENSION:")] + text[text.index("OVERALL:"):]
        spoiled = ModelOutput.from_content(model=self.model_name, content=text, stop_reason=stop_reason)
        spoiled.usage = output.usage
        return spoiled


@modelapi(name="member_faults")
def member_faults() -> type[MemberFaultsAPI]:
    return MemberFaultsAPI


def ds_run(tmp_path, model: str = "member_faults/rules", model_args: dict | None = None, **task_args):
    [log] = inspect_eval(ds_review_task()(**task_args), model=model, model_args=model_args or {},
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and all(s.error is None for s in log.samples)
    return log


def runs_by_member(runs: list[MemberRun]) -> dict[str, MemberRun]:
    return {r.member: r for r in runs}


def test_ds_reviewer_malformed_twice_leaves_a_partial_review_of_the_other_dimension(tmp_path):
    log = ds_run(tmp_path, model_args={"member": "analysis-reviewer"}, document=DS_DOC)
    [sample] = log.samples
    [review] = reviews(log).values()
    runs = runs_by_member(review.reviewer_runs)
    analysis = runs["analysis-reviewer"]
    assert (analysis.kind, analysis.status, analysis.attempts) == ("ds", "malformed", 2)
    assert "invalid JSON" in analysis.reason
    assert runs["communication-reviewer"].status == "complete"
    # seed 000 s3.4: the other reviewer's dimension is reported, the missing one is not scored
    assert review.status == "partial" and review.degradation_level == 0
    assert not review.dimensions["analysis"].reviewed and review.dimensions["communication"].reviewed
    assert review.final_score is not None and review.verdict != "Good to Go"
    assert not any(f.dimension == "analysis" for f in review.findings)
    # what parsed of the malformed answer is kept beside the run and named in the warnings
    salvaged = ReviewerReport.model_validate(sample.store["ds:member:analysis-reviewer"]["salvaged"])
    assert sample.store["ds:member:analysis-reviewer"]["report"] is None
    assert salvaged.findings, "the answer's first findings parse before the garbage"
    [warning] = [w for w in review.warnings if w.startswith("analysis-reviewer returned malformed output")]
    assert f"{len(salvaged.findings) + len(salvaged.lens_ratings)} item(s) that parsed are not scored" in warning
    assert all(f.title in warning for f in salvaged.findings)


def test_every_ds_reviewer_malformed_twice_defers_the_review(tmp_path):
    log = ds_run(tmp_path, model="offline/rules", model_args={"fault_rate": 1, "faults": "malformed"},
                 document=DS_DOC)
    [review] = reviews(log).values()
    assert [(r.status, r.attempts) for r in review.reviewer_runs] == [("malformed", 2), ("malformed", 2)]
    assert review.status == "deferred" and review.degradation_level == 2 and review.final_score is None
    for member in ("analysis-reviewer", "communication-reviewer"):
        assert any(w.startswith(f"{member} returned malformed output") and "that parsed are not scored" in w
                   for w in review.warnings)
    assert "could not be completed" in " ".join(review.warnings)


def test_ds_reviewer_cut_off_twice_in_full_mode_switches_to_quick(tmp_path):
    log = ds_run(tmp_path, model_args={"member": "analysis-reviewer", "fault": "truncated", "when": "Mode: full"},
                 document=DS_DOC)
    [review] = reviews(log).values()
    runs = runs_by_member(review.reviewer_runs)
    # two cut-off answers in full mode, then one complete answer in quick mode (level 1)
    assert (runs["analysis-reviewer"].status, runs["analysis-reviewer"].attempts) == ("complete", 3)
    assert (runs["communication-reviewer"].status, runs["communication-reviewer"].attempts) == ("complete", 2)
    assert review.status == "complete" and review.degradation_level == 1 and review.mode == "quick"
    assert any(w.startswith("Output of analysis-reviewer was cut off: switched to quick mode") for w in review.warnings)


def test_domain_expert_malformed_twice_leaves_a_two_dimension_review(tmp_path):
    log = ds_run(tmp_path, model_args={"member": "domain-expert-reviewer"}, document=DOMAIN_DOC,
                 domain="search-ranking")
    [sample] = log.samples
    [review] = reviews(log).values()
    expert = runs_by_member(review.reviewer_runs)["domain-expert-reviewer"]
    assert (expert.kind, expert.status, expert.attempts) == ("domain", "malformed", 2)
    assert review.status == "partial" and not review.dimensions["domain"].reviewed
    weights = default_rubric().scoring.weights
    assert review.domain.weights == {d: weights[d] for d in ("analysis", "communication")}  # the two scored ones
    assert review.domain.findings == []
    salvaged = sample.store["domain:member:domain-expert-reviewer"]["salvaged"]
    [warning] = [w for w in review.warnings if w.startswith("domain-expert-reviewer returned malformed output")]
    assert salvaged["findings"] and all(f["summary"] in warning for f in salvaged["findings"])


def impact_run(tmp_path, model: str, model_args: dict, **task_args):
    [log] = inspect_eval(impact_task()(**task_args), model=model, model_args=model_args,
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and all(s.error is None for s in log.samples)
    return log


def test_impact_reviewer_missing_a_dimension_twice_leaves_a_partial_review(tmp_path):
    log = impact_run(tmp_path, "member_faults/rules", {"member": "impact-reviewer", "fault": "drop_last"},
                     artifact=str(FIX / "broken-arithmetic.json"))
    [review] = impact_reviews(log).values()
    run_ = review.reviewer_run
    assert (run_.kind, run_.member, run_.status, run_.attempts) == ("impact", "impact-reviewer", "malformed", 2)
    expected = review.expected_dimensions
    assert review.status == "partial"
    assert [d.name for d in review.result.dimensions] == expected[:-1]  # the salvaged answer's dimensions
    assert f"reviewer {run_.describe()}" in review.warnings
    assert f"dimension {expected[-1]!r}: missing from the answer" in review.warnings
    assert (f"kept the {len(expected) - 1} of {len(expected)} dimensions that parsed from the last answer: "
            "a partial review") in review.warnings


def test_impact_reviewer_empty_twice_fails_the_review_with_the_reason(tmp_path):
    # (the text format shrugs off garbage inside a justification: every dimension still parses)
    log = impact_run(tmp_path, "offline/rules", {"fault_rate": 1, "faults": "empty"},
                     artifact=str(FIX / "broken-arithmetic.json"))
    [review] = impact_reviews(log).values()
    run_ = review.reviewer_run
    assert (run_.status, run_.attempts, run_.reason) == ("malformed", 2, "malformed answer: empty answer")
    assert review.status == "failed" and review.result.dimensions == [] and review.result.overall_score is None
    assert review.warnings[0] == "reviewer returned malformed output (malformed answer: empty answer)"


def _ds_prompt() -> str:
    from review_harness.ds.prepare import prepare_document
    from review_harness.ds.prompts import render_reviewer_prompt

    rubric = default_rubric()
    prepared = prepare_document("# Results\n\nConversion rose 4% after the launch.\n", source="t.md", mode="full")
    prompt = render_reviewer_prompt(rubric.dimension("analysis"), rubric, prepared, mode="full", audience="mixed",
                                    workflow="general", draft=False)
    return prompt.system + "\n\n" + prompt.request


def _domain_prompt() -> str:
    import datetime as dt

    from review_harness.domain.importance import render_curator_prompt
    from review_harness.domain.sources import Page

    page = Page(id="1", title="T", updated=dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc),
                body="Position bias in click data is a known pitfall: always correct with IPW.")
    return "\n\n".join(render_curator_prompt("search-ranking", page, "someone"))


def _impact_prompt() -> str:
    from review_harness.impact.artifact import load_artifact
    from review_harness.impact.knowledge import EmptyKnowledgeBase
    from review_harness.impact.task import prompt_spec
    from review_harness.impact.review import prepare_request

    request = prepare_request(load_artifact(FIX / "broken-arithmetic.json"), prompt_spec(None, None, []),
                              EmptyKnowledgeBase(), 1)
    return request.system + "\n\n" + request.user


@pytest.mark.parametrize("kind, member, other_member, prompt", [
    ("ds", "analysis-reviewer", "judge", _ds_prompt),
    ("domain", "curator", "dedup", _domain_prompt),
    ("impact", "impact-reviewer", "no-such-member", _impact_prompt),
])
def test_offline_model_answers_by_the_call_tag_only(kind, member, other_member, prompt):
    """The prompts the old text-sniffing answered: untagged they get no review now; tagged with
    their kind and member they get the kind's rule engine; tagged with another member, none."""
    model = get_model("offline/rules")
    text = prompt()

    async def ask(tag: tuple[str, str] | None) -> str:
        if tag is None:
            return (await model.generate([ChatMessageUser(content=text)])).completion
        with tagged(*tag):
            return (await model.generate([ChatMessageUser(content=text)])).completion

    assert anyio.run(ask, None) == NOT_A_REVIEW
    assert anyio.run(ask, (kind, member)) not in ("", NOT_A_REVIEW)
    assert anyio.run(ask, (kind, other_member)) == NOT_A_REVIEW
