"""The panel runner every kind shares: members run concurrently, each makes one structured
model call, and what happened is recorded per member (never per rubric letter).

A member is one reviewer of a panel (a DS dimension, a design persona, one model of a code
review pair). Its solver writes its own store key, so concurrent members never overwrite
each other, and the synthesis scorer reads them back.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Protocol

import anyio
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ResponseSchema,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState
from inspect_ai.tool import Tool
from inspect_ai.util import LimitExceededError

from review_harness.core import console  # noqa: F401  (registers the stderr hook with Inspect)
from review_harness.core.inspect_adapter import batch_mode

# HTTP statuses that say the request itself is wrong (bad schema, key, model name): every
# member would fail the same way, so the sample fails with the provider's own words
REFUSED_REQUEST_STATUSES = (400, 401, 403, 404, 422)
# under Inspect's batch mode a call is answered when its batch ends: Anthropic's and OpenAI's batch
# APIs may take up to 24 hours, so a member waits that long (plus an hour) whatever its timeout
BATCH_TIMEOUT_SECONDS = 25 * 3600.0


class ProviderRequestError(RuntimeError):
    """The provider refused the request; retrying or degrading would only hide it."""


def refused_request(ex: Exception, model: Model) -> ProviderRequestError | None:
    status = getattr(ex, "status_code", None)
    if status not in REFUSED_REQUEST_STATUSES:
        return None
    # Inspect's ModelGenerateError keeps the provider's own words; an SDK error has a body
    message = getattr(ex, "provider_message", None)
    body = getattr(ex, "body", None)
    if not message and isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else str(error)
    message = message or str(ex)
    # SDK errors read "Error code: 400 - {'type': 'error', 'error': {'message': ...}}"
    quoted = re.search(r"""['"]message['"]:\s*(['"])(.*?)\1""", message)
    message = console.first_line(quoted.group(2) if quoted else message)
    return ProviderRequestError(f"{model}: the provider refused the request (HTTP {status}): {message}")


class StoreLike(Protocol):
    def get(self, key: str, default: Any = None) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def cache_policy(enabled: bool, per_epoch: bool = True, expiry: str | None = "1W") -> CachePolicy | bool:
    """Inspect's response cache for reviewer calls. Per epoch by default, so repeated epochs
    measure real run-to-run variation; share across epochs only when asked."""
    return CachePolicy(expiry=expiry, per_epoch=per_epoch) if enabled else False


def scoped_cache(cache: bool | CachePolicy, **scopes: str) -> bool | CachePolicy:
    """The prompt already keys the cache; the scopes make the input and prompt version
    visible in the cache entry."""
    if not isinstance(cache, CachePolicy):
        return cache
    return CachePolicy(expiry=cache.expiry, per_epoch=cache.per_epoch, scopes={**cache.scopes, **scopes})


@dataclass
class CallResult:
    """One structured model call: the output, or why there is none."""

    output: ModelOutput | None = None
    reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0  # input read from the provider's prompt cache (not in input_tokens)
    truncated: bool = False
    timed_out: bool = False
    refused: bool = False
    seconds: float = 0.0

    @property
    def completion(self) -> str | None:
        return self.output.completion if self.output is not None and self.reason is None else None


async def generate_structured(
    messages: list[ChatMessage],
    schema: ResponseSchema | None,
    *,
    timeout: float,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
    model: Model | None = None,
    tools: Sequence[Tool] | None = None,
) -> CallResult:
    """Call the model with a response schema under a timeout. A failing or misbehaving model
    becomes a reason (the member degrades), never an exception (the sample fails) -- except
    a sample limit, which must stop the sample. With `tools` the model may call them (Inspect's
    tool loop) before its final answer, which is the output."""
    model = model or get_model()
    if batch_mode(model):  # the provider answers when the batch ends, not within a call's timeout
        timeout = max(timeout, BATCH_TIMEOUT_SECONDS)
    result = CallResult()
    started = time.monotonic()
    try:
        with anyio.fail_after(timeout):
            config = GenerateConfig(response_schema=schema, max_tokens=max_tokens)
            if tools:
                _, result.output = await model.generate_loop(messages, tools=list(tools), config=config, cache=cache)
            else:
                result.output = await model.generate(messages, config=config, cache=cache)
    except LimitExceededError:
        raise
    except TimeoutError as ex:
        result.reason = f"timed out ({ex or f'no answer within {timeout:g}s'})"
        result.timed_out = True
    except Exception as ex:  # a misbehaving model degrades the review, never the sample
        refused = refused_request(ex, model)
        if refused is not None:
            raise refused from None
        result.reason = f"model call failed: {type(ex).__name__}: {ex}"
    result.seconds = round(time.monotonic() - started, 3)
    output = result.output
    if output is None:
        return result
    if output.usage:
        result.input_tokens = output.usage.input_tokens
        result.output_tokens = output.usage.output_tokens
        result.cached_input_tokens = output.usage.input_tokens_cache_read or 0
    if output.error:
        result.reason = f"model returned an error: {output.error}"
        return result
    result.truncated = output.stop_reason == "max_tokens"
    result.refused = output.stop_reason == "content_filter"
    return result


if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport there
    from exceptiongroup import BaseExceptionGroup


async def run_concurrently(members: list[Solver], state: TaskState, generate: Generate) -> None:
    """Run member solvers at once on one sample. A plain task group: each member opens its own
    named span, so collect()'s extra per-task spans would only add transcript events. One failing
    member raises its own exception, not a group of one (as Inspect's collect() does)."""
    try:
        async with anyio.create_task_group() as group:
            for member in members:
                group.start_soon(member, state, generate)
    except BaseExceptionGroup as group_error:
        if len(group_error.exceptions) == 1:
            raise group_error.exceptions[0] from None
        raise
