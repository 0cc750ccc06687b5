"""What every `review-harness` command shares: one error for bad input (printed as one line,
exit code 2), the conversion of a kind's own expected errors into it, and the checks of files a
command reads or writes. Kept free of heavy imports: the CLI loads it at start-up."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar
from contextlib import contextmanager
from pathlib import Path

from review_harness.core.paths import user_dir

PROG = "review-harness"
T = TypeVar("T")


def shown_path(path: str | Path) -> str:
    """A path as the user would type it: relative to where they are when it is below it."""
    path = str(path)
    if "://" in path:
        return path
    here = user_dir()
    try:
        return str(Path(path).resolve().relative_to(here.resolve()))
    except ValueError:
        return path


class CommandError(ValueError):
    """Bad input to a command; printed as one line (`review-harness: ...`, or the command group
    `who` names), exit code 2."""

    def __init__(self, message: str, who: str = PROG) -> None:
        from review_harness.core.redact import redact_urls  # stdlib only: start-up stays light

        super().__init__(redact_urls(message))  # a URL's credentials never reach the terminal
        self.who = who


class KindFileError(ValueError):
    """A file a kind reads for a command (its rubric, its personas) is missing or malformed. A kind's
    own error subclasses it, so a generic command shows it as one line without importing the kind."""


@contextmanager
def one_line(*errors: type[Exception], who: str = PROG) -> Iterator[None]:
    """Inside, the expected errors of a command (a kind's own error types, which the CLI does
    not import at start-up) become a `CommandError` with the same message. An `OSError` names
    its file and the reason, and so does the core reader's `FileReadError`."""
    from review_harness.core.files import FileReadError  # stdlib only: start-up stays light

    try:
        yield
    except CommandError:
        raise
    except (FileReadError, *errors) as ex:
        raise CommandError(str(ex), who) from None
    except OSError as ex:
        if not ex.filename:
            raise
        raise CommandError(f"{ex.filename}: {ex.strerror or ex}", who) from None


def text_file(option: str, path: str | Path) -> Path:
    """A file the command reads as text, checked by the core's one reader: it exists, is a file (a
    folder or a named pipe is named as such, and a pipe is never opened), and is UTF-8 text (a
    binary file is named as such instead of failing in a parser)."""
    from review_harness.core.files import FileReadError, read_text  # only when a command reads a file

    try:
        read_text(path, f"{option} {path}")
    except FileReadError as ex:
        raise CommandError(str(ex)) from None
    return Path(path)


def writable_file(option: str, path: str | Path) -> Path:
    """A file the command writes: its folder exists (or can be made) and is writable, and the
    path is not a folder. Checked before any work is done."""
    from review_harness.core.files import folder_problem  # only when a command writes: start-up stays small

    from review_harness.core.files import special_file

    path = Path(path)
    if path.is_dir():
        raise CommandError(f"{option} {path}: is a folder; give a file name")
    if special_file(path):  # never opened for writing: a named pipe would block
        raise CommandError(f"{option} {path}: is {special_file(path)}, not a file; give a file name")
    problem = folder_problem(path.parent)
    if problem is None and path.exists() and not os.access(path, os.W_OK):
        problem = "not writable"
    if problem is not None:
        raise CommandError(f"{option} {path}: {problem}")
    return path


def progress(items: Iterable[T], label: str, total: int | None = None, every: float = 5.0) -> Iterator[T]:
    """The items, saying on stderr how far a long command has got: '{label}: 1200/5000 (24%),
    40 s'. At a terminal one line is rewritten in place; elsewhere (a CI log, a pipe) a line
    every `every` seconds and one at the end. Nothing on stdout, so a command's output stays
    what it was."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    tty = sys.stderr.isatty()
    start = last = time.monotonic()
    done = said = 0

    def say(end: str) -> None:
        nonlocal said
        said = done
        of = f"/{total} ({100 * done // total}%)" if total else ""
        text = f"{PROG} {label}: {done}{of}, {time.monotonic() - start:.0f} s"
        print(("\r" + text if tty else text), end=end, file=sys.stderr, flush=True)

    for item in items:
        yield item
        done += 1
        now = time.monotonic()
        if now - last >= (0.5 if tty else every):
            last = now
            say("" if tty else "\n")
    if tty and said:
        say("\n")  # the last count, and the line ended
    elif done and said != done and time.monotonic() - start >= every:
        say("\n")
