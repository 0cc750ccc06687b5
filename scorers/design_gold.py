"""Gold scorer of the design review: how the synthesized review compares with the gold file
(precision, recall, must-catch recall, phase accuracy, severity agreement, verdict accuracy,
contradiction recall, duplicate rate). Samples without gold get NaN. (The hedge rate is the
review's own figure: the synthesis score records it.)"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.core.gold import sample_gold
from review_harness.design.gold import DesignGold
from review_harness.design.matching import compare_design
from review_harness.design.panel import review_from_store
from review_harness.design.personas import default_personas
from scorers.epochs import STABILITY_KEYS
from scorers.gold_score import comparison_lines, defined, not_compared, run_metrics, with_run_figures
from scorers.metrics import averaged
from review_harness.core.metrics import SharedJSON

COMPARED = (
    "precision", "recall", "must_catch_recall", "phase_accuracy", "severity_agreement",
    "verdict_accuracy", "contradiction_recall", "duplicate_rate",
)


# per-finding stability is recorded by the epoch reducer, with several epochs only
@scorer(metrics=averaged(*COMPARED, *STABILITY_KEYS) | run_metrics())
def design_gold() -> Scorer:
    config = default_personas()

    async def score(state: TaskState, target: Target) -> Score:
        gold, why = sample_gold(state.metadata, DesignGold)
        if gold is None:
            return not_compared(COMPARED, why, state)
        review = review_from_store(state.store, config, state.input_text)
        comparison = compare_design(review, gold)
        value = {key: defined(getattr(comparison, key)) for key in COMPARED}
        lines = comparison_lines(comparison) + [f"verdict {review.verdict} (gold {gold.verdict})"]
        return with_run_figures(Score(
            value=value,
            answer=review.verdict or "no verdict",
            explanation="\n".join(lines),
            metadata={"gold": SharedJSON(comparison.model_dump(mode="json")), "gold_file": str(gold.path), "split": gold.split},
        ), state, gold, comparison,
            described={f.id: (f.evidence, f"{f.title}. {f.issue} {f.why_it_matters}") for f in review.findings})

    return score
