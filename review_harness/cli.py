"""`review-harness`: what is not an eval. Reads eval logs through the log contract only."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inspect_ai.log import EvalLog

from review_harness.core import gate
from review_harness.core.logs import LogError, newest_log, read_log
from review_harness.code.cli import CodeCliError, add_code_commands, code_summary_rows, run_code
from review_harness.design.cli import add_design_commands, run_design
from review_harness.domain.cli import add_domain_commands, run_domain
from review_harness.ds.cli import add_ds_commands, run_ds
from review_harness.impact.cli import add_impact_commands, impact_summary_rows, run_impact
from review_harness.ds.models import Review
from review_harness.core.paths import BASELINES_DIR
from review_harness.ds.calibrate import CalibrationError
from review_harness.ds.rubric import RubricError

SYNTHESIS_SCORER = "review_synthesis"
DEFAULT_BASELINE = BASELINES_DIR / "ds_review.json"


def reviews_in_log(log: EvalLog) -> list[tuple[str, int, Review]]:
    """(sample id, epoch, review) for every scored sample, via Score.metadata['review']."""
    out = []
    for sample in log.samples or []:
        score = (sample.scores or {}).get(SYNTHESIS_SCORER)
        if score is None or not score.metadata or "review" not in score.metadata:
            continue
        out.append((str(sample.id), sample.epoch, Review.model_validate(score.metadata["review"])))
    return out


def design_summary_rows(log: EvalLog) -> list[tuple[str, ...]]:
    from review_harness.design.cli import SYNTHESIS_SCORER as DESIGN_SCORER
    from review_harness.design.models import DesignReview

    rows = [("sample", "epoch", "status", "verdict", "findings", "critical", "reviewers")]
    for sample in log.samples or []:
        score = (sample.scores or {}).get(DESIGN_SCORER)
        if score is None or not score.metadata or "review" not in score.metadata:
            continue
        review = DesignReview.model_validate(score.metadata["review"])
        rows.append((
            str(sample.id), str(sample.epoch), review.status,
            review.verdict + (f" ({review.escalation_target})" if review.escalation_target else "") if review.verdict else "-",
            str(len(review.findings)), str(review.counts.get("Critical", 0)),
            f"{len(review.reviewers_completed)}/{len(review.personas)}",
        ))
    return rows


def summary_table(log: EvalLog) -> str:
    code_rows = code_summary_rows(log)
    if len(code_rows) > 1:
        return f"log status: {log.status}\n" + _table(code_rows)
    impact_rows = impact_summary_rows(log)
    if impact_rows:
        return f"log status: {log.status}\n" + _table(impact_rows)
    if any(SYNTHESIS_SCORER not in (s.scores or {}) for s in log.samples or []):
        design_rows = design_summary_rows(log)
        if len(design_rows) > 1:
            return f"log status: {log.status}\n" + _table(design_rows)
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
    failed = [s for s in log.samples or [] if s.error is not None]
    table = _table(rows)
    for sample in failed:  # e.g. an unreadable file of a folder: its sample failed, the run did not
        table += f"\n{sample.id} (epoch {sample.epoch}) failed: {sample.error.message.splitlines()[0]}"
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


def run_gate(args: argparse.Namespace) -> int:
    baseline_path = Path(args.baseline or DEFAULT_BASELINE)
    if args.write_baseline:
        log_path = newest_log(args.write_baseline)
        log = read_log(log_path)
        if args.baseline is None:
            baseline_path = BASELINES_DIR / f"{log.eval.task}.json"
        baseline = gate.write_baseline(log, str(log_path), baseline_path)
        print(f"wrote {baseline_path} from {log_path.name}: {len(baseline.values)} metrics, "
              f"{len(next(iter(baseline.values.values()), {}))} samples, {baseline.epochs} epoch(s)")
        return 0
    if not args.log:
        raise gate.GateError("give the log to check, or --write-baseline LOG")
    log_path = newest_log(args.log)
    log = read_log(log_path)
    if args.baseline is None:
        baseline_path = BASELINES_DIR / f"{log.eval.task}.json"
    ds_reviews = reviews_in_log(log)
    if ds_reviews and all(review.status == "deferred" for _, _, review in ds_reviews):
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
    from review_harness.core.lint import INSTRUCTION_LIMIT
    from review_harness.design.lint import lint_design_prompts
    from review_harness.design.personas import default_personas
    from review_harness.ds.lint import count_instructions, lint_prompts
    from review_harness.ds.prompts import render_system
    from review_harness.ds.rubric import default_rubric, load_rubric

    rubric = load_rubric(args.rubric) if args.rubric else default_rubric()
    problems, hashes = lint_prompts(rubric, update_hashes=args.update_hashes)
    for dim_id, digest in hashes.items():
        count = count_instructions(render_system(rubric.dimension(dim_id), rubric))
        print(f"ds {dim_id}: prefix {digest}, {count}/{INSTRUCTION_LIMIT} instructions")
    design_problems, design_hashes, counts = lint_design_prompts(default_personas(), update_hashes=args.update_hashes)
    for key, digest in design_hashes.items():
        print(f"design {key}: prefix {digest}, {counts[key]}/{INSTRUCTION_LIMIT} instructions")
    problems += design_problems
    from review_harness.domain.lint import lint_domain_prompts
    from review_harness.domain.reviewer import default_reviewer_rubric

    domain_problems, domain_hashes, domain_counts = lint_domain_prompts(default_reviewer_rubric(), args.update_hashes)
    for key, digest in domain_hashes.items():
        print(f"domain {key}: prefix {digest}, {domain_counts[key]}/{INSTRUCTION_LIMIT} instructions")
    problems += domain_problems
    from review_harness.code.lint import lint_code_prompts

    code_problems, code_hashes, code_counts = lint_code_prompts(update_hashes=args.update_hashes)
    for key, digest in code_hashes.items():
        print(f"code {key}: prefix {digest}, {code_counts[key]}/{INSTRUCTION_LIMIT} instructions")
    problems += code_problems
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
    gate_cmd.add_argument("--baseline", help="baseline JSON (default: logs/baselines/<task>.json)")
    gate_cmd.add_argument("--config", help="tolerances YAML (default: gate.yaml next to the baseline)")
    gate_cmd.add_argument("--write-baseline", metavar="LOG", help="write the baseline from this log instead of checking")
    lint_cmd = sub.add_parser("lint-prompts", help="check prompt templates against the rubric")
    lint_cmd.add_argument("--rubric", help="rubric YAML (default: prompts/ds/rubric.yaml)")
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
    except (LogError, gate.GateError, RubricError, CalibrationError, CodeCliError) as ex:
        print(f"review-harness: {ex}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
