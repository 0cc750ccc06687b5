"""Data models of the impact review: the payload a reviewer reads, the checks given to it as
facts, and the ReviewResult it produces (the log contract of the impact kind)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from review_harness.core.member import MemberRun

CheckStatus = Literal["pass", "fail", "warn", "not_available"]
ReviewStatus = Literal["complete", "partial", "failed"]


class ArtifactPayload(BaseModel):
    """What the reviewer is given: the seed's envelope plus the Evaluate contract fields."""

    model_config = ConfigDict(extra="forbid")

    initiative_id: str
    artifact_text: str
    model_type: str
    sample_size: int
    metadata: dict[str, Any] = Field(default_factory=dict)


class MeasureContract(BaseModel):
    """The Measure -> Evaluate contract of the orchestrator, read from the envelope."""

    model_config = ConfigDict(extra="forbid")

    initiative_id: str
    effect_estimate: float
    ci_lower: float
    ci_upper: float
    p_value: float | None
    sample_size: int
    model_type: str
    diagnostics: dict[str, Any] = Field(default_factory=dict)


class ImpactArtifact(BaseModel):
    """One validated impact_results.json: its parts, as numbers, and where it came from."""

    model_config = ConfigDict(extra="forbid")

    source: str
    schema_version: str
    model_type: str
    executed_at: str
    model_params: dict[str, Any]
    impact_estimates: dict[str, float | None]
    model_summary: dict[str, float | int | None]
    diagnostics: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    contract: MeasureContract
    notes: list[str] = Field(default_factory=list, description="reported problems that are not fatal")


class ConsistencyCheck(BaseModel):
    """One deterministic check a careful analyst would run; given to the reviewer as a fact."""

    model_config = ConfigDict(extra="forbid")

    id: str
    dimension: str
    status: CheckStatus
    severity: Literal["major", "minor"] = "major"
    message: str
    topic: str | None = Field(default=None, description="knowledge-base topic the check rests on")


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
    overall_score: float | None = Field(description="mean of the dimension scores")
    raw_response: str
    timestamp: str


class ImpactReview(BaseModel):
    """What Score.metadata['review'] holds: the seed's ReviewResult, the deterministic
    confidence beside it (never mixed into the scores), the facts and what went wrong."""

    model_config = ConfigDict(extra="forbid")

    result: ReviewResult
    status: ReviewStatus
    expected_dimensions: list[str]
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
