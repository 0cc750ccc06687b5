"""`review-harness design ...`: export a design review from an eval log to its folder, and process
its findings (accept / reject with a note).

    review-harness design export LOG [--output-dir DIR]
    review-harness design process TOPIC_DIR [--mode critical-first|all] [--decisions FILE] [--commit]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from review_harness.core.commands import CommandError, command_group
from review_harness.core.logs import LogError, read_log, reviews_in_log
from review_harness.design.artifacts import ArtifactError, export_review
from review_harness.design.models import DesignReview
from review_harness.design.render import consensus_text, severities_disagree, severity_range_text
from review_harness.design.triage import (
    MODES,
    StopTriage,
    TriageError,
    ask_mode,
    commit_topic,
    load_decisions,
    overview_lines,
    process,
    wrap_up_lines,
)

DEFAULT_OUTPUT_DIR = Path("docs") / "reviews"


def add_design_commands(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `design export` and `design process` on the main CLI's subparsers."""
    design, sub = command_group(subparsers, "design", "design review folders: export from a log, process findings")
    export = sub.add_parser("export", help="write each design review of an eval log to <output-dir>/<topic>/")
    export.add_argument("log", help="an Inspect .eval log of the design review task")
    export.add_argument("--output-dir", default=str(DEFAULT_OUTPUT_DIR), help="parent of the topic folders (default: %(default)s)")
    proc = sub.add_parser("process", help="accept or reject (with a note) the findings of a review folder")
    proc.add_argument("topic_dir", help="the review folder, e.g. docs/reviews/<topic>")
    proc.add_argument("--mode", choices=MODES, default=None,
                      help="critical-first: Critical findings only; all: every finding (default: asked on a terminal, "
                           "else critical-first)")
    proc.add_argument("--decisions", metavar="FILE",
                      help="YAML/JSON mapping finding id -> {decision: accept|reject, note: ...} (no prompts)")
    proc.add_argument("--commit", action="store_true",
                      help="commit the topic folder afterwards (only inside a git repository)")
    return design


def summary_row(review: DesignReview) -> dict[str, str]:
    """The columns of `review-harness summary` for one design review."""
    verdict = review.verdict + (f" ({review.escalation_target})" if review.escalation_target else "") if review.verdict else "-"
    return {
        "status": review.status,
        "verdict": verdict,
        "findings": str(len(review.findings)),
        "critical": str(review.counts.get("Critical", 0)),
        "reviewers": f"{len(review.reviewers_completed)}/{len(review.personas)}",
    }


# ---------------------------------------------------------------------------- export


def design_reviews_in_log(path: str | Path) -> list[tuple[str, int, DesignReview]]:
    """(sample id, epoch, review) of each design review in the log; a log without any is an error."""
    reviews = reviews_in_log(read_log(path), expected_kind="design")
    if not reviews:
        raise CommandError(f"{path}: no design reviews in this log (no synthesis scores with a review)")
    return reviews


def run_export(args: argparse.Namespace) -> int:
    written: dict[tuple[str, int], str] = {}
    for sample_id, epoch, review in design_reviews_in_log(args.log):
        key = (review.topic, review.iteration)
        if key in written:
            print(f"skipped sample {sample_id} epoch {epoch}: topic {review.topic} iteration {review.iteration} "
                  f"was already written from {written[key]}", file=sys.stderr)
            continue
        folder = export_review(review, Path(args.output_dir))
        written[key] = f"sample {sample_id} epoch {epoch}"
        verdict = review.verdict or f"no verdict, {review.status}"
        print(f"wrote {folder} (iteration {review.iteration}: {verdict}, {len(review.findings)} findings)")
    return 0


# ---------------------------------------------------------------------------- process


def terminal_ask(out=None, read=input):
    """An ``ask`` for triage.process that shows each finding and reads the decision."""
    counter = {"n": 0}

    def ask(finding: dict):
        nonlocal out
        out = out or sys.stdout
        counter["n"] += 1
        print("", file=out)
        print(f"[{counter['n']}] {finding['id']} ({finding['severity']}) {finding.get('title', '')}", file=out)
        print(f"    Section: {finding.get('section', '')}", file=out)
        print(f"    {consensus_text(finding)}", file=out)
        if severities_disagree(finding):
            print(f"    {severity_range_text(finding)}", file=out)
        phase = finding.get("primary_phase", "")
        if finding.get("contributing_phase"):
            phase += f" (contributing: {finding['contributing_phase']})"
        print(f"    Phase: {phase}", file=out)
        print(f"    Issue: {finding.get('issue', '')}", file=out)
        print(f"    Suggestion: {finding.get('suggestion', '')}", file=out)
        while True:
            try:
                answer = read("accept / reject / skip / quit [a/r/s/q]: ").strip().lower()
            except (EOFError, KeyboardInterrupt):
                raise StopTriage from None
            if answer in ("a", "accept"):
                return "accept", None
            if answer in ("s", "skip", ""):
                return None
            if answer in ("q", "quit"):
                raise StopTriage
            if answer in ("r", "reject"):
                while True:
                    try:
                        note = read("why reject it (becomes a calibration rule): ").strip()
                    except (EOFError, KeyboardInterrupt):
                        raise StopTriage from None
                    if note:
                        return "reject", note
                    print("a rejection needs a note", file=out)

    return ask


def run_process(args: argparse.Namespace) -> int:
    folder = Path(args.topic_dir)
    if not folder.is_dir():
        raise CommandError(f"{folder}: no such review folder")
    decisions = load_decisions(args.decisions) if args.decisions else None
    ask = None
    if decisions is None and not sys.stdin.isatty():
        raise CommandError("design process: stdin is not a terminal; give the decisions with --decisions FILE")
    print("\n".join(overview_lines(folder)))
    try:
        mode = args.mode or (ask_mode(input) if decisions is None else "critical-first")
    except StopTriage:
        print("stopped; nothing processed")
        return 0
    if decisions is None:
        ask = terminal_ask(read=input)
    result = process(folder, mode, decisions, ask, commit=False)
    decided = len(result.decided)
    print(f"{folder}: iteration {result.iteration}, mode {result.mode}: {len(result.walked)} of {result.total} "
          f"finding(s) in scope; accepted {len(result.accepted)}, rejected {len(result.rejected)}, "
          f"pending {len(result.pending)}")
    for message in result.messages:
        print(message)
    if result.rules_changed:
        print(f"calibration rules updated: {result.calibration_version}")
    if decided:
        print(f"dispositions written to summary.md and findings-v{result.iteration}.jsonl")
    if args.commit:
        try:
            message = commit_topic(folder)
        except TriageError as ex:  # the dispositions are saved; only the commit did not happen
            print(f"review-harness: {ex}", file=sys.stderr)
            return 1
        print(f"committed: {message}" if message else "nothing to commit in the review folder")
    print("\n".join(wrap_up_lines(folder)))
    return 0


def run_design(args: argparse.Namespace) -> int:
    try:
        if args.design_command == "export":
            return run_export(args)
        if args.design_command == "process":
            return run_process(args)
    except (CommandError, ArtifactError, TriageError, LogError) as ex:
        print(f"review-harness: {ex}", file=sys.stderr)
        return 2
    except OSError as ex:
        print(f"review-harness: {ex.filename or ''}: {ex.strerror or ex}".replace(": : ", ": "), file=sys.stderr)
        return 2
    print(f"review-harness: unknown design command {args.design_command!r}", file=sys.stderr)
    return 2
