"""Domain knowledge for reviews (seed 001): the domain knowledge skill and the domain expert
reviewer's data and pure logic. The DS kind imports it; it imports only the core.

Skill (docs/domain.md has the API): `get_domain_context(domains, topic_hints=None,
max_tokens_per_domain=5000, *, index=None, clock=...) -> DomainContextBrief`, served from the
versioned digests under knowledge/domain/ with no model call.

Modules: config (domain-index.yaml, team-roster.yaml, -T domain), digest (file format), versions
(versioning, anomalies, rollback), skill, sources (Confluence, folder), importance (curator
scores, tiebreaker, budgets), knowledge (sentence cues), refresh (the pipeline), reviewer (rubric,
findings, ADVISORY), prompt (reviewer prompt, schema, parser), member (one reviewer call: prompt,
structured call, parse, run record), rules (offline domain reviewer), synthesis (model synthesis),
gold (gold set and metrics), lint (prompt lint),
dedup (two-stage dedup), scoring (weights, bands, floor rules), offline (responder), cli.
"""

from review_harness.domain.skill import DomainContextBrief, get_domain_context

__all__ = ["DomainContextBrief", "get_domain_context"]
