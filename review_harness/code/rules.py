"""The offline code reviewer's rule engine: real checks of the change, two rule sets.

Quality (Python): the `ast` module -- SQL built by any string formatting (f-string, %, .format(),
concatenation) and passed to execute(), exceptions caught broadly and swallowed, mutable default
arguments, resources opened and never closed, coroutines called without await, shell commands and
eval on built strings, debug prints; conditions that are always true and tests that never run
(pychecks.py). Quality (JavaScript/TypeScript, Go): line checks of the added lines for the same
families. The spec rules (requirements and out-of-scope items against the change) are in
spec_rules.py.

Model A (the cheaper reviewer) runs fewer rules, does not trace variables, and has one noisy
rule (any broad `except` is reported, even one that re-raises, and so is a specific exception
answered with a default value). Model B runs all rules. Each model also says where it looked and
found nothing wrong (``checked_fine``), which is what makes contradictions possible. Findings are
reported only on lines the change adds (not on lines git reports as moved).
"""

from __future__ import annotations

import ast
import re

from review_harness.code.fileview import FileView, Result
from review_harness.code.models import CodeFinding, ReviewerAnswer, Severity
from review_harness.code.behaviour import (constant_conditions, fragments, overwritten_dispatch, removed_public_names,
                                           signature_changes, suppressed_checks)
from review_harness.code.pychecks import always_true_conditions, change_methods, uncollected_tests
from review_harness.core.pysource import parse_python

CRITICAL, IMPORTANT, MINOR = Severity.CRITICAL, Severity.IMPORTANT, Severity.MINOR
SQL_METHODS = {"execute", "executemany", "executescript", "raw", "query", "read_sql"}
SQL_WORDS = re.compile(r"\b(select|insert|update|delete|where|from)\b", re.IGNORECASE)
RESOURCE_CALLS = {"open", "connect", "urlopen", "socket", "TemporaryFile", "NamedTemporaryFile"}
BROAD = {None, "Exception", "BaseException"}
A_RULES = {"sql-string", "swallowed-exception", "mutable-default", "broad-except", "debug-print", "js-sql", "js-empty-catch", "go-sql",
           "always-true", "uncollected-test", "suppressed-check", "overwritten-dispatch", "constant-condition"}
# "trace": follow a variable to where it is built, and vouch for handlers that log or re-raise
B_RULES = {"sql-string", "swallowed-exception", "mutable-default", "unclosed-resource", "missing-await", "shell-string",
           "eval-string", "debug-print", "js-sql", "js-empty-catch", "js-eval", "go-sql", "go-ignored-error", "always-true",
           "uncollected-test", "trace", "suppressed-check", "overwritten-dispatch", "constant-condition", "signature-change",
           "public-name-removed"}
# the rules that read behaviour (behaviour.py), each over the trees of what is shown of a file
BEHAVIOUR = {"suppressed-check": suppressed_checks, "overwritten-dispatch": overwritten_dispatch,
             "constant-condition": constant_conditions}


# ---------------------------------------------------------------------------- python


def _without_docstrings(tree: ast.Module) -> str:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            body[0] = ast.Pass()
    return ast.dump(tree)


def same_python_code(old: str, new: str) -> bool:
    """Whether two versions of a Python file differ only in comments, docstrings and layout (the
    same syntax tree once docstrings are set aside); False when either does not parse."""
    try:
        return _without_docstrings(parse_python(old)) == _without_docstrings(parse_python(new))
    except (SyntaxError, ValueError):
        return False


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _built_string(node: ast.AST) -> bool:
    """A string assembled from pieces at run time: an f-string with values, + concatenation,
    %-formatting or .format() of a literal (also inside SQLAlchemy's text(...))."""
    if isinstance(node, ast.Call) and _name(node.func) == "text" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return any(isinstance(side, (ast.Constant, ast.JoinedStr, ast.BinOp)) for side in (node.left, node.right)) and not (
            isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
        return True
    if isinstance(node, ast.Call) and _name(node.func) == "format" and isinstance(getattr(node.func, "value", None), ast.Constant):
        return True
    return False


def _mentions_sql(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and SQL_WORDS.search(n.value) for n in ast.walk(node))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _assignments(func: ast.AST) -> dict[str, ast.AST]:
    """The value each local name is built from (`q += ...` adds to it: a concatenation)."""
    out: dict[str, ast.AST] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            before = out.get(node.target.id, ast.Constant(value=""))
            out[node.target.id] = ast.BinOp(left=before, op=ast.Add(), right=node.value)
    return out


def _swallows(handler: ast.ExceptHandler) -> bool:
    for stmt in handler.body:
        if isinstance(stmt, (ast.Pass, ast.Continue)):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Return) and (stmt.value is None or isinstance(stmt.value, ast.Constant)):
            continue
        return False
    return True


