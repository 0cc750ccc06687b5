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
              help="Fit to these gold files only (from their gold findings, and the offline reviewer's where the "
                   "findings file has them). Default: gold/ds and gold/ds/real.")
@click.option("--write", is_flag=True, help="Run the offline reviewer on the gold sets again (rewriting "
              "prompts/ds/calibration.findings.json), fit, and write the fitted values as the default rubric.")
@click.option("--output", type=click.Path(), metavar="FILE",
              help="Where --write puts the rubric. Default: prompts/ds/rubric.yaml.")
@click.option("--log", type=click.Path(), metavar="LOG",
              help="Instead of fitting: a reviewer's figures against gold, by split, from this log (or folder).")
def calibrate(gold: str | None, write: bool, output: str | None, log: str | None) -> int:
    """Fit the default DS rubric's values (points per severity, the diminishing-returns curve, the
    credit cap) inside the design's formula to the dev gold cases, and compare them with the seed's
    starting values (or, with --log, report a run's figures on the dev and held-out splits)."""
    from review_harness.core.commands import one_line, writable_file
    from review_harness.core.logs import LogError
    from review_harness.ds.calibrate import CalibrationError, run_calibrate
    from review_harness.ds.rubric import RubricError

    with one_line(CalibrationError, RubricError, LogError):
        if output:  # checked before the fit, which takes a minute
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
