"""The domain knowledge members (expert reviewer, dedup, curator, digest synthesis), declared for
the core's registry. They serve the DS review's third dimension and the refresh pipeline; the
domain has no task of its own."""

from __future__ import annotations

from review_harness.core.kinds import ReviewKind
from review_harness.domain.members import CURATOR, DEDUP, EXPERT, SYNTHESIS

KIND = ReviewKind("domain", "domain knowledge")


def offline_answer(member: str, prompt: str) -> str | None:
    from review_harness.domain import offline

    answers = {EXPERT: offline.answer_expert, DEDUP: offline.answer_dedup, CURATOR: offline.answer_curator,
               SYNTHESIS: offline.answer_synthesis}
    answer = answers.get(member)
    return answer(prompt) if answer else None
