"""The package's module-level imports form no cycle, and no core module imports a kind (the
readings the kinds share, such as a sentence's mood, live in the core and import nothing of a kind).
Imports inside functions are deferred on purpose and are not edges; TYPE_CHECKING blocks are skipped."""

from __future__ import annotations

import ast
from pathlib import Path

from review_harness.core.kinds import KIND_MODULES

PACKAGE = Path(__file__).resolve().parent.parent / "review_harness"


def _graph() -> dict[str, set[str]]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    graph = {}
    for name, path in modules.items():
        deps = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    deps.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for dep in sorted(graph[module]):
            if state.get(dep) == 1:
                found.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return found


def test_no_import_cycle_between_modules():
    graph = _graph()
    assert len(graph) > 100 and "review_harness.core.mood" in graph
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_one():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_no_core_module_imports_a_kind():
    kinds = {module.split(".")[1] for module in KIND_MODULES.values()}
    offending = [(m, d) for m, deps in _graph().items() if m.startswith("review_harness.core")
                 for d in deps if d.split(".")[1] in kinds]
    assert offending == []
