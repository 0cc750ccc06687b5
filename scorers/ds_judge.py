"""LLM-as-judge of review quality (seed 000 s15.3), and the model calls of the LLM matcher.

The judge is bound only through the `grader` model role; an unbound role is an error, never
a silent fallback to the model under evaluation. Re-judge an existing log:

    inspect score LOG --scorer scorers/ds_judge.py@review_judge --model-role grader=offline/judge \\
        --action append --output-file judged.eval

or from Python: `inspect_ai.score(log, [review_judge()], model_roles={"grader": "offline/judge"},
action="append")`.
"""

from __future__ import annotations

import math

from collections.abc import Callable
from typing import TypeVar

from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    Model,
    ModelRole,
    ResponseSchema,
    get_model,
    model_roles,
)
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from pydantic import BaseModel

from review_harness.core.gold import sample_gold
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.member import MemberResult, MemberRun, ParseOutcome, RetryPolicy, call_member
from review_harness.ds.gold import GoldFile, GoldFinding, rubric_check
from review_harness.ds.kind import JUDGE, MATCHER
from review_harness.ds.judge import (
    JUDGE_DIMENSIONS,
    JUDGE_KEYS,
    JUDGE_PROMPT_VERSION,
    MATCHER_PROMPT_VERSION,
    OVERALL,
    JudgeAnswer,
    JudgeAnswerError,
    JudgedReview,
    JudgeResult,
    JudgePrompt,
    MatcherAnswer,
    judged_review,
    pairwise_ordering,
    parse_judge_answer,
    parse_matcher_answer,
    render_judge_prompt,
    render_matcher_prompt,
    validate_matches,
)
from review_harness.ds.matching import Match
from review_harness.ds.models import Finding
from review_harness.ds.panel import review_from_store
from review_harness.ds.rubric import default_rubric, load_rubric
from review_harness.core.schema import response_schema
from scorers.metrics import averaged

GRADER = ModelRole("grader", required=True)
GRADER_POLICY = RetryPolicy()  # one retry after a failed call or an unusable answer
A = TypeVar("A", bound=BaseModel)
JUDGE_SCHEMA = response_schema(
    "review_judgement", JudgeAnswer,
    description="A 0-10 score and a short reason for each of the five judge dimensions.",
)
MATCHER_SCHEMA = response_schema(
    "finding_matches", MatcherAnswer,
    description="One-to-one pairs of review finding id and gold finding id.",
)


def grader_bound() -> bool:
    """Whether the current eval or score run binds a model to the grader role."""
    return GRADER.name in model_roles()


def grader_model(needed_by: str) -> Model:
    if not grader_bound():
        raise PrerequisiteError(
            f"{needed_by} needs a grader model: add --model-role {GRADER.name}=<model> "
            f"(e.g. {GRADER.name}=offline/judge), or pass model_roles={{'{GRADER.name}': ...}} "
            "to inspect_ai.eval() or inspect_ai.score()."
        )
    return get_model(role=GRADER.name, required=GRADER.required)


def _outcome(parse: Callable[[str], A], answers: list[str]) -> Callable[[str], ParseOutcome[A]]:
    """A judge or matcher parser as a member's parse: an unusable answer is malformed (retried
    once) with the parser's reason. Each answer is kept in `answers` (the log shows an unusable one)."""

    def parse_outcome(text: str) -> ParseOutcome[A]:
        answers.append(text)
        try:
            return ParseOutcome(parse(text))
        except JudgeAnswerError as ex:
            return ParseOutcome(None, [str(ex)], malformed=True)

    return parse_outcome


async def _ask(model: Model, member: str, prompt: JudgePrompt, schema: ResponseSchema,
               parse: Callable[[str], A], version: str, max_tokens: int | None) -> tuple[MemberResult[A], str]:
    """The grader as one member call: (the result, the last answer's text)."""
    answers: list[str] = []
    result = await call_member(
        "ds", member, [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)], schema,
        _outcome(parse, answers), policy=GRADER_POLICY, model=model, role=GRADER.name, max_tokens=max_tokens,
        prompt_version=version,
    )
    return result, answers[-1] if answers else ""


async def run_judge(
    model: Model,
    document: str,
    review: JudgedReview,
    gold: list[GoldFinding],
    max_tokens: int | None = None,
) -> JudgeResult:
    """Ask the judge; a failed call or an unusable answer (after its retry) gives NaN scores and
    the reason."""
    result, raw = await _ask(model, JUDGE, render_judge_prompt(document, review, gold), JUDGE_SCHEMA,
                             parse_judge_answer, JUDGE_PROMPT_VERSION, max_tokens)
    if result.report is None:
        return JudgeResult(model=str(model), scores={k: math.nan for k in JUDGE_KEYS},
                           error=result.run.describe(), raw=raw[:2000], run=result.run)
    return JudgeResult(model=str(model), scores=result.report.scores(), reasons=result.report.reasons(),
                       run=result.run)


