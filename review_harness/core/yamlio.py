"""Reading YAML data files into pydantic models with errors that name the file and key path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError


class YamlReadError(ValueError):
    """The file is missing or not valid YAML. `problem` says what, `line` where (1-based)."""

    def __init__(self, path: Path, problem: str, line: int | None = None, missing: bool = False):
        self.path, self.problem, self.line, self.missing = path, problem, line, missing
        super().__init__(f"{path}: {problem}" + (f" at line {line}" if line else ""))


def read_yaml(path: str | Path) -> Any:
    path = Path(path)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise YamlReadError(path, "not found", missing=True) from None
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        raise YamlReadError(
            path, getattr(ex, "problem", None) or "parse error", mark.line + 1 if mark else None
        ) from None


def first_error(ex: ValidationError) -> tuple[str, str, int]:
    """(key path, message, how many more errors) of a validation error, for one-line messages."""
    errors = ex.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return where, first["msg"].removeprefix("Value error, "), len(errors) - 1
