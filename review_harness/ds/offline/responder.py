"""How the offline provider answers a DS reviewer's request: with the rule engine. The kind's
declaration (ds/kind.py) routes each call by its member; the judge and the matcher are answered by
the offline judge. A prompt that is no reviewer request gets None."""

from __future__ import annotations

import re
from typing import Any

from review_harness.core.prompts import DOCUMENT_CLOSE, DOCUMENT_OPEN, data_block


def parse_review_request(text: str) -> dict[str, Any] | None:
    """Read the request header and the document block the reviewer template writes."""
    if "REVIEW REQUEST" not in text or DOCUMENT_OPEN not in text:
        return None

    def field(name: str, default: str) -> str:
        match = re.search(rf"^{re.escape(name)}:\s*(.+)$", text, re.MULTILINE)
        return match.group(1).strip() if match else default

    content = data_block(text, DOCUMENT_OPEN, DOCUMENT_CLOSE)
    if content is None:
        return None
    tier = field("Processing Tier", "1")
    return {
        "dimension": field("Reviewer", "analysis"),
        "mode": field("Mode", "full"),
        "audience": field("Audience", "mixed"),
        "workflow": field("Workflow Context", "general"),
        "tier": int(tier) if tier.isdigit() else 1,
        "draft": field("Draft feedback", "no").lower() == "yes",
        "content": content,
    }


def answer_reviewer(prompt: str) -> str | None:
    from review_harness.ds.offline.rules import review_with_rules

    request = parse_review_request(prompt)
    # keys left empty (no note on an assessed lens, no issue type) are left out: the parser's defaults
    return None if request is None else review_with_rules(**request).model_dump_json(indent=1, exclude_none=True)
