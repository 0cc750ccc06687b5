"""The DS kind's command line: `review-harness calibrate`, and the DS columns of
`review-harness summary`. (`review-harness show` prints a review of any kind: core/show.py.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from review_harness.ds.models import Review


@click.command(epilog="\b\nExamples:\n  review-harness calibrate\n  review-harness calibrate --write\n"
                      "  review-harness calibrate --log logs/ci/ds_review")
@click.option("--gold", type=click.Path(), metavar="FOLDER",
              help="The gold files to fit to. Default: gold/ds and gold/domain/search (three-dimension cases).")
@click.option("--write", is_flag=True, help="Write the fitted values as a new rubric version.")
@click.option("--output", type=click.Path(), metavar="FILE",
              help="Where --write puts the rubric. Default: prompts/ds/rubric.yaml.")
@click.option("--log", type=click.Path(), metavar="LOG",
              help="Instead of fitting: a reviewer's figures against gold, by split, from this log (or folder).")
def calibrate(gold: str | None, write: bool, output: str | None, log: str | None) -> int:
    """Fit the DS rubric's deduction and credit values so the gold set's scores fall in their
    gold windows (or, with --log, report a run's figures on the dev and held-out splits)."""
    from review_harness.core.commands import one_line, writable_file
    from review_harness.core.logs import LogError
    from review_harness.ds.calibrate import CalibrationError, run_calibrate
    from review_harness.ds.rubric import RubricError

    with one_line(CalibrationError, RubricError, LogError):
        if output:  # checked before the fit, which takes minutes
            writable_file("--output", output)
        return run_calibrate(SimpleNamespace(gold=gold, write=write, output=output, log=log))


def summary_row(review: Review) -> dict[str, str]:
    """The columns of `review-harness summary` for one DS review."""
    from review_harness.core.viewer import points

    return {
        "status": review.status,
        "score": points(review.final_score),  # as the verdict line and the report print it
        "verdict": review.verdict or ("draft" if review.draft else "-"),
        "findings": str(sum(1 for f in review.findings if not f.merged_into)),
        "critical": str(sum(1 for f in review.findings if f.severity.value == "CRITICAL" and not f.merged_into)),
        "warnings": str(len(review.warnings)),
    }
