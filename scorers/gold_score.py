"""What every gold scorer writes the same way: NaN for 'not applicable', the score of a sample
that cannot be compared, the lines that explain a comparison, and the figures every gold run
records beside the kind's own (cost per correct finding, recall per planted flaw, precision not
judged on a planted file: review_harness/core/goldrun.py). (Per-finding stability is an
across-epoch figure: the epoch reducer adds it with several epochs.)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from inspect_ai.scorer import Metric, Score
from inspect_ai.solver import TaskState

from review_harness.core.goldrun import (COST_KEYS, FINDINGS_METADATA, OPERATOR_KEY, cost_figures, finding_outcomes,
                                         located_matches, not_judged, operator_recall, reviewer_usage)
from review_harness.core.inspect_adapter import sample_model_usage, sample_role_usage
from review_harness.core.matching import GoldComparison
from review_harness.core.metrics import recorded
from scorers.metrics import average, per_correct

NAN = float("nan")


def defined(value: float | None) -> float:
    """None (not applicable) as NaN, which the metrics leave out of their means; a figure to the
    decimals scores record (core/metrics.RECORDED_DECIMALS)."""
    return NAN if value is None else recorded(float(value))


def run_metrics() -> dict[str, list[Metric]]:
    """The metrics of the figures every gold run records: the cost keys averaged per sample,
    tokens and dollars per correct finding over the run, recall per planted operator."""
    metrics: dict[str, list[Metric]] = {key: [average()] for key in COST_KEYS}
    metrics["tokens_per_correct"] = [per_correct("tokens")]
    metrics["dollars_per_correct"] = [per_correct("dollars")]
    return metrics | {f"{OPERATOR_KEY}*": [average()]}


def run_figures(state: TaskState | None, gold: Any = None, comparison: GoldComparison | None = None,
                described: Mapping[str, tuple[str | None, str]] | None = None) -> dict[str, float]:
    """Cost per correct finding and recall per planted operator of one sample (NaN where not
    applicable). `described`: the review's finding id -> (evidence quote, words), for a kind
    whose matcher can pair findings by lens alone (core/goldrun.located_matches)."""
    caught = located_matches(comparison.matches, gold, described) if comparison is not None else None
    usage = reviewer_usage(sample_model_usage(), sample_role_usage()) if state is not None else {}
    figures = cost_figures(usage, None if caught is None else len(caught))
    return figures | operator_recall(state.metadata if state is not None else {}, gold, caught)


def with_run_figures(score: Score, state: TaskState, gold: Any, comparison: GoldComparison,
                     described: Mapping[str, tuple[str | None, str]] | None = None) -> Score:
    """A kind's gold score with the run figures added (and its precision not judged on a planted
    gold file); the cost goes into the metadata too, for the run's per-correct ratios, and each
    gold finding's outcome (caught or not, must-catch or not) for the gate's ratchet."""
    figures = run_figures(state, gold, comparison, described)
    outcomes = finding_outcomes(gold, located_matches(comparison.matches, gold, described))
    value = not_judged({**score.value, **{k: recorded(v) for k, v in figures.items()}}, gold)  # type: ignore[dict-item]
    cost = {"tokens": figures["input_tokens"] + figures["output_tokens"], "dollars": figures["dollars"],
            "correct": figures["correct_findings"]}
    metadata = {**(score.metadata or {}), "cost": cost, FINDINGS_METADATA: outcomes}
    return score.model_copy(update={"value": value, "metadata": metadata})


def not_compared(keys: Iterable[str], why: str, state: TaskState | None = None, **fields: Any) -> Score:
    """The score of a sample without a usable gold file or review: every metric NaN, and why
    (metadata `gold` None: a gold score with nothing compared)."""
    metadata = {"gold": None, **fields.pop("metadata", {})}
    value = {key: NAN for key in keys} | {k: NAN for k in run_figures(state)}
    return Score(value=value, explanation=why, metadata=metadata, **fields)


def comparison_lines(comparison: GoldComparison, notes: Iterable[str] = ()) -> list[str]:
    """The matcher, its notes, each match, the missed must-catch findings and the findings gold
    does not have."""
    lines = [f"matcher: {comparison.matcher}", *notes]
    lines += [f"matched {m.finding} -> {m.gold} ({m.similarity:.2f})" for m in comparison.matches]
    if comparison.missed_must_catch:
        lines.append("missed must-catch: " + ", ".join(comparison.missed_must_catch))
    if comparison.unmatched_findings:
        lines.append("not in gold: " + ", ".join(comparison.unmatched_findings))
    return lines
