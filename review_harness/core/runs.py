"""The records of a member call that carry no Inspect machinery: the retry policy and the run
record (`MemberRun`). They live apart from `member.py` (which calls models through Inspect) so a
kind's data models can hold a run record and still import without Inspect (the impact kind's
deterministic modules are used by pipelines that do not run the harness)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

MemberStatus = Literal["complete", "failed", "timed_out", "malformed", "refused"]
MEMBER_STATUSES: tuple[str, ...] = ("complete", "failed", "timed_out", "malformed", "refused")


@dataclass(frozen=True)
class RetryPolicy:
    """How often a member is asked and how long it may take. `attempts` counts the first call:
    2 means one retry after a failed call or a malformed answer."""

    attempts: int = 2
    backoff_seconds: float = 0.5
    timeout_seconds: float = 300.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"a retry policy needs at least one attempt, not {self.attempts}")
        if self.timeout_seconds <= 0:
            raise ValueError(f"a retry policy needs a timeout greater than 0, not {self.timeout_seconds}")

    def with_timeout(self, seconds: float | None) -> RetryPolicy:
        return self if seconds is None else RetryPolicy(self.attempts, self.backoff_seconds, float(seconds))



class MemberRun(BaseModel):
    """What happened when one member was asked: the one run record of every kind's log."""

    kind: str
    member: str
    role: str | None = Field(default=None, description="the model role it ran under, None for the evaluated model")
    model: str = ""
    status: MemberStatus = "failed"
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = Field(default=0, description="input read from the provider's prompt cache, besides input_tokens")
    seconds: float = 0.0
    truncated: bool = False
    reason: str | None = None
    problems: list[str] = Field(default_factory=list, description="items dropped or repaired by the parser")
    prompt_version: str = ""
    prefix_hash: str = ""

    @property
    def completed(self) -> bool:
        return self.status == "complete"

    def describe(self) -> str:
        """'returned malformed output' and the like, for completion lines and warnings."""
        return {
            "complete": "completed",
            "malformed": "returned malformed output",
            "timed_out": "timed out",
            "refused": "declined to answer",
            "failed": "failed",
        }[self.status] + (f" ({self.reason})" if self.reason and self.status != "complete" else "")
