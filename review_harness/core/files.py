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
- `write_output(path, text)`: a user-visible output (a review file, analytics) that never replaces
  a file the tool did not write: each folder keeps a record of the files the tool wrote there
  (`.review-harness-outputs.json`, name and digest); a file of the wanted name that is not in it,
  or was changed since, is left as it is and the output goes beside it (`plan.review-2.md`), which
  the returned `Written` says. `tool_outputs(folder)`: the tool's own unchanged files there (the
  document reader skips them, so a review is never reviewed as a document).
- `write_safe(path, text)`: the one writer of the commands that write files (plant, gold new, the
  kinds' output folders): the name is reserved atomically (the complete file is linked into place
  only if the name is free) and a file this run did not write is never replaced, unless the
  command runs inside `replacing(True)` (its `--force`); a file in the way is `NotReplaced`, one
  line naming it. `safe_name(value, what)`: an id or name that must stay one name (no separator,
  no `..`, no control character), else `UnsafeName`. `inside(path, root, what)`: a path that must
  stay under `root`, else `UnsafeName`.
- `read_bytes(path)`, `read_text(path)`: the one reader of files a user hands in (rubrics, configs,
  baselines, indexes, documents, logs): a missing file, a folder, a named pipe or other special
  file (never opened, so nothing blocks), an unreadable, binary or non-UTF-8 file is a
  `FileReadError` whose message is one line naming the file and the problem. Inside
  `reading_inputs()` (the core task helper, while a kind reads its inputs) `read_text` gives the
  text as a reader sees it (`core.text.visible_text`) and records what it changed, per file.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import stat
import shutil
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path


class FileReadError(ValueError):
    """A file a user handed in that cannot be read: one line, '<name>: <problem>'. `problem` alone
    reads after the name ('no such file', 'is a folder, not a file', 'is not a text file (binary)')."""

    def __init__(self, name: str, problem: str) -> None:
        self.name, self.problem = name, problem
        super().__init__(f"{name}: {problem}")


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