def _handler_type(handler: ast.ExceptHandler) -> str | None:
    return _name(handler.type) if handler.type is not None else None


def python_quality(view: FileView, tree: ast.Module, rules: set[str], result: Result, methods: set[str]) -> None:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    async_defs = {f.name for f in _functions(tree) if isinstance(f, ast.AsyncFunctionDef)}
    # names the module binds itself (``from inspect_ai import eval``): not the builtins
    bound = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             for alias in node.names} | {f.name for f in _functions(tree)}
    for func in _functions(tree):
        assigned = _assignments(func)
        if "mutable-default" in rules:
            for default in func.args.defaults + [d for d in func.args.kw_defaults if d is not None]:
                if isinstance(default, (ast.List, ast.Dict, ast.Set)) or (
                        isinstance(default, ast.Call) and _name(default.func) in ("list", "dict", "set") and not default.args):
                    result.add(view, default.lineno, IMPORTANT, "bug",
                               f"{func.name}() has a mutable default argument: one object is shared by every call.",
                               "Default to None and create the object inside the function.")
        for node in ast.walk(func):
            if not isinstance(node, ast.Call):
                continue
            callee = _name(node.func)
            if "sql-string" in rules and callee in SQL_METHODS and node.args:
                query = node.args[0]
                traced = assigned.get(query.id) if isinstance(query, ast.Name) and "trace" in rules else None
                if _built_string(query) or (traced is not None and _built_string(traced) and _mentions_sql(traced)):
                    result.add(view, node.lineno, CRITICAL, "security",
                               f"SQL passed to {callee}() is built from strings: values reach the query unescaped (SQL injection).",
                               "Use a parameterised query: placeholders in a constant SQL string and the values as parameters.")
                elif isinstance(query, ast.Name) and "trace" not in rules:
                    result.ok(view, node.lineno, None, f"{callee}() receives the query as a variable; assumed built elsewhere")
                elif len(node.args) > 1 or node.keywords:
                    result.ok(view, node.lineno, None, f"{callee}() uses a query with separate parameters")
            if "eval-string" in rules and callee in ("eval", "exec") and callee not in bound and isinstance(node.func, ast.Name) and node.args and not isinstance(node.args[0], ast.Constant):
                result.add(view, node.lineno, CRITICAL, "security",
                           f"{callee}() runs a string built at run time: arbitrary code execution if any part comes from input.",
                           "Parse the value (e.g. ast.literal_eval, json.loads) instead of evaluating it.")
            if "shell-string" in rules and callee in ("run", "call", "check_output", "check_call", "Popen", "system"):
                shell = any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords)
                if (shell or callee == "system") and node.args and _built_string(node.args[0]):
                    result.add(view, node.lineno, CRITICAL, "security",
                               "A shell command is built from strings: input can inject shell syntax.",
                               "Pass the command as a list of arguments without shell=True.")
            if "debug-print" in rules and callee == "print" and isinstance(node.func, ast.Name) and not view.path.split("/")[-1].startswith(("test_", "cli", "__main__")):
                result.add(view, node.lineno, MINOR, "maintainability",
                           "print() left in library code; output bypasses the logging setup.",
                           "Use the module's logger, or remove the print.")
        if "unclosed-resource" in rules:
            _unclosed(view, func, parents, result)
        if "missing-await" in rules and isinstance(func, ast.AsyncFunctionDef):
            _missing_await(view, func, async_defs, parents, result)
    if "always-true" in rules:
        always_true_conditions(view, tree, result, methods)
    if "uncollected-test" in rules:
        uncollected_tests(view, tree, result)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ExceptHandler):
            continue
        kind = _handler_type(node)
        end = node.body[-1].end_lineno or node.lineno
        if "swallowed-exception" in rules and kind in BROAD and _swallows(node):
            result.add(view, node.lineno, IMPORTANT, "error-handling",
                       f"`except {kind or ''}` catches every error and discards it: failures vanish silently.".replace("except ` ", "except` "),
                       "Catch the specific exception you expect, and log or re-raise the rest.")
        elif "broad-except" in rules and kind in BROAD:
            result.add(view, node.lineno, IMPORTANT, "error-handling",
                       f"Broad `except {kind or ''}` handler: it may hide unexpected errors.",
                       "Catch a specific exception type.")
        elif "broad-except" in rules and len(node.body) == 1 and isinstance(node.body[0], (ast.Pass, ast.Return)):
            # the noisy rule also objects to a specific exception handled by a default value
            result.add(view, node.lineno, IMPORTANT, "error-handling",
                       f"`except {kind}` discards the error: callers cannot tell it happened.",
                       "Log the error or let it propagate.")
        elif kind in BROAD and "trace" in rules:
            result.ok(view, node.lineno, end, "broad handler checked: the error is logged or re-raised, not swallowed")


