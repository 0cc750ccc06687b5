"""Read a JSON object out of a model's answer, keeping what is usable.

Strict JSON first; otherwise the answer is treated as cut off (it stops mid-JSON) or
malformed (an error before the end), and the complete part before the problem is kept by
closing any open arrays and objects. Shared by every structured reviewer and judge call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import ValidationError


def load_json_lenient(text: str) -> tuple[Any, bool, str, bool]:
    """(data or None, whether it was repaired, problem description, whether it was cut off)."""
    start = text.find("{")
    if start < 0:
        return None, False, "no JSON object in the output", False
    body = text[start:].rstrip()
    try:
        return json.loads(body[: body.rfind("}") + 1]), False, "", False
    except json.JSONDecodeError as ex:
        problem = f"invalid JSON ({ex.msg} at character {ex.pos})"
        error_pos = ex.pos
    # an error at the very end of the answer means it stopped mid-JSON
    cut_off = body.rfind("}") < 0 or _unbalanced(body) and error_pos >= body.rfind("}")
    repaired = _repair_truncated_json(body if cut_off else body[:error_pos])
    if repaired is not None:
        return repaired, True, problem, cut_off
    return None, False, problem, cut_off


def _structure(body: str) -> Iterator[tuple[int, str]]:
    """(index, character) of the JSON punctuation outside string literals; a final
    (len, '"') marks a string left open."""
    in_string = escaped = False
    for i, ch in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[]},":
            yield i, ch
    if in_string:
        yield len(body), '"'


def _unbalanced(body: str) -> bool:
    """More brackets opened than closed, or a string left open."""
    depth = 0
    for _, ch in _structure(body):
        if ch == '"':
            return True
        depth += 1 if ch in "{[" else (-1 if ch in "}]" else 0)
    return depth > 0


def _repair_truncated_json(body: str) -> Any:
    """Close a JSON document that was cut off: drop the incomplete last item, then close
    any open array and object. Returns None when that does not parse."""
    stack: list[str] = []
    last_safe = -1  # index just after the last complete value inside a container
    safe_stack: list[str] = []
    for i, ch in _structure(body):
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                break
            stack.pop()
            last_safe, safe_stack = i + 1, list(stack)
            if not stack:
                break
        elif ch == ",":
            last_safe, safe_stack = i, list(stack)
    if last_safe < 0:
        return None
    candidate = body[:last_safe].rstrip().rstrip(",") + "".join(reversed(safe_stack))
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        return None


def validate_items(
    data: dict,
    key: str,
    model: type,
    label: str,
    normalize: Callable[[Any, str], tuple[dict | None, str | None]] | None = None,
) -> tuple[list, list[str]]:
    """Validate `data[key]` item by item: one bad item is dropped with a problem that names it,
    and costs none of the others. `normalize(item, label)` may fix or reject an item first."""
    out: list = []
    problems: list[str] = []
    raw = data.get(key, [])
    if not isinstance(raw, list):
        return out, [f"{key}: expected a list"]
    for n, item in enumerate(raw, 1):
        item_label = f"{label} {n}"
        if normalize is not None:
            item, problem = normalize(item, item_label)
            if problem:
                problems.append(problem)
                continue
        try:
            out.append(model.model_validate(item))
        except ValidationError as ex:
            err = ex.errors()[0]
            problems.append(f"{item_label}: {'.'.join(map(str, err['loc']))}: {err['msg']}")
    return out, problems
