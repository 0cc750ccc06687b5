"""`review-harness code ...`: analytics rebuilt from eval logs, and human overrides (the work is
done in review_harness/code/commands.py).

    review-harness code analytics LOGS... [--output FILE] [--html FILE] [--overrides FILE...]
    review-harness code override LOG --sample ID [--epoch N] --decision approve|reject [--dismiss q1,q2]
"""

from __future__ import annotations

import argparse

from review_harness.code.models import CodeReview
from review_harness.core.commands import command_group


def add_code_commands(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    code, sub = command_group(subparsers, "code", "code reviews: analytics from logs, human overrides")
    analytics = sub.add_parser("analytics", help="rebuild review analytics (JSON, optional HTML page) from eval logs")
    analytics.add_argument("logs", nargs="+", help=".eval logs of the code review task, or folders of them")
    analytics.add_argument("--overrides", action="append",
                           help="overrides file (default: review-overrides.jsonl beside each log)")
    analytics.add_argument("--output", help="the analytics JSON (default: review-analytics.json beside the first log)")
    analytics.add_argument("--html", help="write a one-page report with plots here")
    override = sub.add_parser("override", help="record a human decision on one review, dismissing findings by id")
    override.add_argument("log", help="the .eval log holding the review")
    override.add_argument("--sample", required=True, help="the sample id of the review (e.g. task-3)")
    override.add_argument("--epoch", type=int, help="the epoch of the review (needed when the sample has several)")
    override.add_argument("--decision", required=True, choices=("approve", "reject"))
    override.add_argument("--dismiss", default="", help="finding ids the human dismisses as not real (e.g. q2,s1)")
    override.add_argument("--note", default="", help="why (stored with the false positives)")
    override.add_argument("--memory-dir", help="reviewer memory root (default: the folder the review used)")
    override.add_argument("--overrides", help="overrides file (default: review-overrides.jsonl beside the log)")
    return code


def run_code(args: argparse.Namespace) -> int:
    from review_harness.code.commands import record_override, run_analytics

    if args.code_command == "analytics":
        print("\n".join(run_analytics(args.logs, output=args.output, html=args.html, overrides=args.overrides)))
        return 0
    dismiss = [i.strip() for i in args.dismiss.split(",") if i.strip()]
    print(record_override(args.log, args.sample, args.decision, epoch=args.epoch, dismiss=dismiss, note=args.note,
                          memory_dir=args.memory_dir, overrides=args.overrides))
    return 0


def summary_row(review: CodeReview) -> dict[str, str]:
    """The columns of `review-harness summary` for one code review (its first round)."""
    row = {"decision": "-", "confidence": "-", "spec": "-", "quality": "-", "status": review.final_status,
           "fixes": str(review.fix_iterations), "degraded": "-"}
    if not review.iterations:
        return row
    first = review.first
    quality = "discarded" if first.quality and first.quality.discarded else (first.quality.verdict if first.quality else "-")
    if first.after_approval is not None:  # a human approved the failed spec stage: quality decided
        quality = f"{first.after_approval.quality.verdict} (after approval)"
    return {**row, "decision": first.decision, "confidence": f"{first.confidence.value:g}", "spec": first.spec.verdict,
            "quality": quality, "degraded": str(len(first.degraded))}
