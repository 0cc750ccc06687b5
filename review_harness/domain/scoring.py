"""The review's final score over two or three dimensions, its band and the floor rules.

    with a domain:    final = 0.50 * analysis + 0.25 * communication + 0.25 * domain
    without:          final = 0.50 * analysis + 0.50 * communication   (today's formula)

Floor rules count CRITICAL findings across every dimension alike, whatever its weight: one caps
the verdict at Minor Fix (as for 79 at most), two or more at Major Rework (as for 59 at most). ADVISORY findings
never count. Values come from prompts/domain/reviewer.yaml.
"""

from __future__ import annotations

from collections.abc import Mapping

from review_harness.core.weights import band as core_band
from review_harness.core.weights import weighted_mean
from review_harness.domain.reviewer import ReviewerRubric

GOOD_TO_GO, MINOR_FIX, MAJOR_REWORK = "Good to Go", "Minor Fix", "Major Rework"


def weights_for(rubric: ReviewerRubric, with_domain: bool) -> dict[str, float]:
    return rubric.scoring.weights["with_domain" if with_domain else "without_domain"]


def final_score(scores: Mapping[str, float | None], rubric: ReviewerRubric) -> float | None:
    """Weighted score; the three-dimension weights apply when a domain score is present (even
    None: a failed domain reviewer's weight is spread over the others, a partial review)."""
    weights = weights_for(rubric, "domain" in scores)
    unknown = set(scores) - set(weights)
    if unknown:
        raise ValueError(f"unknown dimension(s) {sorted(unknown)}; known: {', '.join(weights)}")
    return weighted_mean(scores, weights)


def band(score: float, rubric: ReviewerRubric) -> str:
    bands = rubric.scoring.bands
    return core_band(score, [(bands["good_to_go"], GOOD_TO_GO), (bands["minor_fix"], MINOR_FIX)], MAJOR_REWORK)


