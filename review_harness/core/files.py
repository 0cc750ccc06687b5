"""Artifacts on disk that nothing may lose: atomic writes, names taken exclusively, and a lock for
read-modify-write updates that runs can make at the same time.

- `write_atomic(path, text)`: a temporary file beside the target, then a rename; a reader sees the
  old or the new content, never half of it. The file gets the user's umask (a temporary file from
  `mkstemp` would be 0600 and stay so after the rename).
- `write_new(folder, stem, suffix, text)`: a file under a name no other writer has taken
  (`stem.md`, else `stem-2.md`, ...): the complete file is linked into place only if the name is
  free, so two writers never overwrite each other.
- `file_lock(path)`: an exclusive `flock` on `path` (created if needed) for as long as the block runs;
  `locked(folder)` takes the folder's own lock file (`<folder>/.lock`).
- `claim_folder(path)`: create `path` exclusively; False when it exists. Two runs that want the
  same name both try, and exactly one wins.
- `temporary_folder(parent, name)` and `publish_folder(temporary, destination)`: fill a fresh
  hidden folder beside where a set of files will live, then rename it into place in one step
  (onto a missing folder, an empty claimed one, or an earlier version of it, moved aside first).
- `folder_problem(folder)`: why a folder cannot be made or written (None: it can; it is created).
- `read_text(path)`: a UTF-8 text file, or a `FileReadError` whose message names the file and the problem.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path


class FileReadError(ValueError):
    """A file that is missing or unreadable as UTF-8 text; the message is one line naming it."""


def _temporary(folder: Path, name: str, text: str) -> Path:
    """A new file in `folder` holding `text`, created with mode 0666 minus the umask."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.{uuid.uuid4().hex}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def write_atomic(path: str | Path, text: str) -> Path:
    path = Path(path)
    tmp = _temporary(path.parent, path.name, text)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_new(folder: str | Path, stem: str, suffix: str, text: str) -> Path:
    """`folder/stem+suffix`, or the first of `stem-2`, `stem-3`, ... that is free."""
    folder = Path(folder)
    tmp = _temporary(folder, stem + suffix, text)
    try:
        n = 1
        while True:
            target = folder / (f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}")
            try:
                os.link(tmp, target)  # fails if the name is taken: nothing is ever replaced
                return target
            except FileExistsError:
                n += 1
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def file_lock(path: str | Path) -> Iterator[None]:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


LOCK_FILE = ".lock"


def locked(folder: str | Path) -> AbstractContextManager[None]:
    """The folder's own lock (`<folder>/.lock`): read-modify-write of the files in it."""
    return file_lock(Path(folder) / LOCK_FILE)


def claim_folder(path: str | Path) -> bool:
    """Create `path` (mode 0777 minus the umask) if nobody has; True when this call created it."""
    try:
        os.mkdir(path, 0o777)
    except FileExistsError:
        return False
    return True


def temporary_folder(parent: str | Path, name: str) -> Path:
    """A new, empty, hidden folder in `parent` (mode 0777 minus the umask)."""
    folder = Path(parent) / f".{name}.{uuid.uuid4().hex[:12]}.tmp"
    os.mkdir(folder, 0o777)
    return folder


def publish_folder(temporary: str | Path, destination: str | Path) -> None:
    """Rename the finished `temporary` folder to `destination` in one step. An empty
    `destination` (a claim) is replaced by the rename itself; a non-empty one (an earlier write of
    the same folder) is moved aside first and deleted once the new folder is in place."""
    temporary, destination = Path(temporary), Path(destination)
    old: Path | None = None
    if destination.is_dir() and any(destination.iterdir()):
        old = destination.parent / f".{destination.name}.old.{uuid.uuid4().hex[:12]}.tmp"
        os.rename(destination, old)
    os.rename(temporary, destination)  # POSIX: replaces an empty folder atomically
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def folder_problem(folder: str | Path) -> str | None:
    """Why `folder` cannot be created or written (one phrase naming it), None when it can; a
    missing folder is created."""
    folder = Path(folder)
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as ex:
        return f"cannot create {folder} ({ex.strerror})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is not writable"
    return None


def read_text(path: str | Path, label: str | None = None) -> str:
    """The file's text; a `FileReadError` names it (as `label` when given, e.g. a file of a folder
    named relative to the folder) and the problem."""
    path = Path(path)
    name = label or str(path)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise FileReadError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise FileReadError(f"{name}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise FileReadError(f"{name}: not a UTF-8 text file") from None
    except OSError as ex:
        raise FileReadError(f"{name}: cannot be read ({ex.strerror})") from None
