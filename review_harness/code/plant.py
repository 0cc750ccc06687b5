"""Planting flaws in code changes (`review-harness plant code INPUT...`): the `change` layout and
the operators of `prompts/code/plant.yaml` that need a syntax tree.

An input is a gold case folder (`case.yaml` with `base/` and `head/` trees and its spec), a folder
of such cases, or a git repository with `--base REV --head REV --spec FILE` (the files the change
touches are read at both revisions with `git show`; the repository is only read). A planted copy
is a case folder of its own (`case.yaml`, `spec.md`, `base/`, `head/`): the mutation is a change
to its new tree, never to the user's repository. Files are named `base/<path>` and `head/<path>`
inside the input; `spec` is the task spec.

The mutators work on Python files (parsed with the core's thread-safe `ast.parse`); a change with
no Python in it gets none of them, which the planting report says.
"""

from __future__ import annotations

import ast
import difflib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from review_harness.core.files import write_safe
from review_harness.core.plant.layouts import Layout, register_layout
from review_harness.core.plant.mutators import register_mutator
from review_harness.core.plant.site import PlantError, PlantInput, Site
from review_harness.core.pysource import parse_python

HEAD, BASE = "head/", "base/"
MAX_REPO_FILES = 400


# ------------------------------------------------------------------------------------ layout


def _tree(folder: Path) -> tuple[dict[str, str], dict[str, bytes]]:
    """(text files, binary files) of a folder by relative path."""
    texts: dict[str, str] = {}
    binaries: dict[str, bytes] = {}
    if not folder.is_dir():
        return texts, binaries
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        data = path.read_bytes()
        try:
            if b"\0" in data[:8000]:
                raise UnicodeDecodeError("utf-8", data, 0, 1, "binary")
            texts[rel] = data.decode("utf-8")
        except UnicodeDecodeError:
            binaries[rel] = data
    return texts, binaries


