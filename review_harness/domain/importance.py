"""How much each page weighs in a digest: the curator's judgment plus a small tiebreaker.

    llm_importance   = 0.6 * review_impact + 0.4 * knowledge_density      (curator model role)
    tiebreaker       = 0.05 * normalized(0.40 * recency + 0.35 * comments + 0.25 * incoming links)
                       in [-0.05, +0.05]: the signals mapped from [0, 1] onto [-1, 1]
    final_importance = llm_importance + tiebreaker
    tokens_for(page) = final_importance / sum(final importances) * budget  (whole tokens summing to the budget)
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, Model, get_model
from pydantic import BaseModel

from review_harness.core.jsonsalvage import load_json_lenient
from review_harness.core.member import ParseOutcome, RetryPolicy, call_member
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.prompts import neutralize_delimiters, template_environment
from review_harness.core.schema import response_schema
from review_harness.domain.config import TeamRoster
from review_harness.domain.members import CURATOR
from review_harness.domain.sources import Page

IMPACT_WEIGHT, DENSITY_WEIGHT = 0.6, 0.4
TIEBREAK_SCALE = 0.05
RECENCY_WEIGHT, COMMENTS_WEIGHT, LINKS_WEIGHT = 0.40, 0.35, 0.25
RECENCY_HORIZON_DAYS = 90  # a page updated today scores 1, one this old or older 0
CURATOR_ROLE = "curator"
PROMPT_VERSION = "curator.v1"
PAGE_WORD_LIMIT = 3000  # the curator reads at most this many words of a page
CURATOR_POLICY = RetryPolicy(timeout_seconds=120.0)


class CuratorAnswer(BaseModel):
    knowledge_density: float
    review_impact: float
    rationale: str


CURATOR_SCHEMA = response_schema("curator_importance", CuratorAnswer,
                                 description="importance of one page for the domain digest")


def llm_importance(review_impact: float, knowledge_density: float) -> float:
    return IMPACT_WEIGHT * review_impact + DENSITY_WEIGHT * knowledge_density


def recency_score(updated: dt.datetime, now: dt.datetime) -> float:
    age = max((now - updated).total_seconds() / 86400, 0.0)
    return max(0.0, 1.0 - age / RECENCY_HORIZON_DAYS)


def tiebreaker(recency: float, comments: float, links: float) -> float:
    """Each signal already in [0, 1]; the weighted blend mapped onto [-0.05, +0.05]."""
    blend = RECENCY_WEIGHT * recency + COMMENTS_WEIGHT * comments + LINKS_WEIGHT * links
    return TIEBREAK_SCALE * (2 * blend - 1)


def _share(value: int, most: int) -> float:
    return value / most if most else 0.0


@dataclass
class PageScore:
    page_id: str
    title: str
    knowledge_density: float | None
    review_impact: float | None
    rationale: str
    tiebreaker: float
    final: float
    reason: str | None = None  # why the curator gave no usable score

    def as_log(self) -> dict:
        return {"page": self.page_id, "title": self.title, "knowledge_density": self.knowledge_density,
                "review_impact": self.review_impact, "tiebreaker": round(self.tiebreaker, 4),
                "final_importance": round(self.final, 4), "rationale": self.rationale, "problem": self.reason}


def tiebreakers(pages: list[Page], links: dict[str, int], now: dt.datetime) -> dict[str, float]:
    """The tiebreaker of each page; comments and links normalized by the most any page has."""
    most_comments = max((p.comment_count for p in pages), default=0)
    most_links = max(links.values(), default=0)
    return {p.id: tiebreaker(recency_score(p.updated, now), _share(p.comment_count, most_comments),
                             _share(links.get(p.id, 0), most_links)) for p in pages}


def incoming_links(pages: list[Page]) -> dict[str, int]:
    """Links to each page from the other pages: the page's own count when the source gives one,
    else how many other fetched pages mention its id in a link or its title in a link text."""
    out = {}
    for page in pages:
        if page.incoming_links is not None:
            out[page.id] = page.incoming_links
            continue
        out[page.id] = sum(
            1 for other in pages if other.id != page.id
            and (f"pageId={page.id}" in other.body or f"/pages/{page.id}" in other.body
                 or f"[{page.title}]" in other.body)
        )
    return out


def budgets(importances: dict[str, float], budget: int) -> dict[str, int]:
    """Whole-token budgets proportional to importance that sum exactly to `budget` (largest
    remainder). Pages with no positive importance get nothing."""
    positive = {k: v for k, v in importances.items() if v > 0}
    total = sum(positive.values())
    if not positive or budget <= 0:
        return {k: 0 for k in importances}
    exact = {k: v / total * budget for k, v in positive.items()}
    out = {k: math.floor(v) for k, v in exact.items()}
    left = budget - sum(out.values())
    for k in sorted(exact, key=lambda k: (-(exact[k] - out[k]), k))[:left]:
        out[k] += 1
    return {k: out.get(k, 0) for k in importances}


def author_context(page: Page, roster: TeamRoster, pages: list[Page], links: dict[str, int]) -> str:
    """Roster facts for a senior author; otherwise what the pages say about the author."""
    member = roster.member(page.author)
    if member:
        projects = ", ".join(member.active_projects) or "none listed"
        return f"{page.author}: {member.role}, primary domain {member.primary_domain}, active projects: {projects} (roster)"
    if not page.author:
        return "author unknown"
    own = [p for p in pages if p.author == page.author]
    linked = sum(1 for p in own if links.get(p.id, 0) >= 3)
    spaces = len({p.space for p in own if p.space})
    return (f"{page.author}: not in the senior roster; inferred from pages: {len(own)} page(s) in these spaces, "
            f"{linked} linked from 3 or more pages, writes in {spaces} space(s)")


def render_curator_prompt(domain: str, page: Page, context: str) -> tuple[str, str]:
    env = template_environment(str(PROMPTS_DIR / "domain"))
    system = env.get_template("curator_system.v1.j2").render(domain=domain)
    words = page.body.split()
    body = page.body if len(words) <= PAGE_WORD_LIMIT else " ".join(words[:PAGE_WORD_LIMIT]) + " [...]"
    request = env.get_template("curator_request.v1.j2").render(
        domain=domain, page_id=page.id, title=page.title, space=page.space,
        updated=page.updated.date().isoformat(), author_context=context,
        body=neutralize_delimiters(body, "<page>", "</page>"),
    )
    return system, request


def parse_curator_answer(text: str | None) -> ParseOutcome[CuratorAnswer]:
    """The answer with both scores in [0, 1]; anything else is malformed, with the reason."""
    if not text:
        return ParseOutcome(None, ["empty answer"], malformed=True)
    data, repaired, problem, _ = load_json_lenient(text)
    if not isinstance(data, dict) or repaired:
        return ParseOutcome(None, [problem or "no JSON object"], malformed=True)
    try:
        answer = CuratorAnswer.model_validate(data)
    except ValueError as ex:
        return ParseOutcome(None, [f"answer does not fit the schema ({str(ex).splitlines()[0]})"], malformed=True)
    for name in ("knowledge_density", "review_impact"):
        value = getattr(answer, name)
        if not 0.0 <= value <= 1.0:
            return ParseOutcome(None, [f"{name}={value} is outside 0..1"], malformed=True)
    return ParseOutcome(answer)


def score_from_answer(page: Page, answer: CuratorAnswer | None, tie: float, reason: str | None) -> PageScore:
    if answer is None:
        return PageScore(page.id, page.title, None, None, "", tie, 0.0, reason)
    final = llm_importance(answer.review_impact, answer.knowledge_density) + tie
    return PageScore(page.id, page.title, answer.knowledge_density, answer.review_impact,
                     answer.rationale, tie, max(final, 0.0))


def curator_model(default: str | Model | None = None) -> Model:
    """The `curator` role; unbound, the evaluated model (or `default` outside an eval)."""
    return get_model(role=CURATOR_ROLE, default=default)


async def ask_curator(domain: str, page: Page, context: str, model: Model) -> tuple[CuratorAnswer | None, str | None]:
    """(the answer, None), or (None, why there is none: the member's status and reason)."""
    system, request = render_curator_prompt(domain, page, context)
    result = await call_member("domain", CURATOR, [ChatMessageSystem(content=system), ChatMessageUser(content=request)],
                               CURATOR_SCHEMA, parse_curator_answer, policy=CURATOR_POLICY, model=model,
                               role=CURATOR_ROLE, prompt_version=PROMPT_VERSION, span_name=f"curator {page.id}")
    return result.report, None if result.run.completed else result.run.describe()
