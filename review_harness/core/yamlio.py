"""Reading YAML (and JSON) data files into pydantic models with errors that name the file and key path.
Every file goes through the core's one reader (`core/files.read_text`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from review_harness.core.files import FileReadError, read_text

M = TypeVar("M", bound=BaseModel)

NESTED_TOO_DEEPLY = "nested too deeply to read (lists or mappings inside each other hundreds of levels deep)"


def read_json(path: str | Path, error: type[Exception], label: str = "") -> Any:
    """A JSON file a user hands in (a baseline, an index, results), read by the core's one reader;
    any problem is `error` with one line naming the file after `label`."""
    prefix = f"{label} " if label else ""
    try:
        text = read_text(path)
    except FileReadError as ex:
        raise error(f"{prefix}{ex}") from None
    if not text.strip():
        raise error(f"{prefix}{path}: the file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as ex:
        raise error(f"{prefix}{path}: not valid JSON ({ex.msg} at line {ex.lineno} column {ex.colno})") from None
    except RecursionError:
        raise error(f"{prefix}{path}: {NESTED_TOO_DEEPLY}") from None


class YamlReadError(ValueError):
    """The file is missing or not valid YAML. `problem` says what, `line` where (1-based)."""

    def __init__(self, path: Path, problem: str, line: int | None = None, missing: bool = False,
                 syntax: bool = False):
        self.path, self.problem, self.line, self.missing, self.syntax = path, problem, line, missing, syntax
        super().__init__(f"{path}: {problem}" + (f" at line {line}" if line else ""))


class _UniqueKeyLoader(yaml.SafeLoader):
    """The safe loader, refusing a mapping that names one key twice (YAML keeps the last value,
    so the first would be lost without a word)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (a second value would replace the first)", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def read_yaml(path: str | Path, unique_keys: bool = False) -> Any:
    """A YAML file a user or the project hands in, read by the core's one reader: a missing file,
    a folder, a named pipe, binary data, text that is not UTF-8, a YAML error or pathological
    nesting is a `YamlReadError` (one line naming the file). With `unique_keys`, a key given twice
    in one mapping is such an error too, naming the key and its second line."""
    path = Path(path)
    try:
        text = read_text(path)
    except FileReadError as ex:
        missing = ex.problem == "no such file"
        raise YamlReadError(path, "not found" if missing else ex.problem, missing=missing) from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader) if unique_keys else yaml.safe_load(text)
    except RecursionError:
        raise YamlReadError(path, NESTED_TOO_DEEPLY) from None
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        raise YamlReadError(
            path, getattr(ex, "problem", None) or "parse error", mark.line + 1 if mark else None, syntax=True
        ) from None


def read_mapping(path: str | Path, error: type[Exception], label: str = "", expected: str = "a mapping",
                 allow_empty: bool = False, unique_keys: bool = False) -> dict[str, Any]:
    """A YAML file whose top level is a mapping. A missing or unparsable file, or any other top
    level, is `error` with one line naming the file after `label` ('checks table <path>: ...');
    an empty file is {} when `allow_empty`, else a wrong top level too; `unique_keys`: as read_yaml."""
    prefix = f"{label} " if label else ""
    try:
        raw = read_yaml(path, unique_keys)
    except YamlReadError as ex:
        raise error(f"{prefix}{ex}") from None
    if raw is None and allow_empty:
        return {}
    if not isinstance(raw, dict):
        raise error(f"{prefix}{path}: expected {expected}")
    return raw


def first_error(ex: ValidationError) -> tuple[str, str, int]:
    """(key path, message, how many more errors) of a validation error, for one-line messages."""
    errors = ex.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return where, first["msg"].removeprefix("Value error, "), len(errors) - 1


def invalid_message(label: str, ex: ValidationError, strip: str = "") -> str:
    """'<label> is invalid: <key path>: <message> (and N more)' for a validation error; `strip`
    drops a wrapper key the file itself does not have from the front of the path."""
    where, message, more = first_error(ex)
    if strip and where.startswith(strip):
        where = where[len(strip):] or "(top level)"
    return f"{label} is invalid: {where}: {message}" + (f" (and {more} more)" if more else "")


def read_model(path: str | Path, model: type[M], label: str, error: type[Exception],
               wrap: Callable[[Any], Any] | None = None, strip: str = "") -> M:
    """A YAML file validated into a pydantic model; any problem is `error` with one line that
    names the file (`label`) and, for a schema error, the key path."""
    path = Path(path)
    try:
        raw = read_yaml(path)
    except YamlReadError as ex:  # the label names the file: the path is not said twice
        raise error(f"{label}: {ex.problem}" + (f" at line {ex.line}" if ex.line else "")) from None
    try:
        return model.model_validate(wrap(raw) if wrap else raw)
    except ValidationError as ex:
        raise error(invalid_message(label, ex, strip)) from None
