"""Gold scorer of the impact review: verdict accuracy, dimension-in-window rate, overall-in-window,
concern recall and confidence-in-range per sample; ranking agreement across samples (do broken
artifacts score below clean ones on the dimension they break); and the epoch reducer that
measures consistency across epochs."""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Score, ScoreReducer, Scorer, Target, metric, score_reducer, scorer
from inspect_ai.solver import TaskState

from review_harness.core.gold import sample_gold
from review_harness.impact.gold import ImpactGold, ImpactGoldComparison, compare_impact, ranking_agreement
from review_harness.impact.pipeline import EPOCH_FIGURES, FIGURES
from review_harness.impact.review import review_from_store
from scorers.gold_score import NAN, defined, not_compared, run_metrics, with_run_figures
from review_harness.core.metrics import SharedJSON, reduce_epoch_values
from scorers.metrics import averaged

GOLD_KEYS = ("verdict_accuracy", "dimension_in_window", "overall_in_window", "concern_recall", "confidence_in_range", "ranking")
EPOCH_SPREAD_BAND = 0.1  # per-dimension max - min across epochs above this is inconsistent


@metric
def ranking_agreement_metric() -> Metric:
    """Across samples: the share of (broken, dimension, clean) triples ranked right."""

    def compute(scores: list[SampleScore]) -> float:
        cases = [ImpactGoldComparison.model_validate(s.score.metadata["gold"])
                 for s in scores if s.score.metadata and s.score.metadata.get("gold")]
        value, _ = ranking_agreement(cases)
        return NAN if value is None else value

    return compute


@scorer(metrics=averaged("verdict_accuracy", "dimension_in_window", "overall_in_window", "concern_recall",
                         "confidence_in_range") | {"ranking": [ranking_agreement_metric()]} | run_metrics())
def impact_gold() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        gold, why = sample_gold(state.metadata, ImpactGold)
        if gold is None:
            return not_compared(GOLD_KEYS, why, state)
        review = review_from_store(state.store)
        comparison = compare_impact(review, gold)
        value = {
            "verdict_accuracy": defined(comparison.verdict_correct),
            "dimension_in_window": defined(comparison.dimension_in_window),
            "overall_in_window": defined(comparison.overall_in_window),
            "concern_recall": defined(comparison.recall),
            "confidence_in_range": defined(comparison.confidence_in_range),
            # per sample: the mean score on the dimensions it breaks (all of them for a clean one);
            # the metric turns these into the cross-sample ranking agreement
            "ranking": _mean([comparison.scores.get(d) for d in (gold.breaks or list(gold.windows))]),
        }
        lines = [f"{'clean' if gold.clean else 'breaks ' + ', '.join(gold.breaks)} ({gold.split}); verdict "
                 f"{comparison.verdict}, gold {gold.verdict}"]
        lines += [f"outside window: {o}" for o in comparison.outside]
        if comparison.missed_gold:
            lines.append("missed concerns: " + ", ".join(comparison.missed_gold))
        return with_run_figures(Score(
            value=value,
            answer=f"{comparison.dimension_in_window}",
            explanation="\n".join(lines),
            metadata={"gold": SharedJSON(comparison.model_dump(mode="json")), "gold_file": str(gold.path), "split": gold.split},
        ), state, gold, comparison)

    return score


def _mean(values: list[float | None]) -> float:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else NAN


@score_reducer(name="impact_epochs")
def impact_epochs() -> ScoreReducer:
    """Every key averaged over epochs (NaN-aware). With several epochs the review score also
    gets `overall_spread` (max - min of the overall score) and `epoch_consistent` (1 when every
    dimension's spread is within 0.1 and the verdict is the same in every epoch); the gold comparison of the last epoch stays in metadata, with its scores
    replaced by the epoch means so the ranking uses them."""

    def reduce(scores: list[Score]) -> Score:
        if not scores or not isinstance(scores[0].value, dict):
            raise ValueError("impact_epochs reduces the impact review's dict-valued scores only")
        keys = list(scores[0].value)
        value = reduce_epoch_values([s.value for s in scores if isinstance(s.value, dict)])  # type: ignore[misc]
        metadata = dict(scores[-1].metadata or {})
        if "overall" in value and len(scores) > 1:
            overall = [float(s.value["overall"]) for s in scores if not math.isnan(float(s.value["overall"]))]  # type: ignore[index]
            value["overall_spread"] = max(overall) - min(overall) if overall else NAN
            dims = [k for k in keys if k not in ("overall", *FIGURES, *EPOCH_FIGURES)
                    and isinstance(value[k], float)]
            spreads = []
            for key in dims:
                got = [float(s.value[key]) for s in scores if not math.isnan(float(s.value[key]))]  # type: ignore[index]
                if got:
                    spreads.append(max(got) - min(got))
            verdicts = {(s.metadata or {}).get("verdict") for s in scores}
            value["epoch_consistent"] = (float(all(s <= EPOCH_SPREAD_BAND for s in spreads) and len(verdicts) <= 1)
                                         if spreads else NAN)
        if metadata.get("gold"):
            gold = dict(metadata["gold"])
            per_epoch = [s.metadata["gold"]["scores"] for s in scores if s.metadata and s.metadata.get("gold")]
            gold["scores"] = {
                k: _mean([e.get(k) for e in per_epoch]) if any(e.get(k) is not None for e in per_epoch) else None
                for k in gold["scores"]
            }
            metadata["gold"] = gold
        metadata["epochs"] = len(scores)
        return Score(value=value, answer=scores[-1].answer, explanation=scores[-1].explanation, metadata=metadata)

    return reduce
