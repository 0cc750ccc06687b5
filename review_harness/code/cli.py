"""`review-harness code ...`: analytics rebuilt from eval logs, and a human's decision on one review
(the work is done in review_harness/code/commands.py; this module only reads the arguments).

    review-harness code analytics LOGS... [--output FILE] [--html FILE] [--overrides FILE...]
    review-harness code override LOG --sample ID [--epoch N] --decision approve|reject [--dismiss q1,q2]

Analytics are written to the log folder unless told otherwise, never into the repository.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from review_harness.core.commands import one_line

if TYPE_CHECKING:
    from review_harness.code.models import CodeReview


@click.group(epilog="Run `review-harness code COMMAND --help` for its options and an example.")
def code() -> None:
    """Code reviews: analytics rebuilt from logs, and a human's decision on one review."""


@code.command(epilog="\b\nExamples:\n  review-harness code analytics logs/\n"
                     "  review-harness code analytics logs/ --output out/review-analytics.json --html out/analytics.html")
@click.argument("logs", metavar="LOG...", nargs=-1, required=True, type=click.Path())
@click.option("--overrides", multiple=True, metavar="FILE",
              help="The humans' overrides to count in (read only; repeat for several). "
                   "Default: review-overrides.jsonl beside each log.")
@click.option("--output", metavar="FILE", type=click.Path(),
              help="Where the analytics JSON goes. Default: review-analytics.json in the (first) log's folder.")
@click.option("--html", metavar="FILE", type=click.Path(), help="Also write a one-page report with plots here.")
def analytics(logs: tuple[str, ...], overrides: tuple[str, ...], output: str | None, html: str | None) -> int:
    """Rebuild the review analytics (decisions, fix iterations, each model's accuracy, tuning
    hints) from code review logs, and print their summary. The same log given twice counts twice.

    LOG...: .eval logs of the code review, or folders of them.
    """
    from review_harness.code.commands import run_analytics
    from review_harness.core.logs import LogError

    with one_line(LogError):
        click.echo("\n".join(run_analytics(list(logs), output=output, html=html, overrides=list(overrides) or None)))
    return 0


@code.command(epilog="Example: review-harness code override logs/x.eval --sample task-3 --decision approve "
                     "--dismiss q2 --note 'logged and re-raised'")
@click.argument("log", metavar="LOG", type=click.Path())
@click.option("--sample", required=True, metavar="ID", help="The reviewed task (sample id), e.g. task-3.")
@click.option("--epoch", type=int, metavar="N", help="The epoch of the review, when the sample has several.")
@click.option("--decision", required=True, type=click.Choice(("approve", "reject")),
              help="approve: the change may go ahead; reject: the blocking findings were right.")
@click.option("--dismiss", default="", metavar="IDS",
              help="Finding ids the human dismisses as not real (e.g. q2,s1): only these become false positives.")
@click.option("--note", default="", help="Why: stored with the dismissed findings.")
@click.option("--memory-dir", metavar="DIR", help="The reviewers' memory to update. Default: the folder the review used.")
@click.option("--overrides", metavar="FILE",
              help="The overrides file the decision is added to (analytics reads it). Default: beside the log.")
def override(log: str, sample: str, epoch: int | None, decision: str, dismiss: str, note: str,
             memory_dir: str | None, overrides: str | None) -> int:
    """Record a human's decision on one review (log, sample, epoch): dismissed findings become false
    positives in the reviewers' memory, and the decision is added to the overrides analytics reads.

    LOG: the .eval log holding the review, or a folder (its newest log).
    """
    from review_harness.code.commands import record_override
    from review_harness.core.logs import LogError, newest_log

    ids = [i.strip() for i in dismiss.split(",") if i.strip()]
    with one_line(LogError):
        click.echo(record_override(str(newest_log(log)), sample, decision, epoch=epoch, dismiss=ids, note=note,
                                   memory_dir=memory_dir, overrides=overrides))
    return 0


def summary_row(review: CodeReview) -> dict[str, str]:
    """The columns of `review-harness summary` for one code review (its first round)."""
    from review_harness.code.models import DECISION_WORDS

    row = {"decision": "-", "confidence": "-", "spec": "-", "quality": "-", "status": review.final_status,
           "fixes": str(review.fix_iterations), "degraded": "-"}
    if not review.iterations:
        return row
    first = review.first
    quality = "discarded" if first.quality and first.quality.discarded else (first.quality.verdict if first.quality else "-")
    if first.after_approval is not None:  # a human approved the failed spec stage: quality decided
        quality = f"{first.after_approval.quality.verdict} (after approval)"
    return {**row, "decision": DECISION_WORDS[first.decision], "confidence": f"{first.confidence.value:g}", "spec": first.spec.verdict,
            "quality": quality, "degraded": str(len(first.degraded))}
