"""The offline reviewer: one Inspect model provider (``--model offline/rules``) for every kind.

It reads the same prompts a real model gets and hands each to the rule engine of the kind and
member the call is tagged with (`call_member` tags every call), which answers in the same
response schema; it reports token usage. `--model offline/replay -M log=PATH` answers instead
with what a previous run recorded for the same request (offline/replay.py): no rule engine runs.
Model args make it slow or faulty for tests and benchmarks:

    -M log=PATH           offline/replay: the eval log, or folder of logs, to answer from

    -M latency=1.5        seconds to wait before each answer
    -M fault_rate=0.3     share of calls that misbehave
    -M fault_seed=7       which calls misbehave (deterministic per seed and prompt)
    -M faults=exception,timeout,malformed,truncated,empty   kinds to draw from
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.tool import ToolChoice, ToolInfo

from review_harness.core.kinds import get_kind
from review_harness.core.calltag import CallTag, current_call
from review_harness.core.params import loud_errors
from review_harness.core.tokens import estimate_tokens  # noqa: F401  (benchmarks import it from here)

FAULT_KINDS = ("exception", "timeout", "malformed", "truncated", "empty")
NOT_A_REVIEW = (
    "The offline model answers the project's own prompts only: reviewer, synthesizer, judge "
    "and matcher prompts of the review kinds. Use a real model for anything else."
)


class OfflineFault(RuntimeError):
    """An injected failure (fault_rate): stands in for a provider error."""


def answer_prompt(prompt: str, tag: CallTag | None = None) -> str | None:
    """The answer of the kind and member the call is tagged with; None for an untagged call
    (every member is on call_member, which tags its calls: nothing guesses a kind from text)."""
    if tag is None:
        return None
    return get_kind(tag.kind).offline_answer(tag.member, prompt)


def _model_number(name: str, value: Any, kind: type) -> Any:
    if value is None:  # `-M latency=` reaches the provider as None
        raise PrerequisiteError(f"-M {name}=: empty value; give a number, or leave -M {name} out")
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise PrerequisiteError(f"-M {name}={value}: expected a number") from None
    if number < 0:
        raise PrerequisiteError(f"-M {name}={value}: must not be negative")
    return number


class OfflineReviewerAPI(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        latency: float = 0.0,
        fault_rate: float = 0.0,
        fault_seed: int = 0,
        faults: str | list[str] = ",".join(FAULT_KINDS),
        log: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        with loud_errors("offline reviewer"):
            self._configure(latency, fault_rate, fault_seed, faults, model_args)
            self.replay = self._recording(model_name, log, model_args)

    def _recording(self, model_name: str, log: Any, model_args: dict[str, Any]) -> Any:
        """offline/replay: the recorded answers of `-M log=PATH`; None for the rule engines."""
        from review_harness.offline.replay import REPLAY_MODEL, Recording

        if model_name != REPLAY_MODEL:
            if log is not None:
                raise PrerequisiteError(f"-M log={log}: only offline/{REPLAY_MODEL} answers from a log "
                                        f"(offline/{model_name} runs the rule engines)")
            return None
        if log is None or not str(log).strip():
            # said at the first call, not here: Inspect also builds the model without its args to
            # look up its facts, and must not print this then
            return Recording.missing(f"offline/{REPLAY_MODEL} needs -M log=PATH: the eval log, or folder of logs, "
                                     "whose recorded answers it gives")
        if self.fault_rate:
            raise PrerequisiteError(f"-M fault_rate: offline/{REPLAY_MODEL} gives the recorded answers as they are")
        return Recording.read(str(log))

    def _configure(self, latency: Any, fault_rate: Any, fault_seed: Any, faults: Any, model_args: dict[str, Any]) -> None:
        if model_args:
            raise PrerequisiteError(
                f"-M {sorted(model_args)[0]}: unknown model arg for the offline reviewer; "
                "known: latency, fault_rate, fault_seed, faults"
            )
        self.latency = _model_number("latency", latency, float)
        self.fault_rate = _model_number("fault_rate", fault_rate, float)
        if not 0.0 <= self.fault_rate <= 1.0:
            raise PrerequisiteError(f"-M fault_rate={fault_rate}: must be between 0 and 1")
        self.fault_seed = _model_number("fault_seed", fault_seed, int)
        if faults is None or not str(faults).strip() or faults == []:  # `-M faults=` reaches here as None
            raise PrerequisiteError(f"-M faults=: empty value; name one or more fault kinds ({', '.join(FAULT_KINDS)}), "
                                    "or leave -M faults out for all of them")
        kinds = [k.strip() for k in faults.split(",") if k.strip()] if isinstance(faults, str) else [str(k) for k in faults]
        unknown = [k for k in kinds if k not in FAULT_KINDS]
        if unknown:
            raise PrerequisiteError(
                f"-M faults={','.join(map(str, kinds))}: unknown fault kind {unknown[0]}; known: {', '.join(FAULT_KINDS)}"
            )
        self.fault_kinds = tuple(kinds)
        self._calls: dict[str, int] = {}  # per prompt: a retry of the same prompt draws anew

    def should_retry(self, ex: BaseException) -> bool:
        # injected faults are the point of the exercise: surface them at once
        return False

    def max_connections(self) -> int:
        return 64

    def _draw_fault(self, prompt: str) -> str | None:
        if self.fault_rate <= 0:
            return None
        key = hashlib.sha256(prompt.encode()).hexdigest()
        n = self._calls[key] = self._calls.get(key, 0) + 1
        salt = f"{self.fault_seed}" if n == 1 else f"{self.fault_seed}#{n}"
        digest = hashlib.sha256(f"{salt}\n{prompt}".encode()).hexdigest()
        rng = random.Random(digest)
        if rng.random() >= self.fault_rate:
            return None
        return rng.choice(self.fault_kinds)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if self.replay is not None:
            return await self._replayed(input)
        prompt = "\n\n".join(message.text for message in input)
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        fault = self._draw_fault(prompt)
        if fault == "exception":
            raise OfflineFault("offline reviewer: injected fault (provider error)")
        if fault == "timeout":
            raise TimeoutError("offline reviewer: injected fault (request timed out)")

        # the rule engines are CPU-bound: keep them off the event loop so other samples'
        # calls (and their latency) proceed meanwhile
        completion = await anyio.to_thread.run_sync(answer_prompt, prompt, current_call()) or NOT_A_REVIEW

        stop_reason = "stop"
        if fault == "empty":
            completion = ""
        elif fault == "truncated":
            completion = completion[: max(1, int(len(completion) * 0.55))]
            stop_reason = "max_tokens"
        elif fault == "malformed":
            cut = int(len(completion) * 0.6)
            completion = completion[:cut] + ' <<unexpected token>> "' + completion[cut:]

        output = ModelOutput.from_content(
            model=self.model_name, content=completion, stop_reason=stop_reason
        )
        input_tokens = estimate_tokens(prompt)
        output_tokens = estimate_tokens(completion)
        output.usage = ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
        )
        return output


    async def _replayed(self, input: list[ChatMessage]) -> ModelOutput:
        from review_harness.core.inspect_adapter import running_sample

        if self.latency > 0:
            await asyncio.sleep(self.latency)
        tag = current_call()
        sample = running_sample()
        document = "this call"
        if sample is not None:
            sample_id, metadata = sample
            where = metadata.get("document") or metadata.get("source")
            document = f"document {where} (sample {sample_id})" if where else f"sample {sample_id}"
        return self.replay.answer(tag.member if tag else None, input, document)


@modelapi(name="offline")
def offline() -> type[ModelAPI]:
    return OfflineReviewerAPI
