"""The change under review is git's diff: the same hunks on the project's own history, the same
result from two folders and after a fix, renames, and moved code that is not new."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from review_harness.code.change import ChangeError, apply_fix, from_git, from_trees
from review_harness.code.gitdiff import diff_texts, unquote
from review_harness.code.prompts import parse_change, render_change
from review_harness.code.rules import FileView
from review_harness.code.spec_rules import review_spec

ROOT = Path(__file__).resolve().parent.parent
HISTORY = 30  # the project's latest commits the test diffs
HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                           text=True, encoding="utf-8", errors="replace").stdout


def plain_hunks(repo: Path, base: str, head: str) -> dict[str, tuple[set[int], int]]:
    """Each text file's added line numbers and removed line count, read from git's own plain
    `-U0` diff with a parser of its own (no colours, no moves): what the review must match."""
    out: dict[str, tuple[set[int], int]] = {}
    text = git(repo, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", "-M",
               "--src-prefix=a/", "--dst-prefix=b/", base, head)
    path, old = None, None
    for line in text.splitlines():
        if line.startswith("diff --git "):
            path = old = None
        elif line.startswith("--- "):
            old = None if line[4:] == "/dev/null" else unquote(line[4:])[2:]
        elif line.startswith("+++ "):
            path = old if line[4:] == "/dev/null" else unquote(line[4:])[2:]
            out.setdefault(path, (set(), 0))
        elif (match := HUNK.match(line)) and path is not None:
            removed = int(match.group(1) or 1)
            start, count = int(match.group(2)), int(match.group(3) or 1)
            added, gone = out[path]
            out[path] = (added | set(range(start, start + count)), gone + removed)
    return out


def history(repo: Path, n: int) -> list[str]:
    """Commits with a parent in this clone (a shallow clone has fewer)."""
    commits = git(repo, "rev-list", f"--max-count={n}", "HEAD").split()
    return [c for c in commits if subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{c}^"],
                                                 capture_output=True).returncode == 0]


def test_the_change_has_gits_hunks_on_the_projects_own_history():
    commits = history(ROOT, HISTORY)
    if not commits:
        pytest.skip("no commit with a parent in this clone")
    compared = 0
    for commit in commits:
        expected = plain_hunks(ROOT, f"{commit}^", commit)
        try:
            change = from_git(ROOT, f"{commit}^", commit)
        except ChangeError as ex:  # nothing textual to review: git's diff has no hunk either
            assert "empty diff" in str(ex) or "binary changes only" in str(ex)
            assert not any(added or removed for added, removed in expected.values()), commit
            continue
        for f in change.files:
            if f.binary or f.status == "deleted":
                continue
            added, removed = expected.get(f.path, (set(), 0))
            assert set(f.added) == added, f"{commit[:8]} {f.path}: added lines differ from git's hunks"
            assert f.removed == removed, f"{commit[:8]} {f.path}: removed count differs from git's"
            assert set(f.moved) <= set(f.added)
            compared += 1
        renames = [line.split("\t") for line in git(ROOT, "diff", "--name-status", "-M", f"{commit}^", commit).splitlines()
                   if line.startswith("R")]
        for _, old, new in renames:
            assert change.file(new).status == "renamed" and change.file(new).old_path == old
    assert compared > HISTORY  # many files over the commits, not a vacuous pass


def _checkout(repo: Path, rev: str, paths: list[str], folder: Path) -> None:
    for path in paths:
        done = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", f"{rev}:{path}"], capture_output=True)
        if done.returncode == 0:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(done.stdout)


def test_two_folders_and_a_fix_are_diffed_as_git_diffs_the_commits(tmp_path: Path):
    """The gold set's folders and the change after a fix go through git too: the same lines as
    the commit's diff."""
    commits = history(ROOT, 8)
    if not commits:
        pytest.skip("no commit with a parent in this clone")
    for n, commit in enumerate(commits):
        try:
            by_git = from_git(ROOT, f"{commit}^", commit)
        except ChangeError:
            continue
        paths = [p for f in by_git.files for p in {f.path, f.old_path or f.path}]
        base, head = tmp_path / f"{n}" / "base", tmp_path / f"{n}" / "head"
        base.mkdir(parents=True)
        head.mkdir(parents=True)
        _checkout(ROOT, f"{commit}^", paths, base)
        _checkout(ROOT, commit, paths, head)
        by_folders = from_trees(base, head)
        assert {(f.path, f.status, tuple(f.added), tuple(f.moved)) for f in by_folders.files} == \
               {(f.path, f.status, tuple(f.added), tuple(f.moved)) for f in by_git.files}, commit
        # a fix that puts back a file's new version as it is changes nothing; one that edits it is re-diffed by git
        text_file = next((f for f in by_git.files if f.text and f.base is not None and f.status != "added"), None)
        if text_file is None:
            continue
        edited = text_file.text.replace("\n", "\n# fixed\n", 1)
        apply_fix(by_git, {text_file.path: edited})
        again = diff_texts(text_file.base + "\n", edited)
        assert text_file.added == again.added and text_file.removed == again.removed_count