async def llm_match_findings(
    model: Model, findings: list[Finding], gold: list[GoldFinding], max_tokens: int | None = None
) -> tuple[list[Match], list[str]]:
    """One-to-one matches decided by the model, validated; raises JudgeAnswerError naming the
    matcher's status when it gave no usable answer. Returns (matches, dropped pairs)."""
    if not findings or not gold:
        return [], []
    result, _ = await _ask(model, MATCHER, render_matcher_prompt(findings, gold), MATCHER_SCHEMA,
                           parse_matcher_answer, MATCHER_PROMPT_VERSION, max_tokens)
    if result.report is None:
        raise JudgeAnswerError(result.run.describe())
    return validate_matches(result.report, findings, gold)


def _nan_score(explanation: str) -> Score:
    return Score(value={k: math.nan for k in JUDGE_KEYS}, explanation=explanation)


@scorer(metrics=averaged(*JUDGE_KEYS))
def review_judge(rubric: str | None = None, max_tokens: int | None = None) -> Scorer:
    """Rate the synthesized review against the sample's gold file with the `grader` model.

    Value: the five dimensions and the 30/20/20/15/15 weighted `overall`, each 0-1 (NaN when
    the judge's answer is unusable or the sample has no gold file). With one run, `consistency`
    is the review's internal consistency; across epochs, `review_epochs()` measures spread.
    Metadata: the judge's reasons, its model and the judge prompt version.
    """

    the_rubric = load_rubric(rubric) if rubric else default_rubric()

    async def score(state: TaskState, target: Target) -> Score:
        model = grader_model("review_judge")
        gold, why = sample_gold(state.metadata, GoldFile, rubric_check(the_rubric))
        if gold is None:
            return _nan_score(f"{why} (the judge rates reviews against gold findings)")
        review = review_from_store(state.store, the_rubric, state.input_text)
        result = await run_judge(
            model, state.input_text, judged_review(review, the_rubric), gold.expected_findings, max_tokens
        )
        return Score(
            value=result.scores,
            answer=None if result.error else f"{result.scores[OVERALL]:.2f}",
            explanation=result.explanation(),
            metadata={
                "judge_model": result.model,
                "judge_prompt": JUDGE_PROMPT_VERSION,
                "reasons": result.reasons,
                "judge_error": result.error,
                "judge_run": result.run.model_dump(mode="json") if result.run else None,
                **({"judge_raw": result.raw} if result.error else {}),
            },
        )

    return score


# ----------------------------------------------------------------------------- meta-eval

META_STORE_KEY = "judge_meta"
META_KEYS = (
    "ordering_accuracy",
    "gaming_resistance",
    "judge_failures",
    "faithful_overall",
    "invented_overall",
    "gamed_overall",
)


@scorer(metrics=averaged(*META_KEYS))
def judge_ordering() -> Scorer:
    """Meta-eval of the judge (tasks/judge_meta.py): for one fixture's reviews of known
    quality, judged by the solver, did the judge order them as expected?

    `ordering_accuracy`: share of variant pairs with different expected ranks that the judge
    scored in that order (strictly); `gaming_resistance`: 1 when the gamed review scored no
    higher than the faithful one. An unusable judge answer counts as a wrong order.
    """

    async def score(state: TaskState, target: Target) -> Score:
        stored = state.store.get(META_STORE_KEY)
        if not stored:
            raise RuntimeError("no judge results in the sample store: run the judge_meta solver first")
        ranks: dict[str, int] = stored["expected_rank"]
        results = {kind: JudgeResult.model_validate(r) for kind, r in stored["results"].items()}
        overall = {kind: r.scores[OVERALL] for kind, r in results.items()}
        correct, pairs = pairwise_ordering(overall, ranks)
        value = {
            "ordering_accuracy": correct / pairs if pairs else math.nan,
            # NaN compares False: a judge that gave no usable answer resisted nothing
            "gaming_resistance": float(overall["gamed"] <= overall["faithful"]),
            "judge_failures": sum(r.error is not None for r in results.values()) / len(results),
            **{f"{kind}_overall": overall[kind] for kind in ("faithful", "invented", "gamed")},
        }
        lines = [f"{correct} of {pairs} pairs in the expected order"]
        lines += [
            f"{kind} (expected rank {ranks[kind]}): " + results[kind].explanation().replace("\n", "\n    ")
            for kind in sorted(results, key=lambda k: ranks[k])
        ]
        return Score(
            value=value,
            answer=f"{correct}/{pairs}",
            explanation="\n".join(lines),
            metadata={"judge_model": next(iter(results.values())).model, "judge_prompt": JUDGE_PROMPT_VERSION},
        )

    return score
