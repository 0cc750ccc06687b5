"""Gold scorer of the code review: the first review's raw reports per model and stage, and the
merged review, against gold/code/<case>.yaml. Samples without gold get NaN."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.code.gold import GOLD_METRICS, CodeGold, compare_code
from review_harness.code.models import DECISION_WORDS, LETTERS, STAGES, ReviewerAnswer
from review_harness.code.panel import completed_report, review_from_store
from review_harness.core.gold import sample_gold
from scorers.gold_score import defined, not_compared, run_metrics, with_run_figures
from scorers.metrics import averaged
from review_harness.core.metrics import SharedJSON

# the run's figures: each stage's recall and precision per model, the stronger model's
# must-catch recall, and the merged review's precision, trap rate and decisions (the other
# GOLD_METRICS keys, e.g. the merge counts, stay per-sample values for the gate and analysis)
RUN_METRICS = (
    *(f"{figure}_{stage}_{letter}" for figure in ("recall", "precision") for stage in STAGES for letter in LETTERS),
    *(f"must_catch_{stage}_B" for stage in STAGES),
    "agreed_precision", "fp_trap_rate", "decision_accuracy", "confidence_exact", "final_status_accuracy",
    "fix_iterations_exact",
)


def first_reports(store) -> dict[str, ReviewerAnswer | None]:
    out = {}
    for stage in STAGES:
        for letter in LETTERS:
            out[f"{stage}:{letter}"] = completed_report(store, 0, stage, letter)
    return out


@scorer(metrics=averaged(*RUN_METRICS) | run_metrics())
def code_gold() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        gold, why = sample_gold(state.metadata, CodeGold)
        if gold is None:
            return not_compared(GOLD_METRICS, why, state)
        review = review_from_store(state.store, state.metadata)
        if not review.iterations:
            return not_compared(GOLD_METRICS, "no review was made", state)
        comparison = compare_code(review, gold, first_reports(state.store))
        return with_run_figures(Score(value={k: defined(v) for k, v in comparison.values().items()}, answer=DECISION_WORDS[review.first.decision],
                     explanation="\n".join(comparison.notes),
                     metadata={"gold": SharedJSON(comparison.model_dump(mode="json")), "gold_file": str(gold.path),
                               "split": gold.split, "matcher": comparison.matcher}), state, gold, comparison)

    return score
