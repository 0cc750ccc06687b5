"""Cross-run consistency: the epoch reducer for review and gold scores (`--epochs N`).

Every key is averaged over epochs (NaN-aware). On top of that:
* review scores get `score_spread` (max - min of the final score) and `score_within_10`
  (1 when every epoch's score is within 10 points of their mean: the seed's bar);
* gold scores get per-finding stability: how many epochs caught each gold finding,
  as `stable_findings` (caught every time), `flaky_findings` (sometimes) and
  `never_findings` (never) shares, with the per-finding detail in metadata.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from inspect_ai.scorer import Score, ScoreReducer, score_reducer

CONSISTENCY_BAND = 10.0


def _nanmean(values: Iterable[float]) -> float:
    defined = [v for v in values if not math.isnan(v)]
    return sum(defined) / len(defined) if defined else float("nan")


def score_consistency(values: list[float]) -> tuple[float, float]:
    """(spread, within_band) over the epochs that produced a score."""
    defined = [v for v in values if not math.isnan(v)]
    if not defined:
        return float("nan"), float("nan")
    mean = sum(defined) / len(defined)
    spread = max(defined) - min(defined)
    return spread, float(all(abs(v - mean) <= CONSISTENCY_BAND for v in defined))


def finding_stability(gold_metadata: list[dict]) -> dict[str, dict]:
    """Per gold finding: epochs that caught it, epochs run, and stable / flaky / never."""
    epochs = len(gold_metadata)
    caught: dict[str, int] = {}
    for meta in gold_metadata:
        for match in meta.get("matches", []):
            caught[match["gold"]] = caught.get(match["gold"], 0) + 1
        for missed in meta.get("missed_gold", []):
            caught.setdefault(missed, 0)
    out = {}
    for gold_id, n in sorted(caught.items()):
        status = "stable" if n == epochs else ("never" if n == 0 else "flaky")
        out[gold_id] = {"caught": n, "epochs": epochs, "status": status}
    return out


@score_reducer(name="review_epochs")
def review_epochs() -> ScoreReducer:
    def reduce(scores: list[Score]) -> Score:
        if not scores or not isinstance(scores[0].value, dict):
            raise ValueError("review_epochs reduces dict-valued review and gold scores only")
        keys = [k for k in scores[0].value if k not in ("score_spread", "score_within_10")]
        value = {
            k: _nanmean(float(s.value.get(k, float("nan"))) for s in scores)  # type: ignore[union-attr]
            for k in keys
        }
        metadata: dict = {"epochs": len(scores)}
        explanation = [f"{len(scores)} epoch(s)"]
        if "score" in value:
            per_epoch = [float(s.value["score"]) for s in scores]  # type: ignore[index]
            spread, within = score_consistency(per_epoch)
            value["score_spread"] = spread
            value["score_within_10"] = within
            metadata["epoch_scores"] = per_epoch
            explanation.append(f"scores {per_epoch}, spread {spread:g}")
        gold = [s.metadata["gold"] for s in scores if s.metadata and "gold" in s.metadata]
        if gold:
            stability = finding_stability(gold)
            total = len(stability)
            for status in ("stable", "flaky", "never"):
                count = sum(1 for v in stability.values() if v["status"] == status)
                value[f"{status}_findings"] = count / total if total else float("nan")
            metadata["finding_stability"] = stability
            flaky = [g for g, v in stability.items() if v["status"] == "flaky"]
            if flaky:
                explanation.append("flaky gold findings: " + ", ".join(flaky))
        return Score(
            value=value,
            answer=scores[-1].answer,
            explanation="; ".join(explanation),
            metadata={**(scores[-1].metadata or {}), **metadata},
        )

    return reduce