OLD = """import os
import time

class FileLock:
    def __init__(self, path):
        self.path = path

    def acquire(self):
        return os.open(self.path, os.O_CREAT)


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)
"""
NEW = """import os
import time

def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


class FileLock:
    def __init__(self, path):
        self.path = path

    def acquire(self):
        return os.open(self.path, os.O_CREAT)


def read(path, encoding='utf-8'):
    with open(path) as f:
        return f.read()
"""


def test_an_unchanged_class_is_not_new_and_a_changed_signature_is_no_new_public_code(tmp_path: Path):
    """Python's difflib marks the unchanged FileLock class added here; git does not. The function
    whose signature changed existed before: it is no new public code the spec never asked for."""
    for side, text in (("base", OLD), ("head", NEW)):
        (tmp_path / side / "locks").mkdir(parents=True)
        (tmp_path / side / "locks" / "files.py").write_text(text)
    change = from_trees(tmp_path / "base", tmp_path / "head")
    [f] = change.files
    lock = NEW.splitlines().index("class FileLock:") + 1
    assert lock not in f.added
    rendered = render_change(change, 60_000)
    [shown] = parse_change(rendered.text)
    assert "      - def read(path):" in rendered.text  # the old signature is shown where it was removed
    view = FileView(path=shown["path"], language="python", lines=shown["lines"], added=set(shown["added"]),
                    moved=set(shown["moved"]), removed=shown["removed"])
    spec = "# Task 4: reading with an encoding\n\n## Requirements\n\n- File reads take an `encoding` argument.\n"
    scope = [x for x in review_spec(spec, [view], "B").findings if x.category == "scope-creep"]
    assert scope == []


def test_code_moved_between_files_is_marked_moved_not_new(tmp_path: Path):
    helper = "def slugify(text):\n    cleaned = text.strip().lower()\n    return cleaned.replace(' ', '-')\n"
    (tmp_path / "base" / "app").mkdir(parents=True)
    (tmp_path / "head" / "app").mkdir(parents=True)
    (tmp_path / "base" / "app" / "views.py").write_text("X = 1\n\n\n" + helper)
    (tmp_path / "head" / "app" / "views.py").write_text("from app.text import slugify\n\nX = 1\n")
    (tmp_path / "head" / "app" / "text.py").write_text(helper + "\n\ndef title(text):\n    return text.title()\n")
    change = from_trees(tmp_path / "base", tmp_path / "head")
    text = change.file("app/text.py")
    assert text.moved == [1, 2, 3] and {6, 7} <= set(text.added)
    shown = {f["path"]: f for f in parse_change(render_change(change, 60_000).text)}
    assert shown["app/text.py"]["moved"] == [1, 2, 3] and 1 not in shown["app/text.py"]["added"]
