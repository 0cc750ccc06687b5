"""Artifacts on disk: written whole or not at all, with the user's umask, under a lock where runs
can overlap.

- `write_text_atomic(path, text)`: through a temporary file in the same folder, then renamed, so
  a crash never leaves half a file; the file gets the permissions any new file of the user gets
  (mode 0666 minus the umask), not mkstemp's 0600.
- `temporary_folder(parent, name)`: a fresh folder beside where a set of files will live, created
  with the user's umask; fill it, then `publish_folder` renames it into place in one step.
- `publish_folder(temporary, destination)`: rename a finished folder onto `destination`, which may
  be missing, an empty folder (a claim, see `claim_folder`) or an earlier version of the same
  folder (moved aside first and removed after the rename).
- `claim_folder(path)`: create `path` exclusively; False when it exists. Two runs that want the
  same number both try, and exactly one wins.
- `locked(folder)`: an exclusive advisory lock (`<folder>/.lock`) for read-modify-write of shared
  files such as a run log.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".lock"


def _unique(parent: Path, stem: str) -> Path:
    return parent / f".{stem}.{uuid.uuid4().hex[:12]}.tmp"


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder (O_EXCL, mode 0666
    minus the umask), flushed to disk and renamed over `path`."""
    path = Path(path)
    tmp = _unique(path.parent, path.name)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def temporary_folder(parent: str | Path, name: str) -> Path:
    """A new, empty, hidden folder in `parent` (mode 0777 minus the umask)."""
    folder = _unique(Path(parent), name)
    os.mkdir(folder, 0o777)
    return folder


def claim_folder(path: str | Path) -> bool:
    """Create `path` (mode 0777 minus the umask) if nobody has; True when this call created it."""
    try:
        os.mkdir(path, 0o777)
    except FileExistsError:
        return False
    return True


def publish_folder(temporary: str | Path, destination: str | Path) -> None:
    """Rename the finished `temporary` folder to `destination` in one step. An empty
    `destination` (a claim) is replaced by the rename itself; a non-empty one (an earlier write of
    the same folder) is moved aside first and deleted once the new folder is in place."""
    temporary, destination = Path(temporary), Path(destination)
    old: Path | None = None
    if destination.is_dir() and any(destination.iterdir()):
        old = _unique(destination.parent, destination.name + ".old")
        os.rename(destination, old)
    os.rename(temporary, destination)  # POSIX: replaces an empty folder atomically
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextmanager
def locked(folder: str | Path) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (its `.lock` file) for the block: other processes and
    threads taking the same lock wait."""
    folder = Path(folder)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
