"""Gold scorers: how a synthesized review compares with what a careful reviewer expected.

Runs on samples that carry a gold file (`metadata["gold"]`); other samples get NaN values
and are left out of the means. It re-synthesizes the review from the store (a pure function),
so it does not depend on scorer order and `inspect score` can re-run it without model calls.

Matching predicted to gold findings (`matcher=`): "deterministic" always uses the
deterministic matcher; "llm" asks the `grader` model role (prompts/ds/matcher.v1.j2) and fails
when no grader is bound; "auto" (default) uses the LLM when a grader is bound. When the LLM's
answer is unusable the deterministic matcher takes over and the score says so. Each score
records its matcher in `metadata["gold"]["matcher"]` ("llm:<model>" or "deterministic-v1").
"""

from __future__ import annotations


from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from review_harness.ds.gold import GoldError, GoldFinding, gold_path, load_gold
from review_harness.ds.judge import MATCHER_PROMPT_VERSION, JudgeAnswerError
from review_harness.ds.matching import DETERMINISTIC_MATCHER, Match, compare_with_gold, match_findings
from review_harness.ds.models import Finding
from review_harness.ds.panel import review_from_store
from review_harness.ds.rubric import default_rubric, load_rubric
from scorers.epochs import finding_stability
from scorers.ds_judge import grader_bound, grader_model, llm_match_findings
from scorers.metrics import nanmean

GOLD_METRICS = (
    "precision",
    "recall",
    "must_catch_recall",
    "severity_agreement",
    "verdict_band_accuracy",
    "score_in_window",
    "top3_relevance",
    "stable_findings",
    "flaky_findings",
    "never_findings",
)
MATCHERS = ("auto", "deterministic", "llm")


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


async def match_with(
    matcher: str, findings: list[Finding], gold: list[GoldFinding]
) -> tuple[list[Match], str, list[str]]:
    """(matches, matcher name, notes) for the chosen matcher."""
    if matcher == "deterministic" or (matcher == "auto" and not grader_bound()):
        return match_findings(findings, gold), DETERMINISTIC_MATCHER, []
    model = grader_model("gold_comparison(matcher='llm')")
    try:
        matches, dropped = await llm_match_findings(model, findings, gold)
    except JudgeAnswerError as ex:  # no usable matcher answer: the deterministic matcher decides
        note = f"LLM matcher {model} failed ({ex}): used {DETERMINISTIC_MATCHER}"
        return match_findings(findings, gold), DETERMINISTIC_MATCHER, [note]
    notes = [f"dropped from the LLM matching: {', '.join(dropped)}"] if dropped else []
    return matches, f"llm:{model}", notes


@scorer(metrics={key: [nanmean()] for key in GOLD_METRICS})
def gold_comparison(rubric: str | None = None, matcher: str = "auto") -> Scorer:
    """Compare the synthesized review with the sample's gold file.

    matcher: auto | deterministic | llm (see the module docstring).
    """
    if matcher not in MATCHERS:
        raise ValueError(f"gold_comparison: unknown matcher '{matcher}'; choose one of {', '.join(MATCHERS)}")
    the_rubric = load_rubric(rubric) if rubric else default_rubric()

    async def score(state: TaskState, target: Target) -> Score:
        path = gold_path(state.metadata)
        if path is None:
            return Score(
                value={key: float("nan") for key in GOLD_METRICS},
                explanation="no gold file for this sample",
            )
        try:
            gold = load_gold(path, the_rubric)
        except GoldError as ex:
            return Score(value={key: float("nan") for key in GOLD_METRICS}, explanation=str(ex))
        review = review_from_store(state.store, the_rubric, state.input_text)
        if review.status == "deferred":
            # no review happened: no accuracy to report (a deferred run must not read as precise)
            return Score(
                value={key: float("nan") for key in GOLD_METRICS},
                answer="deferred",
                explanation="review deferred: nothing to compare with gold",
            )
        matches, matcher_name, notes = await match_with(matcher, review.findings, gold.expected_findings)
        comparison = compare_with_gold(review, gold, matches, matcher=matcher_name)
        value = {
            "precision": _nan(comparison.precision),
            "recall": _nan(comparison.recall),
            "must_catch_recall": _nan(comparison.must_catch_recall),
            "severity_agreement": _nan(comparison.severity_agreement),
            "verdict_band_accuracy": _nan(comparison.verdict_band_correct),
            "score_in_window": _nan(comparison.score_in_window),
            "top3_relevance": _nan(comparison.top3_relevance),
        }
        # one run: a caught finding is stable, a missed one never caught; review_epochs()
        # recomputes these across epochs
        stability = finding_stability([comparison.model_dump(mode="json")])
        for status in ("stable", "flaky", "never"):
            hits = sum(1 for v in stability.values() if v["status"] == status)
            value[f"{status}_findings"] = hits / len(stability) if stability else float("nan")
        lines = [f"matcher: {comparison.matcher}", *notes]
        lines += [f"matched {m.finding} -> {m.gold} ({m.similarity:.2f})" for m in comparison.matches]
        if comparison.missed_must_catch:
            lines.append("missed must-catch: " + ", ".join(comparison.missed_must_catch))
        if comparison.unmatched_findings:
            lines.append("not in gold: " + ", ".join(comparison.unmatched_findings))
        return Score(
            value=value,
            answer=review.verdict or review.status,
            explanation="\n".join(lines),
            metadata={
                "gold": comparison.model_dump(mode="json"),
                "gold_file": str(path),
                **({"matcher_prompt": MATCHER_PROMPT_VERSION} if matcher_name != DETERMINISTIC_MATCHER else {}),
                **({"matcher_notes": notes} if notes else {}),
            },
        )

    return score
