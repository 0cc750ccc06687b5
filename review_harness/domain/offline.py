"""How the offline provider answers the domain members (the kind's declaration routes each call
by its member; a prompt that lacks the member's data block gets None): the domain expert
reviewer's request with the rule engine (rules.py), the dedup question with a quote and wording
comparison, the digest synthesis request with the extractive synthesis, and the curator's
request as below. The expert reviewer reads the user's reference too (it supplements the brief).

The curator request is scored from the page itself: knowledge density is the share of its
sentences that carry domain-knowledge cues (standards, decisions, pitfalls, evaluation, results),
review impact grows with pitfall and standard sentences and concrete numbers, and a senior
author (roster IC8+) adds a little. The rationale names the counts behind the scores.
"""

from __future__ import annotations

import json
import re

from review_harness.core.prompts import data_block
from review_harness.domain.knowledge import page_sentences


def curator_answer(page: str, author: str) -> dict:
    units = page_sentences(page)
    if not units:
        return {"knowledge_density": 0.0, "review_impact": 0.0,
                "rationale": "The page has no prose sentences to learn from."}
    knowledge = [u for u in units if u.kinds]
    pitfalls = sum(1 for u in units if "pitfall" in u.kinds)
    standards = sum(1 for u in units if {"standard", "decision"} & set(u.kinds))
    numbers = sum(1 for u in units if u.numbers)
    density = len(knowledge) / len(units) * min(1.0, len(knowledge) / 3)
    impact = min(1.0, 0.15 * pitfalls + 0.1 * standards + 0.05 * numbers)
    senior = re.search(r"\bIC(\d+)\b", author)
    if senior and int(senior.group(1)) >= 8 and "(roster)" in author:
        impact = min(1.0, impact + 0.1)
    return {
        "knowledge_density": round(density, 2),
        "review_impact": round(impact, 2),
        "rationale": (f"{len(knowledge)} of {len(units)} sentences carry domain knowledge; "
                      f"{pitfalls} name pitfalls, {standards} state standards or decisions, "
                      f"{numbers} give concrete numbers" + ("; senior author" if senior else "") + "."),
    }


def answer_curator(prompt: str) -> str | None:
    page = data_block(prompt, "<page>", "</page>")
    author = data_block(prompt, "<author>", "</author>") or ""
    if page is None:
        return None
    return json.dumps(curator_answer(page, author))


def answer_expert(prompt: str) -> str | None:
    from review_harness.domain.prompt import report_of
    from review_harness.domain.reviewer import default_reviewer_rubric
    from review_harness.domain.rules import review_document

    brief = data_block(prompt, "<brief>", "</brief>")
    document = data_block(prompt, "<document>", "</document>")
    if brief is None or document is None:
        return None
    reference = data_block(prompt, "<reference>", "</reference>")  # the user's reference supplements the brief
    return report_of(review_document(document, brief, default_reviewer_rubric(), reference=reference)
                     ).model_dump_json(indent=1)


def answer_synthesis(prompt: str) -> str | None:
    from review_harness.domain.synthesis import offline_synthesis

    block = data_block(prompt, "<pages>", "</pages>")
    if block is None:
        return None
    return offline_synthesis(json.loads(block)).model_dump_json(indent=1)


def answer_dedup(prompt: str) -> str | None:
    from review_harness.domain.dedup import offline_same_issue

    block = data_block(prompt, "<findings>", "</findings>")
    if block is None:
        return None
    pair = json.loads(block)
    same, reason = offline_same_issue(pair["analysis"], pair["domain"])
    return json.dumps({"same_issue": same, "reason": reason})


class OfflineDedupModel:
    """Answers stage-2 dedup questions in-process, as the offline provider would (for gold runs
    and benchmarks outside an eval)."""

    def __str__(self) -> str:
        return "offline/rules"

    async def generate(self, messages, config=None, cache=False):
        from inspect_ai.model import ModelOutput

        return ModelOutput.from_content("offline/rules", answer_dedup("\n\n".join(m.text for m in messages)) or "")


def offline_dedup_model() -> OfflineDedupModel:
    return OfflineDedupModel()
