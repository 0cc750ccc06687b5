"""Reading eval logs: one-line errors for a missing or unreadable log, the newest log of a
folder, and the one reader of the reviews a log holds (each kind's synthesis score keeps its
review in `Score.metadata["review"]`; the log's kind comes from the registry)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from pydantic import ValidationError

from review_harness.core.kinds import kind_of_log
from review_harness.core.yamlio import first_error


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


def reviewed_samples(log: EvalLog, expected_kind: str | None = None) -> list[tuple[EvalSample, Any]]:
    """(sample, review) for every sample its kind's synthesis scorer scored with a review, in
    log order. `expected_kind`: the log must be of that kind (e.g. `design export` reads design
    logs only). A review that does not validate is a `LogError` naming the sample."""
    kind = kind_of_log(log)
    if expected_kind is not None and kind.name != expected_kind:
        raise LogError(f"{log.location}: a {kind.title} review log (task {log.eval.task}), "
                       f"not a {expected_kind} review log")
    out = []
    for sample in log.samples or []:
        score = (sample.scores or {}).get(kind.synthesis_scorer or "")
        raw = (score.metadata or {}).get("review") if score is not None else None
        if raw is None:
            continue
        try:
            review = kind.review_from_score({"review": json.loads(raw) if isinstance(raw, str) else raw})
        except ValidationError as ex:
            where, message, more = first_error(ex)
            detail = f"{where}: {message}" + (f" (and {more} more)" if more else "")
            raise LogError(f"{log.location}: sample {sample.id} has an invalid {kind.title} review ({detail})") from None
        except json.JSONDecodeError as ex:
            raise LogError(f"{log.location}: sample {sample.id} has an invalid {kind.title} review ({ex})") from None
        out.append((sample, review))
    return out


def reviews_in_log(log: EvalLog, expected_kind: str | None = None) -> list[tuple[str, int, Any]]:
    """(sample id, epoch, review) for every sample with a review (see `reviewed_samples`)."""
    return [(str(sample.id), sample.epoch, review) for sample, review in reviewed_samples(log, expected_kind)]
