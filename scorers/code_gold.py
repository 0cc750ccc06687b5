"""Gold scorer of the code review: the first review's raw reports per model and stage, and the
merged review, against gold/code/<case>.yaml. Samples without gold get NaN."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.code.gold import GOLD_METRICS, CodeGoldError, compare_code, load_code_gold
from review_harness.code.models import ReviewerAnswer
from review_harness.code.panel import member_key, review_from_store
from scorers.metrics import nanmean


def first_reports(store) -> dict[str, ReviewerAnswer | None]:
    out = {}
    for stage in ("spec", "quality"):
        for letter in ("A", "B"):
            entry = store.get(member_key(0, stage, letter)) or {}
            out[f"{stage}:{letter}"] = ReviewerAnswer.model_validate(entry["report"]) if entry.get("report") else None
    return out


@scorer(metrics={key: [nanmean()] for key in GOLD_METRICS})
def code_gold() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        empty = {key: float("nan") for key in GOLD_METRICS}
        path = state.metadata.get("gold")
        if not path:
            return Score(value=empty, explanation="no gold file for this sample")
        try:
            gold = load_code_gold(Path(path))
        except CodeGoldError as ex:
            return Score(value=empty, explanation=str(ex))
        review = review_from_store(state.store, state.metadata)
        if not review.iterations:
            return Score(value=empty, explanation="no review was made")
        comparison = compare_code(review, gold, first_reports(state.store))
        value = {k: float("nan") if comparison.values.get(k) is None else float(comparison.values[k]) for k in GOLD_METRICS}
        return Score(value=value, answer=review.first.decision, explanation="\n".join(comparison.notes),
                     metadata={"gold_file": str(path), "split": gold.split, "matcher": "rules"})

    return score
