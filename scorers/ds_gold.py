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

from review_harness.core.gold import sample_gold
from review_harness.ds.gold import GoldFile, GoldFinding, rubric_check
from review_harness.ds.judge import MATCHER_PROMPT_VERSION, JudgeAnswerError
from review_harness.ds.matching import DETERMINISTIC_MATCHER, Match, compare_with_gold, match_findings, shown_findings
from review_harness.ds.models import Finding
from review_harness.ds.panel import review_from_store
from review_harness.ds.rubric import default_rubric, load_rubric
from scorers.ds_judge import grader_bound, grader_model, llm_match_findings
from scorers.epochs import STABILITY_KEYS
from scorers.gold_score import comparison_lines, defined, not_compared, run_metrics, with_run_figures
from scorers.metrics import averaged
from review_harness.core.metrics import SharedJSON

GOLD_METRICS = (
    "precision",
    "recall",
    "must_catch_recall",
    "severity_agreement",
    "verdict_band_accuracy",
    "score_in_window",
    "top3_relevance",
    "unsupported_critical",
)
MATCHERS = ("auto", "deterministic", "llm")


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


# per-finding stability is recorded by the epoch reducer, with several epochs only
@scorer(metrics=averaged(*GOLD_METRICS, *STABILITY_KEYS) | run_metrics())
def gold_comparison(rubric: str | None = None, matcher: str = "auto") -> Scorer:
    """Compare the synthesized review with the sample's gold file.

    matcher: auto | deterministic | llm (see the module docstring).
    """
    if matcher not in MATCHERS:
        raise ValueError(f"gold_comparison: unknown matcher '{matcher}'; choose one of {', '.join(MATCHERS)}")
    the_rubric = load_rubric(rubric) if rubric else default_rubric()

    async def score(state: TaskState, target: Target) -> Score:
        gold, why = sample_gold(state.metadata, GoldFile, rubric_check(the_rubric))
        if gold is None:
            return not_compared(GOLD_METRICS, why, state)
        review = review_from_store(state.store, the_rubric, state.input_text)
        if review.status == "deferred":
            # no review happened: no accuracy to report (a deferred run must not read as precise)
            return not_compared(GOLD_METRICS, "review deferred: nothing to compare with gold", state, answer="deferred")
        matches, matcher_name, notes = await match_with(matcher, shown_findings(review), gold.expected_findings)
        comparison = compare_with_gold(review, gold, matches, matcher=matcher_name)
        value = {
            "precision": defined(comparison.precision),
            "recall": defined(comparison.recall),
            "must_catch_recall": defined(comparison.must_catch_recall),
            "severity_agreement": defined(comparison.severity_agreement),
            "verdict_band_accuracy": defined(comparison.verdict_band_correct),
            "score_in_window": defined(comparison.score_in_window),
            "top3_relevance": defined(comparison.top3_relevance),
            # CRITICAL findings the gold does not support (matched to no gold CRITICAL): a count per review
            "unsupported_critical": float(comparison.unsupported_critical),
        }
        return with_run_figures(Score(
            value=value,
            answer=review.verdict or review.status,
            explanation="\n".join(comparison_lines(comparison, notes)),
            metadata={
                "gold": SharedJSON(comparison.model_dump(mode="json")),
                "gold_file": str(gold.path),
                **({"matcher_prompt": MATCHER_PROMPT_VERSION} if matcher_name != DETERMINISTIC_MATCHER else {}),
                **({"matcher_notes": notes} if notes else {}),
            },
        ), state, gold, comparison, described={f.id: (f.evidence, f"{f.title}. {f.issue}") for f in review.findings})

    return score
