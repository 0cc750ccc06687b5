"""The one member call: retry policy, status vocabulary, salvage, call tags, store layout."""

import anyio
import pytest
from inspect_ai.model import ChatMessageUser, ModelOutput, ModelUsage, get_model
from pydantic import BaseModel

from review_harness.core.member import (
    MEMBER_STATUSES,
    ParseOutcome,
    RetryPolicy,
    call_member,
    current_call,
    load_result,
    member_key,
    save_result,
)


class Report(BaseModel):
    items: list[str]


def output(text: str, stop_reason: str = "stop") -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm/model", content=text, stop_reason=stop_reason)
    out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return out


def parse(text: str) -> ParseOutcome[Report]:
    """Items are comma-separated; a trailing '!' marks the answer malformed (as a cut-off JSON)."""
    items = [i for i in text.rstrip("!").split(",") if i]
    return ParseOutcome(Report(items=items), problems=["answer ends in '!'"] if text.endswith("!") else [],
                        malformed=text.endswith("!"))


def ask(*outputs: ModelOutput, policy: RetryPolicy = RetryPolicy(backoff_seconds=0)):
    model = get_model("mockllm/model", custom_outputs=list(outputs))
    return anyio.run(lambda: call_member("ds", "analysis", [ChatMessageUser(content="hi")], None, parse,
                                         policy=policy, model=model))


def test_a_good_answer_completes_on_the_first_attempt():
    result = ask(output("a,b"))
    assert result.run.status == "complete" and result.run.attempts == 1
    assert result.report.items == ["a", "b"] and result.salvaged is None
    assert (result.run.input_tokens, result.run.output_tokens) == (10, 5)


def test_a_malformed_answer_is_retried_once_then_counts_as_malformed_with_its_items_kept():
    result = ask(output("a!"), output("a,b!"))
    assert result.run.status == "malformed" and result.run.attempts == 2
    assert result.report is None
    assert result.salvaged.items == ["a", "b"]
    assert "malformed answer" in result.run.reason and "ends in '!'" in result.run.reason


def test_a_truncated_answer_is_never_complete_even_when_it_parses():
    result = ask(output("a", "max_tokens"), output("a,b", "max_tokens"))
    assert result.run.status == "malformed" and result.run.truncated
    assert result.salvaged.items == ["a", "b"] and "cut off" in result.run.reason


def test_the_retry_recovers_a_malformed_first_answer():
    result = ask(output("a!"), output("c"))
    assert result.run.status == "complete" and result.run.attempts == 2 and result.report.items == ["c"]
    assert result.run.input_tokens == 20  # both attempts are counted


def test_one_attempt_policy_does_not_retry():
    result = ask(output("a!"), output("c"), policy=RetryPolicy(attempts=1))
    assert result.run.status == "malformed" and result.run.attempts == 1


def test_a_content_filter_stop_is_refused():
    result = ask(output("", "content_filter"))
    assert result.run.status == "refused" and result.report is None


def test_statuses_are_the_one_vocabulary():
    assert MEMBER_STATUSES == ("complete", "failed", "timed_out", "malformed", "refused")
    with pytest.raises(ValueError, match="at least one attempt"):
        RetryPolicy(attempts=0)


def test_the_call_is_tagged_with_kind_and_member_only_while_it_runs():
    seen = []

    def tag_parse(text: str) -> ParseOutcome[Report]:
        seen.append(current_call())
        return parse(text)

    model = get_model("mockllm/model", custom_outputs=[output("a")])
    anyio.run(lambda: call_member("design", "edge-case-prober", [ChatMessageUser(content="x")], None, tag_parse,
                                  model=model))
    assert (seen[0].kind, seen[0].member) == ("design", "edge-case-prober")
    assert current_call() is None


def test_a_result_round_trips_through_the_store_layout():
    store: dict = {}

    class Store:
        def get(self, key, default=None):
            return store.get(key, default)

        def set(self, key, value):
            store[key] = value

    result = ask(output("a!"), output("a,b!"))
    key = member_key("code", "spec-A", 0)
    assert key == "code:member:spec-A:0"
    save_result(Store(), key, result, prefix_hash="abc")
    back = load_result(Store(), key, Report)
    assert back.run == result.run and back.salvaged.items == ["a", "b"] and back.report is None
    assert store[key]["prefix_hash"] == "abc"
    assert load_result(Store(), "code:member:never", Report) is None
