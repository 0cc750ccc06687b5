"""`review-harness`: what is not an eval. Reads eval logs through the log contract only."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inspect_ai.log import EvalLog, read_eval_log

from review_harness.core import gate
from review_harness.ds.models import Review
from review_harness.core.paths import BASELINES_DIR
from review_harness.ds.rubric import RubricError

SYNTHESIS_SCORER = "review_synthesis"
DEFAULT_BASELINE = BASELINES_DIR / "ds_review.json"


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


def newest_log(path: str | Path) -> Path:
    """A log file, or the newest .eval log in a folder."""
    path = Path(path)
    if path.is_dir():
        logs = sorted(path.glob("*.eval"), key=lambda p: p.stat().st_mtime)
        if not logs:
            raise LogError(f"{path}: folder has no .eval logs")
        return logs[-1]
    return path


def run_gate(args: argparse.Namespace) -> int:
    baseline_path = Path(args.baseline)
    if args.write_baseline:
        log_path = newest_log(args.write_baseline)
        baseline = gate.write_baseline(read_log(log_path), str(log_path), baseline_path)
        print(f"wrote {baseline_path} from {log_path.name}: {len(baseline.values)} metrics, "
              f"{len(next(iter(baseline.values.values()), {}))} samples, {baseline.epochs} epoch(s)")
        return 0
    if not args.log:
        raise gate.GateError("give the log to check, or --write-baseline LOG")
    log_path = newest_log(args.log)
    config = gate.load_config(Path(args.config) if args.config else baseline_path.parent / "gate.yaml")
    result = gate.compare(read_log(log_path), gate.load_baseline(baseline_path), config)
    print(f"gate: {log_path.name} against {baseline_path}")
    print(gate.render_table(result))
    return 0 if result.passed else 1


def run_lint(args: argparse.Namespace) -> int:
    from review_harness.ds.lint import INSTRUCTION_LIMIT, count_instructions, lint_prompts
    from review_harness.ds.prompts import render_system
    from review_harness.ds.rubric import default_rubric, load_rubric

    rubric = load_rubric(args.rubric) if args.rubric else default_rubric()
    problems, hashes = lint_prompts(rubric, update_hashes=args.update_hashes)
    for dim_id, digest in hashes.items():
        count = count_instructions(render_system(rubric.dimension(dim_id), rubric))
        print(f"{dim_id}: prefix {digest}, {count}/{INSTRUCTION_LIMIT} instructions")
    for problem in problems:
        print(f"problem: {problem}")
    print("lint-prompts: " + ("PASS" if not problems else f"FAIL ({len(problems)} problem(s))"))
    return 0 if not problems else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="review-harness", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summary", help="one line per reviewed sample of an eval log")
    summary.add_argument("log", help="a .eval log file, or a folder (its newest log)")
    gate_cmd = sub.add_parser("gate", help="fail when an eval log regressed against the baseline")
    gate_cmd.add_argument("log", nargs="?", help="the new .eval log, or a folder (its newest log)")
    gate_cmd.add_argument("--baseline", default=str(DEFAULT_BASELINE), help="baseline JSON (default: %(default)s)")
    gate_cmd.add_argument("--config", help="tolerances YAML (default: gate.yaml next to the baseline)")
    gate_cmd.add_argument("--write-baseline", metavar="LOG", help="write the baseline from this log instead of checking")
    lint_cmd = sub.add_parser("lint-prompts", help="check prompt templates against the rubric")
    lint_cmd.add_argument("--rubric", help="rubric YAML (default: prompts/ds/rubric.yaml)")
    lint_cmd.add_argument("--update-hashes", action="store_true",
                          help="accept the current stable prefixes (after an intended prompt change)")
    args = parser.parse_args(argv)
    try:
        if args.command == "lint-prompts":
            return run_lint(args)
        if args.command == "summary":
            log = read_log(newest_log(args.log))
            print(summary_table(log))
            return 0 if log.status == "success" else 1
        if args.command == "gate":
            return run_gate(args)
    except (LogError, gate.GateError, RubricError) as ex:
        print(f"review-harness: {ex}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
