"""Reading eval logs for the CLI: one-line errors for a missing or unreadable log, and the
newest log of a folder."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.log import EvalLog, read_eval_log


class LogError(ValueError):
    """A log that cannot be read or does not follow the log contract."""


def read_log(path: str | Path) -> EvalLog:
    path = Path(path)
    if not path.exists():
        raise LogError(f"{path}: no such log file")
    try:
        return read_eval_log(str(path))
    except Exception as ex:  # inspect raises several types for unreadable files
        raise LogError(f"{path}: not a readable Inspect eval log ({type(ex).__name__}: {ex})") from None


def newest_log(path: str | Path) -> Path:
    """A log file, or the newest .eval log in a folder."""
    path = Path(path)
    if path.is_dir():
        logs = sorted(path.glob("*.eval"), key=lambda p: p.stat().st_mtime)
        if not logs:
            raise LogError(f"{path}: folder has no .eval logs")
        return logs[-1]
    return path
