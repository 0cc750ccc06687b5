"""The shape of the code base, read from its source with `ast` (nothing is imported to check it).

- No import cycle among the modules of `review_harness`. Every import statement counts: at module
  level, inside a function (a deferred import is still a dependency, only a hidden one) and under
  `if TYPE_CHECKING:` (two modules that each need the other's names are one module in two files).
  An import names the module it reads from (`from a.b import c` depends on `a.b.c` when that is a
  module, else on `a.b`); the packages above it that Python also initialises are not counted.
- No module of the core (`review_harness/core`) and not the generic command line
  (`review_harness/cli.py`) imports a review kind: kinds are reached through the kind registry.
- Only `review_harness/core/inspect_adapter.py` imports Inspect's private modules (a module path
  or a name starting with `_`), in the package and everywhere else in the repository.
- The task files hand their parameters to the task helper by name, never as `locals()`.
- The pattern reader refuses a key given twice, naming the file and the key.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from review_harness.core.kinds import KIND_MODULES
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.patterns import PatternTableError, read_pattern_table

PACKAGE = PROJECT_ROOT / "review_harness"
KIND_PACKAGES = sorted({module.rsplit(".", 1)[0] for module in KIND_MODULES.values()})
ADAPTER = "review_harness/core/inspect_adapter.py"
# the repository's Python outside the package too (tests, tasks, solvers, scorers, benchmarks, scripts)
SOURCE_FOLDERS = ("review_harness", "solvers", "scorers", "tasks", "tests", "benchmarks", "scripts")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported_names(path: Path, module: str | None = None) -> list[tuple[str, int]]:
    """(dotted name, line) of every import statement anywhere in the file, relative imports made
    absolute; `from a import b` gives `a.b` (a module or a name in `a`). `module`: the file's
    module name (default: from its place in the repository)."""
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            names += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return names


def package_module(name: str) -> str | None:
    """The module of review_harness an imported name is read from (the longest module prefix)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for module, path in MODULES.items():
        targets = {package_module(name) for name, _ in imported_names(path) if name.startswith("review_harness")}
        graph[module] = {t for t in targets if t and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle_and_only_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_sees_deferred_and_type_checking_imports(tmp_path):
    """The reader counts the imports that hid the last cycles: inside a function, under TYPE_CHECKING."""
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from review_harness.core.models import Severity\n"
              "def f():\n    from review_harness.core import paths\n    from . import gold\n")
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    names = {name for name, _ in imported_names(path, "review_harness.core.probe")}
    assert {"review_harness.core.models.Severity", "review_harness.core.paths", "review_harness.core.gold"} <= names


def test_no_import_cycle_among_the_package_modules():
    graph = import_graph()
    assert len(graph) > 100  # the whole package was read
    assert cycles(graph) == []


@pytest.mark.parametrize("path", sorted(PACKAGE.joinpath("core").rglob("*.py")) + [PACKAGE / "cli.py"],
                         ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_the_core_and_the_generic_cli_import_no_kind(path):
    kinds = tuple(f"{package}." for package in KIND_PACKAGES)
    offending = [f"line {line}: {name}" for name, line in imported_names(path) if f"{name}.".startswith(kinds)]
    assert offending == []


def private_inspect_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [f"line {node.lineno}: {name}" for name in names
                  if name.split(".")[0] == "inspect_ai" and any(part.startswith("_") for part in name.split("."))]
    return found


def test_private_inspect_imports_are_in_the_adapter_only():
    files = [p for folder in SOURCE_FOLDERS for p in sorted((PROJECT_ROOT / folder).rglob("*.py"))]
    outside = {str(p.relative_to(PROJECT_ROOT)): private_inspect_imports(p) for p in files
               if str(p.relative_to(PROJECT_ROOT)) != ADAPTER}
    assert {f: lines for f, lines in outside.items() if lines} == {}
    assert private_inspect_imports(PROJECT_ROOT / ADAPTER)  # the reader sees the adapter's own


def direct_parses(path: Path) -> list[int]:
    """Lines of `path` that call ast.parse (or compile to an AST) themselves."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "ast" and n.func.attr == "parse"]


def test_python_source_is_parsed_through_the_locked_parser_only():
    """CPython 3.11's parser fails at random when threads parse at once (python/cpython#106905:
    "AST constructor recursion depth mismatch"); the offline reviewers run in threads, so every parse
    goes through core/pysource.py, which holds a lock. A code check that called ast.parse itself
    failed a CI gold run this way."""
    found = {str(p.relative_to(PROJECT_ROOT)): direct_parses(p) for p in sorted(PACKAGE.rglob("*.py"))
             if p.name != "pysource.py"}
    assert {f: lines for f, lines in found.items() if lines} == {}
    assert direct_parses(PACKAGE / "core" / "pysource.py")  # the reader sees the one that may


@pytest.mark.parametrize("path", sorted((PROJECT_ROOT / "tasks").glob("*.py")), ids=lambda p: p.name)
def test_task_files_hand_their_parameters_over_by_name(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id in ("locals", "vars")]
    assert calls == []


def test_the_task_helper_names_a_parameter_the_task_did_not_hand_over():
    from review_harness.core.task import checked_parameters

    def a_task(document: str | None = None, fixtures: str = "ds", **unknown):
        raise AssertionError("never called")

    with pytest.raises(TypeError, match=r"^a_task: .*not handed over: fixtures\)$"):
        with checked_parameters("a_task", a_task, document=None, unknown={}):
            pass
    with pytest.raises(TypeError, match=r"not declared: extra"):
        with checked_parameters("a_task", a_task, document=None, fixtures="ds", unknown={}, extra=1):
            pass


# ---------------------------------------------------------------- the pattern reader


@pytest.mark.parametrize("text, key, line", [
    ("retry: 'retr(y|ies)'\ncache: 'cach'\nretry: 'again'\n", "retry", 3),
    ("certainty:\n  must: 'must'\n  should: 'should'\n  must: 'shall'\nother: 'x'\n", "must", 4),
])
def test_the_pattern_reader_refuses_a_key_given_twice_naming_file_and_key(tmp_path, text, key, line):
    path = tmp_path / "vocabulary.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PatternTableError) as raised:
        read_pattern_table(path)
    message = str(raised.value)
    assert "\n" not in message
    assert str(path) in message and f"duplicate key {key!r}" in message and message.endswith(f"at line {line}")


def test_the_same_name_in_two_groups_is_no_duplicate(tmp_path):
    path = tmp_path / "vocabulary.yaml"
    path.write_text("a:\n  must: 'must'\nb:\n  must: 'shall'\nmust: 'ought'\n", encoding="utf-8")
    table = read_pattern_table(path)
    assert table.a.must.pattern == "must" and table.b.must.pattern == "shall" and table.must.pattern == "ought"


def test_the_shipped_pattern_files_have_no_duplicate_key():
    """Every pattern file the project reads through the pattern reader loads under the strict reader."""
    readers = [p for p in PACKAGE.rglob("*.py") if "read_pattern_table(" in p.read_text(encoding="utf-8")]
    named = {m.group(1) for p in readers for m in re.finditer(r'read_pattern_table\([^)]*"([\w.]+\.yaml)"', p.read_text(encoding="utf-8"))}
    files = [p for name in named for p in (PROJECT_ROOT / "prompts").rglob(name)]
    assert files  # at least the design reviewer's vocabulary
    for path in files:
        assert len(read_pattern_table(path)) > 0
