"""Planting in JSON inputs: the `json_set` mutator finds fields by name anywhere in the object
(an artifact of any shape names its estimate, interval and counts the same way), checks a
precondition over their values and sets new values computed from them.

    use: json_set
    args:
      fields: {est: [intervention_effect, effect_estimate], lo: [ci_lower], hi: [ci_upper]}
      where: lo <= est <= hi and hi > lo              # the precondition
      set: {hi: "est - uniform(0.2, 0.6) * (hi - lo)", lo: "hi_new - (hi - lo)"}
      values: {width: "hi - lo"}                      # names computed before `set`
      add: {pl: diagnostics.placebo_p_value}          # a field set but missing is added (object.key)
      check: not (lo_new <= est <= hi_new)            # must hold over the new values
      evidence: hi                                    # the field whose line is the evidence quote

New values are written as their field was (a whole number stays whole; decimals as many as the
original had, more if needed so the new value does not read as the old one).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from review_harness.core.plant.expr import ExpressionError, evaluate
from review_harness.core.plant.mutators import register_mutator
from review_harness.core.plant.site import Site

Path_ = tuple[str | int, ...]


def walk(data: Any, path: Path_ = ()) -> Iterator[tuple[Path_, str, Any]]:
    """(path, key, value) of every field of `data`, depth first in document order."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield (*path, key), key, value
            yield from walk(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from walk(value, (*path, i))


def find_field(data: Any, names: list[str]) -> tuple[Path_, Any] | None:
    """The first field (in the order of `names`, then document order) with one of the names; a
    dotted name is a path (`placebo.p_value`)."""
    for name in names:
        head, _, rest = name.partition(".")
        for path, key, value in walk(data):
            if key != head:
                continue
            if rest:
                found = find_field(value, [rest]) if isinstance(value, dict) else None
                if found is not None:
                    return (*path, *found[0]), found[1]
                continue
            return path, value
    return None


def get(data: Any, path: Path_) -> Any:
    for part in path:
        data = data[part]
    return data


def put(data: Any, path: Path_, value: Any) -> None:
    get(data, path[:-1])[path[-1]] = value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _decimals(value: float) -> int:
    text = repr(float(value))
    return len(text.split(".")[1]) if "." in text and "e" not in text else 4


def written_like(new: float, old: Any) -> int | float:
    """`new` as the field `old` was written: whole, or rounded to as many decimals as it had
    (more when needed to differ from it)."""
    if isinstance(old, int) and not isinstance(old, bool):
        return int(round(new))
    places = max(1, _decimals(old)) if _is_number(old) else 4
    for extra in range(0, 6):
        value = round(new, places + extra)
        if value != old and (value != 0 or new == 0):
            return value
    return new


def field_line(name: str, value: Any) -> str:
    """How a field reads in the written JSON (`"ci_upper": 9.8`): the evidence quote."""
    return f"{json.dumps(name)}: {json.dumps(value, ensure_ascii=False)}"


@register_mutator("json_set")
def json_set(ctx, extra_values: Callable[[dict], dict[str, Any]] | None = None,
             show: Callable[[Any], str] | None = None) -> list[Site]:
    """`extra_values(data)`: more names for the expressions (a kind's facts about the input);
    `show(value)`: how the kind writes a number in its reviews, offered to the finding's
    templates as `shown_<name>` for every number (`shown_hi_new`)."""
    args = ctx.way.args
    text = ctx.input.files[ctx.target]
    data = json.loads(text)
    found: dict[str, tuple[Path_, Any]] = {}
    for name, names in (args.get("fields") or {}).items():
        hit = find_field(data, names if isinstance(names, list) else [names])
        if hit is not None:
            found[name] = hit
    values: dict[str, Any] = {name: value for name, (_, value) in found.items()}
    values |= {f"has_{name}": name in found for name in args.get("fields") or {}}
    if extra_values is not None:
        values |= extra_values(data)
    evidence_name = args.get("evidence") or next(iter(args.get("set") or {}), "")
    rng = ctx.rng(0)
    try:
        if args.get("where") and not evaluate(args["where"], values, rng):
            return []
        for name, expression in (args.get("values") or {}).items():
            values[name] = evaluate(expression, values, rng)
        changed: dict[str, Any] = {}
        for name, expression in (args.get("set") or {}).items():
            new = evaluate(expression, values | {f"{k}_new": v for k, v in changed.items()}, rng)
            if new is None:  # left as it is
                continue
            if not _is_number(new) and not isinstance(new, str):
                raise ExpressionError(f"set {name}: {expression!r} gave {new!r}")
            old = values.get(name)
            changed[name] = written_like(new, old) if _is_number(new) and name in found else new
        if evidence_name not in changed or (evidence_name in found and changed[evidence_name] == values[evidence_name]):
            return []
        if args.get("check") and not evaluate(args["check"], values | {f"{k}_new": v for k, v in changed.items()}):
            return []
    except (ExpressionError, KeyError):  # KeyError: a field the expressions need is not in this input
        return []
    adds: dict[str, str] = args.get("add") or {}
    for name, value in changed.items():
        if name in found:
            put(data, found[name][0], value)
            continue
        parent_name, _, key = adds.get(name, "").rpartition(".")
        parent = find_field(data, [parent_name]) if parent_name else None
        if parent is None or not isinstance(parent[1], dict):
            return []
        parent[1][key] = value
        found[name] = ((*parent[0], key), value)
    out = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    key = found[evidence_name][0][-1]
    evidence = field_line(str(key), changed[evidence_name])
    line = out[:out.find(evidence)].count("\n") + 1 if evidence in out else None
    new_values = {f"{k}_new": v for k, v in changed.items()}
    shown = {f"shown_{k}": show(v) for k, v in (values | new_values).items() if show and _is_number(v)}
    where = ", ".join(f"{found[k][0][-1]} {values.get(k, '(added)')} -> {v}" for k, v in changed.items())
    return [Site(files={ctx.target: out}, planted=evidence, planted_file=ctx.target, evidence=evidence,
                 evidence_file=ctx.target, line=line, where=where, values=values | new_values | shown)]
