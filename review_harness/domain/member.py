"""One domain expert review as a model call, ready for a panel solver: render the prompt, call the
model with the strict report schema, parse and salvage, and say what happened. A failing model
never raises (the DS review then goes partial, with this run's reason in the log)."""

from __future__ import annotations

from dataclasses import dataclass, field

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, Model

from review_harness.core.panel import generate_structured
from review_harness.domain.prompt import parse_domain_report, render_reviewer_prompt, report_schema
from review_harness.domain.reviewer import ReviewerRubric
from review_harness.domain.rules import DomainReview
from review_harness.domain.skill import DomainContextBrief

MEMBER = "domain-expert-reviewer"


@dataclass
class DomainRun:
    review: DomainReview | None
    reason: str | None
    problems: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    truncated: bool = False
    prompt_version: str = ""
    prefix_hash: str = ""
    digest_versions: dict[str, str] = field(default_factory=dict)

    def log_record(self) -> dict:
        return {"member": MEMBER, "status": "ok" if self.review is not None else "failed", "reason": self.reason,
                "problems": self.problems, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "seconds": self.seconds, "truncated": self.truncated, "prompt_version": self.prompt_version,
                "prefix_hash": self.prefix_hash, "digest_versions": self.digest_versions}


async def domain_review(document: str, brief: DomainContextBrief, rubric: ReviewerRubric, *, model: Model,
                        timeout: float, reference: str | None = None, max_tokens: int | None = None,
                        cache: bool | CachePolicy = False) -> DomainRun:
    prompt = render_reviewer_prompt(rubric, brief, document, reference)
    result = await generate_structured(
        [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)],
        report_schema(rubric), timeout=timeout, max_tokens=max_tokens, cache=cache, model=model)
    run = DomainRun(review=None, reason=result.reason, input_tokens=result.input_tokens,
                    output_tokens=result.output_tokens, seconds=result.seconds, truncated=result.truncated,
                    prompt_version=prompt.version, prefix_hash=prompt.prefix_hash, digest_versions=brief.versions)
    if result.reason:
        return run
    run.review, run.problems = parse_domain_report(result.completion, brief, rubric)
    if run.review is None:
        run.reason = "unusable answer: " + "; ".join(run.problems)
    return run
