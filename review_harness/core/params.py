"""Task parameters (`-T name=value`): checked up front, with one-line errors naming the parameter."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from inspect_ai._util.error import PrerequisiteError  # inspect prints it as one line, no traceback

from review_harness.core.paths import PROJECT_ROOT

TRUE_WORDS = ("true", "yes", "1", "on")
FALSE_WORDS = ("false", "no", "0", "off")


def choice(name: str, value: Any, allowed: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    text = str(value).strip().lower()
    if text not in allowed:
        raise PrerequisiteError(
            f"-T {name}={value}: unknown {name}; choose one of: {', '.join(allowed)}"
        )
    return text


def as_flag(name: str, value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise PrerequisiteError(f"-T {name}={value}: expected true or false")


def reject_unknown_params(unknown: dict[str, Any], known: Iterable[str]) -> None:
    """Inspect only warns about a -T name the task does not take; a typo like -T moed=quick
    would silently review with the default, so it is an error here."""
    unknown = {k: v for k, v in unknown.items() if k != "model"}  # inspect always passes model
    if not unknown:
        return
    names = [k for k in known if k != "unknown"]
    name = sorted(unknown)[0]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean -T {close[0]}?" if close else ""
    raise PrerequisiteError(
        f"-T {name}={unknown[name]}: unknown task parameter.{hint} Known: {', '.join(names)}"
    )


def resolve_user_path(path: str) -> Path:
    """A relative path means relative to where the user ran the command. `inspect eval`
    changes into the task file's folder before calling the task, so look in the shell's
    working directory ($PWD) first, then the current one, then the project root."""
    given = Path(path).expanduser()
    if given.is_absolute():
        return given
    bases = [Path(os.environ["PWD"])] if os.environ.get("PWD") else []
    bases += [Path.cwd(), PROJECT_ROOT]
    for base in bases:
        if (base / given).exists():
            return base / given
    return given  # does not exist anywhere: the error names it as the user wrote it
