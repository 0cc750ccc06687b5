"""The metrics review and gold score keys are declared with.

`average` is the mean over the samples where the value is defined (NaN marks 'not applicable':
no score for a draft review, no gold file, no must-catch finding; labels such as a verdict are
no numbers). `verdict` reads a review score's verdict label: the run's verdict, named, on the
kind's scale (the headline of a run without gold: `core/viewer.verdict_standing`). Both are
registered here, outside the `review_harness` package, so Inspect shows them as `average` and
`verdict` rather than `review_harness/...` in the terminal and the viewer.
"""

from inspect_ai.scorer import Metric, SampleScore, metric

from review_harness.core.goldrun import ratio_of_sums
from review_harness.core.kinds import get_kind
from review_harness.core.metrics import defined_mean, nanmean


@metric(name="average")
def average() -> Metric:
    """Mean over the samples where the value is defined."""

    def compute(scores: list[SampleScore]) -> float:
        return defined_mean(s.score.value for s in scores)

    return compute


@metric(name="per_correct")
def per_correct(of: str) -> Metric:
    """Tokens (of='tokens') or dollars (of='dollars') per correct finding over the run: the sum
    over the samples over the sum of their correct findings (from each gold score's `cost`)."""

    def compute(scores: list[SampleScore]) -> float:
        return ratio_of_sums(((s.score.metadata or {}).get("cost") for s in scores), of)

    return compute


@metric(name="verdict")
def verdict(kind: str) -> Metric:
    """The run's verdict over the samples' verdict labels, named, with its place on the kind's
    scale (1 passing, 0 strictest)."""
    from review_harness.core.viewer import verdict_standing

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return verdict_standing(get_kind(kind), [s.score.value for s in scores])

    return compute


def review_metrics(kind: str, *keys: str) -> dict[str, list[Metric]]:
    """The metrics dict of a kind's synthesis scorer: `verdict` on its verdict key (first: the
    run's headline), then `average` on each of `keys`."""
    return {get_kind(kind).verdict_key: [verdict(kind)], **averaged(*keys)}


def averaged(*keys: str) -> dict[str, list[Metric]]:
    """The metrics dict of a dict-valued scorer: `average` on each key. A key (or glob) that a
    run does not record gets no metric (e.g. spread and stability, recorded with several epochs
    only)."""
    return {key: [average()] for key in keys}


__all__ = ["average", "averaged", "nanmean", "per_correct", "review_metrics", "verdict"]
