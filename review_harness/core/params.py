"""Task parameters (`-T name=value`): checked up front, with one-line errors naming the parameter."""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from review_harness.core.inspect_adapter import PrerequisiteError

from review_harness.core.files import folder_problem
from review_harness.core.paths import PROJECT_ROOT, user_dir
from review_harness.core.redact import redact_urls

TRUE_WORDS = ("true", "yes", "1", "on")
FALSE_WORDS = ("false", "no", "0", "off")


def as_typed(name: str, value: Any) -> Any:
    """A text parameter as the user typed it. Inspect reads each `-T` value as YAML, so `off`
    arrives as False, `0123` as the number 83 and `1.10` as 1.1: the command line's own text
    is taken back for such values (lists, from comma-separated values, stay lists)."""
    if value is None or isinstance(value, (str, list, tuple)):
        return value
    typed = command_line_task_args().get(name)
    return typed if typed is not None else str(value)


def choice(name: str, value: Any, allowed: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):  # `-T memory=off` arrives as False
        typed = command_line_task_args().get(name)
        words = (("on", "true", "yes") if value else ("off", "false", "no"))
        value = typed if typed is not None else next((w for w in words if w in allowed), str(value))
    text = str(as_typed(name, value)).strip().lower()
    if text not in allowed:
        raise PrerequisiteError(
            f"-T {name}={value}: unknown {name}; choose one of: {', '.join(allowed)}"
        )
    return text


