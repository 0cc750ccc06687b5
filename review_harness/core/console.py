"""What a user must see on stderr whatever Inspect's display shows (even ``--display none``).

* The first retry of a model call, once per model and cause: an unreachable endpoint is named
  within seconds instead of surfacing as a reviewer timeout minutes later.
* A task whose log ends in error gets one line with the reason, and under ``inspect eval`` the
  process exits non-zero (Inspect itself exits 0 when a task errors at run time).

Registered as an Inspect hook when this module is imported (every kind's solvers import it
through the panel runner).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from inspect_ai.hooks import Hooks, ModelRetry, RunEnd, hooks

CONNECTION_ERRORS = ("APIConnectionError", "ConnectError", "ConnectTimeout", "APITimeoutError",
                     "ConnectionError", "ConnectionRefusedError")


def say(message: str) -> None:
    print(f"review-harness: {message}", file=sys.stderr, flush=True)


def first_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else "no reason given"


def error_text(message: str) -> str:
    """Inspect records a sample error as the exception's repr: keep what it says."""
    line = first_line(message)
    unwrapped = re.fullmatch(r"""\w+\((['"])(.*)\1\)""", line)
    return unwrapped.group(2) if unwrapped else line


def under_inspect_eval() -> bool:
    """Whether this process is the ``inspect eval`` command (not eval() inside a program)."""
    return Path(sys.argv[0]).name == "inspect" and sys.argv[1:2] == ["eval"]


def retry_message(data: ModelRetry) -> str:
    cause = data.exception_type or "an error"
    if data.status_code:
        cause += f" (HTTP {data.status_code})"
    if data.exception_type in CONNECTION_ERRORS:
        advice = "cannot reach the provider: check its base URL, the network and the provider's status"
    elif data.status_code == 429:
        advice = "rate limited"
    else:
        advice = "the provider failed the call"
    return (f"{data.model_name}: {advice}; {cause}, retry {data.attempt} "
            f"in {data.wait_time:.0f} s (later retries of this kind are not repeated here)")


@hooks(name="review_harness_console", description="Names provider trouble and failed tasks on stderr.")
class ConsoleReports(Hooks):
    def __init__(self) -> None:
        self.named: set[tuple[str, str | None]] = set()

    async def on_model_retry(self, data: ModelRetry) -> None:
        key = (data.model_name, data.exception_type)
        if key not in self.named:
            self.named.add(key)
            say(retry_message(data))

    async def on_run_end(self, data: RunEnd) -> None:
        if data.exception is not None:  # Inspect reports its own exceptions
            return
        failed = [log for log in data.logs if log.status == "error"]
        for log in failed:
            reason = error_text(log.error.message) if log.error else "no reason recorded"
            say(f"{log.eval.task} failed: {reason} (log: {log.location})")
        if failed and under_inspect_eval():
            raise SystemExit(1)
