"""A scripted implementer for the code review's agent tests: the offline reviewer answers every
member, except that the implementer agent's turns are taken, in order, from a script of
mockllm-style outputs (a tool call or a reply), given as a model arg:

    inspect_eval(task, model="offline-scripted/rules", model_args={"implementer": [
        {"tool": "text_editor", "arguments": {"command": "view", "path": "app/store.py"}},
        {"tool": "submit", "arguments": {"answer": "parameterised the query"}},
    ]})

Once the script runs out, the implementer replies with plain text (the agent stops).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

from review_harness.code.models import IMPLEMENTER
from review_harness.core.calltag import current_call
from review_harness.offline.provider import OfflineReviewerAPI

MODEL = "offline-scripted/rules"


class ScriptedImplementerAPI(OfflineReviewerAPI):
    def __init__(self, model_name: str, implementer: list[dict] | None = None, **model_args: Any) -> None:
        super().__init__(model_name, **model_args)
        self.script = list(implementer or [])
        self.requests: list[list[ChatMessage]] = []  # what the implementer was sent, turn by turn

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        tag = current_call()
        if tag is None or tag.member != IMPLEMENTER or not tools:
            return await super().generate(input, tools, tool_choice, config)
        self.requests.append(list(input))
        if not self.script:
            output = ModelOutput.from_content(self.model_name, "Nothing more to do.")
        else:
            step = self.script.pop(0)
            if "tool" in step:
                output = ModelOutput.for_tool_call(self.model_name, step["tool"], step.get("arguments", {}),
                                                   content=step.get("content", ""))
            else:
                output = ModelOutput.from_content(self.model_name, step.get("content", ""))
        output.usage = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)
        return output


@modelapi(name="offline-scripted")
def offline_scripted() -> type[ModelAPI]:
    return ScriptedImplementerAPI
