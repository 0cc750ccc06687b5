"""Python parsing from worker threads (the offline rule engines run off the event loop)."""

import ast
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from review_harness.core.pysource import parse_python

# deep enough that the AST constructor's recursion counter moves a lot per parse
NESTED = "def f(x):\n" + "".join(f"{'    ' * (i + 1)}if x > {i}:\n" for i in range(40)) + "    " * 41 + "return [[[(x, {'k': x})]]]\n"


def test_parses_like_ast_parse():
    assert ast.dump(parse_python(NESTED)) == ast.dump(ast.parse(NESTED))
    assert isinstance(parse_python("a + 2 * b", mode="eval"), ast.Expression)


def test_a_syntax_error_is_raised_as_ast_parse_raises_it():
    with pytest.raises(SyntaxError):
        parse_python("def broken(:\n")


def test_threads_never_parse_at_the_same_time(monkeypatch):
    """Concurrent ast.parse calls fail at random on CPython 3.11 (python/cpython#106905), too
    rarely to provoke in a test: what is checked is that no two parses ever overlap."""
    real_parse, inside, overlaps = ast.parse, [], []

    def watched_parse(source, *args, **kwargs):
        inside.append(1)
        overlaps.append(len(inside))
        time.sleep(0.002)  # long enough that an unguarded second thread would enter meanwhile
        tree = real_parse(source, *args, **kwargs)
        inside.pop()
        return tree

    monkeypatch.setattr(ast, "parse", watched_parse)
    with ThreadPoolExecutor(max_workers=8) as pool:
        trees = list(pool.map(lambda _: parse_python(NESTED), range(80)))
    assert len(overlaps) == 80 and max(overlaps) == 1
    assert all(isinstance(tree.body[0], ast.FunctionDef) and tree.body[0].name == "f" for tree in trees)
