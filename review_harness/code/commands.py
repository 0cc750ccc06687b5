"""What `review-harness code analytics` and `code override` do, apart from their arguments (the CLI
module only parses them and calls these).

Nothing is written into the repository unasked: analytics go to the folder of the (first) log unless
`--output` says otherwise, overrides to `review-overrides.jsonl` beside the log they name, and
memory to the folder the review itself used (or `--memory-dir`). Every place written is checked
before any log is read; files are written atomically, the overrides file under a lock.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable
from pathlib import Path

from inspect_ai.log import EvalLog

from review_harness.code.analytics import ANALYTICS, append_entries, build_analytics, log_entries, render_html, summary_lines
from review_harness.code.memory import false_positive_of, pattern_of, update_service
from review_harness.code.models import CodeReview, MergedFinding
from review_harness.core.commands import CommandError, writable_file
from review_harness.core.files import FileReadError, file_lock, folder_problem, read_text, write_atomic, write_output
from review_harness.core.logs import LogError, logs_of_kind, read_log, reviewed_samples

OVERRIDES = "review-overrides.jsonl"


def log_paths(items: list[str]) -> list[Path]:
    paths: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():  # its code review logs: a folder of runs holds every kind's
            found = logs_of_kind(path, "code")
            if not found:
                raise CommandError(f"{path}: folder has no code review logs")
            paths += found
        elif path.exists():
            paths.append(path)
        else:
            raise CommandError(f"{path}: no such log file or folder")
    return paths


def overrides_text(path: Path, required: bool = False) -> str:
    """The overrides file as it is ('' when there is none, unless `required`: a file the user named
    to read), through the core's one reader: a folder, a FIFO (never opened) or a binary file is one
    line naming it."""
    if not os.path.lexists(path) and not required:
        return ""
    try:
        return read_text(path, f"overrides {path}")
    except FileReadError as ex:
        raise CommandError(str(ex)) from None


def read_overrides(path: Path, required: bool = False) -> list[dict]:
    text = overrides_text(path, required)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            raise CommandError(f"{path}: line {n} is not JSON") from None
    return out


def overrides_beside(logs: list[EvalLog]) -> list[dict]:
    """The overrides files next to the logs (each folder once)."""
    folders = dict.fromkeys(Path(log.location).parent for log in logs if log.location)
    return [o for folder in folders for o in read_overrides(folder / OVERRIDES)]


def run_analytics(logs: list[str], *, output: str | None = None, html: str | None = None,
                  overrides: list[str] | None = None) -> list[str]:
    """Rebuild analytics from logs and write them; the lines to print."""
    paths = log_paths(logs)
    target = writable_file("--output", Path(output) if output else paths[0].parent / ANALYTICS)
    page = writable_file("--html", Path(html)) if html else None
    loaded = [read_log(p) for p in paths]
    recorded = [o for name in overrides or [] for o in read_overrides(Path(name), required=True)] if overrides else overrides_beside(loaded)
    analytics = build_analytics(loaded, recorded)
    if not analytics["reviews"]:
        raise CommandError("no data: these logs hold no code review, so there is nothing to count (nothing written)")
    # never over a file the user wrote; the tool's own analytics of the logs is the folder's state: replaced
    written = [write_output(target, json.dumps(analytics, indent=2), earlier_runs=True)]
    lines = [f"wrote {written[0].path}: {len(analytics['reviews'])} entries from {len(paths)} log(s)"]
    if page is not None:
        written.append(write_output(page, render_html(analytics), earlier_runs=True))
        lines.append(f"wrote {written[-1].path}")
    return lines + [w.note for w in written if w.note] + summary_lines(analytics["summary"])


def find_review(log: EvalLog, sample: str, epoch: int | None) -> CodeReview:
    found = [(s.epoch, review) for s, review in reviewed_samples(log, expected_kind="code") if str(s.id) == sample]
    if not found:
        raise CommandError(f"{log.location}: no code review for sample {sample!r}")
    if epoch is None:
        if len(found) > 1:
            raise CommandError(f"{log.location}: sample {sample!r} has {len(found)} epochs; say which with --epoch")
        return found[0][1]
    chosen = [review for e, review in found if e == epoch]
    if not chosen:
        raise CommandError(f"{log.location}: sample {sample!r} has no epoch {epoch} (epochs: "
                           f"{', '.join(str(e) for e, _ in found)})")
    return chosen[0]


def record_override(log_path: str, sample: str, decision: str, *, epoch: int | None = None,
                    dismiss: list[str] | None = None, note: str = "", memory_dir: str | None = None,
                    overrides: str | None = None, today: Callable[[], datetime.date] = datetime.date.today) -> str:
    """A human's decision on one review (log + sample + epoch), after the fact: the findings it
    dismisses by id become false positives in memory; a rejection confirms the last round's
    blocking findings as issues (unless the run already wrote them to memory); the override is
    appended to the overrides file analytics reads. Returns the line to print."""
    path = Path(log_path)
    target = writable_file("--overrides", Path(overrides) if overrides else path.parent / OVERRIDES)
    log = read_log(path)
    review = find_review(log, sample, epoch)
    dismiss = dismiss or []
    located = {i: locate(review, i) for i in dismiss}
    unknown = [i for i, where in located.items() if where is None]
    if unknown:
        known = [m.id for it in review.iterations for s in it.stages() for m in s.findings]
        raise CommandError(f"{path}: sample {sample!r} has no finding {', '.join(unknown)} "
                           f"(its findings: {', '.join(dict.fromkeys(known)) or 'none'})")
    last = review.last
    why = note or f"dismissed by a human in the review of task {review.task}"
    dismissed = [where for where in located.values() if where is not None]
    confirmed = []
    if decision == "reject" and not review.memory.get("updated"):
        # a rejection says the last round's findings were right, whatever their severity
        confirmed = [(s.stage, m) for s in last.reviewed() for m in s.findings
                     if m.id not in dismiss and m.category != "contradiction"]
    touched: list[str] = []
    if dismissed or confirmed:
        root = memory_root_for(review, memory_dir)
        for stage in ("spec", "quality"):
            fps = [false_positive_of(m, why) for st, m in dismissed if st == stage]
            issues = [(pattern_of(m.finding.description), (m.severity_before or m.finding.severity).value, m.finding.where)
                      for st, m in confirmed if st == stage]
            if fps or issues:
                update_service(root, stage, review.service, findings=issues, false_positives=fps, today=today)
                touched.append(stage)
    record = {"date": today().isoformat(), "log": str(path.resolve()), "sample": sample, "epoch": epoch or 1,
              "task": review.task, "service": review.service, "auto_decision": last.final_decision,
              "decision": decision, "dismiss": dismiss, "note": note}
    with file_lock(target.parent / f".{target.name}.lock"):
        existing = overrides_text(target)
        write_atomic(target, existing + ("" if not existing or existing.endswith("\n") else "\n") + json.dumps(record) + "\n")
    analytics = refresh_analytics(log, str(sample), epoch or 1, read_overrides(target))
    return (f"recorded {decision} of task {review.task} ({review.service}, {sample}, epoch {epoch or 1})"
            + (f", dismissed {', '.join(dismiss)}" if dismiss else "")
            + f": memory {', '.join(touched) or 'unchanged'}; overrides in {target}"
            + (f"; analytics updated in {analytics}" if analytics else ""))


def refresh_analytics(log: EvalLog, sample: str, epoch: int, overrides: list[dict]) -> Path | None:
    """The review's entries in the analytics file beside its log, rebuilt with the override (its
    final verdict, human_override and resolutions), when the run wrote one there."""
    if not log.location or "://" in log.location:
        return None
    target = Path(log.location).parent / ANALYTICS
    if not target.exists():
        return None
    entries = [e for e in log_entries(log, overrides) if e["sample"] == sample and e["epoch"] == epoch]
    append_entries(target, entries)
    return target


def locate(review: CodeReview, finding_id: str) -> tuple[str, MergedFinding] | None:
    """(stage, finding) of a finding id of the review, None when it has none."""
    for it in review.iterations:
        for stage in it.stages() + it.counted():
            for m in stage.findings:
                if m.id == finding_id:
                    return stage.stage, m
    return None


def memory_root_for(review: CodeReview, memory_dir: str | None) -> Path:
    """Where an override writes memory: --memory-dir, else the folder the review itself used."""
    if memory_dir:
        root = Path(memory_dir)
    elif review.memory.get("root") and Path(review.memory["root"]).is_dir():
        root = Path(review.memory["root"])
    else:
        raise CommandError("the review kept no memory folder (or it is gone): give --memory-dir DIR")
    problem = folder_problem(root)
    if problem is not None:
        raise CommandError(f"--memory-dir {root}: {problem}")
    return root


__all__ = ["LogError", "find_review", "log_paths", "overrides_beside", "read_overrides", "record_override",
           "run_analytics", "writable_file"]


def analytics_of_log(log: EvalLog) -> list[str]:
    """`review-harness summary`'s analytics lines for one code log (with the overrides beside it)."""
    return summary_lines(build_analytics([log], overrides_beside([log]))["summary"])
