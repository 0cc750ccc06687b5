"""`review-harness show` and `review-harness calibrate` (the DS kind's own commands).

    review-harness show [LOG] [--sample ID] [--epoch N]   print a review's markdown report
    review-harness calibrate [--write]                     fit deduction/credit values to gold
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_ai.log import EvalLog

from review_harness.core.logs import LogError, newest_log, read_log
from review_harness.core.paths import PROJECT_ROOT

if TYPE_CHECKING:
    from review_harness.ds.models import Review

DEFAULT_LOG_DIR = "logs"


def add_ds_commands(subparsers: argparse._SubParsersAction) -> None:
    show = subparsers.add_parser("show", help="print a review (the sample's answer) from an eval log")
    show.add_argument("log", nargs="?", help="a .eval log or a folder (default: the newest log in ./logs)")
    show.add_argument("--sample", help="sample id (default: the first sample)")
    show.add_argument("--epoch", type=int, default=1, help="epoch (default: 1)")
    cal = subparsers.add_parser("calibrate", help="fit the DS rubric's deduction and credit values to the gold windows")
    cal.add_argument("--gold", default=None, help="gold folder (default: gold/ds and gold/domain/search)")
    cal.add_argument("--write", action="store_true", help="write the fitted rubric as a new version")
    cal.add_argument("--output", default=None, help="where --write puts the rubric (default: prompts/ds/rubric.yaml)")
    cal.add_argument("--log", default=None, help="instead of fitting: a reviewer's gold figures by split from this eval log")


def default_log_dir() -> Path:
    here = Path(os.environ.get("PWD") or Path.cwd()) / DEFAULT_LOG_DIR
    return here if here.is_dir() else PROJECT_ROOT / DEFAULT_LOG_DIR


def sample_report(log: EvalLog, sample_id: str | None, epoch: int) -> str:
    """The markdown report of one sample: its final assistant message."""
    samples = log.samples or []
    if not samples:
        raise LogError(f"{log.location}: the log has no samples (status {log.status})")
    if sample_id is None:
        chosen = next((s for s in samples if s.epoch == epoch), samples[0])
    else:
        chosen = next((s for s in samples if str(s.id) == sample_id and s.epoch == epoch), None)
        if chosen is None:
            ids = sorted({str(s.id) for s in samples})
            raise LogError(f"--sample {sample_id}: no such sample (epoch {epoch}) in {log.location}; samples: {', '.join(ids)}")
    if chosen.error is not None:
        raise LogError(f"sample {chosen.id}: failed with an error: {chosen.error.message.splitlines()[0]}")
    text = chosen.output.completion if chosen.output else ""
    if not text:
        raise LogError(f"sample {chosen.id}: has no review text in {log.location}")
    return text


def summary_row(review: Review) -> dict[str, str]:
    """The columns of `review-harness summary` for one DS review."""
    return {
        "status": review.status,
        "score": "-" if review.final_score is None else f"{review.final_score:g}",
        "verdict": review.verdict or ("draft" if review.draft else "-"),
        "findings": str(sum(1 for f in review.findings if not f.merged_into)),
        "critical": str(sum(1 for f in review.findings if f.severity.value == "CRITICAL" and not f.merged_into)),
        "warnings": str(len(review.warnings)),
    }


def run_show(args: argparse.Namespace) -> int:
    path = newest_log(args.log or default_log_dir())
    print(sample_report(read_log(path), args.sample, args.epoch), end="")
    return 0


def run_ds(args: argparse.Namespace) -> int | None:
    """Dispatch a DS command; None when the command is not one of ours."""
    if args.command == "show":
        return run_show(args)
    if args.command == "calibrate":
        from review_harness.ds.calibrate import run_calibrate

        return run_calibrate(args)
    return None
