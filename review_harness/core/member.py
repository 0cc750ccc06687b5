"""One member call for every kind: a panel member (DS reviewer, domain expert, design persona or
synthesizer, code reviewer, matcher or implementer, impact reviewer, domain curator) asks its model
once, under one retry policy, and what happened is one `MemberRun` with one status vocabulary.

- `complete`: the answer parsed (problems with single items may be listed in `reason`);
- `malformed`: the answer was cut off or not usable as a whole, twice (the first is retried once,
  past the cache); the items that did parse are kept beside the run and named in the review's
  warnings, never counted as a complete review;
- `failed`: the call raised (provider error) on every attempt;
- `timed_out`: no answer within the policy's timeout on the last attempt;
- `refused`: the model declined (content filter).

A provider that refuses the request itself (HTTP 400/401/403/404/422: bad schema, key or model name)
fails the sample with the provider's words (`ProviderRequestError`): every member would fail alike.

Each call is tagged with its kind and member (a context variable), which is how the offline
provider knows which rule engine answers it: a request carries its kind, nothing guesses it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import anyio
from inspect_ai.model import CachePolicy, ChatMessage, Model, ResponseSchema, get_model
from inspect_ai.tool import Tool
from inspect_ai.util import span
from pydantic import BaseModel

from review_harness.core.calltag import CallTag, current_call, tagged  # noqa: F401  (re-exported)
from review_harness.core.inspect_adapter import suspend_store_events
from review_harness.core.runs import MEMBER_STATUSES, MemberRun, MemberStatus, RetryPolicy  # noqa: F401  (re-exported)
from review_harness.core.panel import generate_structured

T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)


@dataclass
class ParseOutcome(Generic[T]):
    """What a kind's parser made of one answer. `report` is what parsed (possibly only some
    items); `malformed` says the answer is not usable as a whole (cut off, invalid JSON, a required
    part missing), so it is worth one more try and never counts as complete; `problems` name what
    was dropped or repaired."""

    report: T | None
    problems: list[str] = field(default_factory=list)
    malformed: bool = False

    @property
    def usable(self) -> bool:
        return self.report is not None and not self.malformed


@dataclass
class MemberResult(Generic[T]):
    """The run record, the report when the member completed, and what parsed of a malformed
    answer (kept for the warnings, never used as the member's review)."""

    run: MemberRun
    report: T | None = None
    salvaged: T | None = None


class StoreLike(Protocol):
    """The sample store (Inspect's `Store`), or a dict-backed stand-in in tests."""

    def get(self, key: str, default: Any = None) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


def member_key(kind: str, member: str, *scope: object) -> str:
    """The one store key of a member's result: `<kind>:member:<member>[:<scope>...]` (a scope such
    as a code review's iteration and stage keeps reruns apart)."""
    return ":".join([kind, "member", member, *map(str, scope)])


def save_result(store: StoreLike, key: str, result: MemberResult[Any], **extra: Any) -> None:
    """One store write per member (each write is a transcript event): the run, the report, what
    parsed of a malformed answer, and any kind-specific extras (a prompt prefix hash, say)."""
    store.set(key, {
        "run": result.run.model_dump(mode="json"),
        "report": _dump(result.report),
        "salvaged": _dump(result.salvaged),
        **extra,
    })


def load_result(store: StoreLike, key: str, report_model: type[R]) -> MemberResult[R] | None:
    """The stored result of a member, None when it never ran."""
    entry = store.get(key)
    if not entry or not entry.get("run"):
        return None
    return MemberResult(
        run=MemberRun.model_validate(entry["run"]),
        report=report_model.model_validate(entry["report"]) if entry.get("report") is not None else None,
        salvaged=report_model.model_validate(entry["salvaged"]) if entry.get("salvaged") is not None else None,
    )


def _dump(report: Any) -> Any:
    return report.model_dump(mode="json") if isinstance(report, BaseModel) else report


async def call_member(
    kind: str,
    member: str,
    messages: list[ChatMessage],
    schema: ResponseSchema | None,
    parse: Callable[[str], ParseOutcome[T]],
    *,
    policy: RetryPolicy = RetryPolicy(),
    model: Model | None = None,
    role: str | None = None,
    cache: bool | CachePolicy = False,
    max_tokens: int | None = None,
    prompt_version: str = "",
    prefix_hash: str = "",
    span_name: str | None = None,
    tools: Sequence[Tool] | None = None,
) -> MemberResult[T]:
    """Ask one member under `policy`. A failed call or a malformed answer is tried again after an
    exponential backoff; a retry after a malformed answer bypasses the response cache (the cache
    holds that answer). Never raises for a misbehaving model, except a provider refusal of the
    request itself and a sample limit. `tools` (e.g. web_search()) the member may use before its
    final answer."""
    if model is None:
        model = get_model(role=role) if role else get_model()
    run = MemberRun(kind=kind, member=member, role=role, model=str(model), prompt_version=prompt_version,
                    prefix_hash=prefix_hash)
    result: MemberResult[T] = MemberResult(run=run)
    started = time.monotonic()
    bypass_cache = False
    # the span names the member in the transcript; it writes nothing to the store (its result is
    # saved by the caller's solver), so it does not copy the store to look for changes
    with suspend_store_events(), tagged(kind, member):
        async with span(span_name or member, type="member"):
            for attempt in range(policy.attempts):
                if attempt:
                    await anyio.sleep(policy.backoff_seconds * 2 ** (attempt - 1))
                run.attempts += 1
                call = await generate_structured(
                    messages, schema, timeout=policy.timeout_seconds, max_tokens=max_tokens,  # type: ignore[arg-type]
                    cache=False if bypass_cache else cache, model=model, tools=tools,
                )
                run.input_tokens += call.input_tokens
                run.output_tokens += call.output_tokens
                run.cached_input_tokens += call.cached_input_tokens
                run.truncated = call.truncated
                if call.completion is None:
                    run.status = "timed_out" if call.timed_out else "failed"
                    run.reason = call.reason
                    continue
                if call.refused:
                    run.status, run.reason = "refused", "the model declined to answer (content filter)"
                    break
                outcome = parse(call.completion)
                run.problems = list(outcome.problems)
                if outcome.usable and not call.truncated:
                    run.status, result.report, result.salvaged = "complete", outcome.report, None
                    run.reason = "; ".join(outcome.problems[:5]) or None
                    break
                run.status = "malformed"
                what = "cut off at the output limit" if call.truncated else "malformed answer"
                run.reason = what + (": " + "; ".join(outcome.problems[:3]) if outcome.problems else "")
                result.salvaged = outcome.report
                bypass_cache = True
    run.seconds = round(time.monotonic() - started, 3)
    return result
