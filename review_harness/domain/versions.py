"""Versioned digests: every refresh writes a timestamped version beside the current file.

    knowledge/domain/digests/
      search-ranking.md                        current (a copy of the newest good version)
      search-ranking.2026-02-15T09-00-00Z.md   one file per version (':' is '-' in file names)
      search-ranking.refresh.json              what the last refresh did (ok / anomaly / failed / degraded)
      search-ranking.references.json           when each external reference was last fetched

A new version that looks broken (empty, less than half the tokens of the current one, every
importance score near zero) is not published: the current one stays and a warning says why. A
refresh that could not read too many of its indexed pages is degraded (refresh.py): it keeps the
current version or publishes with a warning, as the index says.
`rollback` makes the version before the current one current again; a current file that
cannot be read is served from the newest version that can (with a warning).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from review_harness.domain.digest import Digest, DigestError, parse_digest, render_digest

VERSION_FILE_RE = re.compile(r"^(?P<stem>.+)\.(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z)\.md$")
TOKEN_DROP_LIMIT = 0.5  # a new version with less than half the tokens of the current one is an anomaly
NEAR_ZERO_IMPORTANCE = 0.05  # every page scored below this: the curator did not do its job


class DigestStoreError(ValueError):
    """No digest can be served or restored (one line)."""


def stamp_of(version: str) -> str:
    return version.replace(":", "-")


def version_of(stamp: str) -> str:
    day, time = stamp.split("T")
    return f"{day}T{time[:-1].replace('-', ':')}Z"


def version_path(current: Path, version: str) -> Path:
    return current.with_name(f"{current.stem}.{stamp_of(version)}.md")


def status_path(current: Path) -> Path:
    return current.with_name(f"{current.stem}.refresh.json")


def list_versions(current: Path) -> list[tuple[str, Path]]:
    """(version, file) of every versioned file of this digest, oldest first."""
    out = []
    if current.parent.is_dir():
        for path in current.parent.iterdir():
            match = VERSION_FILE_RE.match(path.name)
            if match and match.group("stem") == current.stem:
                out.append((version_of(match.group("stamp")), path))
    return sorted(out)


def read_digest(path: Path) -> Digest:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DigestError(f"{path}: not found") from None
    return parse_digest(text, str(path))


@dataclass
class Served:
    digest: Digest
    path: Path
    warnings: list[str] = field(default_factory=list)


def load_current(current: Path) -> Served:
    """The current digest, or the newest readable version when the current file is corrupt."""
    try:
        return Served(read_digest(current), current)
    except DigestError as ex:
        problem = str(ex)
    for version, path in reversed(list_versions(current)):
        try:
            digest = read_digest(path)
        except DigestError:
            continue
        return Served(digest, path, [f"current digest unreadable ({problem}); served version {version} instead"])
    raise DigestStoreError(f"no readable digest for {current.stem}: {problem}")


def anomalies(new: Digest, previous: Digest | None, importances: list[float] | None = None) -> list[str]:
    """Why a freshly built digest must not replace the current one ([] when it may)."""
    found = []
    if new.is_empty:
        found.append("the new digest is empty")
    if previous is not None and not previous.is_empty:
        before, after = previous.tokens, new.tokens
        if after < before * TOKEN_DROP_LIMIT:
            found.append(f"token count dropped by more than 50% ({before} -> {after})")
    if importances and all(score < NEAR_ZERO_IMPORTANCE for score in importances):
        found.append(f"all {len(importances)} importance scores are near zero (< {NEAR_ZERO_IMPORTANCE})")
    return found


@dataclass
class PublishResult:
    published: bool
    version: str
    kept_version: str | None
    warnings: list[str]
    pruned: list[str] = field(default_factory=list)


def write_status(current: Path, status: str, message: str, at: datetime, version: str | None = None,
                 **extra: object) -> None:
    """The last refresh's outcome (ok / anomaly / failed / degraded) beside the digest; `extra`
    adds facts the brief warns about (the pages a refresh could not read)."""
    record = {"status": status, "message": message, "at": at.astimezone(timezone.utc).isoformat(), "version": version,
              **extra}
    current.parent.mkdir(parents=True, exist_ok=True)
    status_path(current).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def references_path(current: Path) -> Path:
    return current.with_name(f"{current.stem}.references.json")


def read_references(current: Path) -> dict[str, dict]:
    """url -> {"description", "checked_at", "status"}: when each external reference was last fetched."""
    try:
        data = json.loads(references_path(current).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def read_status(current: Path) -> dict | None:
    try:
        return json.loads(status_path(current).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as ex:
        return {"status": "failed", "message": f"refresh status file unreadable ({ex.msg})", "at": None}


def publish(current: Path, digest: Digest, retain: int, *, at: datetime,
            importances: list[float] | None = None, status: tuple[str, str] | None = None,
            **record: object) -> PublishResult:
    """Write `digest` as a new version and make it current, unless it looks broken. `status`
    (status, message) replaces the plain "ok" of a published version (a degraded refresh published
    with a warning); `record` adds facts to the refresh record."""
    try:
        previous = load_current(current).digest
    except DigestStoreError:
        previous = None
    problems = anomalies(digest, previous, importances)
    if problems:
        kept = previous.version if previous else None
        message = "; ".join(problems) + (f"; kept version {kept}" if kept else "; nothing published")
        write_status(current, "anomaly", message, at, kept, **{**record, "published": False})
        return PublishResult(False, digest.version, kept, [f"{digest.domain} refresh: {message}"])
    current.parent.mkdir(parents=True, exist_ok=True)
    text = render_digest(digest)
    version_path(current, digest.version).write_text(text, encoding="utf-8")
    current.write_text(text, encoding="utf-8")
    pruned = []
    versions = list_versions(current)
    for version, path in versions[: max(0, len(versions) - retain)]:
        path.unlink()
        pruned.append(version)
    state, message = status or ("ok", f"published version {digest.version}")
    write_status(current, state, message, at, digest.version, **record)
    return PublishResult(True, digest.version, previous.version if previous else None, [], pruned)


def rollback(current: Path, *, at: datetime) -> tuple[str | None, str]:
    """Make the newest readable version older than the current one current again.
    Returns (version rolled back from, version now current)."""
    try:
        now = read_digest(current).version
    except DigestError:
        now = None
    candidates = [(v, p) for v, p in list_versions(current) if now is None or v < now]
    for version, path in reversed(candidates):
        try:
            read_digest(path)
        except DigestError:
            continue
        shutil.copyfile(path, current)
        write_status(current, "ok", f"rolled back from {now or 'an unreadable current file'} to {version}", at, version)
        return now, version
    raise DigestStoreError(
        f"{current.stem}: no earlier version to roll back to"
        + (f" (current is {now}, the oldest kept)" if now else "")
    )
