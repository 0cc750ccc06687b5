"""`review-harness impact ...` and the impact columns of `review-harness summary`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from review_harness.core.commands import one_line

if TYPE_CHECKING:
    from review_harness.impact.models import ImpactReview

WHO = "review-harness impact"


def summary_row(review: ImpactReview) -> dict[str, str]:
    """The columns of `review-harness summary` for one impact review: status, verdict, overall
    (marked when capped), each dimension, evidence coverage, the method's confidence, the checks
    that failed and those that warned."""
    overall = review.result.overall_score
    scores = {d: review.score(d) for d in review.expected_dimensions}
    return {
        "status": review.status,
        "verdict": review.verdict,
        "overall": "-" if overall is None else f"{overall:.2f}" + ("*" if review.overall_cap else ""),
        **{d: "-" if s is None else f"{s:.2f}" for d, s in scores.items()},
        "evidence": "-" if review.evidence_coverage is None else f"{review.evidence_coverage:.2f}",
        "method confidence": f"{review.confidence.score:.2f}",
        "failed checks": ", ".join(c.id for c in review.checks if c.status == "fail") or "-",
        "warnings": ", ".join(c.id for c in review.checks if c.status == "warn") or "-",
    }


@click.group(epilog="Run `review-harness impact COMMAND --help` for its options and an example.")
def impact() -> None:
    """Impact results: check an artifact before a review, an initiative's confidence."""


@impact.command(epilog="Example: review-harness impact check out/   (every *.json of the folder)")
@click.argument("path", metavar="PATH", type=click.Path())
def check(path: str) -> int:
    """Read impact results and print their checks and the verdict the checks alone give; every
    file of a folder is checked, and the end names each one that failed (exit code 1 when a file
    is unusable or, in a folder, cannot be read; 2 when the file given cannot be read).

    PATH: an impact_results.json file, or a folder of them.
    """
    from review_harness.impact.artifact import ArtifactError

    with one_line(ArtifactError, who=WHO):
        return run_check(path)


@impact.command(epilog="Example: review-harness impact confidence checkout-redesign-2024 interrupted_time_series")
@click.argument("initiative_id", metavar="INITIATIVE")
@click.argument("model_type", metavar="MODEL_TYPE")
def confidence(initiative_id: str, model_type: str) -> int:
    """The deterministic confidence of an initiative's measurement (score_initiative).

    INITIATIVE: the initiative id. MODEL_TYPE: the causal model, e.g. interrupted_time_series.
    """
    from review_harness.impact.confidence import score_initiative

    with one_line(ValueError, who=WHO):
        c = score_initiative(initiative_id, model_type)
    print(f"{c.initiative_id} ({c.model_type}): {c.score:.4f} in [{c.low:g}, {c.high:g}]")
    return 0


def run_check(path: str) -> int:
    """Every file's checks and verdict; then one line per verdict count and the files that failed
    (unusable, or unreadable with the reason). 1 when any failed."""
    from review_harness.impact.artifact import ArtifactError, artifact_files, load_artifact
    from review_harness.impact.checks import render_facts, run_checks
    from review_harness.impact.verdict import checks_verdict

    files = artifact_files(path)
    verdicts: dict[str, int] = {"usable": 0, "caution": 0, "unusable": 0, "unreadable": 0}
    failed: list[str] = []
    for n, file in enumerate(files):
        if n:
            print()
        try:
            artifact = load_artifact(file)
        except ArtifactError as ex:
            if file == Path(path):  # the one file asked for: bad input, one line (exit 2)
                raise
            verdicts["unreadable"] += 1
            failed.append(f"{file.name} (cannot be read)")
            print(f"{file}: UNREADABLE: {ex}")
            continue
        checks = run_checks(artifact)
        verdict, reasons = checks_verdict(checks)
        verdicts[verdict] += 1
        print(f"{file} ({artifact.contract.initiative_id}, {artifact.model_type}): {verdict.upper()}"
              + (f" ({', '.join(reasons)})" if reasons else ""))
        for note in artifact.notes:
            print(f"- note: {note}")
        print(render_facts(checks))
        if verdict == "unusable":
            failed.append(f"{file.name} ({', '.join(c.id for c in checks if c.status == 'fail')})")
    if len(files) > 1 or failed:
        print()
        print(f"{len(files)} file{'s' if len(files) != 1 else ''}: "
              + ", ".join(f"{count} {name}" for name, count in verdicts.items() if count))
        if failed:
            print("failed: " + "; ".join(failed))
    return 1 if failed else 0
