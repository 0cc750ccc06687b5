"""Gold scorer of the design review: how the synthesized review compares with the gold file
(precision, recall, must-catch recall, phase accuracy, severity agreement, verdict accuracy,
contradiction recall, duplicate rate, hedge rate). Samples without gold get NaN."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.design.gold import DesignGoldError, load_design_gold
from review_harness.design.matching import compare_design
from review_harness.design.personas import default_personas
from scorers.epochs import finding_stability
from scorers.metrics import nanmean
from review_harness.design.panel import review_from_store

DESIGN_GOLD_METRICS = (
    "precision", "recall", "must_catch_recall", "phase_accuracy", "severity_agreement",
    "verdict_accuracy", "contradiction_recall", "duplicate_rate", "hedge_rate",
    "stable_findings", "flaky_findings", "never_findings",
)


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


@scorer(metrics={key: [nanmean()] for key in DESIGN_GOLD_METRICS})
def design_gold() -> Scorer:
    config = default_personas()

    async def score(state: TaskState, target: Target) -> Score:
        path = state.metadata.get("gold")
        empty = {key: float("nan") for key in DESIGN_GOLD_METRICS}
        if not path:
            return Score(value=empty, explanation="no gold file for this sample")
        try:
            gold = load_design_gold(Path(path))
        except DesignGoldError as ex:
            return Score(value=empty, explanation=str(ex))
        review = review_from_store(state.store, config, state.input_text)
        comparison = compare_design(review, gold)
        value = {key: _nan(getattr(comparison, key, None)) for key in DESIGN_GOLD_METRICS[:8]}
        value["hedge_rate"] = review.hedge_rate if review.status != "failed" else float("nan")
        stability = finding_stability([comparison.model_dump(mode="json")])
        for status in ("stable", "flaky", "never"):
            hits = sum(1 for v in stability.values() if v["status"] == status)
            value[f"{status}_findings"] = hits / len(stability) if stability else float("nan")
        lines = [f"matcher: {comparison.matcher}"]
        lines += [f"matched {m.finding} -> {m.gold} ({m.similarity:.2f})" for m in comparison.matches]
        if comparison.missed_must_catch:
            lines.append("missed must-catch: " + ", ".join(comparison.missed_must_catch))
        if comparison.unmatched_findings:
            lines.append("not in gold: " + ", ".join(comparison.unmatched_findings))
        lines.append(f"verdict {review.verdict} (gold {gold.verdict})")
        return Score(
            value=value,
            answer=review.verdict or "no verdict",
            explanation="\n".join(lines),
            metadata={"gold": comparison.model_dump(mode="json"), "gold_file": str(path), "split": gold.split},
        )

    return score
