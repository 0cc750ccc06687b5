"""Two Python checks of the offline quality reviewer that read a whole module's syntax tree.

- Conditions that are always true: a method or function object tested as a boolean
  (`if order.is_paid:` where `is_paid` is a method of a class the change defines, `while ready:`
  where `ready` is a function the module defines). A function object is always truthy, so the
  branch always runs (or, under `not`, never does): the call's parentheses are missing. Only
  methods of the change's modules (never assigned as attributes, not properties) and functions of
  the module itself (never rebound) are judged.
- Tests that never run: pytest collects functions named `test*` at module level and methods
  named `test*` of classes named `Test*` (without `__init__`) or of unittest TestCase classes, in
  files named `test_*.py` or `*_test.py`. A test function defined under another name (and used
  nowhere), nested in another function, redefined later under the same name, in a class pytest
  skips, or in a file pytest does not collect, is never run.

Both report only on lines the change adds.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from review_harness.core.models import Severity

if TYPE_CHECKING:
    from review_harness.code.fileview import FileView, Result

PROPERTY_DECORATORS = {"property", "cached_property", "setter", "getter", "deleter", "abstractproperty"}
TEST_FILE = re.compile(r"(^test_.*|.*_test)\.py$")
ASSERT_CALL = re.compile(r"^(assert\w*|fail\w*)$")


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        while isinstance(target, ast.Attribute):
            names.add(target.attr)
            target = target.value
        if isinstance(target, ast.Name):
            names.add(target.id)
    return names


def _rebound(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(attribute names assigned anywhere, plain names bound as values: assignments, arguments,
    imports) of a module."""
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del))}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    names |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
              for a in n.posonlyargs + n.args + n.kwonlyargs + [x for x in (n.vararg, n.kwarg) if x]}
    names |= {alias.asname or alias.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
              for alias in n.names}
    return attributes, names


def change_methods(trees: list[ast.Module]) -> set[str]:
    """The method names the change's modules define (properties left out) that none of them
    assigns as an attribute or binds as a value in a class body: a method object, whatever the
    object it is read from."""
    methods: set[str] = set()
    values: set[str] = set()  # names bound as values in a class body (they may shadow a method), properties
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    (values if _decorator_names(item) & PROPERTY_DECORATORS else methods).add(item.name)
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    values |= {t.id for t in targets if isinstance(t, ast.Name)}
        values |= _rebound(tree)[0]
    return methods - values


def _tested(node: ast.AST) -> Iterator[ast.expr]:
    """The expressions a condition tests for truth (through `not`, `and` and `or`)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield from _tested(node.operand)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _tested(value)
    else:
        yield node


def _conditions(tree: ast.Module) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            yield node.test
        elif isinstance(node, ast.comprehension):
            yield from node.ifs


def always_true_conditions(view: FileView, tree: ast.Module, result: Result, methods: set[str]) -> None:
    """`methods`: the change's method names (see `change_methods`); functions are this module's."""
    functions = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} - _rebound(tree)[1]
    for condition in _conditions(tree):
        for tested in _tested(condition):
            if isinstance(tested, ast.Attribute) and tested.attr in methods:
                shown = f"{ast.unparse(tested)}"
                what = f"the method {tested.attr}"
            elif isinstance(tested, ast.Name) and tested.id in functions:
                shown, what = tested.id, f"the function {tested.id}"
            else:
                continue
            result.add(view, tested.lineno, Severity.CRITICAL, "bug",
                       f"The condition tests `{shown}` without calling it: {what} is an object that is always true, "
                       "so the branch does not depend on its result.",
                       f"Call it: `{shown}()`.")


# ---------------------------------------------------------------------------- tests that never run


def _asserts(node: ast.AST) -> bool:
    """Whether a function body checks something (assert, self.assertX, pytest.raises, pytest.fail)."""
    for child in ast.walk(node):
        if isinstance(child, ast.Assert):
            return True
        if isinstance(child, ast.Call):
            func = child.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if ASSERT_CALL.match(name) or name in ("raises", "warns"):
                return True
    return False


def _used_names(tree: ast.Module) -> set[str]:
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    used |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return used


def _is_test_case(node: ast.ClassDef) -> bool:
    return any((b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")).endswith("TestCase") for b in node.bases)


def uncollected_tests(view: FileView, tree: ast.Module, result: Result) -> None:
    name = PurePosixPath(view.path).name
    in_tests = any(part in ("tests", "test") for part in PurePosixPath(view.path).parts[:-1])
    collected_file = bool(TEST_FILE.match(name))
    if not collected_file and not in_tests:
        return
    used = _used_names(tree)

    def report(node: ast.AST, why: str) -> None:
        result.add(view, node.lineno, Severity.IMPORTANT, "tests",
                   f"{node.name} never runs: {why}, so its checks are never made.",  # type: ignore[attr-defined]
                   "Name it test_... at module level (or in a Test... class) so pytest collects it.")

    top = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not collected_file:
        tests = [n for n in top if n.name.startswith("test") and _asserts(n)]
        for node in tests:
            if name not in ("conftest.py", "__init__.py"):
                report(node, f"pytest does not collect {name} (by default it collects test_*.py and *_test.py files)")
        return
    seen: dict[str, ast.AST] = {}
    for node in top:
        if node.name in seen and node.name.startswith("test"):
            earlier = seen[node.name]
            shadowed = earlier if earlier.lineno in view.added else node
            result.add(view, shadowed.lineno, Severity.IMPORTANT, "tests",
                       f"{node.name} is defined twice (lines {earlier.lineno} and {node.lineno}): the second definition "
                       f"replaces the first, so the test at line {earlier.lineno} never runs.",
                       "Give each test its own name.")
        seen[node.name] = node
        if not node.name.startswith("test") and not node.decorator_list and node.name not in used and _asserts(node):
            report(node, "pytest collects only functions whose names start with test")
        for inner in ast.walk(node):
            if inner is not node and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and inner.name.startswith("test") and inner.name not in used and _asserts(inner):
                report(inner, f"it is defined inside {node.name}, where pytest never looks for tests")
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        unittest = _is_test_case(cls)
        skipped = not unittest and (not cls.name.startswith("Test") or any(m.name == "__init__" for m in methods))
        for method in methods:
            if not _asserts(method) or method.name in used:
                continue
            if skipped and method.name.startswith("test"):
                why = (f"pytest skips class {cls.name} (it has an __init__)" if cls.name.startswith("Test")
                       else f"pytest collects only classes named Test..., not {cls.name}")
                report(method, why)
            elif not method.name.startswith("test") and not method.name.startswith("_") and not method.decorator_list \
                    and (unittest or cls.name.startswith("Test")) and method.name not in ("setUp", "tearDown"):
                report(method, "only methods whose names start with test are collected")
