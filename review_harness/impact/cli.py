"""`review-harness impact ...` and the impact columns of `review-harness summary`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from review_harness.core.commands import one_line

if TYPE_CHECKING:
    from review_harness.impact.models import ImpactReview

WHO = "review-harness impact"


def summary_row(review: ImpactReview) -> dict[str, str]:
    """The columns of `review-harness summary` for one impact review: status, verdict, overall,
    each dimension, confidence, failed checks."""
    overall = review.result.overall_score
    scores = {d: review.score(d) for d in review.expected_dimensions}
    return {
        "status": review.status,
        "verdict": review.verdict,
        "overall": "-" if overall is None else f"{overall:.2f}",
        **{d: "-" if s is None else f"{s:.2f}" for d, s in scores.items()},
        "confidence": f"{review.confidence.score:.2f}",
        "failed checks": ", ".join(c.id for c in review.checks if c.status == "fail") or "-",
    }


@click.group(epilog="Run `review-harness impact COMMAND --help` for its options and an example.")
def impact() -> None:
    """Impact results: check an artifact before a review, an initiative's confidence."""


@impact.command(epilog="Example: review-harness impact check out/impact_results.json")
@click.argument("path", metavar="PATH", type=click.Path())
def check(path: str) -> int:
    """Validate impact_results.json files and print their consistency checks (exit code 1 when
    a check fails).

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
    from review_harness.impact.artifact import artifact_files, load_artifact
    from review_harness.impact.checks import render_facts, run_checks

    failed = 0
    for file in artifact_files(path):
        artifact = load_artifact(file)
        checks = run_checks(artifact)
        failed += sum(c.status == "fail" for c in checks)
        print(f"{file} ({artifact.contract.initiative_id}, {artifact.model_type})")
        for note in artifact.notes:
            print(f"- note: {note}")
        print(render_facts(checks))
    return 1 if failed else 0
