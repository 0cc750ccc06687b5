"""Cross-run consistency: the epoch reducer for review and gold scores (`--epochs N`).

Every key is reduced over epochs (numbers NaN-aware averaged, labels such as a verdict by
majority). Across-epoch figures exist only with several epochs, so a one-epoch run records
none of them (they would be trivially perfect):
* review scores with a `score` get `score_spread` (max - min of the final score) and
  `score_within_10` (1 when every epoch's score is within 10 points of their mean: the seed's
  bar);
* gold scores get per-finding stability: how many epochs caught each gold finding, as
  `stable_findings` (caught every time), `flaky_findings` (sometimes) and `never_findings`
  (never) shares, with the per-finding detail in metadata.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Score, ScoreReducer, score_reducer

from review_harness.core.metrics import reduce_epoch_values

CONSISTENCY_BAND = 10.0
SPREAD_KEYS = ("score_spread", "score_within_10")
STABILITY_KEYS = ("stable_findings", "flaky_findings", "never_findings")


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


def stability_shares(stability: dict[str, dict]) -> dict[str, float]:
    """The share of gold findings that are stable, flaky and never caught."""
    total = len(stability)
    return {f"{status}_findings": sum(1 for v in stability.values() if v["status"] == status) / total
            for status in ("stable", "flaky", "never")}


@score_reducer(name="review_epochs")
def review_epochs() -> ScoreReducer:
    def reduce(scores: list[Score]) -> Score:
        if not scores or not isinstance(scores[0].value, dict):
            raise ValueError("review_epochs reduces dict-valued review and gold scores only")
        value = reduce_epoch_values([s.value for s in scores if isinstance(s.value, dict)])  # type: ignore[misc]
        for key in (*SPREAD_KEYS, *STABILITY_KEYS):  # a log written before these were across-epoch only
            value.pop(key, None)
        metadata: dict = {"epochs": len(scores)}
        explanation = [f"{len(scores)} epoch(s)"]
        if "score" in value and len(scores) > 1:
            per_epoch = [float(s.value["score"]) for s in scores]  # type: ignore[index]
            value["score_spread"], value["score_within_10"] = score_consistency(per_epoch)
            metadata["epoch_scores"] = per_epoch
            explanation.append(f"scores {per_epoch}, spread {value['score_spread']:g}")
        # a gold score's metadata has "gold": the comparison, or None when there was nothing to compare
        is_gold = any(s.metadata and "gold" in s.metadata for s in scores)
        gold = [s.metadata["gold"] for s in scores if s.metadata and s.metadata.get("gold")]
        stability = finding_stability(gold) if gold and len(scores) > 1 else {}
        if is_gold and len(scores) > 1:  # every gold score of the run gets the keys (NaN: no gold finding)
            value.update(stability_shares(stability) if stability else dict.fromkeys(STABILITY_KEYS, math.nan))
        if stability:
            metadata["finding_stability"] = stability
            flaky = [g for g, v in stability.items() if v["status"] == "flaky"]
            if flaky:
                explanation.append("flaky gold findings: " + ", ".join(flaky))
        return Score(
            value=value,
            answer=scores[-1].answer,
            explanation=scores[-1].explanation if len(scores) == 1 else "; ".join(explanation),
            metadata={**(scores[-1].metadata or {}), **metadata},
        )

    return reduce
