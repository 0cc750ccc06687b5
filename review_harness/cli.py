"""`review-harness`: what is not an eval. Reads eval logs through the log contract only."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inspect_ai.log import EvalLog

from review_harness.core import gate
from review_harness.core.commands import CommandError
from review_harness.core.kinds import KindError, kind_of_log, kinds
from review_harness.core.logs import LogError, newest_log, read_log, reviews_in_log
from review_harness.code.cli import add_code_commands, run_code
from review_harness.design.cli import add_design_commands, run_design
from review_harness.domain.cli import add_domain_commands, run_domain
from review_harness.ds.cli import add_ds_commands, run_ds
from review_harness.impact.cli import add_impact_commands, run_impact
from review_harness.core.paths import BASELINES_DIR
from review_harness.ds.calibrate import CalibrationError
from review_harness.ds.rubric import RubricError


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


def summary_table(log: EvalLog) -> str:
    """One row per reviewed sample and epoch, with the columns of the log's kind; then each
    sample that failed (e.g. an unreadable file of a folder: its sample failed, the run did not)."""
    kind = kind_of_log(log)
    if kind.summary_row is None:
        raise KindError(f"the {kind.title} review has no summary rows")
    rows = [{"sample": sample_id, "epoch": str(epoch), **kind.summary_row(review)}
            for sample_id, epoch, review in reviews_in_log(log)]
    columns = merge_columns([list(row) for row in rows]) or ["sample", "epoch"]
    table = _table([tuple(columns)] + [tuple(row.get(c, "-") for c in columns) for row in rows])
    for sample in log.samples or []:
        if sample.error is not None:
            table += f"\n{sample.id} (epoch {sample.epoch}) failed: {sample.error.message.splitlines()[0]}"
    if kind.log_summary is not None and rows:
        table += "\n\n" + "\n".join(kind.log_summary(log))
    return f"log status: {log.status}\n" + table


def _table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def gate_config_for(baseline: Path) -> Path:
    """Tolerances beside the baseline: <name>.gate.yaml, else the shared gate.yaml."""
    own = baseline.with_name(f"{baseline.stem}.gate.yaml")
    return own if own.exists() else baseline.parent / "gate.yaml"


def baseline_for(log: EvalLog) -> Path:
    """The committed baseline of the log's kind: logs/baselines/<task>.json."""
    return BASELINES_DIR / f"{kind_of_log(log).task}.json"


def run_gate(args: argparse.Namespace) -> int:
    if args.write_baseline:
        log_path = newest_log(args.write_baseline)
        log = read_log(log_path)
        baseline_path = Path(args.baseline) if args.baseline else baseline_for(log)
        baseline = gate.write_baseline(log, str(log_path), baseline_path)
        print(f"wrote {baseline_path} from {log_path.name}: {len(baseline.values)} metrics, "
              f"{len(next(iter(baseline.values.values()), {}))} samples, {baseline.epochs} epoch(s)")
        return 0
    if not args.log:
        raise gate.GateError("give the log to check, or --write-baseline LOG")
    log_path = newest_log(args.log)
    log = read_log(log_path)
    baseline_path = Path(args.baseline) if args.baseline else baseline_for(log)
    reviews = reviews_in_log(log)
    if reviews and all(getattr(review, "status", None) == "deferred" for _, _, review in reviews):
        raise gate.GateError(
            f"{log_path.name}: every review was deferred (no reviewer returned a usable report); "
            "there is nothing to gate - see the review warnings for each reviewer's failure reason"
        )
    config = gate.load_config(Path(args.config) if args.config else gate_config_for(baseline_path))
    result = gate.compare(log, gate.load_baseline(baseline_path), config)
    print(f"gate: {log_path.name} against {baseline_path}")
    print(gate.render_table(result))
    return 0 if result.passed else 1


def run_lint(args: argparse.Namespace) -> int:
    from review_harness.core.lint import lint_kinds

    report = lint_kinds(kinds(), {"rubric": args.rubric}, update_hashes=args.update_hashes)
    print("\n".join(report.lines()))
    return 0 if report.passed else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="review-harness", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summary", help="one line per reviewed sample of an eval log")
    summary.add_argument("log", help="a .eval log file, or a folder (its newest log)")
    gate_cmd = sub.add_parser("gate", help="fail when an eval log regressed against the baseline")
    gate_cmd.add_argument("log", nargs="?", help="the new .eval log, or a folder (its newest log)")
    gate_cmd.add_argument("--baseline", help="baseline JSON (default: logs/baselines/<task>.json of the log's kind)")
    gate_cmd.add_argument("--config", help="tolerances YAML (default: gate.yaml next to the baseline)")
    gate_cmd.add_argument("--write-baseline", metavar="LOG", help="write the baseline from this log instead of checking")
    lint_cmd = sub.add_parser("lint-prompts", help="check every kind's prompt templates (instructions, stable prefixes)")
    lint_cmd.add_argument("--rubric", help="the DS rubric YAML (default: prompts/ds/rubric.yaml)")
    lint_cmd.add_argument("--update-hashes", action="store_true",
                          help="accept the current stable prefixes (after an intended prompt change)")
    add_design_commands(sub)
    add_ds_commands(sub)
    add_domain_commands(sub)
    add_code_commands(sub)
    add_impact_commands(sub)
    args = parser.parse_args(argv)
    try:
        ds_result = run_ds(args)
        if ds_result is not None:
            return ds_result
        if args.command == "lint-prompts":
            return run_lint(args)
        if args.command == "summary":
            log = read_log(newest_log(args.log))
            print(summary_table(log))
            return 0 if log.status == "success" else 1
        if args.command == "gate":
            return run_gate(args)
        if args.command == "domain":
            return run_domain(args)
        if args.command == "design":
            if args.design_command == "export":
                args.log = str(newest_log(args.log))
            return run_design(args)
        if args.command == "code":
            return run_code(args)
        if args.command == "impact":
            return run_impact(args)
    except (LogError, KindError, gate.GateError, RubricError, CalibrationError, CommandError) as ex:
        print(f"review-harness: {ex}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
