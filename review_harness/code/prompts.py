"""Prompts of the code review: a stable system prefix per reviewer kind, and a request with
the reviewer's identity line (stage and model letter: with both roles on one model, the letter
keeps the two reviewers' prompts, and so their cached answers, apart), the spec and the change
last.

The change is rendered as numbered lines of each file's new version, '+' marking added lines,
within a character budget; what the budget cut is said in the prompt and in the log.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from review_harness.code.change import ChangedFile, ChangeSet
from review_harness.code.models import CATEGORIES
from review_harness.code.rules import same_python_code
from review_harness.core.paths import PROMPTS_DIR as ROOT_PROMPTS
from review_harness.core.prompts import ReviewerPrompt, neutralize_blocks, render_template
from review_harness.core.pysource import parse_python

PROMPT_VERSION = "v1"
PROMPTS_DIR = ROOT_PROMPTS / "code"
STAGE_TITLES = {"spec": "spec reviewer", "quality": "quality reviewer"}
BLOCKS = ("spec", "change", "memory")
WHOLE_FILE_LINES = 400  # longer files show windows around the added lines
WINDOW = 12
FILE_HEADER = re.compile(r"^### file: (?P<path>\S.*?) \((?P<status>[a-z]+)(?:, (?P<language>[a-z]+))?\)(?P<rest>.*)$")
RENAMED = re.compile(r" renamed from (\S+)")
NUMBERED = re.compile(r"^ *(\d+) ([+~ ]) ")
REMOVED = re.compile(r"^ {6}- ")


def _safe(text: str) -> str:
    return neutralize_blocks(text, BLOCKS)


def render_code_template(name: str, **values: object) -> str:
    return render_template(PROMPTS_DIR, name, **values)


def _ranges(numbers: list[int]) -> str:
    out, start, prev = [], None, None
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}-{prev}" if prev != start else str(start))
            start = prev = n
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else str(start))
    return ", ".join(out)


def _enclosing_headers(f: ChangedFile, changed: set[int]) -> set[int]:
    """The first lines of the Python classes and functions around the changed lines (as git's hunk
    headers name them), so an excerpt still says whose body a change is in."""
    if f.language != "python" or not f.lines:
        return set()
    try:
        tree = parse_python("\n".join(f.lines.get(n, "") for n in range(1, max(f.lines) + 1)))
    except SyntaxError:
        return set()
    return {node.lineno for node in ast.walk(tree)
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and any(node.lineno < n <= (node.end_lineno or node.lineno) for n in changed)}


SIGNATURE_DEF = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(")


def _related_lines(f: ChangedFile) -> set[int]:
    """For an excerpt: the other definitions and the calls of each function whose signature the
    change edits (its definition line removed and added again), so an override or a caller the
    change left as it was is shown too."""
    if f.language != "python":
        return set()
    old = {m.group(1) for lines in f.removed_lines.values() for text in lines if (m := SIGNATURE_DEF.match(text))}
    names = {m.group(1) for n in f.added if (m := SIGNATURE_DEF.match(f.lines.get(n, "")))} & old
    if not names:
        return set()
    used = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\s*\(")
    return {n for n, text in f.lines.items() if used.search(text)}


def _body(f: ChangedFile, windows_only: bool) -> str:
    """Numbered lines of the new version, '+' on lines the change adds, '~' on lines git finds
    moved from elsewhere, and the removed old lines ('-', unnumbered) where they stood."""
    moved = set(f.moved)
    added = set(f.added) - moved
    removed = f.removed_lines
    shown = sorted(f.lines)
    if windows_only:
        keep = {n for a in set(f.added) | set(removed) for n in range(a - WINDOW, a + WINDOW + 1)}
        related = _related_lines(f)
        keep |= related | _enclosing_headers(f, set(f.added) | set(removed) | related)
        shown = [n for n in shown if n in keep]
    lines, prev = [], None
    anchors = sorted(removed)
    for n in shown:
        if prev is not None and n != prev + 1:
            lines.append("  ...")
        while anchors and anchors[0] <= n:
            lines += [f"{'':>5} - {old}" for old in removed[anchors.pop(0)]]
        lines.append(f"{n:>5} {'+' if n in added else '~' if n in moved else ' '} {f.lines[n]}")
        prev = n
    for anchor in anchors:  # removals after the last line shown
        lines += [f"{'':>5} - {old}" for old in removed[anchor]]
    return "\n".join(lines)


@dataclass
class RenderedChange:
    text: str
    cuts: list[str] = field(default_factory=list)


CODE_UNCHANGED = "code unchanged: only comments and docstrings differ"
PROSE_LANGUAGES = {"text", "markdown", "yaml", "json"}
TEST_PATH = re.compile(r"(^|/)(tests?|__tests__)/|(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.(test|spec)\.\w+|conftest\.py)$")


def spec_names_file(spec: str, path: str) -> bool:
    """Whether the spec names this file: by its path or any ending of it on a folder boundary
    (`docs/README.md` names `services/x/docs/README.md`), its file name included."""
    parts = path.split("/")
    for k in range(len(parts)):
        ending = "/".join(parts[k:])
        if re.search(rf"(?<![\w./-]){re.escape(ending)}(?![\w/-])", spec):
            return True
    return False


def _budget_order(change: ChangeSet, spec: str) -> list[int]:
    """Which files the prompt budget serves first: those the spec names by path, then code, then
    tests, then prose and data (changelogs, docs, pinned requirements); the change's order within each."""
    def rank(f: ChangedFile) -> int:
        if spec and spec_names_file(spec, f.path):
            return 0
        if f.language in PROSE_LANGUAGES:
            return 3
        return 2 if TEST_PATH.search(f.path) else 1
    return sorted(range(len(change.files)), key=lambda i: rank(change.files[i]))


