"""One domain expert review as a member call, ready for a panel solver: render the prompt, ask the
model under the panel's retry policy with the strict report schema, parse and salvage. A failing or
malformed answer never raises (the DS review then goes partial, with the run's reason in the log)."""

from __future__ import annotations

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, Model

from review_harness.core.member import MemberResult, RetryPolicy, call_member
from review_harness.domain.members import EXPERT as MEMBER
from review_harness.domain.prompt import parse_domain_report, render_reviewer_prompt, report_schema
from review_harness.domain.reviewer import ReviewerRubric
from review_harness.domain.rules import DomainReview
from review_harness.domain.skill import DomainContextBrief

KIND = "domain"


async def domain_review(document: str, brief: DomainContextBrief, rubric: ReviewerRubric, *, model: Model,
                        policy: RetryPolicy, reference: str | None = None, max_tokens: int | None = None,
                        cache: bool | CachePolicy = False) -> MemberResult[DomainReview]:
    prompt = render_reviewer_prompt(rubric, brief, document, reference)
    return await call_member(
        KIND, MEMBER, [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)],
        report_schema(rubric), lambda text: parse_domain_report(text, brief, rubric), policy=policy, model=model,
        cache=cache, max_tokens=max_tokens, prompt_version=prompt.version, prefix_hash=prompt.prefix_hash,
    )
