"""The change under review: read from a git repository (base..head, with `git` in a
subprocess), from a unified diff file, or from two folders (a gold case's base/ and head/).

Binary files, renames, deletions and non-UTF-8 files are represented, not crashed on; text
changes become files with the new version's known lines and the lines that were added.
Bad input is a `ChangeError` with a one-line message naming the input.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, Field

from review_harness.core.files import FileReadError, input_folder_problem, read_bytes
from review_harness.code.gitdiff import FileDiff, GitDiffError, by_path, diff_texts, diff_trees, parse_diff, run_diff

LANGUAGES = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".tsx": "typescript",
    ".go": "go", ".java": "java", ".kt": "kotlin", ".rb": "ruby", ".rs": "rust", ".sql": "sql",
    ".md": "markdown", ".yml": "yaml", ".yaml": "yaml", ".json": "json", ".sh": "shell",
}
SERVICE_ROOTS = ("services", "packages", "apps", "libs", "cmd")


class ChangeError(ValueError):
    """Bad change input (missing repository, unknown revision, empty diff, binary patch)."""


class ChangedFile(BaseModel):
    path: str
    old_path: str | None = None
    status: str = Field(description="added | modified | deleted | renamed")
    binary: bool = False
    language: str = "text"
    lines: dict[int, str] = Field(default_factory=dict, description="known lines of the new version")
    complete: bool = Field(True, description="lines hold the whole new version (not only diff hunks)")
    added: list[int] = Field(default_factory=list, description="new-version line numbers added or changed")
    moved: list[int] = Field(default_factory=list, description="added lines git reports as moved from elsewhere")
    removed_lines: dict[int, list[str]] = Field(
        default_factory=dict, description="old lines removed, by the new-version line they stood before")
    removed: int = 0
    note: str | None = None
    base: str | None = Field(None, description="the whole old version, when known (to re-diff after a fix)")

    @property
    def text(self) -> str | None:
        """The whole new version, when known."""
        if not self.complete or self.binary:
            return None
        return "".join(self.lines[n] + "\n" for n in sorted(self.lines))


class ChangeSet(BaseModel):
    source: str
    files: list[ChangedFile]
    warnings: list[str] = Field(default_factory=list)

    def file(self, path: str) -> ChangedFile | None:
        return next((f for f in self.files if f.path == path), None)


    def summary(self) -> dict:
        return {
            "source": self.source,
            "files": [
                {"path": f.path, "status": f.status, "old_path": f.old_path, "binary": f.binary,
                 "language": f.language, "added": len(f.added), "removed": f.removed, "note": f.note}
                for f in self.files
            ],
            "warnings": self.warnings,
        }


def language_of(path: str) -> str:
    return LANGUAGES.get(PurePosixPath(path).suffix.lower(), "text")


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:8000]


def decode(data: bytes, path: str, warnings: list[str]) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        warnings.append(f"{path}: not UTF-8; read as Latin-1 (some characters may be wrong)")
        return data.decode("latin-1")


def _split(text: str) -> list[str]:
    return text.splitlines()


def file_from_versions(path: str, old: bytes | None, new: bytes | None, old_path: str | None, warnings: list[str],
                       diff: FileDiff | None = None) -> ChangedFile:
    """One changed file from its two versions (None: absent on that side) and git's diff of them
    (computed here when not given)."""
    status = "added" if old is None else "deleted" if new is None else "renamed" if old_path and old_path != path else "modified"
    changed = ChangedFile(path=path, old_path=old_path if status == "renamed" else None, status=status, language=language_of(path))
    if (diff is not None and diff.binary) or (old is not None and is_binary(old)) or (new is not None and is_binary(new)):
        changed.binary = True
        changed.note = "binary file: content not reviewed"
        return changed
    old_text = decode(old, old_path or path, warnings) if old is not None else None
    if new is None:
        changed.removed = len(_split(old_text or ""))
        changed.note = f"deleted ({changed.removed} lines)"
        return changed
    changed.base = "\n".join(_split(old_text)) if old_text is not None else ""
    set_new_version(changed, _split(decode(new, path, warnings)), diff=diff)
    return changed


def set_new_version(changed: ChangedFile, new_lines: list[str], diff: FileDiff | None = None) -> None:
    """Give a file its new version and the lines git finds added, moved and removed against its
    old version (`changed.base`; every line is added when the old version is unknown). `diff`:
    git's diff of the two, when already computed for the whole change."""
    changed.lines = {n: line for n, line in enumerate(new_lines, 1)}
    changed.complete = True
    if changed.base is None:
        changed.added, changed.moved, changed.removed_lines, changed.removed = list(changed.lines), [], {}, 0
        return
    if diff is None:
        diff = diff_texts(_text(changed.base.splitlines()), _text(new_lines))
    changed.added = [n for n in diff.added if n in changed.lines]
    changed.moved = [n for n in diff.moved if n in changed.lines]
    changed.removed_lines = {n: list(lines) for n, lines in diff.removed.items()}
    changed.removed = diff.removed_count


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def apply_fix(change: ChangeSet, files: dict[str, str]) -> list[str]:
    """Replace files of the change with the implementer's new content; returns the paths
    changed. A path outside the change is added as a new file. The change is diffed again as
    git sees it (against each file's old version), so moves between files are found again."""
    applied = []
    for path, content in files.items():
        target = change.file(path)
        if target is None:
            target = ChangedFile(path=path, status="added", language=language_of(path), base="")
            change.files.append(target)
        if target.text == content.rstrip("\n") + "\n":
            continue
        if target.base is None:  # the old version is unknown (a patch's hunks): every line counts as added
            set_new_version(target, content.splitlines())
        else:
            target.lines, target.complete = {n: line for n, line in enumerate(content.splitlines(), 1)}, True
        applied.append(path)
    if applied:
        rediff(change)
    return applied