def _unclosed(view: FileView, func: ast.AST, parents: dict, result: Result) -> None:
    closed = {n.func.value.id for n in ast.walk(func) if isinstance(n, ast.Call) and _name(n.func) == "close"
              and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)}
    returned = {n.value.id for n in ast.walk(func) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
    for node in ast.walk(func):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _name(node.value.func) in RESOURCE_CALLS):
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name) or target.id in returned:
            continue
        if target.id in closed:
            result.ok(view, node.lineno, None, f"{target.id} is closed explicitly")
            continue
        result.add(view, node.lineno, IMPORTANT, "resource",
                   f"{target.id} = {_name(node.value.func)}(...) is never closed: the handle leaks (and on error paths too).",
                   f"Open it in a `with` block so {target.id} is closed on every path.")
    for node in ast.walk(func):
        if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call) and _name(node.context_expr.func) in RESOURCE_CALLS:
            result.ok(view, node.context_expr.lineno, None, "resource opened in a with block: closed on every path")


def _missing_await(view: FileView, func: ast.AsyncFunctionDef, async_defs: set[str], parents: dict, result: Result) -> None:
    for node in ast.walk(func):
        if not isinstance(node, ast.Call):
            continue
        callee = _name(node.func)
        known = callee in async_defs or (isinstance(node.func, ast.Attribute) and _name(node.func.value) == "asyncio" and callee == "sleep")
        if not known:
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Await):
            result.ok(view, node.lineno, None, f"{callee}() is awaited")
            continue
        if isinstance(parent, ast.Call) and _name(parent.func) in ("create_task", "gather", "ensure_future", "run", "wait_for", "shield"):
            continue
        if isinstance(parent, (ast.Expr, ast.Assign, ast.Return)) or parent is None:
            result.add(view, node.lineno, CRITICAL, "concurrency",
                       f"{callee}() is a coroutine called without await: it never runs (and Python warns 'never awaited').",
                       f"await {callee}(...), or schedule it with asyncio.create_task.")


# ---------------------------------------------------------------------------- other languages

JS_SQL = re.compile(r"\.(query|execute|raw)\s*\(\s*(`[^`]*\$\{|['\"][^'\"]*['\"]\s*\+)")
JS_EMPTY_CATCH = re.compile(r"catch\s*(\([^)]*\))?\s*\{\s*\}")
JS_EVAL = re.compile(r"(?<![\w.])(eval|Function)\s*\(")
GO_SQL = re.compile(r"\.(Query|QueryRow|Exec)(Context)?\s*\(.*fmt\.Sprintf\(|\.(Query|QueryRow|Exec)(Context)?\s*\([^)]*\"\s*\+")
GO_IGNORED = re.compile(r"^\s*[\w, ]*\b_\s*(:=|=)\s*[\w.]+\(")


