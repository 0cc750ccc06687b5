"""A loopback stand-in for the Anthropic and OpenAI APIs, for driving the official SDKs offline.

It speaks Anthropic Messages (plain JSON and streaming SSE) and Message Batches (create, retrieve,
results), OpenAI Chat Completions and OpenAI Responses; answers every structured call with an instance that is valid under the request's
own response schema (``minimal``: empty lists and nulls; ``full``: one item per list, every
optional field filled); and refuses what the real services refuse in a response schema. Tests
can queue one-off behaviours (``server.script(...)``): an HTTP error, a schema-invalid answer,
a truncated answer. Every request is recorded (API keys are not).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANTHROPIC_REFUSED = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                     "minLength", "maxLength", "maxItems")


def anthropic_schema_refusal(schema: dict, where: str = "$") -> str | None:
    """Why Anthropic's structured outputs would refuse this schema, or None."""
    for key in ANTHROPIC_REFUSED:
        if key in schema:
            return f"{where}: '{key}' is not supported in output_format schemas"
    if schema.get("minItems", 0) > 1:
        return f"{where}: minItems values other than 0 or 1 are not supported"
    if (schema.get("type") == "object" or "properties" in schema) and schema.get("additionalProperties") is not False:
        return f"{where}: objects must set additionalProperties to false"
    return _first(schema, where, anthropic_schema_refusal)


def openai_strict_refusal(schema: dict, where: str = "$") -> str | None:
    """Why OpenAI's strict mode would refuse this schema, or None."""
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return f"Invalid schema: In context={where}, 'additionalProperties' is required to be supplied and to be false."
        missing = sorted(set(schema.get("properties") or {}) - set(schema.get("required") or []))
        if missing:
            return f"Invalid schema: In context={where}, 'required' is required to include every key; missing {missing}."
    return _first(schema, where, openai_strict_refusal)


def _first(schema: dict, where: str, check) -> str | None:
    children = [(f"{where}.{k}", v) for k, v in (schema.get("properties") or {}).items()]
    if isinstance(schema.get("items"), dict):
        children.append((f"{where}[]", schema["items"]))
    children += [(f"{where}|{i}", o) for i, o in enumerate(schema.get("anyOf") or [])]
    children += [(f"$defs.{k}", v) for k, v in (schema.get("$defs") or {}).items()]
    for child_where, child in children:
        problem = check(child, child_where)
        if problem:
            return problem
    return None


