"""Reading eval logs: one-line errors for a missing or unreadable log, the newest log of a
folder, and the one reader of the reviews a log holds (each kind's synthesis score keeps its
review in `Score.metadata["review"]`; the log's kind comes from the registry)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from pydantic import ValidationError

from review_harness.core.files import file_problem, shown
from review_harness.core.kinds import kind_of_log
from review_harness.core.yamlio import first_error


class LogError(ValueError):
    """A log that cannot be read or does not follow the log contract."""


def _check_log_file(path: Path) -> None:
    """A log path that is no file (a folder is read as its newest log before this) is one line; a
    named pipe is named, never opened."""
    problem = file_problem(path)
    if problem == "no such file":
        raise LogError(f"{path}: no such log file")
    if problem is not None:
        raise LogError(f"{path}: {problem}")


def read_log(path: str | Path) -> EvalLog:
    path = Path(path)
    _check_log_file(path)
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


def logs_newest_first(folder: str | Path) -> list[Path]:
    return sorted(Path(folder).glob("*.eval"), key=lambda p: p.stat().st_mtime, reverse=True)


def kind_of_log_file(path: Path) -> str | None:
    """The kind of a log file, from its header (None for a log of no review kind)."""
    from review_harness.core.kinds import kind_for_task

    header = read_eval_log_header(path)
    recorded = (header.eval.metadata or {}).get("kind")
    return recorded or getattr(kind_for_task(header.eval.task), "name", None)


def logs_of_kind(folder: str | Path, kind_name: str) -> list[Path]:
    """The logs of one kind in a folder, oldest first (a folder of a user's runs holds every kind's)."""
    return [p for p in reversed(logs_newest_first(folder)) if kind_of_log_file(p) == kind_name]


def newest_log_of_kind(path: str | Path, kind_name: str) -> Path:
    """A log file (which must be of the kind), or the newest log of the kind in a folder."""
    path = Path(path)
    if not path.is_dir():
        kind = kind_of_log(read_eval_log_header(path))
        if kind.name != kind_name:
            raise LogError(f"{path}: a {kind.title} review log, not a {kind_name} one")
        return path
    for log in logs_newest_first(path):
        if kind_of_log_file(log) == kind_name:
            return log
    raise LogError(f"{path}: folder has no {kind_name} review logs")


def log_to_read(path: str | Path, kind_name: str | None = None) -> Path:
    """A log file, or a folder's newest log (of the kind, with `kind_name`)."""
    from review_harness.core.kinds import kind_names

    if kind_name is None:
        return newest_log(path)
    known = kind_names(with_task=True)
    if kind_name not in known:
        raise LogError(f"--kind {kind_name}: not a review kind; choose one of: {', '.join(known)}")
    return newest_log_of_kind(path, kind_name)


def read_eval_log_header(path: Path) -> EvalLog:
    """The log without its samples (fast), or a one-line error."""
    _check_log_file(Path(path))
    try:
        return read_eval_log(str(path), header_only=True)
    except Exception as ex:  # inspect raises several types for unreadable files
        raise LogError(f"{path}: not a readable Inspect eval log ({type(ex).__name__}: {ex})") from None


def chosen_sample(log: EvalLog, sample_id: str | None, epoch: int | None) -> EvalSample:
    """The sample `show` prints: `sample_id` (default: the first) at `epoch` (default 1); an id
    or epoch the log does not have is a one-line error listing what it has."""
    samples = log.samples or []
    if not samples:
        raise LogError(f"{log.location}: the log has no samples (status {log.status})")
    epochs = sorted({s.epoch for s in samples})
    if epoch is not None and epoch not in epochs:
        have = f"epoch {epochs[0]}" if len(epochs) == 1 else f"epochs {epochs[0]}-{epochs[-1]}"
        raise LogError(f"--epoch {epoch}: the log has {have}")
    epoch = epoch or epochs[0]
    if sample_id is None:
        return next(s for s in samples if s.epoch == epoch)
    chosen = next((s for s in samples if str(s.id) == sample_id and s.epoch == epoch), None)
    if chosen is None:
        ids = sorted({str(s.id) for s in samples})
        raise LogError(f"--sample {shown(sample_id)}: no such sample in {log.location}; samples: "
                       f"{', '.join(shown(i) for i in ids)}")
    return chosen


def merge_columns(rows: list[list[str]]) -> list[str]:
    """Every column of the rows once, a new one placed before the next known column of its row
    (impact reviews of different templates score different dimensions; they stay together)."""
    columns: list[str] = []
    for row in rows:
        for n, name in enumerate(row):
            if name not in columns:
                after = next((c for c in row[n + 1:] if c in columns), None)
                columns.insert(columns.index(after) if after else len(columns), name)
    return columns


def text_table(rows: list[tuple[str, ...]]) -> str:
    """Rows as aligned columns, the first a header. A cell is data on its line: a sample id or
    title with a line break or control characters is shown escaped, never as a line of its own."""
    rows = [tuple(shown(str(cell)) for cell in row) for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_table(log: EvalLog) -> str:
    """One row per reviewed sample and epoch, with the columns of the log's kind; then each
    sample that failed (e.g. an unreadable file of a folder: its sample failed, the run did not)."""
    from review_harness.core.kinds import KindError

    kind = kind_of_log(log)
    if kind.summary_row is None:
        raise KindError(f"the {kind.title} review has no summary rows")
    rows = [{"sample": sample_id, "epoch": str(epoch), **kind.summary_row(review)}
            for sample_id, epoch, review in reviews_in_log(log)]
    columns = merge_columns([list(row) for row in rows]) or ["sample", "epoch"]
    table = text_table([tuple(columns)] + [tuple(row.get(c, "-") for c in columns) for row in rows])
    for sample in log.samples or []:
        if sample.error is not None:
            reason = (sample.error.message.splitlines() or ["no reason given"])[0]
            table += f"\n{shown(str(sample.id))} (epoch {sample.epoch}) failed: {shown(reason)}"
    if kind.log_summary is not None and rows:
        table += "\n\n" + "\n".join(kind.log_summary(log))
    return f"log status: {log.status}\n" + table