def line_quality(view: FileView, rules: set[str], result: Result) -> None:
    for n in sorted(view.added):
        text = view.lines.get(n, "")
        if view.language in ("javascript", "typescript"):
            if "js-sql" in rules and JS_SQL.search(text):
                result.add(view, n, CRITICAL, "security", "SQL is built by string interpolation before query(): SQL injection.",
                           "Use placeholders and pass the values as the query's parameters.")
            if "js-empty-catch" in rules and JS_EMPTY_CATCH.search(text):
                result.add(view, n, IMPORTANT, "error-handling", "Empty catch block: the error is swallowed.",
                           "Log the error or rethrow it.")
            if "js-eval" in rules and JS_EVAL.search(text) and not text.strip().startswith("//"):
                result.add(view, n, CRITICAL, "security", "eval/Function on a run-time string: code injection.",
                           "Parse the data (JSON.parse) instead of evaluating it.")
        elif view.language == "go":
            if "go-sql" in rules and GO_SQL.search(text):
                result.add(view, n, CRITICAL, "security", "SQL built with Sprintf or concatenation: SQL injection.",
                           "Use query placeholders ($1, ?) and pass the values as arguments.")
            if "go-ignored-error" in rules and GO_IGNORED.search(text) and "err" not in text.split("=")[0]:
                result.add(view, n, IMPORTANT, "error-handling", "The error return is discarded with _.",
                           "Check the error and return or log it.")


def review_quality(files: list[FileView], letter: str) -> ReviewerAnswer:
    rules = A_RULES if letter == "A" else B_RULES
    result = Result()
    trees: dict[str, ast.Module] = {}
    for view in files:
        if view.language == "python":
            try:
                trees[view.path] = parse_python(view.text)
            except SyntaxError:
                continue  # an excerpt or invalid file: the line checks still run (debug prints)
    methods = change_methods(list(trees.values()))  # a method defined in one file and tested in another
    for view in files:
        if view.path in trees:
            python_quality(view, trees[view.path], rules, result, methods)
        else:
            line_quality(view, rules, result)
    behaviour_quality(files, trees, rules, result)
    return answer(result, "quality", len(files))


def behaviour_quality(files: list[FileView], trees: dict[str, ast.Module], rules: set[str], result: Result) -> None:
    """The rules that read behaviour (behaviour.py) over each Python file's tree, or the definitions
    an excerpt shows whole."""
    python = [v for v in files if v.language == "python" and not v.omitted]
    shown = {v.path: [trees[v.path]] if v.path in trees else fragments(v.lines, whole=False) for v in python}
    by_path = {v.path: v for v in python}
    for view in python:
        for rule, check in BEHAVIOUR.items():
            if rule in rules:
                for tree in shown[view.path]:
                    for line, severity, category, description, fix in check(tree):
                        result.add(view, line, Severity(severity), category, description, fix)
    if "signature-change" in rules:
        changes = signature_changes([(v.path, shown[v.path], v.added, v.removed, v.lines) for v in python])
        for path, (line, severity, category, description, fix) in changes:
            result.add(by_path[path], line, Severity(severity), category, description, fix)
    if "public-name-removed" in rules:
        new_text = "\n".join(text for v in files for text in v.lines.values())
        for view in python:
            added_text = "\n".join(view.lines.get(n, "") for n in view.added)
            for name in removed_public_names(view.path, view.removed, new_text, added_text):
                anchor = next((n for n, old in sorted(view.removed_before.items()) if any(
                    re.match(rf"(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", t) for t in old)), None)
                if (view.path, anchor or 0, "public-name") in result._seen:
                    continue
                result._seen.add((view.path, anchor or 0, "public-name"))
                result.findings.append(CodeFinding(
                    severity=IMPORTANT, category="bug", file=view.path, line=anchor,
                    description=(f"The change removes the public {name} from {view.path} without a deprecation: code "
                                 f"outside the change that imports or calls it breaks."),
                    suggested_fix=f"Keep {name} as a deprecated alias (warn on use) for a release, or say in the spec "
                                  f"that it is removed.",
                    quote=f"{name}"))


# what the quality rules cannot see, said in every offline quality answer (an approval repeats it)
QUALITY_BLIND_SPOTS = ("Rules cannot see behaviour beyond names, syntax and the paths they trace: a result that "
                       "changes for some inputs, a wrong value, header or output format, an edge case no test covers, "
                       "an effect on callers outside the lines shown")


def answer(result: Result, stage: str, files: int) -> ReviewerAnswer:
    blocking = sum(1 for f in result.findings if f.blocking)
    summary = (f"{len(result.findings)} finding(s), {blocking} blocking, over {files} file(s)"
               if result.findings else f"no {stage} issues found in {files} file(s)")
    if stage == "quality":
        summary += f". {QUALITY_BLIND_SPOTS}"
    return ReviewerAnswer(findings=result.findings, checked_fine=result.fine, summary=summary)
