"""Domain knowledge for reviews (seed 001): the domain knowledge skill and the domain expert
reviewer's data and pure logic. The DS kind imports it; it imports only the core.

Skill (docs/domain.md has the API): `get_domain_context(domains, topic_hints=None,
max_tokens_per_domain=5000, *, index=None, clock=...) -> DomainContextBrief`, served from the
versioned digests under knowledge/domain/ with no model call.

Modules: config (domain-index.yaml with each domain's scope, team-roster.yaml, -T domain), digest
(file format), versions (versioning, anomalies, rollback, refresh records), skill, sources
(Confluence, folder), importance (curator scores, tiebreaker, budgets), knowledge (sentence cues),
refresh (the pipeline, degraded refreshes, external references), reviewer (rubric, findings,
ADVISORY), prompt (reviewer prompt, schema, parser), member (one reviewer call: prompt, structured
call, parse, run record), reading (a document's parts), scope and topics (whether a domain fits a
document, topic hints), items (a brief's knowledge, item by item), checks (the offline readings)
and rules (the offline domain reviewer), synthesis (model synthesis), gold (gold sets and metrics),
lint (prompt lint), dedup (two-stage dedup), offline (responder), cli.
"""

from review_harness.domain.skill import DomainContextBrief, get_domain_context

__all__ = ["DomainContextBrief", "get_domain_context"]
