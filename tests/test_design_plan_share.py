"""A document is taken for a proposal by words only a proposal uses, or by a fair share of passages
that plan; a long description with a sentence or two about what a coming version will do is read
as a description, and the missing problem statement is left not assessed rather than escalated.
Documents written for these tests."""

from __future__ import annotations

from test_design_reading import review

PROBLEM = "The problem being solved is never stated"

DESCRIPTION = [
    "The cache keeps one entry per key in a hash map guarded by a single lock.",
    "Entries carry the time they were written and the time they were last read.",
    "A background sweeper walks the map every minute and drops entries older than their time to live.",
    "Readers never block writers for longer than one map operation.",
    "The hit ratio is exported as a gauge and the sweep duration as a histogram.",
    "Keys are byte strings; values are opaque to the cache.",
    "The map is sharded by the first byte of the key's hash, sixteen shards in all.",
    "Each shard has its own lock, so contention falls as shards are added.",
    "Memory is bounded by the entry count set at start-up.",
    "When the bound is reached the least recently read entry of the shard is evicted.",
    "Statistics are reset when the process restarts.",
    "The cache is in-process and is not shared between replicas.",
]


def document(plans: list[str]) -> str:
    body = DESCRIPTION[:6] + plans + DESCRIPTION[6:]
    return "# Session cache\n\n## Internals\n\n" + "\n\n".join(body[:7]) + "\n\n## Limits\n\n" + "\n\n".join(body[7:]) + "\n"


REQS = "# Session cache\n\nSessions for the web tier.\n"
PLANS = ["Version 3 will use a clock-based eviction instead.",
         "We will add per-tenant limits in a later release.",
         "The sweeper will be replaced by lazy expiry on read.",
         "We plan to expose the shard count as a setting."]


def test_a_description_with_a_remark_about_the_next_version_is_not_escalated():
    for plans in ([], PLANS[:1], PLANS[:2]):
        result = review(document(plans), REQS)
        assert PROBLEM not in [f.title for f in result.findings], plans
        assert result.verdict != "escalate", plans


def test_a_document_that_mostly_plans_still_lacks_a_problem_statement():
    result = review(document(PLANS), REQS)
    assert PROBLEM in [f.title for f in result.findings]
    assert result.verdict == "escalate" and result.escalation_target == "survey"


def test_a_word_only_proposals_use_makes_it_a_proposal():
    result = review(document(["This proposal adds per-tenant limits."]), REQS)
    assert PROBLEM in [f.title for f in result.findings]
