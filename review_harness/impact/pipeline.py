"""The impact review as Inspect solvers and a scorer: one reviewer reads the artifact (with the
consistency checks as facts and the retrieved methodology notes) and answers per dimension; the
markdown report is the sample's answer; the scorer holds the review (log contract: the seed's
ReviewResult plus the deterministic confidence) in `Score.metadata["review"]`.

They live in the kind's package because the library API (`engine.py`) runs them too; the task
imports them through `solvers/impact_reviewer.py` and `scorers/impact_synthesis.py`.

The reviewer is one member call under the kind's retry policy (`reviewer_calls` in the settings):
a reviewer that still fails leaves a failed (or partial) review with the reason, never a sample
error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model
from inspect_ai.scorer import Metric, Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from review_harness.core.input_errors import INPUT_ERROR
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.member import RetryPolicy
from review_harness.core.metrics import SharedJSON, nanmean, recorded
from review_harness.core.panel import scoped_cache, text_hash
from review_harness.core.params import resolve_user_path
from review_harness.core.viewer import PASSED, answer_message, review_score
from review_harness.impact.artifact import ArtifactError
from review_harness.impact.config import default_settings
from review_harness.impact.knowledge import KnowledgeBase, KnowledgeError, KnowledgeRegistry
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.registry import PromptSpec
from review_harness.impact.render import render_report
from review_harness.impact.table import ChecksTable, default_table
from review_harness.impact.review import (
    REQUEST_KEY,
    call_reviewer,
    prepare_request,
    review_from_store,
    reviewer_policy,
    save_reviewer_result,
)

NAN = float("nan")


def knowledge_base(knowledge: str | None, kind: str = "static", options: dict | None = None,
                   label: str | None = None) -> KnowledgeBase:
    """None: the built-in methodology notes; 'none': no knowledge; else a folder (or whatever a
    registered knowledge type makes of the path and its options)."""
    if knowledge is not None and str(knowledge).strip().lower() == "none":
        kind, knowledge = "none", None
    path = None if knowledge is None else resolve_user_path(str(knowledge))
    try:
        return KnowledgeRegistry.create(kind, path, options)
    except KnowledgeError as ex:
        raise PrerequisiteError(f"{label or f'-T knowledge={knowledge}'}: {ex}") from None


def reviewer_model(name: str | None = None, temperature: float | None = None) -> Model:
    """The eval's model, or the configuration's backend (`name`), with its temperature."""
    if name is None and temperature is None:
        return get_model()
    return get_model(name or str(get_model()), config=GenerateConfig(temperature=temperature))


@solver
def impact_reviewer(
    spec: PromptSpec,
    knowledge: KnowledgeBase,
    policy: RetryPolicy,
    top_k: int = 5,
    structured: str = "auto",
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
    table: ChecksTable | None = None,
    model: str | None = None,
    temperature: float | None = None,
) -> Solver:
    """Render the template for this artifact, ask the reviewer under `policy`, store the
    request and the member's result. A file of a folder that could not be read fails here, with
    its reason."""
    settings = default_settings()
    table = table or default_table()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.metadata.get(INPUT_ERROR):
            raise ArtifactError(state.metadata[INPUT_ERROR])
        artifact = ImpactArtifact.model_validate(state.metadata["artifact"])
        request = prepare_request(artifact, spec, knowledge, top_k, settings, table)
        state.store.set(REQUEST_KEY, request.model_dump(mode="json", exclude={"system", "user"}))
        scoped = scoped_cache(cache, artifact_sha=text_hash(state.input_text), prompt=f"{spec.name}@{spec.version}")
        result = await call_reviewer(request, reviewer_model(model, temperature), policy=policy, structured=structured,
                                     max_tokens=max_tokens, cache=scoped)
        save_reviewer_result(state.store, result)
        return state

    return solve


@solver
def render_impact_review() -> Solver:
    """The markdown report is the sample's answer (final assistant message and output)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return answer_message(state, render_report(review_from_store(state.store)))

    return solve


