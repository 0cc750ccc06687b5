"""`review-harness code ...`: analytics rebuilt from eval logs, and human overrides.

    review-harness code analytics LOGS... [--overrides FILE] [--output review-analytics.json] [--html report.html]
    review-harness code override LOG --sample ID --decision approve|reject [--memory-dir DIR] [--overrides FILE]
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

from review_harness.code.analytics import build_analytics, render_html
from review_harness.code.memory import pattern_of, update_service
from review_harness.code.merge import counted_stages
from review_harness.code.models import CodeReview
from review_harness.core.commands import CommandError, command_group
from review_harness.core.logs import read_log, reviews_in_log

DEFAULT_OVERRIDES = Path(".claude") / "review-overrides.jsonl"
DEFAULT_MEMORY = Path(".claude") / "agent-memory"


def add_code_commands(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    code, sub = command_group(subparsers, "code", "code reviews: analytics from logs, human overrides")
    analytics = sub.add_parser("analytics", help="rebuild review analytics (JSON, optional HTML page) from eval logs")
    analytics.add_argument("logs", nargs="+", help=".eval logs of the code review task, or folders of them")
    analytics.add_argument("--overrides", default=str(DEFAULT_OVERRIDES), help="human overrides file (default: %(default)s)")
    analytics.add_argument("--output", help="write the analytics JSON here (e.g. .claude/review-analytics.json)")
    analytics.add_argument("--html", help="write a one-page report with plots here")
    override = sub.add_parser("override", help="record a human approve/reject of a review into memory and analytics")
    override.add_argument("log", help="the .eval log holding the review")
    override.add_argument("--sample", required=True, help="the sample id of the review (e.g. task-3)")
    override.add_argument("--decision", required=True, choices=("approve", "reject"))
    override.add_argument("--note", default="", help="why (stored with the false positives on approve)")
    override.add_argument("--memory-dir", default=str(DEFAULT_MEMORY), help="reviewer memory root (default: %(default)s)")
    override.add_argument("--overrides", default=str(DEFAULT_OVERRIDES), help="overrides file (default: %(default)s)")
    return code


def _log_paths(items: list[str]) -> list[Path]:
    paths: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            found = sorted(path.glob("*.eval"))
            if not found:
                raise CommandError(f"{path}: folder has no .eval logs")
            paths += found
        elif path.exists():
            paths.append(path)
        else:
            raise CommandError(f"{path}: no such log file or folder")
    return paths


def read_overrides(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            raise CommandError(f"{path}: line {n} is not JSON") from None
    return out


def run_analytics(args: argparse.Namespace) -> int:
    logs = [read_log(p) for p in _log_paths(args.logs)]
    analytics = build_analytics(logs, read_overrides(Path(args.overrides)))
    if not analytics["reviews"]:
        raise CommandError("no code reviews in these logs")
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(json.dumps(analytics, indent=2), encoding="utf-8")
        print(f"wrote {args.output}: {len(analytics['reviews'])} entries")
    if args.html:
        Path(args.html).parent.mkdir(parents=True, exist_ok=True)
        Path(args.html).write_text(render_html(analytics), encoding="utf-8")
        print(f"wrote {args.html}")
    summary = analytics["summary"]
    print(f"reviews {summary['total_reviews']} ({summary['tasks']} tasks): auto-approved {summary['auto_approved']}, "
          f"auto-rejected {summary['auto_rejected']}, human {summary['human_decided']}; "
          f"avg fix iterations {summary['avg_fix_iterations']:g}")
    for model, c in summary["model_accuracy"].items():
        print(f"  {model}: true positives {c['true_positive']}, false positives {c['false_positive']}, missed {c['missed']}")
    for hint in summary["tuning_hints"]:
        print(f"  hint: {hint}")
    return 0


def run_override(args: argparse.Namespace, today=datetime.date.today) -> int:
    found = [review for sample_id, _, review in reviews_in_log(read_log(args.log), expected_kind="code")
             if sample_id == args.sample]
    if not found:
        raise CommandError(f"{args.log}: no code review for sample {args.sample!r}")
    review = found[-1]
    first = review.first
    root = Path(args.memory_dir)
    touched = []
    for stage in counted_stages(first.spec, first.quality):
        blocking = [m for m in stage.findings if m.finding.blocking or args.decision == "reject"]
        if not blocking:
            continue
        if args.decision == "approve":
            why = args.note or f"the lead approved task {review.task} despite it"
            update_service(root, stage.stage, review.service, today=today,
                           false_positives=[(pattern_of(m.finding.description), why) for m in blocking])
        else:
            update_service(root, stage.stage, review.service, today=today,
                           findings=[(pattern_of(m.finding.description), m.finding.severity.value, m.finding.where) for m in blocking])
        touched.append(stage.stage)
    record = {"date": today().isoformat(), "log": str(args.log), "sample": args.sample, "task": review.task,
              "service": review.service, "auto_decision": first.decision, "decision": args.decision, "note": args.note}
    path = Path(args.overrides)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    print(f"recorded {args.decision} of task {review.task} ({review.service}): memory "
          f"{', '.join(touched) or 'unchanged'}; overrides in {path}")
    return 0


def run_code(args: argparse.Namespace) -> int:
    if args.code_command == "analytics":
        return run_analytics(args)
    return run_override(args)


def summary_row(review: CodeReview) -> dict[str, str]:
    """The columns of `review-harness summary` for one code review (its first round)."""
    row = {"decision": "-", "confidence": "-", "spec": "-", "quality": "-", "status": review.final_status,
           "fixes": str(review.fix_iterations), "degraded": "-"}
    if not review.iterations:
        return row
    first = review.first
    quality = "discarded" if first.quality and first.quality.discarded else (first.quality.verdict if first.quality else "-")
    return {**row, "decision": first.decision, "confidence": f"{first.confidence.value:g}", "spec": first.spec.verdict,
            "quality": quality, "degraded": str(len(first.degraded))}
