"""Parsing Python source from the offline rule engines, which run in worker threads.

CPython 3.11's AST constructor keeps its recursion depth in interpreter-wide state, so two
threads parsing at once can fail at random with "SystemError: AST constructor recursion depth
mismatch" (python/cpython#106905). Every parse here holds one lock: parsing is fast, and a
reviewer that fails at random is worse than one that waits a millisecond.
"""

from __future__ import annotations

import ast
import threading
from typing import Literal

_PARSE_LOCK = threading.Lock()


def parse_python(source: str, mode: Literal["exec", "eval"] = "exec") -> ast.AST:
    """`ast.parse(source, mode=mode)`, one thread at a time (raises SyntaxError as ast.parse does)."""
    with _PARSE_LOCK:
        return ast.parse(source, mode=mode)
