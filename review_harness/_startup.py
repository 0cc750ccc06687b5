"""Ctrl-C before a review starts ends `inspect eval` with one line.

Python runs this module as it starts, through the `review_harness-startup.pth` file the package
installs in site-packages (setup.py puts it there, in regular and editable installs): before
Inspect's own imports, which take seconds and which Ctrl-C would otherwise end with a traceback
of some forty lines. Only for the `inspect eval`, `eval-set` and `eval-retry` commands (any
other program started with this Python is left as it is), it answers SIGINT with one line and the
shell's exit code for an interrupt (130); nothing has run then, so nothing is lost.

When Inspect loads the package's entry point (`review_harness._registry`, just before the run
starts) `release()` gives SIGINT back to Python's default: the run's event loop then answers
Ctrl-C itself (the run is cancelled and its log written), and the console hook says so in one
line (core/console.py). Standard library only: this is imported by every start of this Python.
"""

from __future__ import annotations

import os
import signal
import sys

LINE = "review-harness: interrupted before the review started (nothing was run)"
COMMANDS = ("eval", "eval-set", "eval-retry")


def eval_command(argv: list[str] | None = None) -> bool:
    """Whether this process is `inspect eval` (or eval-set, eval-retry)."""
    argv = sys.argv if argv is None else argv
    return bool(argv) and os.path.basename(argv[0]).removesuffix(".exe") == "inspect" and argv[1:2] != [] \
        and argv[1] in COMMANDS


def _interrupted(signum: int, frame: object) -> None:
    try:
        sys.stderr.write(LINE + "\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def install() -> bool:
    """Answer Ctrl-C with one line from now on (only in an `inspect eval` process whose SIGINT is
    still Python's default)."""
    if not eval_command() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    signal.signal(signal.SIGINT, _interrupted)
    return True


def release() -> None:
    """Give SIGINT back to Python's default (the run's event loop installs its own then)."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


install()
