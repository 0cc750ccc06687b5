"""`review-harness impact ...` and the impact rows of `review-harness summary`."""

from __future__ import annotations

import argparse

from inspect_ai.log import EvalLog

from review_harness.impact.models import ImpactReview

SYNTHESIS_SCORER = "impact_synthesis"


def impact_summary_rows(log: EvalLog) -> list[tuple[str, ...]]:
    """One row per sample and epoch: status, overall, each dimension, confidence, failed checks."""
    reviews = []
    for sample in log.samples or []:
        score = (sample.scores or {}).get(SYNTHESIS_SCORER)
        if score is None or not score.metadata or "review" not in score.metadata:
            continue
        reviews.append((str(sample.id), sample.epoch, ImpactReview.model_validate(score.metadata["review"])))
    if not reviews:
        return []
    dims = list(dict.fromkeys(d for _, _, r in reviews for d in r.expected_dimensions))
    rows = [("sample", "epoch", "status", "overall", *dims, "confidence", "failed checks")]
    for sample_id, epoch, review in reviews:
        scores = [review.score(d) for d in dims]
        overall = review.result.overall_score
        rows.append((
            sample_id, str(epoch), review.status, "-" if overall is None else f"{overall:.2f}",
            *("-" if s is None else f"{s:.2f}" for s in scores),
            f"{review.confidence.score:.2f}",
            ", ".join(c.id for c in review.checks if c.status == "fail") or "-",
        ))
    return rows


def add_impact_commands(sub: argparse._SubParsersAction) -> None:
    impact = sub.add_parser("impact", help="impact review: check an artifact, deterministic confidence")
    commands = impact.add_subparsers(dest="impact_command", required=True)
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