def _read_case(folder: Path) -> PlantInput | tuple[str, str]:
    try:
        case = yaml.safe_load((folder / "case.yaml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as ex:
        return str(folder), f"{folder / 'case.yaml'}: cannot be read ({ex})"
    change = case.get("change") or {}
    if change.get("patch"):
        return str(folder), "a change given as a patch: the code operators need the old and new trees"
    spec_path = folder / case.get("spec", "spec.md")
    if not spec_path.is_file():
        return str(folder), f"no spec {spec_path}"
    files = {"spec": spec_path.read_text(encoding="utf-8")}
    binaries: dict[str, bytes] = {}
    for side, prefix in ((change.get("base", "base"), BASE), (change.get("head", "head"), HEAD)):
        texts, bins = _tree(folder / side)
        files |= {prefix + p: t for p, t in texts.items()}
        binaries |= {prefix + p: b for p, b in bins.items()}
    return PlantInput(id=folder.name, source=str(folder), files=files, primary="spec", origin=folder,
                      extra={"binaries": binaries, "task": str(case.get("task", "1")),
                             "title": case.get("title") or folder.name, "config": case.get("config") or {},
                             "service": case.get("service"), "whole_trees": True})


def _git(repo: Path, *args: str) -> bytes:
    try:
        result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    except FileNotFoundError:
        raise PlantError("git is not installed (needed to read a repository)") from None
    except subprocess.CalledProcessError as ex:
        message = (ex.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise PlantError(f"{repo}: git {' '.join(args[:2])}: {message[-1] if message else 'failed'}") from None
    return result.stdout


def _read_repo(repo: Path, options: dict[str, Any]) -> PlantInput | tuple[str, str]:
    base, head, spec = options.get("base"), options.get("head") or "HEAD", options.get("spec")
    if not base or not spec:
        return str(repo), "a git repository needs --base REV and --spec FILE (and --head REV, default HEAD)"
    spec_path = Path(spec).expanduser()
    if not spec_path.is_file():
        return str(repo), f"--spec {spec}: no such file"
    try:
        top = Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())
        for rev in (base, head):
            _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        changed = [p for p in _git(top, "diff", "--name-only", "-z", base, head).decode().split("\0") if p]
        listed = [p for p in _git(top, "ls-tree", "-r", "--name-only", "-z", head).decode().split("\0") if p]
    except PlantError as ex:
        return str(repo), str(ex)
    python = [p for p in listed if p.endswith(".py")][:MAX_REPO_FILES]
    files = {"spec": spec_path.read_text(encoding="utf-8")}
    binaries: dict[str, bytes] = {}
    for rev, prefix, paths in ((base, BASE, changed), (head, HEAD, sorted(set(changed) | set(python)))):
        for path in paths:
            try:
                data = _git(top, "cat-file", "blob", f"{rev}:{path}")
            except PlantError:
                continue  # added or deleted on this side
            try:
                files[prefix + path] = data.decode("utf-8")
            except UnicodeDecodeError:
                binaries[prefix + path] = data
    for path in python:  # the unchanged files are the same on both sides
        if path not in changed and HEAD + path in files:
            files[BASE + path] = files[HEAD + path]
    title = next((line[2:].strip() for line in files["spec"].splitlines() if line.startswith("# ")), repo.name)
    return PlantInput(id=re.sub(r"[^A-Za-z0-9_.-]+", "-", top.name), source=f"{repo} {base}..{head}", files=files,
                      primary="spec", origin=None,
                      extra={"binaries": binaries, "task": "1", "title": title, "config": {}, "service": None,
                             "whole_trees": False})


def _read_change(path: Path, options: dict[str, Any]) -> list[PlantInput | tuple[str, str]]:
    if (path / "case.yaml").is_file():
        return [_read_case(path)]
    if path.is_dir() and (path / ".git").exists():
        return [_read_repo(path, options)]
    cases = sorted(p.parent for p in path.glob("*/case.yaml")) if path.is_dir() else []
    if cases:
        return [_read_case(c) for c in cases]
    return [(str(path), "not a code change: give a case folder (case.yaml, base/, head/, spec.md), a folder of "
                        "them, or a git repository with --base REV --spec FILE")]


def _write_change(item: PlantInput, files: dict[str, str], folder: Path, case: str) -> str:
    root = folder / case
    binaries: dict[str, bytes] = item.extra.get("binaries", {})
    sides = {BASE: {}, HEAD: {}}  # type: dict[str, dict[str, str | bytes]]
    for name, text in files.items():
        for prefix in sides:
            if name.startswith(prefix):
                sides[prefix][name[len(prefix):]] = text
    for name, data in binaries.items():
        for prefix in sides:
            if name.startswith(prefix):
                sides[prefix][name[len(prefix):]] = data
    if not item.extra.get("whole_trees"):  # a repository: only what the change touches
        paths = set(sides[BASE]) | set(sides[HEAD])
        same = {p for p in paths if sides[BASE].get(p) == sides[HEAD].get(p)}
        sides = {k: {p: v for p, v in side.items() if p not in same} for k, side in sides.items()}
    for prefix, side in sides.items():
        (root / prefix).mkdir(parents=True, exist_ok=True)
        for rel, content in side.items():
            target = root / prefix / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                write_safe(target, content)
    write_safe(root / "spec.md", files["spec"])
    meta = {"task": item.extra.get("task", "1"), "title": item.extra.get("title", case),
            "change": {"base": "base", "head": "head"}, "config": item.extra.get("config") or {}}
    if item.extra.get("service"):
        meta["service"] = item.extra["service"]
    write_safe(root / "case.yaml", yaml.safe_dump(meta, sort_keys=False))
    return case


register_layout(Layout("change", _read_change, _write_change))


# ------------------------------------------------------------------------------------ helpers


def changed_python(item: PlantInput) -> list[str]:
    """Paths of the Python files the change adds or modifies (new version differs from old)."""
    out = []
    for name, text in item.files.items():
        if name.startswith(HEAD) and name.endswith(".py"):
            path = name[len(HEAD):]
            if item.files.get(BASE + path) != text:
                out.append(path)
    return sorted(out)


def changed_lines(item: PlantInput, path: str) -> set[int]:
    """1-based lines of the new version that the change added or modified."""
    old = item.files.get(BASE + path, "").splitlines()
    new = item.files[HEAD + path].splitlines()
    lines: set[int] = set()
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            lines.update(range(j1 + 1, j2 + 1))
    return lines


def tree(item: PlantInput, path: str) -> ast.Module | None:
    try:
        return parse_python(item.files[HEAD + path])
    except SyntaxError:
        return None


def parsed_changes(item: PlantInput) -> Iterator[tuple[str, ast.Module, str]]:
    """(path, syntax tree, new text) of each Python file the change adds or modifies and that parses."""
    for path in changed_python(item):
        module = tree(item, path)
        if module is not None:
            yield path, module, item.files[HEAD + path]


def replace_line(text: str, line: int, new: str) -> str:
    lines = text.split("\n")
    lines[line - 1] = new
    return "\n".join(lines)


def _site(item: PlantInput, path: str, new_text: str, line: int, planted: str, what: str, **values: Any) -> Site:
    return Site(files={HEAD + path: new_text}, planted=planted.strip(), planted_file=HEAD + path,
                evidence=planted.strip(), evidence_file=HEAD + path, line=line, where=f"{path}:{line}: {what}",
                values={"file": path, "line": line, **values}, order=(path, line))


def _prefer_changed(item: PlantInput, path: str, sites: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """The candidates inside the lines the change touched, when there are any."""
    touched = changed_lines(item, path)
    inside = [s for s in sites if s[0] in touched]
    return inside or sites


# ------------------------------------------------------------------------------------ mutators

PLACEHOLDER = re.compile(r"\?|%s|%\((\w+)\)s|:(\w+)")


@register_mutator("sql_format")
def sql_format(ctx) -> list[Site]:
    """A parameterised query (`execute("... = ?", (x,))`) rewritten as an f-string that puts the
    values into the SQL text."""
    item = ctx.input
    sites = []
    for path, module, text in parsed_changes(item):
        lines = text.split("\n")
        found = []
        for node in ast.walk(module):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("execute", "executemany") and len(node.args) == 2):
                continue
            sql, params = node.args
            if not (isinstance(sql, ast.Constant) and isinstance(sql.value, str) and PLACEHOLDER.search(sql.value)
                    and isinstance(params, (ast.Tuple, ast.List)) and node.lineno == node.end_lineno):
                continue
            holes = PLACEHOLDER.findall(sql.value)
            if len(holes) != len(params.elts) or any(a or b for a, b in holes):
                continue  # named placeholders or a count that does not match
            found.append((node.lineno, node))
        for line, node in _prefer_changed(item, path, found):
            sql, params = node.args
            values = iter(ast.get_source_segment(text, e) for e in params.elts)
            body = PLACEHOLDER.sub(lambda m: "'{" + next(values) + "}'", sql.value)
            body = body.replace('"', '\\"')
            func = ast.get_source_segment(text, node.func)
            source_line = lines[line - 1]
            call = source_line[node.col_offset:node.end_col_offset]
            new_call = f'{func}(f"{body}")'
            new_line = source_line[:node.col_offset] + new_call + source_line[node.end_col_offset:]
            if call not in source_line:
                continue
            sites.append(_site(item, path, replace_line(text, line, new_line), line, new_line,
                               "query built with an f-string", function=func))
    return sites


@register_mutator("test_uncalled")
def test_uncalled(ctx) -> list[Site]:
    """A test function renamed so the test runner no longer collects (calls) it."""
    item = ctx.input
    sites = []
    for path, module, text in parsed_changes(item):
        name = path.rsplit("/", 1)[-1]
        if not (name.startswith("test_") or name.endswith("_test.py")):
            continue
        found = [(n.lineno, n) for n in ast.walk(module)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")]
        for line, node in _prefer_changed(item, path, found):
            source_line = text.split("\n")[line - 1]
            new_name = "_" + node.name
            if re.search(rf"\b{re.escape(new_name)}\b", text):
                continue
            new_line = re.sub(rf"\bdef {re.escape(node.name)}\b", f"def {new_name}", source_line, count=1)
            if new_line == source_line:
                continue
            sites.append(_site(item, path, replace_line(text, line, new_line), line, new_line,
                               f"test {node.name} renamed {new_name}", function=node.name, renamed=new_name))
    return sites


@register_mutator("always_true")
def always_true(ctx) -> list[Site]:
    """An `if` condition made always true (`cond or True`)."""
    item = ctx.input
    sites = []
    for path, module, text in parsed_changes(item):
        found = []
        for node in ast.walk(module):
            if not isinstance(node, ast.If) or node.test.lineno != node.test.end_lineno or node.test.lineno != node.lineno:
                continue
            condition = ast.get_source_segment(text, node.test) or ""
            if "__name__" in condition or condition.strip() in ("True", "False") or not condition:
                continue
            found.append((node.lineno, node))
        for line, node in _prefer_changed(item, path, found):
            source_line = text.split("\n")[line - 1]
            condition = source_line[node.test.col_offset:node.test.end_col_offset]
            wrapped = f"({condition}) or True" if isinstance(node.test, (ast.BoolOp, ast.IfExp)) else f"{condition} or True"
            new_line = source_line[:node.test.col_offset] + wrapped + source_line[node.test.end_col_offset:]
            sites.append(_site(item, path, replace_line(text, line, new_line), line, new_line,
                               "condition made always true", condition=condition))
    return sites


@register_mutator("outside_edit")
def outside_edit(ctx) -> list[Site]:
    """An edit to a file the task does not touch: a module constant of an unchanged Python file
    changed, or (when the case has no other file) a new module beside the changed ones with a
    line from `args.new_file`. A file the spec names is never chosen."""
    item = ctx.input
    spec = item.files.get("spec", "")
    touched = set(changed_python(item)) | {n[len(HEAD):] for n in item.files if n.startswith(HEAD)
                                            and item.files.get(BASE + n[len(HEAD):]) != item.files[n]}
    sites = []
    for name in sorted(item.files):
        if not name.startswith(HEAD) or not name.endswith(".py"):
            continue
        path = name[len(HEAD):]
        if path in touched or path.rsplit("/", 1)[-1] in spec or path in spec:
            continue
        text = item.files[name]
        module = tree(item, path)
        if module is None:
            continue
        for node in module.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id.isupper() and isinstance(node.value, ast.Constant)
                    and type(node.value.value) in (int, float) and node.lineno == node.end_lineno):
                rng = ctx.rng(path, node.lineno)
                old = node.value.value
                new = old * rng.choice([2, 3, 10]) if old else 1
                source_line = text.split("\n")[node.lineno - 1]
                new_line = source_line[:node.value.col_offset] + repr(type(old)(new)) + source_line[node.value.end_col_offset:]
                sites.append(_site(item, path, replace_line(text, node.lineno, new_line), node.lineno, new_line,
                                   f"{node.targets[0].id} changed in a file outside the task",
                                   name=node.targets[0].id))
    if sites or not ctx.way.args.get("new_file"):
        return sites
    folders = sorted({p.rsplit("/", 1)[0] if "/" in p else "" for p in touched})
    if not folders:
        return []
    rng = ctx.rng("new")
    folder = rng.choice(folders)
    template = rng.choice(ctx.way.args["new_file"])
    path = (f"{folder}/" if folder else "") + template["name"]
    if HEAD + path in item.files or BASE + path in item.files:
        return []
    content = template["text"].rstrip("\n") + "\n"
    first = next(line for line in content.split("\n") if line.strip() and not line.startswith("#"))
    line = content.split("\n").index(first) + 1
    site = _site(item, path, content, line, first, "a new file outside the task", name=template["name"])
    return [site]


SPEC_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^`]*\))?`")


@register_mutator("remove_spec_function")
def remove_spec_function(ctx) -> list[Site]:
    """A function (or method) the spec names, defined by the change, removed from the new tree."""
    item = ctx.input
    spec = item.files.get("spec", "")
    named = {m.group(1): m for m in SPEC_NAME.finditer(spec)}
    sites = []
    for path, module, text in parsed_changes(item):
        lines = text.split("\n")
        for node in ast.walk(module):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name not in named:
                continue
            defined = [n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and n.name == node.name]
            if len(defined) != 1:
                continue
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            last = node.end_lineno or node.lineno
            while last < len(lines) and not lines[last].strip():
                last += 1  # the blank lines after it
            new_text = "\n".join(lines[:first - 1] + lines[last:])
            match = named[node.name]
            spec_line = spec[spec.rfind("\n", 0, match.start()) + 1:spec.find("\n", match.end()) % (len(spec) + 1)]
            evidence = spec_line.strip().lstrip("-*0123456789. ").strip()
            site = Site(files={HEAD + path: new_text}, removed=[lines[node.lineno - 1].strip()],
                        removed_file=HEAD + path, evidence=evidence, evidence_file="spec", line=node.lineno,
                        where=f"{path}:{node.lineno}: {node.name} removed",
                        values={"file": path, "line": node.lineno, "function": node.name}, order=(path, node.lineno))
            sites.append(site)
    return sites
