"""What changed in each file, as git itself computes it.

One `git diff` over the whole change (two revisions of a repository, or two folders with
`--no-index`) gives every file's hunks with no context lines (`-U0`): the new-version lines added,
the old lines removed (and where they stood), renames (`-M`), and lines that only moved
(`--color-moved=blocks`: a block of at least 20 letters or digits removed in one place and added
in another, in the same file or another one). Moved lines are not new code: the reviewers see them
marked as moved, and the rules look only at lines the change really adds.

The output is read with colours on (that is how git reports moves), with fixed colours so a
user's colour settings cannot change what is read, and without external diff drivers or text
conversion. `diff_texts` diffs two versions of one file the same way (through `--no-index` on
two temporary files); `diff_trees` diffs two folders.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# a colour per kind of line, so the first escape code of a line says what it is
NEW, NEW_MOVED, OLD, OLD_MOVED = "32", "35", "31", "34"
COLOURS = {
    "color.diff.new": "green", "color.diff.old": "red",
    **{f"color.diff.newMoved{k}": "magenta" for k in ("", "Alternative", "Dimmed", "AlternativeDimmed")},
    **{f"color.diff.oldMoved{k}": "blue" for k in ("", "Alternative", "Dimmed", "AlternativeDimmed")},
    "core.quotePath": "false",
}
OPTIONS = ("--color=always", "--color-moved=blocks", "--ws-error-highlight=none", "-U0", "-M", "--no-ext-diff",
           "--no-textconv", "--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "--inter-hunk-context=0")
ESCAPE = re.compile(r"\x1b\[([0-9;]*)m")
BINARY = re.compile(r"^Binary files (.+) and (.+) differ$")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class GitDiffError(RuntimeError):
    """git could not diff the inputs (the message is git's last line)."""


@dataclass
class FileDiff:
    """One file's hunks: `added` new-version line numbers (moved lines included), `moved` the
    added lines git reports as moved from elsewhere, `removed` the old lines by the new-version
    line they stood before (the line after the file's end for a removal at its end)."""

    path: str | None = None  # the new path (None for a deletion)
    old_path: str | None = None  # the old path (None for an addition)
    added: list[int] = field(default_factory=list)
    moved: list[int] = field(default_factory=list)
    removed: dict[int, list[str]] = field(default_factory=dict)
    binary: bool = False

    @property
    def removed_count(self) -> int:
        return sum(len(lines) for lines in self.removed.values())

    @property
    def key(self) -> str:
        return self.path if self.path is not None else str(self.old_path)


def git_command(*args: str) -> list[str]:
    """`git` with the fixed colours and the options that make its diff the one read here."""
    settings = [item for key, value in COLOURS.items() for item in ("-c", f"{key}={value}")]
    return ["git", *settings, *args]


def diff_options() -> tuple[str, ...]:
    return OPTIONS


def unquote(path: str) -> str:
    """A path as git prints it: C-quoted ("a\\tb", octal bytes) when it holds unusual characters."""
    if not (path.startswith('"') and path.endswith('"') and len(path) >= 2):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    simple = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a", "b": b"\b", "f": b"\f", "r": b"\r", "v": b"\v"}
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in simple:
                out += simple[nxt]
                i += 2
                continue
            if re.fullmatch(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
        out += char.encode("utf-8")
        i += 1
    return out.decode("utf-8", "replace")


def _side(text: str, prefix: str) -> str | None:
    """The path of a '--- a/x' or '+++ b/x' line (None for /dev/null)."""
    text = unquote(text.rstrip("\t"))
    if text == "/dev/null":
        return None
    return text[len(prefix):] if text.startswith(prefix) else text


def parse_diff(text: str) -> list[FileDiff]:
    """The files of a colour diff made with `OPTIONS`, in git's order."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    old_line = new_line = 0
    for raw in text.splitlines():
        codes = ESCAPE.findall(raw)
        line = ESCAPE.sub("", raw)
        colour = codes[0] if codes else ""
        if line.startswith("diff --git ") or line.startswith("diff --cc "):
            current = FileDiff()
            files.append(current)
            header = line[len("diff --git "):]
            half = len(header) // 2  # 'a/x b/x' (a mode change or binary file names nothing else)
            if header[:half] == "a/" + header[half + 3:] and header[half:half + 3] == " b/":
                current.path = current.old_path = header[2:half]
            continue
        if current is None:
            continue
        match = HUNK.match(line)
        if match:
            old_line, new_line = int(match.group(1)), int(match.group(3))
            if match.group(4) == "0":  # nothing added: the removed lines stood after new line c
                new_line += 1
            if match.group(2) == "0":
                old_line += 1
            continue
        if line.startswith("+++ "):
            current.path = _side(line[4:], "b/")
        elif line.startswith("--- "):
            current.old_path = _side(line[4:], "a/")
        elif line.startswith("rename from "):
            current.old_path = unquote(line[len("rename from "):])
        elif line.startswith("rename to "):
            current.path = unquote(line[len("rename to "):])
        elif line.startswith("new file mode"):
            current.old_path = None
        elif line.startswith("deleted file mode"):
            current.path = None
        elif line.startswith("Binary files ") or line.startswith("GIT binary patch"):
            current.binary = True
            names = BINARY.match(line)
            if names and current.path is None and current.old_path is None:
                current.old_path, current.path = _side(names.group(1), "a/"), _side(names.group(2), "b/")
        elif line.startswith("+") and colour in (NEW, NEW_MOVED) or (line == "+" and not colour):
            current.added.append(new_line)
            if colour == NEW_MOVED:
                current.moved.append(new_line)
            new_line += 1
        elif line.startswith("-") and colour in (OLD, OLD_MOVED) or (line == "-" and not colour):
            current.removed.setdefault(new_line, []).append(line[1:])
            old_line += 1
    return files


def run_diff(cwd: Path, *args: str, no_index: bool = False) -> str:
    """git's colour diff (exit code 1 of --no-index means 'differences found', not an error)."""
    command = git_command("-C", str(cwd), "diff", *(["--no-index"] if no_index else []), *OPTIONS, *args)
    done = subprocess.run(command, capture_output=True)
    if done.returncode not in ((0, 1) if no_index else (0,)):
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitDiffError(message[-1] if message else f"git diff failed ({done.returncode})")
    return done.stdout.decode("utf-8", "replace")


def by_path(files: list[FileDiff]) -> dict[str, FileDiff]:
    """Each file's diff under its new path (its old one for a deletion). A type change (a file
    made a link) comes as a deletion and an addition of one path: the addition is kept."""
    out: dict[str, FileDiff] = {}
    for f in files:
        if f.key not in out or f.path is not None:
            out[f.key] = f
    return out


def strip_root(files: list[FileDiff], old_root: str, new_root: str) -> list[FileDiff]:
    """Paths of a --no-index diff of two folders, relative to each folder."""
    for f in files:
        if f.path is not None:
            f.path = f.path.removeprefix(new_root.rstrip("/") + "/")
        if f.old_path is not None:
            f.old_path = f.old_path.removeprefix(old_root.rstrip("/") + "/")
    return files


def diff_trees(base: Path, head: Path) -> list[FileDiff]:
    """The diff of two folders (relative paths), renames and moves included."""
    parent = Path(tempfile.mkdtemp(prefix="code-diff-"))
    try:
        (parent / "a").symlink_to(base.resolve(), target_is_directory=True)
        (parent / "b").symlink_to(head.resolve(), target_is_directory=True)
        text = run_diff(parent, "a/", "b/", no_index=True)
    finally:
        for name in ("a", "b"):
            (parent / name).unlink(missing_ok=True)
        parent.rmdir()
    return strip_root(parse_diff(text), "a", "b")


def diff_texts(old: str, new: str) -> FileDiff:
    """The diff of two versions of one file."""
    with tempfile.TemporaryDirectory(prefix="code-diff-") as folder:
        root = Path(folder)
        (root / "old").write_text(old, encoding="utf-8", newline="")
        (root / "new").write_text(new, encoding="utf-8", newline="")
        files = parse_diff(run_diff(root, "old", "new", no_index=True))
    return files[0] if files else FileDiff()
