"""Gold scorer of the code review (filled in below)."""
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer


@scorer(metrics={"decision_accuracy": [mean()]})
def code_gold() -> Scorer:
    async def score(state, target: Target) -> Score:
        return Score(value={"decision_accuracy": 0.0})
    return score
