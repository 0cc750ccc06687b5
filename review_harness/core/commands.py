"""What every `review-harness` command shares: one error for bad input (printed as one line,
exit code 2), the conversion of a kind's own expected errors into it, and the checks of files a
command reads or writes. Kept free of heavy imports: the CLI loads it at start-up."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PROG = "review-harness"


class CommandError(ValueError):
    """Bad input to a command; printed as one line (`review-harness: ...`, or the command group
    `who` names), exit code 2."""

    def __init__(self, message: str, who: str = PROG) -> None:
        from review_harness.core.redact import redact_urls  # stdlib only: start-up stays light

        super().__init__(redact_urls(message))  # a URL's credentials never reach the terminal
        self.who = who


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