def flag_value(value: Any) -> bool | None:
    """A bool, or a flag word (true/yes/1/on, false/no/0/off) as a bool; None for anything else."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    return None


def as_flag(name: str, value: Any) -> bool | None:
    if value is None:
        return None
    flag = flag_value(value)
    if flag is None:
        raise PrerequisiteError(f"-T {name}={value}: expected true or false")
    return flag


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


TASK_ARG_OPTIONS = ("-T", "--task-arg")


def command_line_task_args(argv: list[str] | None = None) -> dict[str, str]:
    """The raw `-T name=value` pairs of an `inspect eval` command line (as typed: Inspect turns
    an empty value into None before the task sees it, the same as a parameter not given)."""
    argv = sys.argv if argv is None else argv
    if Path(argv[0]).name != "inspect" or "eval" not in argv[1:3]:
        return {}
    raw: list[str] = []
    for n, arg in enumerate(argv):
        if arg in TASK_ARG_OPTIONS and n + 1 < len(argv):
            raw.append(argv[n + 1])
        elif arg.startswith("--task-arg="):
            raw.append(arg.removeprefix("--task-arg="))
        elif arg.startswith("-T") and not arg.startswith("--"):  # -Tname=value
            raw.append(arg[2:].removeprefix("="))
    return {name.replace("-", "_"): value for name, _, value in (a.partition("=") for a in raw if "=" in a)}


def is_empty_value(text: str) -> bool:
    """What Inspect reads as no value: nothing, blanks, or a YAML null (`~`, `null`)."""
    return text.strip() in ("", "~", "null", "Null", "NULL", "''", '""')


def reject_empty_params(arguments: dict[str, Any], argv: list[str] | None = None) -> None:
    """A parameter given without a value (`-T document=`) is an error naming it, in every kind:
    Inspect passes it on as None, which a task would otherwise read as 'not given' and run
    with its default (all fixtures for an empty document, no domain for an empty domain)."""
    typed = command_line_task_args(argv)
    for name, value in arguments.items():
        empty = (isinstance(value, str) and not value.strip()) or (value is None and name in typed
                                                                   and is_empty_value(typed[name]))
        if empty:
            raise PrerequisiteError(f"-T {name}={typed.get(name, value or '')}: empty value; "
                                    f"give a value, or leave -T {name} out for its default")


def resolve_user_path(path: str) -> Path:
    """A relative path means relative to where the user ran the command. `inspect eval`
    changes into the task file's folder before calling the task, so look in the user's folder
    (`user_dir`) first, then the current one, then the project root."""
    given = Path(path).expanduser()
    if given.is_absolute():
        return given
    bases = [user_dir(), Path.cwd(), PROJECT_ROOT]
    for base in bases:
        if (base / given).exists():
            return base / given
    return given  # does not exist anywhere: the error names it as the user wrote it


# a value that names a file: it starts like a path, or ends in a file suffix, or has a folder
# separator and reads as no sentence (text given inline ends its sentences, or spans lines)
_PATH_START = re.compile(r"^(~|\.{1,2})?[/\\]|^[A-Za-z]:[/\\]")
_FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_SENTENCE_END = re.compile(r"[.!?:;)]\s|[.!?]$")


def looks_like_path(value: str) -> bool:
    """Whether a -T value that could be a path or text reads as a path (`docs/design v2`,
    `./plan`, `design.md`), so that one that does not exist is an error and never reviewed as
    text; text given inline has a line break, or reads as sentences."""
    text = value.strip()
    if not text or "\n" in text:
        return False
    if _PATH_START.match(text) or _FILE_SUFFIX.search(text):
        return True
    return ("/" in text or "\\" in text) and not _SENTENCE_END.search(text) and len(text) <= 255


def as_number(name: str, value: Any, *, integer: bool = False, positive: bool = True) -> float | int | None:
    """A numeric -T value (inspect passes `-T x=abc` through as the string 'abc')."""
    if value is None:
        return None
    kind = "a whole number" if integer else "a number"
    if isinstance(value, bool):
        raise PrerequisiteError(f"-T {name}={value}: expected {kind}")
    try:
        number = int(str(value).strip()) if integer else float(value)
    except (TypeError, ValueError):
        raise PrerequisiteError(f"-T {name}={value}: expected {kind}") from None
    if number != number or (positive and number <= 0):  # NaN, zero or negative
        raise PrerequisiteError(f"-T {name}={value}: expected {kind} greater than 0")
    return number


def within_range(name: str, value: float, low: float, high: float, unit: str = "seconds") -> float:
    """A number the kind's data bounds (e.g. design's persona timeout, 60-120 s)."""
    if not low <= value <= high:
        raise PrerequisiteError(f"-T {name}={value:g}: must be between {low:g} and {high:g} {unit}")
    return value


def writable_folder(name: str, value: str | None) -> Path | None:
    """A folder the run writes into, created up front so a bad one stops the run before any
    review: relative to where the user ran the command (see `resolve_user_path`)."""
    if value is None:
        return None
    folder = resolve_user_path(str(value))
    if not folder.is_absolute():  # a new folder: relative to where the user ran the command
        folder = user_dir() / folder
    problem = folder_problem(folder)
    if problem is not None:
        raise PrerequisiteError(f"-T {name}={value}: {problem}")
    return folder


def as_list(name: str, value: Any, expected: str) -> list[str]:
    """One value or several, comma-separated: inspect turns `-T name=a,b` into a list. None left
    after blanks are dropped is one line ending in `expected`."""
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    values = [str(item).strip() for item in items if str(item).strip()]
    if not values:
        raise PrerequisiteError(f"-T {name}={value}: {expected}")
    return values


def as_paths(name: str, value: Any) -> list[str]:
    """One path or several: inspect turns `-T name=a.md,b.md` into a list."""
    return as_list(name, value, "expected a path (or several, comma-separated)")


MODEL_HELP = (
    "no model to review with: pass --model offline/rules (the embedded offline reviewer) or a "
    "provider model such as --model anthropic/<name>, or set INSPECT_EVAL_MODEL (the project's .env "
    "sets it, but .env is only found from the project folder or below)"
)


def require_model() -> None:
    """Fail before any sample runs when inspect resolved no model ('none/none'), which would
    otherwise defer every review and exit 0. A task built outside an eval (the Python API,
    `eval(task, model=...)`) has no active model yet and passes: its model comes later."""
    from inspect_ai.model import get_model

    try:
        model = get_model()
    except ValueError:  # no active model and nothing in the environment: not inside an eval
        return
    if model.api.__class__.__name__ == "NoModel" or str(model) in ("none", "none/none"):
        raise PrerequisiteError(MODEL_HELP)


@contextmanager
def loud_errors(who: str) -> Iterator[None]:
    """Inspect prints a PrerequisiteError on stdout, and with `--display none` not at all; a
    script or CI run must still see why nothing ran, so there the message also goes to stderr.
    Inspect prints it through rich's console markup, which would eat anything in brackets
    (`pip install -e ".[documents]"` would lose `[documents]`): the message is escaped for it."""
    from inspect_ai.util import display_type
    from rich.markup import escape

    try:
        yield
    except PrerequisiteError as ex:
        if isinstance(ex.message, str):
            ex.message = redact_urls(ex.message)  # a URL's credentials never reach the terminal or the log
        if display_type() == "none":
            print(f"{who}: {ex.message}", file=sys.stderr)
        if isinstance(ex.message, str):
            ex.message = escape(ex.message)
        raise