def rediff(change: ChangeSet) -> None:
    """Recompute the added, moved and removed lines of every whole file of the change with one
    git diff of its old and new versions (written to a temporary folder)."""
    whole = [f for f in change.files if f.complete and not f.binary and f.status != "deleted" and f.base is not None]
    if not whole:
        return
    with tempfile.TemporaryDirectory(prefix="code-rediff-") as folder:
        base, head = Path(folder) / "base", Path(folder) / "head"
        base.mkdir()
        head.mkdir()
        for f in whole:
            if f.status != "added":
                _write(base / (f.old_path or f.path), f.base + ("\n" if f.base else ""))
            _write(head / f.path, f.text or "")
        diffs = by_path(diff_trees(base, head))
    for f in whole:
        set_new_version(f, [f.lines[n] for n in sorted(f.lines)], diff=diffs.get(f.path) or FileDiff())


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")


def _finish(source: str, files: list[ChangedFile], warnings: list[str], what: str) -> ChangeSet:
    files = [f for f in files if f.binary or f.status in ("deleted", "renamed") or f.added or f.removed]
    if not files:
        raise ChangeError(f"{what}: empty diff (no changes to review)")
    if all(f.binary for f in files):
        raise ChangeError(f"{what}: binary changes only ({', '.join(f.path for f in files)}); nothing to review")
    return ChangeSet(source=source, files=files, warnings=warnings)


# ---------------------------------------------------------------------------- git


def _git(repo: Path, *args: str) -> bytes:
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise subprocess.CalledProcessError(result.returncode, args, stderr=message[-1] if message else "")
    return result.stdout


def repo_top(repo: str | Path) -> Path:
    """The top folder of the repository `repo` is in (after from_git has checked it is one)."""
    return Path(_git(Path(repo), "rev-parse", "--show-toplevel").decode().strip())


