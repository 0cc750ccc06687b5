"""Data models of the impact review: the payload a reviewer reads, the checks given to it as
facts, and the ReviewResult it produces (the log contract of the impact kind). No Inspect import:
the impact pipeline uses these without the harness."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from review_harness.core.runs import MemberRun

CheckStatus = Literal["pass", "fail", "warn", "not_available"]
ReviewStatus = Literal["complete", "partial", "failed"]
Verdict = Literal["usable", "caution", "unusable"]  # what the checks and a reviewer may say
ReviewVerdict = Literal["usable", "caution", "unreviewed", "unusable"]  # a review's: `unreviewed` when its reviewer failed
VERDICTS: tuple[str, ...] = ("usable", "caution", "unreviewed", "unusable")  # from most to least lenient
ArtifactShape = Literal["envelope", "contract", "payload"]


class ArtifactPayload(BaseModel):
    """The seed's review input: the serialised measure results and the fields beside them."""

    model_config = ConfigDict(extra="forbid")

    initiative_id: str
    artifact_text: str
    model_type: str
    sample_size: int | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class MeasureContract(BaseModel):
    """The orchestrator's Measure -> Evaluate contract. Only the model type and the estimate are
    needed to review; a missing interval, p-value or sample size is a finding, not an error."""

    model_config = ConfigDict(extra="forbid")

    initiative_id: str
    effect_estimate: float
    ci_lower: float | None = None
    ci_upper: float | None = None
    p_value: float | None = None
    sample_size: int | None = None
    model_type: str
    diagnostics: dict[str, Any] = Field(default_factory=dict)


class ImpactArtifact(BaseModel):
    """One validated impact_results.json: its parts, as numbers, and where it came from."""

    model_config = ConfigDict(extra="forbid")

    source: str
    shape: ArtifactShape = "envelope"
    schema_version: str | None = None
    model_type: str
    executed_at: str | None = None
    model_params: dict[str, Any]
    impact_estimates: dict[str, float | None]
    model_summary: dict[str, float | int | None]
    diagnostics: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    contract: MeasureContract
    notes: list[str] = Field(default_factory=list, description="reported problems that are not fatal")
    text: str | None = Field(default=None, description="an ArtifactPayload's own text, shown to the reviewer")
    precision: dict[str, int] = Field(default_factory=dict,
                                      description="decimals each number was written with, by its name in its section")
    written_as: dict[str, str] = Field(default_factory=dict,
                                       description="the artifact's own name of a number read under the table's name")


class ConsistencyCheck(BaseModel):
    """One deterministic check a careful analyst would run; given to the reviewer as a fact."""

    model_config = ConfigDict(extra="forbid")

    id: str
    dimension: str
    status: CheckStatus
    severity: Literal["major", "minor"] = "major"
    message: str
    topic: str | None = Field(default=None, description="knowledge-base topic the check rests on")
    fields: list[str] = Field(default_factory=list, description="the artifact's names of the numbers it read")
    scored: bool = Field(default=True, description="whether it bears on the offline reviewer's scores")


class ReviewDimension(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    score: float
    justification: str


class ConfidenceScore(BaseModel):
    """The deterministic scorer's output: a band per model type and a draw seeded by the id."""

    model_config = ConfigDict(extra="forbid")

    initiative_id: str
    model_type: str
    low: float
    high: float
    score: float


class ReviewResult(BaseModel):
    """The seed's ReviewResult."""

    model_config = ConfigDict(extra="forbid")

    initiative_id: str
    prompt_name: str
    prompt_version: str
    backend_name: str
    model: str
    dimensions: list[ReviewDimension]
    overall_score: float | None = Field(description="mean of the dimension scores, at most the fatal cap when unusable")
    verdict: ReviewVerdict = Field(description="usable | caution | unusable: the checks' verdict, made stricter by the "
                                   "model's; unreviewed when the reviewer failed and the checks found nothing fatal")
    raw_response: str
    timestamp: str


class ImpactReview(BaseModel):
    """What Score.metadata['review'] holds: the seed's ReviewResult, the deterministic
    confidence beside it (never mixed into the scores), the facts and what went wrong."""

    model_config = ConfigDict(extra="forbid")

    result: ReviewResult
    status: ReviewStatus
    status_reason: str = Field(default="", description="why the review is not complete (the reviewer's run)")
    verdict: ReviewVerdict = Field(description="the same as result.verdict")
    checks_verdict: Verdict = Field(description="decided in code from the checks alone")
    model_verdict: Verdict | None = Field(default=None, description="the reviewer's own VERDICT, when it gave one")
    verdict_reasons: list[str] = Field(default_factory=list, description="the checks (id: status) behind the verdict")
    model_type: str = Field(default="", description="the table's name for the reported model type ('' when unknown)")
    implied_p_value: float | None = Field(default=None, description="the two-sided p-value the interval implies")
    expected_dimensions: list[str]
    dimension_mean: float | None = Field(default=None, description="the mean of the dimension scores before the "
                                         "fatal cap, for audit")
    overall_cap: str = Field(default="", description="why the overall score is capped, when it is")
    evidence_coverage: float | None = Field(default=None, description="share of the method's checks the artifact let "
                                            "run (a diagnostic the table does not understand counts as not run)")
    not_assessed: list[str] = Field(default_factory=list, description="the checks that could not run, and why")
    model_overall: float | None = Field(default=None, description="the model's own OVERALL, for audit only")
    answer_format: Literal["text", "json", "none"] = "none"
    confidence: ConfidenceScore
    checks: list[ConsistencyCheck] = Field(default_factory=list)
    knowledge_chunks: list[str] = Field(default_factory=list, description="headings of the retrieved chunks")
    notes: list[str] = Field(default_factory=list, description="artifact problems reported, not fatal")
    warnings: list[str] = Field(default_factory=list, description="what the parser dropped or repaired, and call failures")
    reviewer_run: MemberRun = Field(description="the reviewer's member run: status, attempts, tokens, seconds, reason")

    def score(self, dimension: str) -> float | None:
        for d in self.result.dimensions:
            if d.name == dimension:
                return d.score
        return None