def render_change(change: ChangeSet, budget: int, spec: str = "") -> RenderedChange:
    """The change as the reviewers see it, within `budget` characters. When the budget cannot hold
    every file, the files the spec names and code are served first (`_budget_order`); the files are
    shown in the change's order either way."""
    blocks: dict[int, str] = {}
    cuts, used = [], 0
    for i in _budget_order(change, spec):
        f = change.files[i]
        header = f"### file: {f.path} ({f.status}, {f.language})"
        if f.old_path:
            header += f" renamed from {f.old_path}"
        if f.binary or f.status == "deleted" or not f.lines:
            blocks[i] = header + (f" -- {f.note}" if f.note else "")
            continue
        new = sorted(set(f.added) - set(f.moved))
        header += f"\nchanged lines: {_ranges(new) or 'none'}" + (f"; moved unchanged: {_ranges(f.moved)}" if f.moved else "")
        if f.language == "python" and f.base is not None and f.text is not None and same_python_code(f.base, f.text):
            header += f"; {CODE_UNCHANGED}"
        windows = not f.complete or len(f.lines) > WHOLE_FILE_LINES
        body = _body(f, windows)
        if used + len(body) > budget and not windows:
            body, windows = _body(f, True), True
            cuts.append(f"{f.path}: only the lines around the changes are shown")
        if used + len(body) > budget:
            cuts.append(f"{f.path}: omitted ({len(f.added)} changed lines, over the budget of {budget} characters)")
            blocks[i] = header + "\n  (omitted: over the prompt budget)"
            continue
        used += len(body)
        blocks[i] = header + ("\n(excerpt around the changes)" if windows else "") + "\n" + body
    order = {f.path: n for n, f in enumerate(change.files)}
    return RenderedChange("\n\n".join(blocks[i] for i in sorted(blocks)), sorted(cuts, key=lambda c: order.get(c.split(":")[0], 0)))


def parse_change(text: str) -> list[dict]:
    """The files of a rendered change (what the offline reviewer reads back): path, status,
    language, lines {n: text}, added [n] (moved lines left out), moved [n], removed [old text], removed_before
    {n: [old text]} (the removed lines by the new line they stood before; past the last line: its number + 1),
    excerpt (whether only windows are shown), omitted (whether the budget left the file out)."""
    files: list[dict] = []
    current: dict | None = None
    for line in text.splitlines():
        match = FILE_HEADER.match(line)
        if match:
            current = {"path": match["path"], "status": match["status"], "language": match["language"] or "text",
                       "binary": "binary" in match["rest"], "lines": {}, "added": [], "moved": [], "removed": [], "excerpt": False,
                       "omitted": False, "removed_before": {}, "code_unchanged": False, "_pending": [],
                       "old_path": (renamed.group(1) if (renamed := RENAMED.search(match["rest"])) else None)}
            files.append(current)
            continue
        if current is None:
            continue
        if line.startswith("(excerpt") or line == "  ..." or line.startswith("  (omitted"):
            current["excerpt"] = True
            current["omitted"] = current["omitted"] or line.startswith("  (omitted")
            continue
        if line.startswith("changed lines:"):
            current["code_unchanged"] = CODE_UNCHANGED in line
            continue
        number = NUMBERED.match(line)
        if number:
            n = int(number.group(1))
            if current["_pending"]:
                current["removed_before"][n] = current["_pending"]
                current["_pending"] = []
            current["lines"][n] = line[number.end():]
            if number.group(2) == "+":
                current["added"].append(n)
            elif number.group(2) == "~":
                current["moved"].append(n)
            continue
        if REMOVED.match(line):
            current["removed"].append(line[8:])
            current["_pending"].append(line[8:])
    for f in files:
        pending = f.pop("_pending")
        if pending:
            f["removed_before"][max(f["lines"], default=0) + 1] = pending
    return files


def render_reviewer_prompt(
    stage: str, letter: str, *, spec: str, change: RenderedChange, task: str, title: str, service: str,
    iteration: int, memory: str = "", version: str = PROMPT_VERSION,
) -> ReviewerPrompt:
    common = {"stage": stage, "stage_title": STAGE_TITLES[stage]}
    system = render_code_template(f"reviewer_system.{version}.j2", **common, categories=CATEGORIES)
    request = render_code_template(
        f"reviewer_request.{version}.j2", **common, letter=letter, task=task, title=title, service=service,
        iteration=iteration, memory=_safe(memory), cuts=change.cuts, spec=_safe(spec), change=_safe(change.text),
    )
    return ReviewerPrompt(system=system, request=request, version=version)


def render_fix_prompt(*, message: str, spec: str, workspace: str, files: list[str], task: str, title: str, turns: int,
                      version: str = PROMPT_VERSION) -> ReviewerPrompt:
    """The implementer agent's instructions (system) and its request: the issues to fix, the
    working folder, the change's files and the spec."""
    system = render_code_template(f"implementer_system.{version}.j2")
    request = render_code_template(f"implementer_request.{version}.j2", task=task, title=title, turns=turns,
                                   message=message, spec=_safe(spec), workspace=workspace, files=", ".join(files) or "-")
    return ReviewerPrompt(system=system, request=request, version=version)
