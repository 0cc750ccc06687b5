"""One domain expert review as a member call, ready for a panel solver: render the prompt, ask the
model under the panel's retry policy with the strict report schema, parse and salvage. A failing or
malformed answer never raises (the DS review then goes partial, with the run's reason in the log).

With a provider model the reviewer verifies cited claims and benchmarks with Inspect's
`web_search()` tool (seed 001 D6): the model searches, then answers in the report format; a claim it
could not check (no result, a failed search) is listed as unverified, at no cost (D10). The
provider's own search serves OpenAI, Anthropic, Gemini, Grok, Mistral and Perplexity models; other
models need an external search provider (Tavily, Google or Exa, with its API key). The offline
reviewer has no search: its claim-verification table stands in."""

from __future__ import annotations

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, Model
from inspect_ai.tool import web_search

from review_harness.core.member import MemberResult, RetryPolicy, call_member
from review_harness.domain.members import EXPERT as MEMBER
from review_harness.domain.prompt import parse_domain_report, render_reviewer_prompt, report_schema
from review_harness.domain.reviewer import ReviewerRubric
from review_harness.domain.rules import DomainReview
from review_harness.domain.skill import DomainContextBrief

KIND = "domain"
# model providers with no web search of their own (the offline reviewer, Inspect's mock model)
NO_SEARCH_PROVIDERS = ("offline", "mockllm", "none")


def can_search(model: Model) -> bool:
    """Whether the domain reviewer gets the web_search() tool under this model."""
    return str(model).split("/", 1)[0] not in NO_SEARCH_PROVIDERS


async def domain_review(document: str, brief: DomainContextBrief, rubric: ReviewerRubric, *, model: Model,
                        policy: RetryPolicy, reference: str | None = None, max_tokens: int | None = None,
                        cache: bool | CachePolicy = False, search: bool | None = None) -> MemberResult[DomainReview]:
    """`search`: give the reviewer web_search() (None: when the model can search). With the tool the
    answer is asked for as JSON in the request (a response schema and a server-side tool do not mix
    on every provider); the parser is the same."""
    search = can_search(model) if search is None else search
    prompt = render_reviewer_prompt(rubric, brief, document, reference, search=search)
    return await call_member(
        KIND, MEMBER, [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)],
        None if search else report_schema(rubric), lambda text: parse_domain_report(text, brief, rubric),
        policy=policy, model=model, cache=cache, max_tokens=max_tokens, prompt_version=prompt.version,
        prefix_hash=prompt.prefix_hash, tools=[web_search()] if search else None,
    )
