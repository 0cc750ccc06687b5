"""`review-harness design ...`: write a design review from an eval log to its folder, and process
its findings (accept / reject with a note).

    review-harness design export LOG [--output-dir DIR]
    review-harness design process TOPIC_DIR [--mode critical-first|all] [--decisions FILE] [--commit]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from review_harness.core.commands import CommandError, one_line, text_file
from review_harness.core.files import input_folder_problem
from review_harness.design.triage import MODES

if TYPE_CHECKING:
    from review_harness.design.models import DesignReview

DEFAULT_OUTPUT_DIR = Path("docs") / "reviews"


@click.group(epilog="Run `review-harness design COMMAND --help` for its options and an example.")
def design() -> None:
    """Design review folders: write them from a log, accept or reject their findings."""


@design.command(epilog="Example: review-harness design export logs/ --output-dir docs/reviews")
@click.argument("log", metavar="LOG", type=click.Path())
@click.option("--output-dir", default=str(DEFAULT_OUTPUT_DIR), show_default=True, metavar="DIR",
              help="Where the topic folders go: each review is written to DIR/<topic>/.")
def export(log: str, output_dir: str) -> int:
    """Write each design review of a log to its topic folder (persona files, summary, findings).

    LOG: an .eval log of the design review, or a folder (its newest log).
    """
    from review_harness.core.logs import LogError, newest_log
    from review_harness.design.artifacts import ArtifactError

    with one_line(ArtifactError, LogError):
        return run_export(str(newest_log(log)), Path(output_dir))


@design.command(epilog="\b\nExamples:\n  review-harness design process docs/reviews/billing-export\n"
                       "  review-harness design process docs/reviews/billing-export --mode all --decisions d.yaml --commit")
@click.argument("topic_dir", metavar="TOPIC_DIR", type=click.Path())
@click.option("--mode", type=click.Choice(MODES), default=None,
              help="critical-first: the Critical findings only; all: every finding. Not given: asked at the terminal "
                   "after the verdict, counts and Critical findings; with --decisions, critical-first.")
@click.option("--decisions", metavar="FILE", type=click.Path(),
              help="Decide without prompts: a YAML or JSON file mapping finding id -> {decision: accept|reject, note: ...}.")
@click.option("--commit", is_flag=True, help="Commit the topic folder afterwards (inside a git repository).")
def process(topic_dir: str, mode: str | None, decisions: str | None, commit: bool) -> int:
    """Accept or reject (with a note) the findings of a review folder; rejections become
    calibration rules for the next review.

    TOPIC_DIR: the review folder, e.g. docs/reviews/<topic>. Without --decisions it asks at the
    terminal, finding by finding.
    """
    from review_harness.core.logs import LogError
    from review_harness.design.artifacts import ArtifactError
    from review_harness.design.triage import TriageError

    with one_line(ArtifactError, TriageError, LogError):
        return run_process(Path(topic_dir), mode, text_file("--decisions", decisions) if decisions else None, commit)


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
    from review_harness.core.logs import read_log, reviews_in_log

    reviews = reviews_in_log(read_log(path), expected_kind="design")
    if not reviews:
        raise CommandError(f"{path}: no design reviews in this log (no synthesis scores with a review)")
    return reviews


def run_export(log: str, output_dir: Path) -> int:
    from review_harness.design.artifacts import export_review

    written: dict[tuple[str, int], str] = {}
    for sample_id, epoch, review in design_reviews_in_log(log):
        key = (review.topic, review.iteration)
        if key in written:
            print(f"skipped sample {sample_id} epoch {epoch}: topic {review.topic} iteration {review.iteration} "
                  f"was already written from {written[key]}", file=sys.stderr)
            continue
        folder = export_review(review, output_dir)
        written[key] = f"sample {sample_id} epoch {epoch}"
        verdict = review.verdict or f"no verdict, {review.status}"
        print(f"wrote {folder} (iteration {review.iteration}: {verdict}, {len(review.findings)} findings)")
    return 0


# ---------------------------------------------------------------------------- process


def terminal_ask(out=None, read=input):
    """An ``ask`` for triage.process that shows each finding and reads the decision."""
    from review_harness.design.render import consensus_text, severities_disagree, severity_range_text
    from review_harness.design.triage import StopTriage

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


def run_process(folder: Path, mode: str | None, decisions_file: Path | None, commit: bool) -> int:
    from review_harness.design.triage import (
        StopTriage,
        TriageError,
        ask_mode,
        commit_topic,
        load_decisions,
        overview_lines,
        process,
        wrap_up_lines,
    )

    problem = input_folder_problem(folder, "review folder", missing="no such review folder")
    if problem:  # a file or a named pipe is named as such
        raise CommandError(f"{folder}: {problem}")
    decisions = load_decisions(decisions_file) if decisions_file else None
    ask = None
    if decisions is None and not sys.stdin.isatty():
        raise CommandError("design process: stdin is not a terminal; give the decisions with --decisions FILE")
    print("\n".join(overview_lines(folder)))
    try:
        mode = mode or (ask_mode(input) if decisions is None else "critical-first")
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
        n = result.iteration
        print(f"dispositions written to summary.md, v{n}/summary-v{n}.md and v{n}/findings-v{n}.jsonl")
    if commit:
        try:
            message = commit_topic(folder)
        except TriageError as ex:  # the dispositions are saved; only the commit did not happen
            print(f"review-harness: {ex}", file=sys.stderr)
            return 1
        print(f"committed: {message}" if message else "nothing to commit in the review folder")
    print("\n".join(wrap_up_lines(folder)))
    return 0
