"""Quality rules of the offline reviewer that read behaviour, not only syntax: what a change does
to the paths through a function, to the other definitions and callers of a function whose
signature it changes, and to the public names of a module.

- A check skipped by a suppressed exception: inside `with suppress(E):`, a check that raises
  (`if ...: raise`) after a statement whose call can raise E (for StopIteration: `next()`, or a
  function of the same scope that calls it). When E is raised first, the block is left and the
  check never runs, which is the case it guards.
- A dispatch value overwritten on an unrelated condition: a variable computed from one parameter
  (`arg_count = len(args)`) and compared to choose a path (`if arg_count == 2:`) is set to a
  constant under a condition that reads neither it nor that parameter (`if len(kwargs) > 1:
  arg_count = 3`): every call that meets the condition takes that path whatever the parameter holds.
- A condition made constant: `or True`, `and False`, a literal tested by `if`, `elif` or `assert`.
- A signature changed while its other definitions are not: a parameter the change adds to a
  function (its old definition removed) and passes by keyword, where another definition of that
  function in the change's files (an override in a subclass) does not take it by name; and a
  parameter the change removes that a call in the shown lines still passes.
- A public name removed: a top-level public function or class of a module the change deletes and
  defines nowhere else in the change, with no deprecation warning added.

The rules read a whole file's syntax tree, or, for an excerpt, the fragments of it that parse (the
definitions shown whole); they return (line, severity, category, description, fix) for the caller to
keep on the lines the change adds. Severity names are plain strings so this module imports nothing
of the rule engine.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from review_harness.core.pysource import parse_python

Finding = tuple[int, str, str, str, str]  # (line, severity, category, description, fix)

DEF_START = re.compile(r"^(\s*)(?:async\s+def|def|class)\s")
TOP_DEF = re.compile(r"^(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(|^class\s+([A-Za-z]\w*)\b")
DEF_NAME = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\((.*)$")
DEPRECATION = re.compile(r"deprecat|warnings\.warn", re.IGNORECASE)


# ---------------------------------------------------------------------------- fragments


def fragments(lines: dict[int, str], whole: bool) -> list[ast.Module]:
    """The syntax trees of what is shown of a file, with the file's own line numbers: the whole
    file, or, for an excerpt, each definition shown whole (from its first line to the last line
    that still parses) in each run of consecutive lines."""
    if not lines:
        return []
    if whole:
        try:
            return [parse_python("\n".join(lines.get(n, "") for n in range(1, max(lines) + 1)))]
        except SyntaxError:
            pass
    trees: list[ast.Module] = []
    numbers = sorted(lines)
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    for run in runs:
        covered = 0
        for i, n in enumerate(run):
            if n <= covered or not DEF_START.match(lines[n]):
                continue
            tree = _parse_from(lines, run[i:])
            if tree is not None:
                trees.append(tree)
                covered = max((getattr(node, "end_lineno", 0) or 0) for node in tree.body)
    return trees


def _parse_from(lines: dict[int, str], run: list[int]) -> ast.Module | None:
    indent = len(lines[run[0]]) - len(lines[run[0]].lstrip())
    # the definition ends before the next line at its indentation or less (blank lines aside)
    end = len(run)
    for k in range(1, len(run)):
        text = lines[run[k]]
        if text.strip() and len(text) - len(text.lstrip()) <= indent and not text.lstrip().startswith((")", "]", "}")):
            if not re.match(r"\s*@", text):
                end = k
                break
    for stop in range(end, 0, -1):
        chunk = [lines[n][indent:] if lines[n][:indent].strip() == "" else lines[n] for n in run[:stop]]
        try:
            tree = parse_python(textwrap.dedent("\n".join(chunk)))
        except SyntaxError:
            continue
        if not tree.body:
            return None
        ast.increment_lineno(tree, run[0] - 1)
        return tree
    return None


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    return (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _called(node: ast.AST) -> set[str]:
    out = set()
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        target = call.func
        if isinstance(target, ast.Attribute):
            out.add(target.attr)
        elif isinstance(target, ast.Name):
            out.add(target.id)
    return out


# ---------------------------------------------------------------------------- suppressed checks


def _suppressed(item: ast.withitem) -> set[str]:
    call = item.context_expr
    if not isinstance(call, ast.Call):
        return set()
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    if name != "suppress":
        return set()
    return {a.attr if isinstance(a, ast.Attribute) else getattr(a, "id", "") for a in call.args}


def suppressed_checks(tree: ast.Module) -> list[Finding]:
    findings: list[Finding] = []
    for func in _functions(tree):
        # local functions that can raise StopIteration (they call next())
        raisers = {f.name for f in _functions(func) if f is not func and "next" in _called(f)}
        for node in ast.walk(func):
            if not isinstance(node, ast.With):
                continue
            caught = set().union(*(_suppressed(item) for item in node.items))
            if not caught:
                continue
            may_raise: tuple[int, str] | None = None
            for stmt in node.body:
                called = _called(stmt)
                if may_raise is not None and isinstance(stmt, ast.If) and any(isinstance(n, ast.Raise) for n in ast.walk(stmt)):
                    line, what = may_raise
                    exc = " or ".join(sorted(caught))
                    findings.append((stmt.lineno, "Important", "bug",
                                     f"This check runs inside `suppress({exc})` after {what} (line {line}), which raises "
                                     f"{exc} when its input runs out: the block is then left and the check is skipped, "
                                     f"in the very case it guards.",
                                     "Make the check after the suppressed block (or before the calls that can raise), "
                                     "so it runs on every path."))
                    break
                if "StopIteration" in caught:
                    hit = sorted((called & raisers) | ({"next"} & called))
                else:
                    hit = sorted(called)
                if hit and may_raise is None:
                    may_raise = (stmt.lineno, f"`{hit[0]}()`")
    return findings


# ---------------------------------------------------------------------------- dispatch overwritten


def _params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = func.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    return names | {x.arg for x in (a.vararg, a.kwarg) if x is not None}


def overwritten_dispatch(tree: ast.Module) -> list[Finding]:
    findings: list[Finding] = []
    for func in _functions(tree):
        params = _params(func)
        derived: dict[str, tuple[int, set[str]]] = {}
        for stmt in func.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                used = _names(stmt.value) & params
                if used and stmt.targets[0].id not in derived:
                    derived[stmt.targets[0].id] = (stmt.lineno, used)
        compared = {n.left.id for n in ast.walk(func) if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name)
                    and all(isinstance(c, ast.Constant) for c in n.comparators)}
        reported: set[str] = set()  # one finding per dispatch value: its first overwrite
        for stmt in func.body:
            if not isinstance(stmt, ast.If):
                continue
            test_names = _names(stmt.test)
            for node in ast.walk(stmt):
                if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                        and isinstance(node.value, ast.Constant)):
                    continue
                var = node.targets[0].id
                if var not in derived or var not in compared or var in reported:
                    continue
                line, source = derived[var]
                if test_names & (source | {var}) or not test_names & params:
                    continue
                cond = ast.unparse(stmt.test)
                findings.append((stmt.lineno, "Important", "bug",
                                 f"`{var}` is computed from `{', '.join(sorted(source))}` (line {line}) and chooses the path "
                                 f"below, but here it is set to {ast.unparse(node.value)} when `{cond}`, whatever "
                                 f"`{', '.join(sorted(source))}` holds: calls that meet this condition no longer take the "
                                 f"path their arguments choose.",
                                 f"Decide from `{', '.join(sorted(source))}` as well (e.g. only when it is empty), or "
                                 f"give this case its own branch."))
                reported.add(var)
                break
    return findings


# ---------------------------------------------------------------------------- constant conditions


def _constant(test: ast.expr) -> str | None:
    if isinstance(test, ast.Constant):
        return "is a literal"
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            if isinstance(value, ast.Constant):
                if isinstance(test.op, ast.Or) and value.value:
                    return f"ends in `or {value.value!r}`, so it is always true"
                if isinstance(test.op, ast.And) and not value.value:
                    return f"has `and {value.value!r}`, so it is always false"
    return None


def constant_conditions(tree: ast.Module) -> list[Finding]:
    findings: list[Finding] = []
    for node in ast.walk(tree):
        test = node.test if isinstance(node, (ast.If, ast.IfExp, ast.Assert, ast.While)) else None
        if test is None or (isinstance(node, (ast.While, ast.Assert)) and isinstance(test, ast.Constant)):
            continue  # `while True:` is a loop and `assert 1` a placeholder, not checks
        why = _constant(test)
        if why is not None and not (isinstance(node, ast.If) and isinstance(test, ast.Constant) and test.value is False):
            findings.append((test.lineno, "Important", "bug",
                             f"The condition `{ast.unparse(test)}` {why}: the check no longer depends on its input.",
                             "Restore the condition the branch is meant to test."))
    return findings


# ---------------------------------------------------------------------------- signatures


@dataclass
class Definition:
    path: str
    line: int
    name: str
    params: list[str]
    kwargs: bool
    owner: str | None  # the class it is a method of, when shown
    bases: set[str]  # that class's bases


CLASS_LINE = re.compile(r"^(\s*)class\s+([A-Za-z_]\w*)\s*(?:\(([^)]*)\))?")


def _owner(lines: dict[int, str], line: int) -> tuple[str | None, set[str]]:
    """The class a definition shown at `line` belongs to (the nearest class line above it at a
    smaller indentation, as an excerpt shows it) and that class's bases."""
    text = lines.get(line, "")
    indent = len(text) - len(text.lstrip())
    for n in sorted((k for k in lines if k < line), reverse=True):
        above = lines[n]
        if not above.strip():
            continue
        depth = len(above) - len(above.lstrip())
        if depth < indent:
            match = CLASS_LINE.match(above)
            if match:
                bases = {b.strip().rsplit(".", 1)[-1] for b in (match.group(3) or "").split(",") if b.strip()}
                return match.group(2), bases
            if re.match(r"\s*(?:async\s+)?def\s", above):
                return None, set()
            indent = depth
    return None, set()