class NotReplaced(FileReadError):
    """A file a command would replace that this run did not write (and no --force)."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path), "a file this command did not write is already there; it is left as it is "
                                    "(choose another place, or add --force to replace it)")


class UnsafeName(ValueError):
    """An id, name or path a user gave that would leave its folder or break a line."""


_THIS_RUN: set[str] = set()  # the files this process wrote: the only ones it replaces without --force
_FORCE: ContextVar[bool] = ContextVar("review_harness_force", default=False)


def new_run() -> None:
    """A new command starts (a process may run several, as a test does): nothing is its own yet."""
    _THIS_RUN.clear()


@contextmanager
def replacing(force: bool) -> Iterator[None]:
    """Inside, `write_safe` replaces files it did not write when `force` (a command's --force)."""
    token = _FORCE.set(force)
    try:
        yield
    finally:
        _FORCE.reset(token)


def forcing() -> bool:
    """Whether the command runs with --force (inside `replacing(True)`)."""
    return _FORCE.get()


def write_safe(path: str | Path, text: str) -> Path:
    """Write `path`: a new name is reserved atomically (linked into place only if free, so two
    runs never both take it); a file there is replaced only when this run wrote it, or under
    `replacing(True)`; else `NotReplaced`, the file left as it is."""
    path = Path(path)
    key = os.path.abspath(path)
    if key in _THIS_RUN or _FORCE.get():
        write_atomic(path, text)
    else:
        tmp = _temporary(path.parent, path.name, text)
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise NotReplaced(path) from None
        finally:
            tmp.unlink(missing_ok=True)
    _THIS_RUN.add(key)
    return path


def shown(text: str) -> str:
    """Text as data on one terminal line: control characters and line breaks escaped."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def safe_name(value: str, what: str) -> str:
    """`value` as one file name: not empty, no path separator, not `.` or `..`, no control character."""
    if not value.strip():
        raise UnsafeName(f"{what} '': empty; give a name")
    if "/" in value or "\\" in value or value in (".", "..") or not value.isprintable():
        raise UnsafeName(f"{what} {shown(value)}: not a name (no '/', '..' or control characters); give a plain "
                         f"name such as {shown(Path(value.replace(chr(92), '/')).name.strip('.')) or 'case-1'}")
    return value


def inside(path: str | Path, root: str | Path, what: str) -> Path:
    """`path` when it stays under `root` (after resolving `..` and links), else `UnsafeName`."""
    resolved, base = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    if resolved != base and base not in resolved.parents:
        raise UnsafeName(f"{what}: {shown(str(path))} is outside {base}; it is refused")
    return Path(path)


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
        return f"{existing} is {special_file(existing) or 'a file'}, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as ex:
        return f"cannot create {folder} ({ex.strerror})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is not writable"
    return None


# ---------------------------------------------------------------------------- outputs that never replace a user's file

OUTPUTS_FILE = ".review-harness-outputs.json"  # per folder: the files the tool wrote there, with a digest


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextmanager
def folder_locked(folder: str | Path) -> Iterator[None]:
    """An exclusive `flock` on the folder itself (no lock file is left in a user's folder)."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _outputs(folder: Path) -> dict[str, str]:
    """name -> digest of the files the tool wrote in `folder` (an unreadable record: none, so
    nothing is taken for the tool's own)."""
    try:
        data = json.loads((folder / OUTPUTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def _record_output(folder: Path, name: str, text: str) -> None:
    files = _outputs(folder) | {name: _digest(text.encode("utf-8"))}
    note = "Files review-harness wrote in this folder (a file it finds changed or not listed is never replaced)."
    write_atomic(folder / OUTPUTS_FILE, json.dumps({"note": note, "files": dict(sorted(files.items()))}, indent=1) + "\n")


def tool_outputs(folder: str | Path) -> set[str]:
    """Names of the files in `folder` the tool wrote and nobody changed since."""
    folder = Path(folder)
    owned = set()
    for name, digest in _outputs(folder).items():
        try:
            if file_problem(folder / name) is None and _digest((folder / name).read_bytes()) == digest:
                owned.add(name)
        except OSError:
            continue
    return owned


@dataclass(frozen=True)
class Written:
    """Where an output went: `path`; `clash` is the file of the wanted name the tool did not write
    (or someone changed since), left as it is, the output written beside it."""

    path: Path
    clash: Path | None = None

    @property
    def note(self) -> str | None:
        if self.clash is None:
            return None
        return (f"{self.clash} was not written by review-harness (or was changed since): it is left as it is, "
                f"and this output is in {self.path}")


def _beside(path: Path, n: int) -> Path:
    suffix = "".join(path.suffixes[-1:])
    return path if n == 1 else path.with_name(f"{path.name[: len(path.name) - len(suffix)]}-{n}{suffix}")


def write_output(path: str | Path, text: str, *, update: bool = False, earlier_runs: bool = False) -> Written:
    """Write a user-visible output file without ever replacing a file the tool did not write: the
    wanted name when it is free or holds the tool's own unchanged output of this run (the folder
    keeps a record, OUTPUTS_FILE), else the first free or own name beside it (`plan.review-2.md`,
    ...): a review another run wrote there (of another document of the same name, or at the same
    time) is kept. `earlier_runs`: the tool's unchanged output of an earlier run is replaced too
    (a file that is the folder's state, such as a design folder's summary).
    `update`: the text was made from the file's current content (read under the caller's lock),
    so nothing in it is lost and the file is replaced whoever wrote it. Under the folder's lock,
    so two runs never take one name; a new name is linked into place only if still free."""
    path = Path(path)
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    with folder_locked(folder):
        owned = tool_outputs(folder)
        clash: Path | None = None
        n = 1
        while True:
            target = _beside(path, n)
            if not os.path.lexists(target):
                tmp = _temporary(folder, target.name, text)
                try:
                    os.link(tmp, target)  # fails if someone took the name meanwhile: nothing is replaced
                except FileExistsError:
                    clash = clash or target
                    n += 1
                    continue
                finally:
                    tmp.unlink(missing_ok=True)
                break
            ours = os.path.abspath(target) in _THIS_RUN or earlier_runs or _FORCE.get()
            if (target.name in owned and ours) or (update and n == 1 and file_problem(target) is None):
                write_atomic(target, text)
                break
            clash = clash or target
            n += 1
        _record_output(folder, target.name, text)
        _THIS_RUN.add(os.path.abspath(target))
    return Written(target, clash)


# ---------------------------------------------------------------------------- the one reader

BINARY_PROBE = 8192  # bytes looked at to tell a binary file from text
_TEXT_CONTROL_BYTES = frozenset({7, 8, 9, 10, 12, 13, 27})


def _kind_of_special(mode: int) -> str | None:
    """What a file that is no regular file and no folder is, in a few words (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def file_problem(path: str | Path) -> str | None:
    """Why `path` is not a file that can be read, from its metadata alone (it is never opened, so a
    named pipe cannot block): 'no such file', 'is a folder, not a file', 'is a named pipe (FIFO),
    not a file: nothing was read from it', 'is a looping symbolic link', ...; None for a regular file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "is a broken symbolic link: it leads to no file" if os.path.islink(path) else "no such file"
    except OSError as ex:
        if ex.errno == errno.ELOOP:
            return "is a looping symbolic link: it leads to no file"
        return f"cannot be read ({ex.strerror or ex})"
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    special = _kind_of_special(mode)
    if special is not None:
        return f"is {special}, not a file: nothing was read from it"
    return None


def input_folder_problem(path: str | Path, what: str = "folder", missing: str | None = None) -> str | None:
    """Why `path` is not a folder that can be read ('folder does not exist', 'is a file, not a folder', 'is
    a named pipe (FIFO), not a folder', 'cannot be read (...)'), from its metadata; None: it is one.
    `what` names it in the message ('knowledge folder'); `missing` replaces the message for a path
    that does not exist."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return missing or f"{what} does not exist"
    except OSError as ex:
        return f"cannot be read ({ex.strerror or ex})"
    if stat.S_ISDIR(mode):
        return None if os.access(path, os.R_OK | os.X_OK) else "cannot be read (permission denied)"
    special = _kind_of_special(mode)
    return f"is {special or 'a file'}, not a {what}"


def special_file(path: str | Path) -> str | None:
    """'a named pipe (FIFO)', 'a socket', 'a device' when `path` is one (never opened); else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISDIR(mode) else _kind_of_special(mode)


def looks_binary(data: bytes) -> bool:
    """NUL bytes, or more than 30% control characters, in the first bytes: not text."""
    sample = data[:BINARY_PROBE]
    if b"\x00" in sample:
        return True
    if not sample:
        return False
    odd = sum(1 for b in sample if (b < 32 and b not in _TEXT_CONTROL_BYTES) or b == 127)
    return odd / len(sample) > 0.30


def read_bytes(path: str | Path, label: str | None = None) -> bytes:
    """The bytes of a file a user handed in, or a `FileReadError` naming it (as `label` when given)
    and what is wrong: missing, a folder, a named pipe or other special file (checked before it is
    opened, and opened without blocking, so a FIFO never hangs the command), unreadable."""
    name = label or str(path)
    problem = file_problem(path)
    if problem is not None:
        raise FileReadError(name, problem)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as ex:
        raise FileReadError(name, f"cannot be read ({ex.strerror or ex})") from None
    with os.fdopen(fd, "rb") as handle:
        special = _kind_of_special(os.fstat(fd).st_mode)  # replaced by a pipe since it was looked at
        if special is not None:
            raise FileReadError(name, f"is {special}, not a file: nothing was read from it")
        try:
            return handle.read()
        except OSError as ex:
            raise FileReadError(name, f"cannot be read ({ex.strerror or ex})") from None


def read_text(path: str | Path, label: str | None = None) -> str:
    """The text of a file a user handed in (UTF-8, with or without a byte-order mark); a
    `FileReadError` names it (as `label` when given, e.g. a file of a folder named relative to the
    folder) and the problem: those of `read_bytes`, binary data, text that is not UTF-8. Inside
    `reading_inputs()`, the text as a reader sees it."""
    name = label or str(path)
    data = read_bytes(path, label)
    if looks_binary(data):
        raise FileReadError(name, "is not a text file (binary)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as ex:
        raise FileReadError(name, f"is not UTF-8 text (bad byte at offset {ex.start})") from None
    found = _INPUTS.get()
    if found is None:
        return text
    from review_harness.core.text import visible_text

    text, counts = visible_text(text)
    if counts:
        found[name] = counts
    return text


_INPUTS: ContextVar[dict[str, dict[str, int]] | None] = ContextVar("review_harness_inputs", default=None)


@contextmanager
def reading_inputs() -> Iterator[dict[str, dict[str, int]]]:
    """While a task reads its inputs: `read_text` gives each file's text as a reader sees it (no
    invisible characters, look-alike letters plain) and records, per file name, what it changed.
    Files read outside (a plan updated in place, a memory file) keep every character."""
    found: dict[str, dict[str, int]] = {}
    token = _INPUTS.set(found)
    try:
        yield found
    finally:
        _INPUTS.reset(token)
