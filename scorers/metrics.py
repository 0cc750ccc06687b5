"""The metric every review and gold score key is declared with.

`average` is the mean over the samples where the value is defined (NaN marks 'not applicable':
no score for a draft review, no gold file, no must-catch finding; labels such as a verdict are
no numbers). It is registered here, outside the `review_harness` package, so Inspect shows it as
`average` rather than `review_harness/...` in the terminal and the viewer.
"""

from inspect_ai.scorer import Metric, SampleScore, metric

from review_harness.core.goldrun import ratio_of_sums
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


def averaged(*keys: str) -> dict[str, list[Metric]]:
    """The metrics dict of a dict-valued scorer: `average` on each key. A key (or glob) that a
    run does not record gets no metric (e.g. spread and stability, recorded with several epochs
    only)."""
    return {key: [average()] for key in keys}


__all__ = ["average", "averaged", "nanmean", "per_correct"]