def revision(repo: str | Path, rev: str) -> str:
    """The commit a revision names now (so later work sees the head that was reviewed)."""
    return _git(Path(repo), "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()


def _reversed(root: Path, base: str, head: str) -> bool:
    """Whether head is an earlier commit than base on base's history (the range runs backwards)."""
    if revision(root, base) == revision(root, head):
        return False
    return subprocess.run(["git", "-C", str(root), "merge-base", "--is-ancestor", head, base],
                          capture_output=True).returncode == 0


def from_git(repo: str | Path, base: str, head: str) -> ChangeSet:
    repo = Path(repo)
    problem = input_folder_problem(repo, "directory", missing="no such directory")
    if problem:  # a file or a named pipe is named as such
        raise ChangeError(f"-T repo={repo}: {problem}")
    try:
        top = _git(repo, "rev-parse", "--show-toplevel").decode().strip()
    except subprocess.CalledProcessError:
        raise ChangeError(f"-T repo={repo}: not a git repository") from None
    except FileNotFoundError:
        raise ChangeError("git is not installed (needed for -T repo=)") from None
    root = Path(top)
    for name, rev in (("base", base), ("head", head)):
        try:
            _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        except subprocess.CalledProcessError:
            raise ChangeError(f"-T {name}={rev}: unknown revision in {repo}") from None
    if _reversed(root, base, head):
        raise ChangeError(f"-T base={base} -T head={head}: head is an ancestor of base, so this would review the "
                          f"change backwards (removals as additions); swap them: -T base={head} -T head={base}")
    try:
        diffs = parse_diff(run_diff(root, base, head))
    except GitDiffError as ex:
        raise ChangeError(f"-T base={base} -T head={head}: git diff failed ({ex})") from None
    warnings: list[str] = []
    files: list[ChangedFile] = []
    for diff in by_path(diffs).values():
        path, old_path = diff.key, diff.old_path
        try:
            old = None if old_path is None else _git(root, "cat-file", "blob", f"{base}:{old_path}")
            new = None if diff.path is None else _git(root, "cat-file", "blob", f"{head}:{path}")
        except subprocess.CalledProcessError as ex:  # a submodule or another non-blob entry
            files.append(ChangedFile(path=path, status="modified", binary=True, language=language_of(path),
                                     note=f"not a regular file ({ex.stderr or 'git cat-file failed'}): not reviewed"))
            continue
        files.append(file_from_versions(path, old, new, old_path, warnings, diff=diff))
    return _finish(f"git {repo} {base}..{head}", files, warnings, f"-T base={base} -T head={head}")


# ---------------------------------------------------------------------------- folders


def from_trees(base: Path, head: Path) -> ChangeSet:
    """The change between two folders (a gold case's base/ and head/), as git diffs them
    (renames and moves included)."""
    warnings: list[str] = []
    files = []
    with tempfile.TemporaryDirectory(prefix="code-empty-") as empty:
        old_root = base if base.is_dir() else Path(empty)
        new_root = head if head.is_dir() else Path(empty)
        try:
            diffs = by_path(diff_trees(old_root, new_root))
        except GitDiffError as ex:
            raise ChangeError(f"{head.parent}: git diff of {base.name}/ and {head.name}/ failed ({ex})") from None
        for diff in diffs.values():
            a = (old_root / diff.old_path).read_bytes() if diff.old_path is not None else None
            b = (new_root / diff.path).read_bytes() if diff.path is not None else None
            files.append(file_from_versions(diff.key, a, b, diff.old_path, warnings, diff=diff))
    return _finish(f"folders {base.name}..{head.name}", files, warnings, f"{head.parent}")


# ---------------------------------------------------------------------------- unified diff

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def from_patch(path: str | Path) -> ChangeSet:
    path = Path(path)
    try:
        data = read_bytes(path, f"-T patch={path}")  # the core's one reader: a FIFO is named, never opened
    except FileReadError as ex:
        raise ChangeError(str(ex)) from None
    if is_binary(data):
        raise ChangeError(f"-T patch={path}: binary patch (not a text unified diff)")
    warnings: list[str] = []
    text = decode(data, str(path), warnings)
    files: list[ChangedFile] = []
    current: ChangedFile | None = None
    old_name = new_name = None
    new_line = 0
    in_hunk = False
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current, in_hunk, old_name, new_name = None, False, None, None
            match = re.match(r"diff --git a/(.+) b/(.+)$", line)
            if match:
                old_name, new_name = match.group(1), match.group(2)
                current = ChangedFile(path=new_name, status="modified", language=language_of(new_name), complete=False)
                files.append(current)
            continue
        if line.startswith("GIT binary patch") or (line.startswith("Binary files ") and line.endswith(" differ")):
            if current is None:
                match = re.match(r"Binary files (?:a/)?(.+?) and (?:b/)?(.+?) differ", line)
                name = match.group(2) if match else "?"
                current = ChangedFile(path=name, status="modified", language=language_of(name), complete=False)
                files.append(current)
            current.binary, current.note = True, "binary file: content not reviewed"
            in_hunk = False
            continue
        if not in_hunk and line.startswith("--- "):
            old_name = None if line[4:].strip() == "/dev/null" else line[4:].strip().removeprefix("a/")
            continue
        if not in_hunk and line.startswith("+++ "):
            target = line[4:].strip()
            if current is None:
                name = old_name if target == "/dev/null" else target.removeprefix("b/")
                current = ChangedFile(path=name or "?", status="modified", language=language_of(name or ""), complete=False)
                files.append(current)
            if target == "/dev/null":
                current.status = "deleted"
            elif old_name is None:
                current.status = "added"
            continue
        if current is None:
            continue
        if line.startswith("new file mode"):
            current.status = "added"
        elif line.startswith("deleted file mode"):
            current.status = "deleted"
        elif line.startswith("rename from "):
            current.status, current.old_path = "renamed", line[len("rename from "):]
        elif line.startswith("rename to "):
            current.path = line[len("rename to "):]
        match = HUNK.match(line)
        if match:
            new_line, in_hunk = int(match.group(3)), True
            continue
        if not in_hunk or line.startswith("\\"):
            continue
        if line.startswith("+"):
            current.lines[new_line] = line[1:]
            current.added.append(new_line)
            new_line += 1
        elif line.startswith("-"):
            current.removed += 1
            current.removed_lines.setdefault(new_line, []).append(line[1:])
        elif line.startswith(" ") or line == "":
            current.lines[new_line] = line[1:]
            new_line += 1
        else:
            in_hunk = False
    for f in files:
        # an added file's single hunk is its whole content
        f.complete = f.status == "added" and not f.binary and bool(f.lines) and min(f.lines) == 1
        f.base = "" if f.status == "added" else None
        if f.status == "deleted":
            f.lines, f.removed_lines, f.note = {}, {}, f.note or f"deleted ({f.removed} lines)"
        if f.status == "renamed" and not f.added and not f.removed:
            f.note = f"renamed from {f.old_path} (content unchanged)"
    if not files:
        raise ChangeError(f"-T patch={path}: empty diff (no file changes found)")
    return _finish(f"patch {path.name}", files, warnings, f"-T patch={path}")


# ---------------------------------------------------------------------------- service


def infer_service(paths: list[str], fallback: str) -> str:
    """The service a change belongs to: services/<name>/... (or packages/, apps/, ...), else the
    top-level folder most changed paths share, else the fallback (the repository's name)."""
    names: Counter[str] = Counter()
    for path in paths:
        parts = PurePosixPath(path).parts
        if len(parts) >= 3 and parts[0] in SERVICE_ROOTS:
            names[parts[1]] += 1
        elif len(parts) >= 2:
            names[parts[0]] += 1
    if names:
        name, count = names.most_common(1)[0]
        if count * 2 > len(paths) and name not in ("src", "lib", "tests", "test", "docs"):
            return name
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", fallback).strip("-") or "default"
