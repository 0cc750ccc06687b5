"""`review-harness impact ...` and the impact columns of `review-harness summary`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from review_harness.core.commands import command_group

if TYPE_CHECKING:
    from review_harness.impact.models import ImpactReview


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


def add_impact_commands(sub: argparse._SubParsersAction) -> None:
    _, commands = command_group(sub, "impact", "impact review: check an artifact, deterministic confidence")
    check = commands.add_parser("check", help="validate impact_results.json file(s) and print the consistency checks")
    check.add_argument("path", help="an impact_results.json file or a folder of them")
    conf = commands.add_parser("confidence", help="the deterministic confidence of an initiative (score_initiative)")
    conf.add_argument("initiative_id")
    conf.add_argument("model_type")


def run_impact(args: argparse.Namespace) -> int:
    from review_harness.impact.artifact import ArtifactError, artifact_files, load_artifact
    from review_harness.impact.checks import render_facts, run_checks
    from review_harness.impact.confidence import score_initiative

    try:
        if args.impact_command == "confidence":
            c = score_initiative(args.initiative_id, args.model_type)
            print(f"{c.initiative_id} ({c.model_type}): {c.score:.4f} in [{c.low:g}, {c.high:g}]")
            return 0
        failed = 0
        for path in artifact_files(args.path):
            artifact = load_artifact(path)
            checks = run_checks(artifact)
            failed += sum(c.status == "fail" for c in checks)
            print(f"{path} ({artifact.contract.initiative_id}, {artifact.model_type})")
            for note in artifact.notes:
                print(f"- note: {note}")
            print(render_facts(checks))
        return 1 if failed else 0
    except (ArtifactError, ValueError) as ex:
        print(f"review-harness impact: {ex}")
        return 2
