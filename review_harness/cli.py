"""`review-harness`: what is not an eval. Reads eval logs through the log contract only."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inspect_ai.log import EvalLog, read_eval_log

from review_harness.models import Review

SYNTHESIS_SCORER = "review_synthesis"


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


def reviews_in_log(log: EvalLog) -> list[tuple[str, int, Review]]:
    """(sample id, epoch, review) for every scored sample, via Score.metadata['review']."""
    out = []
    for sample in log.samples or []:
        score = (sample.scores or {}).get(SYNTHESIS_SCORER)
        if score is None or not score.metadata or "review" not in score.metadata:
            continue
        out.append((str(sample.id), sample.epoch, Review.model_validate(score.metadata["review"])))
    return out


def summary_table(log: EvalLog) -> str:
    rows = [("sample", "epoch", "status", "score", "verdict", "findings", "critical", "warnings")]
    for sample_id, epoch, review in reviews_in_log(log):
        rows.append((
            sample_id,
            str(epoch),
            review.status,
            "-" if review.final_score is None else f"{review.final_score:g}",
            review.verdict or ("draft" if review.draft else "-"),
            str(len(review.findings)),
            str(sum(1 for f in review.findings if f.severity.value == "CRITICAL")),
            str(len(review.warnings)),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return f"log status: {log.status}\n" + "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="review-harness", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summary", help="one line per reviewed sample of an eval log")
    summary.add_argument("log", help="path to a .eval log file")
    args = parser.parse_args(argv)
    try:
        if args.command == "summary":
            log = read_log(args.log)
            print(summary_table(log))
            return 0 if log.status == "success" else 1
    except LogError as ex:
        print(f"review-harness: {ex}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
