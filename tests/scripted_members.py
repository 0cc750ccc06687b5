"""A scripted model for the kinds' degradation tests: the offline reviewer, except that the named
members always answer malformed (the offline provider's own `-M faults=malformed` picks calls by
prompt hash, so it cannot single out one member).

    inspect_eval(task, model="offline-malformed/rules", model_args={"members": "prior-art-scout"})
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ModelAPI, modelapi

from review_harness.core.calltag import current_call
from review_harness.offline.provider import OfflineReviewerAPI

MODEL = "offline-malformed/rules"


class MalformedMembersAPI(OfflineReviewerAPI):
    def __init__(self, model_name: str, members: str = "", **model_args: Any) -> None:
        super().__init__(model_name, **model_args)
        self.malformed_members = {m for m in members.split(",") if m}

    def _draw_fault(self, prompt: str) -> str | None:
        tag = current_call()
        return "malformed" if tag is not None and tag.member in self.malformed_members else None


@modelapi(name="offline-malformed")
def offline_malformed() -> type[ModelAPI]:
    return MalformedMembersAPI
