"""How the offline provider answers the code review's members (see code/kind.py): a reviewer
with the rule engine (review_harness.code.rules) under its stage and model letter; the grader's
matcher with the merge's own similarity; the implementer agent with a reply that calls no tool
(the offline implementer cannot write code: evals apply the case's scripted fixes instead). None when the
request lacks its data."""

from __future__ import annotations

from review_harness.core.prompts import data_block


OFFLINE_FIX = "The offline implementer cannot write code: it made no change."


def fix_answer() -> str:
    """The implementer agent's reply offline: text and no tool call, so the agent stops with no edit."""
    return OFFLINE_FIX


def review_answer(stage: str, letter: str, prompt: str) -> str | None:
    """Reviewer `letter`'s answer at `stage` (spec | quality) for the change and spec of the request."""
    from review_harness.code.prompts import parse_change
    from review_harness.code.rules import FileView, review_quality
    from review_harness.code.spec_rules import review_spec

    spec = data_block(prompt, "<spec>", "</spec>")
    change = data_block(prompt, "<change>", "</change>")
    if spec is None or change is None:
        return None
    views = [
        FileView(path=f["path"], language=f["language"], lines=f["lines"], added=set(f["added"]), excerpt=f["excerpt"],
                 omitted=f["omitted"], moved=set(f["moved"]), removed=f["removed"],
                 removed_before=f["removed_before"], code_unchanged=f["code_unchanged"],
                 old_path=f.get("old_path"))
        for f in parse_change(change)  # binary and deleted files too: the spec may name them
    ]
    # memory is the review's to weigh, at each finding's place: the rules report what they see
    report = review_spec(spec, views, letter) if stage == "spec" else review_quality(views, letter)
    return report.model_dump_json(indent=1)


def match_answer(prompt: str) -> str | None:
    """The offline grader pairs findings with the merge's own similarity."""
    import json

    from review_harness.code.merge import MATCH_THRESHOLD, similarity
    from review_harness.code.models import CodeFinding, MatchAnswer, MatchPair
    from review_harness.core.matching import one_to_one

    block = data_block(prompt, "<findings>", "</findings>")
    if block is None:
        return None
    items = json.loads(block)
    a = [(i["id"], CodeFinding.model_validate({k: v for k, v in i.items() if k != "id"})) for i in items if i["id"].startswith("a")]
    b = [(i["id"], CodeFinding.model_validate({k: v for k, v in i.items() if k != "id"})) for i in items if i["id"].startswith("b")]
    pairs = one_to_one([f for _, f in a], [f for _, f in b], similarity, MATCH_THRESHOLD)
    return MatchAnswer(pairs=[MatchPair(a=a[i][0], b=b[j][0]) for i, j, _ in pairs]).model_dump_json(indent=1)
