"""The refresh's model synthesis (curator role): the model drafts each page's bullets within the
page's token budget and names conflicts; code checks every bullet against the pages and budgets,
and decides sections and authority (drafting.assemble). A model that fails or answers malformed
leaves the extractive synthesis in its place, with a warning."""

from __future__ import annotations

import datetime as dt
import json

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, Model
from pydantic import BaseModel

from review_harness.core.jsonsalvage import load_json_lenient, validate_items
from review_harness.core.member import ParseOutcome, RetryPolicy, call_member
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.prompts import neutralize_delimiters, template_environment
from review_harness.core.schema import response_schema
from review_harness.domain.digest import Bullet, Digest
from review_harness.domain.drafting import DraftBullet, assemble, conflict_with, extractive_drafts, kind_of, within_budgets
from review_harness.domain.importance import CURATOR_ROLE, PAGE_WORD_LIMIT
from review_harness.domain.members import SYNTHESIS
from review_harness.domain.sources import Page

SYNTHESIS_POLICY = RetryPolicy(timeout_seconds=300.0)
PRECEDENCE = "Workstream takes precedence; flagged for the next foundational review."


class DraftConflict(BaseModel):
    page_id: str
    text: str


class SynthesisAnswer(BaseModel):
    bullets: list[DraftBullet]
    conflicts: list[DraftConflict]


SYNTHESIS_SCHEMA = response_schema("digest_synthesis", SynthesisAnswer, description="digest bullets and conflicts")


def synthesis_payload(pages: dict[str, tuple[Page, str]], shares: dict[str, int], tier: str,
                      previous: Digest | None) -> list[dict]:
    out = []
    for page_id, (page, page_tier) in sorted(pages.items(), key=lambda kv: (-shares.get(kv[0], 0), kv[0])):
        if tier != "all" and page_tier != tier or shares.get(page_id, 0) <= 0:
            continue
        words = page.body.split()
        out.append({"page_id": page_id, "title": page.title, "tier": page_tier, "kind": kind_of(page, page_tier),
                    "updated": page.updated.isoformat(), "budget_tokens": shares[page_id],
                    "body": page.body if len(words) <= PAGE_WORD_LIMIT else " ".join(words[:PAGE_WORD_LIMIT])})
    if previous is not None and tier == "workstream":
        kept = [b.text for s in previous.sections if s.tier == "foundational" for sub in s.subsections for b in sub.bullets]
        out.append({"foundational_knowledge": kept})
    return out


def render_synthesis_prompt(domain: str, payload: list[dict], tier: str) -> tuple[str, str]:
    env = template_environment(str(PROMPTS_DIR / "domain"))
    system = env.get_template("synthesis_system.v1.j2").render(domain=domain)
    request = env.get_template("synthesis_request.v1.j2").render(
        domain=domain, tier=tier, pages=neutralize_delimiters(json.dumps(payload, indent=1), "<pages>", "</pages>"))
    return system, request


def parse_synthesis(text: str | None) -> ParseOutcome[SynthesisAnswer]:
    """Bullets and conflicts salvaged item by item; malformed when the JSON had to be repaired."""
    if not text:
        return ParseOutcome(None, ["empty answer"], malformed=True)
    data, repaired, problem, _ = load_json_lenient(text)
    if not isinstance(data, dict):
        return ParseOutcome(None, [problem or "no JSON object"], malformed=True)
    bullets, problems = validate_items(data, "bullets", DraftBullet, "bullet")
    conflicts, more = validate_items(data, "conflicts", DraftConflict, "conflict")
    answer = SynthesisAnswer(bullets=[b for b in bullets if b.text.strip()], conflicts=conflicts)
    return ParseOutcome(answer, ([problem] if repaired else []) + problems + more, malformed=repaired)


def conflict_bullets(conflicts: list[DraftConflict], pages: dict[str, tuple[Page, str]]) -> list[Bullet]:
    out = []
    for conflict in conflicts:
        page = pages.get(conflict.page_id)
        text = conflict.text.strip()
        if not text.startswith("CONFLICT:"):
            text = f"CONFLICT: {text}"
        if "takes precedence" not in text:
            text = f"{text} -> {PRECEDENCE}"
        out.append(Bullet(text=text, date=page[0].updated.date() if page else None))
    return out


async def model_synthesis(name: str, pages: dict[str, tuple[Page, str]], shares: dict[str, int], version: str,
                          previous: Digest | None, tier: str, model: Model, warnings: list[str]) -> Digest | None:
    """The digest drafted by the model, or None (with a warning) when its answer is unusable."""
    system, request = render_synthesis_prompt(name, synthesis_payload(pages, shares, tier, previous), tier)
    result = await call_member("domain", SYNTHESIS, [ChatMessageSystem(content=system), ChatMessageUser(content=request)],
                               SYNTHESIS_SCHEMA, parse_synthesis, policy=SYNTHESIS_POLICY, model=model,
                               role=CURATOR_ROLE, span_name=f"synthesis {name}")
    answer = result.report
    if answer is None:
        warnings.append(f"{name} synthesis: the model {result.run.describe()}; used the extractive synthesis")
        return None
    warnings.extend(f"{name} synthesis: {p}" for p in result.run.problems)
    drafts = within_budgets(answer.bullets, pages, shares, tier, warnings)
    return assemble(name, pages, drafts, version, previous, tier, conflict_bullets(answer.conflicts, pages))


def offline_synthesis(payload: list[dict]) -> SynthesisAnswer:
    """What the offline model answers: the extractive drafts of the pages in the request, and the
    conflicts the deterministic check finds between workstream drafts and the foundational
    knowledge (given, or drafted from foundational pages)."""
    pages, shares, kinds, known = {}, {}, {}, []
    for item in payload:
        if "foundational_knowledge" in item:
            known = list(item["foundational_knowledge"])
            continue
        page = Page(id=item["page_id"], title=item["title"], updated=dt.datetime.fromisoformat(item["updated"]),
                    body=item["body"])
        pages[page.id], shares[page.id], kinds[page.id] = (page, item["tier"]), item["budget_tokens"], item["kind"]
    drafts = extractive_drafts(pages, shares, "all", kinds)
    known += [d.text for d in drafts if kinds[d.page_id] == "foundational"]
    conflicts = []
    for draft in drafts:
        line = conflict_with(draft.text, known) if kinds[draft.page_id] != "foundational" else None
        if line:
            conflicts.append(DraftConflict(page_id=draft.page_id, text=line))
    return SynthesisAnswer(bullets=drafts, conflicts=conflicts)
