"""Changed-section focus (seed: the variable suffix's "changed sections"): when the document under
review lives in a git repository and an earlier version of it was committed, the reviewers get
the sections that changed since the version the topic last reviewed.

The earlier version is, in order: the exact text the previous iteration reviewed (its git blob id
is recorded in that iteration's run record) when the repository has it; else the committed
version (HEAD) when the working copy differs from it; else the version before the last commit
that changed the file. A first review has no earlier iteration and gets no changes.

Sections are compared by their heading path; each changed section is shown as a unified diff of
its own lines, capped so the changes never crowd out the documents.
"""

from __future__ import annotations

import difflib
import hashlib
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from review_harness.core.markdown import parse_sections, section_text

MAX_CHARS = 8_000
DIFF_CONTEXT = 1


@dataclass(frozen=True)
class SectionChanges:
    text: str  # the changed sections, for the prompt's <changes> block
    since: str  # what they are compared with, for the prompt and the summary
    sections: list[str]  # heading paths of the changed sections


def blob_id(text: str) -> str:
    """The git blob id of `text` as a file's content (what `git hash-object` prints)."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)


def _repository(path: Path) -> Path | None:
    if shutil.which("git") is None or not path.parent.is_dir():
        return None
    try:
        done = _git(path.parent, "rev-parse", "--show-toplevel")
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def earlier_version(path: Path, current: str, reviewed_blob: str | None) -> tuple[str, str] | None:
    """(earlier text, what it is) of a file in a git repository, or None (no repository, never
    committed, or nothing earlier that differs)."""
    root = _repository(path)
    if root is None:
        return None
    rel = str(path.resolve().relative_to(root.resolve()))
    try:
        if reviewed_blob and reviewed_blob != blob_id(current):
            done = _git(root, "cat-file", "blob", reviewed_blob)
            if done.returncode == 0:
                return done.stdout, f"the version the previous iteration reviewed (blob {reviewed_blob[:10]})"
        head = _git(root, "show", f"HEAD:{rel}")
        if head.returncode != 0:
            return None  # never committed
        if head.stdout != current:
            return head.stdout, "the last committed version (HEAD)"
        commits = _git(root, "log", "-n", "2", "--format=%H", "--", rel).stdout.split()
        if len(commits) == 2:
            before = _git(root, "show", f"{commits[1]}:{rel}")
            if before.returncode == 0 and before.stdout != current:
                return before.stdout, f"the version of commit {commits[1][:10]}, before the last commit that changed it"
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return None


def _by_heading(text: str) -> dict[str, str]:
    sections = parse_sections(text)
    out: dict[str, str] = {}
    for section in sections:
        key = section.path or "(before the first heading)"
        body = section_text(text, section, sections, nested=False, with_heading=True)
        out[key] = out[key] + "\n" + body if key in out else body
    return out


def section_changes(before: str, after: str, since: str, max_chars: int = MAX_CHARS) -> SectionChanges | None:
    """The sections of `after` that differ from `before` (added, changed, removed), or None."""
    old, new = _by_heading(before), _by_heading(after)
    parts: list[str] = []
    changed: list[str] = []
    for key, text in new.items():
        if key not in old:
            changed.append(key)
            parts.append(f"## {key} (new section)\n" + "\n".join("+" + line for line in text.splitlines()))
        elif old[key] != text:
            changed.append(key)
            diff = difflib.unified_diff(old[key].splitlines(), text.splitlines(), lineterm="", n=DIFF_CONTEXT)
            parts.append(f"## {key} (changed)\n" + "\n".join(list(diff)[2:]))
    for key in old:
        if key not in new:  # its lines too: what a removed section carried is a finding of the delta
            changed.append(key)
            parts.append(f"## {key} (removed)\n" + "\n".join("-" + line for line in old[key].splitlines()))
    if not changed:
        return None
    text = ""
    for n, part in enumerate(parts):
        if len(text) + len(part) > max_chars:
            text += f"\n... and {len(parts) - n} more changed section(s): {'; '.join(changed[n:])}"
            break
        text += ("\n\n" if text else "") + part
    return SectionChanges(text=text, since=since, sections=changed)


def file_text(path: str | Path | None) -> str | None:
    """The file's text as git stores it (None: not a readable UTF-8 file)."""
    if path is None:
        return None
    try:
        return Path(path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def changed_sections(path: str | Path | None, reviewed_blob: str | None) -> SectionChanges | None:
    """The changed-section focus for the document at `path` (None: no readable file, no git, no
    earlier committed version, or no change)."""
    current = file_text(path)
    if current is None:
        return None
    earlier = earlier_version(Path(path), current, reviewed_blob)  # type: ignore[arg-type]
    return section_changes(earlier[0], current, earlier[1]) if earlier else None