def instance(schema: dict, full: bool, key: str = "value") -> Any:
    """A value valid under `schema`: minimal (empty, null) or full (every field filled)."""
    if "enum" in schema:
        values = schema["enum"]
        return values[-1] if full else values[0]
    if "anyOf" in schema:
        options = schema["anyOf"]
        nonnull = [o for o in options if o.get("type") != "null"]
        if not full and len(nonnull) < len(options):
            return None
        return instance(nonnull[0], full, key)
    kind = schema.get("type")
    if isinstance(kind, list):
        if not full and "null" in kind:
            return None
        kind = next(k for k in kind if k != "null")
    if kind == "object" or "properties" in schema:
        return {k: instance(v, full, k) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [instance(schema.get("items") or {}, full, key)] if full else []
    if kind == "string":
        return f"Example {key.replace('_', ' ')} from the loopback model." if full else ""
    if kind == "integer":
        return 7 if full else 0
    if kind == "number":
        return 0.5 if full else 0
    if kind == "boolean":
        return full
    return None


@dataclass
class Scripted:
    """A one-off behaviour for the next matching request."""

    kind: str  # "status", "invalid", "truncated"
    status: int = 200
    message: str = ""
    error_type: str = "api_error"
    api: str | None = None  # only for this API ("anthropic", "openai"); None: any


@dataclass
class Recorded:
    api: str
    path: str
    body: dict
    headers: dict[str, str]
    schema: dict | None = None
    strict: bool | None = None
    answered: str | None = None
    status: int = 200


@dataclass
class LoopbackState:
    full: bool = True
    queue: deque = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    batches: dict[str, tuple[float, list[dict]]] = field(default_factory=dict)  # id -> (created, results)
    batch_seconds: float = 0.0  # how long a message batch stays in progress

    def next_scripted(self, api: str) -> Scripted | None:
        with self.lock:
            for item in list(self.queue):
                if item.api in (None, api):
                    self.queue.remove(item)
                    return item
        return None


class LoopbackServer:
    """``with LoopbackServer() as server: server.url`` -- answers until the block ends."""

    def __init__(self, full: bool = True) -> None:
        self.state = LoopbackState(full=full)
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def requests(self) -> list[Recorded]:
        return self.state.requests

    def script(self, *items: Scripted) -> None:
        self.state.queue.extend(items)

    def __enter__(self) -> "LoopbackServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    state: LoopbackState
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        headers = {k.lower(): v for k, v in self.headers.items()
                   if k.lower() not in ("x-api-key", "authorization")}
        path = self.path.split("?")[0]
        if path.endswith("/messages"):
            self._anthropic(body, headers, path)
        elif path.endswith("/messages/batches"):
            self._anthropic_batch_create(body, headers, path)
        elif path.endswith("/chat/completions"):
            self._openai_chat(body, headers, path)
        elif path.endswith("/responses"):
            self._openai_responses(body, headers, path)
        else:
            self._json(404, {"error": {"message": f"no route {path}"}})

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?")[0]
        batch_id = path.removesuffix("/results").rsplit("/", 1)[-1]
        if "/messages/batches/" not in path or batch_id not in self.state.batches:
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}})
        elif path.endswith("/results"):
            self._anthropic_batch_results(batch_id)
        else:
            self._json(200, self._anthropic_batch(batch_id))

    # ---------------------------------------------------------------- helpers

    def _json(self, status: int, payload: dict, extra_headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _answer(self, schema: dict | None, scripted: Scripted | None) -> tuple[str, bool]:
        """The answer text and whether it was cut off."""
        if schema is None:
            return "This loopback model answers structured requests only.", False
        text = json.dumps(instance(schema, self.state.full))
        if scripted and scripted.kind == "invalid":
            return json.dumps({"unexpected": "shape", "items": "not a list"}), False
        if scripted and scripted.kind == "truncated":
            return text[: max(1, len(text) // 2)], True
        return text, False

    def _record(self, api: str, path: str, body: dict, headers: dict, schema: dict | None,
                strict: bool | None) -> Recorded:
        record = Recorded(api, path, body, headers, schema, strict)
        with self.state.lock:
            self.state.requests.append(record)
        return record

    def _openai_error_status(self, record: Recorded, scripted: Scripted | None) -> bool:
        if not (scripted and scripted.kind == "status"):
            return False
        record.status = scripted.status
        payload = {"error": {"message": scripted.message, "type": scripted.error_type, "code": None}}
        self._json(scripted.status, payload, {"retry-after": "0"} if scripted.status == 429 else None)
        return True

    # ---------------------------------------------------------------- Anthropic

    def _anthropic_reply(self, body: dict, headers: dict, path: str) -> tuple[int, dict]:
        """(status, payload) of one Messages request: the message, or the error the service sends."""
        output_format = body.get("output_format") or {}
        schema = output_format.get("schema")
        record = self._record("anthropic", path, body, headers, schema, None)
        scripted = self.state.next_scripted("anthropic")
        if scripted and scripted.kind == "status":
            record.status = scripted.status
            return scripted.status, {"type": "error", "error": {"type": scripted.error_type, "message": scripted.message}}
        refusal = anthropic_schema_refusal(schema) if schema else None
        if refusal:
            record.status = 400
            return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": refusal}}
        text, cut = self._answer(schema, scripted)
        record.answered = text
        prompt_words = sum(len(json.dumps(m.get("content", "")).split()) for m in body.get("messages", []))
        usage = {"input_tokens": prompt_words, "output_tokens": len(text.split()) + 1,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        return 200, {"id": "msg_loopback", "type": "message", "role": "assistant", "model": body.get("model"),
                     "content": [{"type": "text", "text": text}], "stop_reason": "max_tokens" if cut else "end_turn",
                     "stop_sequence": None, "usage": usage}

    def _anthropic(self, body: dict, headers: dict, path: str) -> None:
        status, message = self._anthropic_reply(body, headers, path)
        if status != 200 or not body.get("stream"):
            self._json(status, message, {"retry-after": "0"} if status == 429 else None)
            return
        text, stop, usage = message["content"][0]["text"], message["stop_reason"], message["usage"]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        start = dict(message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
        events = [("message_start", {"type": "message_start", "message": start}),
                  ("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "text", "text": ""}})]
        for i in range(0, len(text), 400):
            events.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta", "text": text[i:i + 400]}}))
        events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
                   ("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": usage["output_tokens"]}}),
                   ("message_stop", {"type": "message_stop"})]
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    # ---------------------------------------------------------------- Anthropic Message Batches

    def _anthropic_batch_create(self, body: dict, headers: dict, path: str) -> None:
        """Every request of the batch answered at once (as a Messages request would be); the batch
        reads as in progress for `batch_seconds`, then as ended with its results."""
        results = []
        for request in body.get("requests", []):
            status, payload = self._anthropic_reply(request["params"], headers, path)
            result = {"type": "succeeded", "message": payload} if status == 200 else {"type": "errored", "error": payload}
            results.append({"custom_id": request["custom_id"], "result": result})
        with self.state.lock:
            batch_id = f"msgbatch_loopback_{len(self.state.batches)}"
            self.state.batches[batch_id] = (time.time(), results)
        self._json(200, self._anthropic_batch(batch_id))

    def _anthropic_batch(self, batch_id: str) -> dict:
        created, results = self.state.batches[batch_id]
        ended = time.time() >= created + self.state.batch_seconds
        succeeded = sum(1 for r in results if r["result"]["type"] == "succeeded")
        counts = {"processing": 0 if ended else len(results), "succeeded": succeeded if ended else 0,
                  "errored": len(results) - succeeded if ended else 0, "canceled": 0, "expired": 0}
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created))
        host, port = self.server.server_address[:2]
        return {"id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                "request_counts": counts, "created_at": stamp, "expires_at": stamp, "archived_at": None,
                "cancel_initiated_at": None, "ended_at": stamp if ended else None,
                "results_url": f"http://{host}:{port}/v1/messages/batches/{batch_id}/results" if ended else None}

    def _anthropic_batch_results(self, batch_id: str) -> None:
        data = "".join(json.dumps(r) + "\n" for r in self.state.batches[batch_id][1]).encode()
        self.send_response(200)
        self.send_header("content-type", "application/binary")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    # ---------------------------------------------------------------- OpenAI

    def _openai_check(self, record: Recorded, schema: dict | None, strict: bool | None) -> bool:
        if schema is not None and strict:
            refusal = openai_strict_refusal(schema)
            if refusal:
                record.status = 400
                self._json(400, {"error": {"message": refusal, "type": "invalid_request_error",
                                           "param": "response_format", "code": None}})
                return True
        return False

    def _openai_answer(self, body: dict, headers: dict, path: str, schema_spec: dict) -> tuple[str, bool] | None:
        """Record an OpenAI request; answer its scripted error or schema refusal (None), else
        give the text to send and whether it was cut off."""
        schema, strict = schema_spec.get("schema"), schema_spec.get("strict")
        record = self._record("openai", path, body, headers, schema, strict)
        scripted = self.state.next_scripted("openai")
        if self._openai_error_status(record, scripted) or self._openai_check(record, schema, strict):
            return None
        text, cut = self._answer(schema, scripted)
        record.answered = text
        return text, cut

    def _openai_chat(self, body: dict, headers: dict, path: str) -> None:
        answered = self._openai_answer(body, headers, path, (body.get("response_format") or {}).get("json_schema") or {})
        if answered is None:
            return
        text, cut = answered
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        self._json(200, {
            "id": "chatcmpl-loopback", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": "length" if cut else "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": text, "refusal": None}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text.split()) + 1,
                      "total_tokens": prompt_tokens + len(text.split()) + 1},
        })

    def _openai_responses(self, body: dict, headers: dict, path: str) -> None:
        answered = self._openai_answer(body, headers, path, (body.get("text") or {}).get("format") or {})
        if answered is None:
            return
        text, cut = answered
        input_tokens = len(json.dumps(body.get("input", "")).split())
        self._json(200, {
            "id": "resp_loopback", "object": "response", "created_at": int(time.time()),
            "model": body.get("model"), "status": "incomplete" if cut else "completed",
            "incomplete_details": {"reason": "max_output_tokens"} if cut else None, "error": None,
            "output": [{"type": "message", "id": "msg_loopback", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": input_tokens, "output_tokens": len(text.split()) + 1,
                      "total_tokens": input_tokens + len(text.split()) + 1,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}},
        })
