"""The replay model (`--model offline/replay -M log=PATH`): each call answered with the output a
previous run recorded for the same request, without a model and without the rule engines.

PATH is an eval log or a folder of logs. Every model call those logs recorded is kept under the
member that made it (the member span around the call) and a hash of its input (each message's
role and text); a call of this run is answered with the recorded output of its member and hash,
usage included, so a replayed run reproduces the recorded reviews and their token counts
exactly. The same request recorded more than once (epochs, retries) is answered in the recorded
order, the last answer repeated. A call that no log recorded fails the sample in one line naming
the member and the document: a replay never makes up an answer.

Uses: scale runs that measure the harness and not a model (`-M latency=1` waits like a real
call), CI smoke runs of the real-model path from a recorded real run, re-scoring old runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessage, ModelOutput

from review_harness.core.inspect_adapter import PrerequisiteError

REPLAY_MODEL = "replay"  # offline/replay
MEMBER_SPAN = "member"
UNREAD_FIELDS = {"messages", "store", "scores", "output"}  # a sample's parts the replay does not need  # the span type call_member opens around a member's call


class ReplayMiss(RuntimeError):
    """A request no recorded log answers. Its `status_code` makes the harness fail the sample
    with this message (as a provider's refusal of a request does) instead of degrading the review."""

    status_code = 404


def input_hash(messages: Sequence[ChatMessage]) -> str:
    """The hash a request is found by: each message's role and text, in order."""
    payload = json.dumps([[m.role, m.text] for m in messages], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def log_files(path: str | Path) -> list[Path]:
    """The logs PATH names: the file, or every .eval/.json log of the folder (sorted)."""
    path = Path(path).expanduser()
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.suffix in (".eval", ".json") and p.is_file())
        if not found:
            raise PrerequisiteError(f"-M log={path}: the folder holds no eval logs")
        return found
    if not path.is_file():
        raise PrerequisiteError(f"-M log={path}: no such file or folder (give an eval log, or a folder of logs)")
    return [path]


class Recording:
    """The recorded answers of some logs: (member, input hash) -> outputs in recorded order."""

    def __init__(self, answers: dict[tuple[str | None, str], list[ModelOutput]], logs: int,
                 problem: str = "") -> None:
        self.answers = answers
        self.logs = logs
        self.problem = problem
        self._served: dict[tuple[str | None, str], int] = {}
        self._members_by_hash: dict[str, set[str | None]] = {}
        for member, digest in answers:
            self._members_by_hash.setdefault(digest, set()).add(member)

    @classmethod
    def missing(cls, problem: str) -> Recording:
        """No recording: every call fails with `problem`."""
        return cls({}, 0, problem)

    @classmethod
    def read(cls, path: str | Path) -> Recording:
        from inspect_ai.log import read_eval_log_samples

        answers: dict[tuple[str | None, str], list[ModelOutput]] = {}
        files = log_files(path)
        for file in files:
            try:  # only the events are read (and the attachments long messages are kept in)
                samples = list(read_eval_log_samples(str(file), all_samples_required=False, resolve_attachments=True,
                                                     exclude_fields=UNREAD_FIELDS))
            except Exception as ex:  # inspect raises several types for unreadable files
                raise PrerequisiteError(f"-M log={file}: not a readable eval log ({type(ex).__name__})") from None
            for sample in samples:
                for member, messages, output in recorded_calls(sample.events):
                    answers.setdefault((member, input_hash(messages)), []).append(output)
        if not answers:
            raise PrerequisiteError(f"-M log={path}: no recorded model call in {len(files)} log(s) to replay")
        return cls(answers, len(files))

    def answer(self, member: str | None, messages: Sequence[ChatMessage], document: str) -> ModelOutput:
        """The recorded output for this member and input; `ReplayMiss` when none was recorded."""
        if self.problem:
            raise ReplayMiss(self.problem)
        digest = input_hash(messages)
        key = (member, digest)
        if key not in self.answers:
            others = self._members_by_hash.get(digest, set())
            if len(others) != 1:  # the request under another span name (a member's own span name)
                raise ReplayMiss(f"no recorded answer for member {member or '(untagged)'} on "
                                 f"{document} (the request is in none of the {self.logs} replayed log(s))")
            key = (next(iter(others)), digest)
        outputs = self.answers[key]
        n = self._served[key] = self._served.get(key, 0) + 1
        return outputs[min(n, len(outputs)) - 1].model_copy(deep=True)


def recorded_calls(events: Iterable[Any]) -> list[tuple[str | None, list[ChatMessage], ModelOutput]]:
    """(member, input, output) of every model call a sample's events recorded that returned an
    answer; the member is the nearest enclosing member span's name."""
    spans: dict[str, Any] = {}
    out = []
    for event in events:
        if event.event == "span_begin":
            spans[event.id] = event
        elif event.event == "model" and event.error is None and event.output is not None:
            out.append((_member_of(event.span_id, spans), list(event.input), event.output))
    return out


def _member_of(span_id: str | None, spans: dict[str, Any]) -> str | None:
    while span_id is not None and span_id in spans:
        span = spans[span_id]
        if span.type == MEMBER_SPAN:
            return span.name
        span_id = span.parent_id
    return None