def _definitions(path: str, tree: ast.Module, lines: dict[int, str]) -> list[Definition]:
    out = []
    for child in _functions(tree):
        a = child.args
        owner, bases = _owner(lines, child.lineno)
        out.append(Definition(path, child.lineno, child.name, [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs],
                              a.kwarg is not None, owner, bases))
    return out


def _old_params(removed: list[str]) -> dict[str, list[str]]:
    """The parameters of the definitions the change removed, read from their first lines."""
    out: dict[str, list[str]] = {}
    for text in removed:
        match = DEF_NAME.match(text)
        if match:
            inside = match.group(2).split(")")[0]
            out[match.group(1)] = [p.strip().split("=")[0].split(":")[0].strip().lstrip("*") for p in inside.split(",")
                                   if p.strip() and p.strip() not in ("*", "/")]
    return out


def signature_changes(files: list[tuple[str, list[ast.Module], set[int], list[str], dict[int, str]]]) -> list[tuple[str, Finding]]:
    """files: (path, trees, added lines, removed lines, shown lines) of each Python file of the change."""
    defs = list({(d.path, d.line): d for path, trees, _, _, lines in files for tree in trees
                 for d in _definitions(path, tree, lines)}.values())
    old = {}
    for path, _, _, removed, _ in files:
        old.update({(path, name): params for name, params in _old_params(removed).items()})
    findings: list[tuple[str, Finding]] = []
    changed: dict[str, tuple[Definition, set[str], set[str]]] = {}
    for d in defs:
        before = old.get((d.path, d.name))
        added = next((a for p, _, a, _, _ in files if p == d.path), set())
        if before is None or d.line not in added:
            continue
        new, gone = set(d.params) - set(before), set(before) - set(d.params) - {"self", "cls"}
        if new or gone:
            changed[d.name] = (d, new, gone)
    if not changed:
        return findings
    for path, trees, added, _, _ in files:
        for tree in trees:
            for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
                if name not in changed:
                    continue
                base, new, gone = changed[name]
                passed = {k.arg for k in call.keywords if k.arg}
                if call.lineno in added:
                    for param in sorted(passed & new):
                        # an override in a subclass of the class whose method gained the parameter
                        others = [d for d in defs if d.name == name and d is not base and param not in d.params
                                  and d.owner is not None and base.owner in d.bases]
                        if others:
                            other = others[0]
                            fate = "falls into its **kwargs and is not acted on" if other.kwargs else "is refused (TypeError)"
                            findings.append((path, (call.lineno, "Important", "bug",
                                f"This call passes `{param}=` to `{name}()`, a parameter the change adds to "
                                f"{base.owner or 'the function'}.{name} (line {base.line}), but {other.owner}.{name} "
                                f"({other.path}:{other.line}) overrides it without `{param}`: there the argument {fate}.",
                                f"Give every definition of {name}() the `{param}` parameter, or do not pass it to objects "
                                f"that may be a {other.owner}.")))
                elif passed & gone:
                    findings.append((path, (call.lineno, "Important", "bug",
                        f"This call still passes `{', '.join(sorted(passed & gone))}=` to `{name}()`, whose parameter the "
                        f"change removes (line {base.line}): it now raises TypeError.",
                        f"Update the callers of {name}() with its signature.")))
    return findings


# ---------------------------------------------------------------------------- public names


def removed_public_names(path: str, removed: list[str], all_new_text: str, added_text: str) -> list[str]:
    """Top-level public functions and classes the change removes from a module, defines nowhere in
    the new version of the change's files, and deprecates nowhere in its added lines."""
    if re.search(r"(^|/)(tests?/|test_|conftest)", path) or DEPRECATION.search(added_text):
        return []
    names = []
    for text in removed:
        match = TOP_DEF.match(text)
        name = match and next((g for g in match.groups() if g), None)
        if name and not re.search(rf"^\s*(?:async\s+def|def|class)\s+{re.escape(name)}\b|\b{re.escape(name)}\s*=",
                                  all_new_text, re.MULTILINE):
            names.append(name)
    return names