def impact_pipeline(
    spec: PromptSpec,
    *,
    knowledge: str | None = None,
    knowledge_base_obj: KnowledgeBase | None = None,
    top_k: int = 5,
    structured: str = "auto",
    timeout: float | None = None,
    retries: int | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
    table: ChecksTable | None = None,
    model: str | None = None,
    temperature: float | None = None,
) -> list[Solver]:
    """reviewer -> rendered report. The reviewer's policy is the settings' `reviewer_calls`;
    `timeout` (seconds per member call) and `retries` (tries after the first) override it;
    `model` / `temperature` come from a configuration's backend (None: the eval's model)."""
    policy = reviewer_policy(default_settings(), timeout, retries)
    return [
        impact_reviewer(spec, knowledge_base_obj or knowledge_base(knowledge), policy, top_k=top_k,
                        structured=structured, max_tokens=max_tokens, cache=cache, table=table, model=model,
                        temperature=temperature),
        render_impact_review(),
    ]


DEFAULT_DIMENSIONS = ("estimate_plausibility", "statistical_rigor", "methodology_fit")
# Score.value beside the verdict label and the template's dimensions, each named for what it is:
# `overall` (mean of the dimensions, capped when a fatal check failed), `method_confidence` (the
# seed's deterministic draw from the method's band: about the method, not this result),
# `evidence_coverage` (share of the method's checks the artifact let run), `failed_checks` (how
# many fatal checks failed), `passed` (1 for usable) / `unusable` (0/1: their means are the shares
# of results),
# `review_complete` / `reviewer_failed` (0/1: whether the reviewer answered in full, or not at all)
FIGURES = ("method_confidence", "evidence_coverage", "failed_checks", PASSED, "unusable", "review_complete",
           "reviewer_failed")
EPOCH_FIGURES = ("overall_spread", "epoch_consistent")  # with --epochs 2+ (scorers/impact_gold.impact_epochs)


def score_keys(dimensions: Sequence[str] = DEFAULT_DIMENSIONS) -> list[str]:
    """The numbers of the synthesis score that carry a metric, in the order the results show
    them: `overall` first; `passed` is recorded per review only (the verdict's metric sums a run
    up)."""
    return ["overall", *dimensions, *(f for f in FIGURES if f != PASSED), *EPOCH_FIGURES]


def synthesis_scorer(dimensions: Sequence[str] | None, metric: Callable[[], Metric],
                     labels: Mapping[str, list[Metric]] | None = None) -> Scorer:
    """The synthesis scorer with `labels` (metrics of its label keys: the task's names the run's
    verdict) first, then `metric` on each of its figures, named literally (a glob pattern in a
    metrics dict is read as a score name until a sample has a score, and a headline cannot find
    'overall' among patterns)."""
    dims = list(dimensions or DEFAULT_DIMENSIONS)

    @scorer(name="impact_synthesis", metrics={**(labels or {}), **{key: [metric()] for key in score_keys(dims)}})
    def impact_synthesis(dimensions: list[str] = dims) -> Scorer:
        return synthesis_score()

    return impact_synthesis(dimensions=dims)


def impact_synthesis(dimensions: Sequence[str] | None = None) -> Scorer:
    """The review's scorer with NaN-aware means (the library API's; the task's own declares the
    `average` metric: scorers/impact_synthesis.py)."""
    return synthesis_scorer(dimensions, nanmean)


def synthesis_score() -> Callable[[TaskState, Target], object]:
    """The review from the stored request and answer (re-parsed, so `inspect score` redoes it
    without model calls); the numbers reduced across samples and epochs in `Score.value`."""

    async def score(state: TaskState, target: Target) -> Score:
        review = review_from_store(state.store)
        result = review.result
        # the verdict is a label (a sample-list column; the task's metric on it names the run's verdict);
        # then the figures named above
        value: dict[str, float | str] = {"verdict": review.verdict}
        value["overall"] = NAN if result.overall_score is None else recorded(result.overall_score)
        for name in review.expected_dimensions:
            scored = review.score(name)
            value[name] = NAN if scored is None else recorded(scored)
        value["method_confidence"] = recorded(review.confidence.score)
        value["evidence_coverage"] = NAN if review.evidence_coverage is None else recorded(review.evidence_coverage)
        value["failed_checks"] = float(sum(c.status == "fail" for c in review.checks))
        value["unusable"] = float(review.verdict == "unusable")
        value["review_complete"] = float(review.status == "complete")
        value["reviewer_failed"] = float(review.status == "failed")
        # the answer (the sample's header and list): verdict and top findings; the explanation
        # (rendered as markdown in the viewer): the report, verdict first
        return review_score(
            "impact", review, value, render_report(review),
            metadata={"review": SharedJSON(review.model_dump(mode="json")), "verdict": review.verdict},
        )

    return score
