"""The merge's matcher: the deterministic similarity (merge.similarity), or, when a `grader`
model role is bound, an LLM that pairs the two models' findings. The LLM's pairs are checked
(known ids, one to one, same file); an unusable answer is malformed (asked once more, then the
rules are used, with the reason)."""

from __future__ import annotations

import json

from review_harness.code.models import CodeFinding, MatchAnswer, MatchPair
from review_harness.code.prompts import PROMPTS_DIR, render_code_template
from review_harness.core.jsonsalvage import load_json_lenient
from review_harness.core.member import ParseOutcome
from review_harness.core.prompts import ReviewerPrompt, neutralize_delimiters
from review_harness.core.schema import response_schema

MATCH_SCHEMA = response_schema("code_finding_pairs", MatchAnswer, description="Pairs of A and B finding ids that are the same problem.")


def findings_payload(a: list[CodeFinding], b: list[CodeFinding]) -> list[dict]:
    return ([{"id": f"a{n}", **f.model_dump(mode="json")} for n, f in enumerate(a, 1)]
            + [{"id": f"b{n}", **f.model_dump(mode="json")} for n, f in enumerate(b, 1)])


def render_match_prompt(stage: str, a: list[CodeFinding], b: list[CodeFinding], version: str = "v1") -> ReviewerPrompt:
    payload = neutralize_delimiters(json.dumps(findings_payload(a, b), indent=1), "<findings>", "</findings>")
    return ReviewerPrompt(system=render_code_template(f"matcher_system.{version}.j2"),
                          request=render_code_template(f"matcher_request.{version}.j2", stage=stage, findings=payload),
                          version=version)


def parse_pairs(text: str, a: list[CodeFinding], b: list[CodeFinding]) -> tuple[list[tuple[int, int]] | None, str | None]:
    """Index pairs from the grader's answer, or None and why it is unusable."""
    data, _, problem, _ = load_json_lenient(text)
    if not isinstance(data, dict) or not isinstance(data.get("pairs"), list):
        return None, problem or "no pairs list in the answer"
    out: list[tuple[int, int]] = []
    used_a: set[int] = set()
    used_b: set[int] = set()
    for item in data["pairs"]:
        try:
            i, j = int(str(item["a"]).lstrip("a")) - 1, int(str(item["b"]).lstrip("b")) - 1
        except (KeyError, TypeError, ValueError):
            return None, f"unreadable pair {item!r}"
        if not (0 <= i < len(a) and 0 <= j < len(b)):
            return None, f"unknown finding id in pair {item!r}"
        if i in used_a or j in used_b:
            return None, f"finding paired twice in {item!r}"
        if a[i].file != b[j].file:
            return None, f"pair {item!r} joins findings about different files"
        used_a.add(i)
        used_b.add(j)
        out.append((i, j))
    return out, None


def parse_match(text: str, a: list[CodeFinding], b: list[CodeFinding]) -> ParseOutcome[MatchAnswer]:
    """The grader's pairs, checked: one unusable pair makes the whole answer malformed (a wrong
    pairing would merge findings that differ)."""
    pairs, reason = parse_pairs(text, a, b)
    if pairs is None:
        return ParseOutcome(None, [reason or "unusable pairs"], malformed=True)
    return ParseOutcome(MatchAnswer(pairs=[MatchPair(a=f"a{i + 1}", b=f"b{j + 1}") for i, j in pairs]))


def pair_indices(answer: MatchAnswer) -> list[tuple[int, int]]:
    """(A index, B index) of each checked pair ('a2', 'b1' -> (1, 0))."""
    return [(int(p.a[1:]) - 1, int(p.b[1:]) - 1) for p in answer.pairs]


__all__ = ["MATCH_SCHEMA", "PROMPTS_DIR", "pair_indices", "parse_match", "parse_pairs", "render_match_prompt"]
