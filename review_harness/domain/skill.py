"""The domain knowledge skill: `get_domain_context` serves a token-budgeted brief from the
pre-built digests. It reads files only (no model call, no network), so any agent can call it
at review time. See docs/domain.md for the API."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from pydantic import BaseModel

from review_harness.core.tokens import TOKENS_PER_WORD, estimate_tokens
from review_harness.domain.config import DomainConfigError, DomainIndex, default_index
from review_harness.domain.digest import Bullet, Digest, TierSection
from review_harness.domain.versions import DigestStoreError, load_current, read_references, read_status

DEFAULT_BUDGET = 5000
STALE_AFTER = timedelta(days=14)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class DomainContextBrief(BaseModel):
    """What a consumer gets. `knowledge_tier` and `authority_level` are keyed by section key
    ("<domain> / <tier section> / <subsection>"), the same text that heads the section in
    `content`. `version` names every digest served ("domain@version; ...")."""

    content: str
    domains_included: list[str]
    knowledge_tier: dict[str, str]
    authority_level: dict[str, str]
    version: str
    versions: dict[str, str]
    warnings: list[str]
    tokens: int
    budget: int
    conflicts: list[str] = []
    conflict_notices: dict[str, str] = {}  # warning -> the domain whose conflicts it announces

    def banner(self, touches: Callable[[str], bool] | None = None) -> str | None:
        """The warning banner a report shows above its results, or None without warnings. With
        `touches` (a conflict's text -> whether it concerns the document), a domain's conflict
        notice is shown only when one of its conflicts concerns the document."""
        shown = []
        for warning in self.warnings:
            domain = self.conflict_notices.get(warning)
            if domain is not None and touches is not None and not any(
                    touches(c.split(": ", 1)[1]) for c in self.conflicts if c.startswith(f"{domain}: ")):
                continue
            shown.append(warning)
        if not shown:
            return None
        return "\n".join(["> **Domain knowledge warnings**"] + [f"> - {w}" for w in shown])

    def log_record(self) -> dict:
        """What a review records about the brief it used (digest versions, size, warnings)."""
        return {"domains": self.domains_included, "versions": self.versions, "tokens": self.tokens,
                "budget": self.budget, "warnings": self.warnings, "conflicts": len(self.conflicts)}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _relevance(text: str, hints: list[str]) -> int:
    """How many hints a piece of text mentions (every word of the hint present)."""
    words = _words(text)
    return sum(1 for hint in hints if _words(hint) and _words(hint) <= words)


def section_key(domain: str, section: TierSection, subsection: str) -> str:
    return f"{domain} / {section.title} / {subsection}"


def _heading(domain: str, section: TierSection, subsection: str) -> str:
    return f"### {section_key(domain, section, subsection)} [tier: {section.tier}] [authority: {section.authority}]"


def _cost(text: str) -> int:
    """Tokens of a piece, rounded up, so pieces that fit add up to a brief that fits."""
    return math.ceil(len(text.split()) * TOKENS_PER_WORD)


def _relevances(digest: Digest, hints: list[str]) -> dict[tuple[int, int], int]:
    """(section, subsection) -> how many hints its title and bullets name (0 without hints)."""
    return {(i, j): (sum(_relevance(f"{sub.title} {b.text}", hints) for b in sub.bullets) if hints else 0)
            for i, section in enumerate(digest.sections) for j, sub in enumerate(section.subsections)}


def _select(digest: Digest, budget: int, hints: list[str]) -> tuple[dict[tuple[int, int], list[Bullet]], int]:
    """Which bullets of a digest fit the budget. Topic hints order the digest, they never cut it:
    every bullet is a candidate, and what the budget cannot hold goes first in this order --
    advisory learnings before authoritative knowledge (pitfalls, standards, decisions), then the
    subsections that name no hint, then digest order. So a pitfall the document never names still
    reaches the reviewer whenever the budget has room for it. Returns the kept bullets by
    (section, subsection) and their tokens."""
    relevance = _relevances(digest, hints)
    items = []
    for i, section in enumerate(digest.sections):
        for j, sub in enumerate(section.subsections):
            for k, bullet in enumerate(sub.bullets):
                items.append((i, j, k, bullet, section.authority != "authoritative"))
    order = sorted(items, key=lambda t: (t[4], -relevance[(t[0], t[1])], t[0], t[1], t[2]))
    used = 0
    kept: dict[tuple[int, int], list[tuple[int, Bullet]]] = {}
    for i, j, k, bullet, _ in order:
        section = digest.sections[i]
        heading_cost = 0 if (i, j) in kept else _cost(_heading(digest.domain, section, section.subsections[j].title))
        cost = _cost(bullet.render()) + heading_cost
        if used + cost > budget:
            continue
        used += cost
        kept.setdefault((i, j), []).append((k, bullet))
    return {key: [b for _, b in sorted(v, key=lambda t: t[0])] for key, v in kept.items()}, used


def _render(digest: Digest, kept: dict[tuple[int, int], list[Bullet]], tiers: dict, authority: dict,
            hints: list[str] | None = None) -> list[str]:
    """The kept subsections, those that name the most hints first, then in digest order."""
    relevance = _relevances(digest, hints or [])
    lines: list[str] = []
    for i, j in sorted(kept, key=lambda key: (-relevance[key], key)):
        section = digest.sections[i]
        sub = section.subsections[j]
        bullets = kept[(i, j)]
        if bullets:
            key = section_key(digest.domain, section, sub.title)
            tiers[key] = section.tier
            authority[key] = section.authority
            lines.append(_heading(digest.domain, section, sub.title))
            lines += [b.render() for b in bullets]
            lines.append("")
    return lines


def refresh_warnings(name: str, status: dict | None, served_version: str) -> list[str]:
    """What the last refresh record says a reader of the brief must know: a failed, rejected or
    degraded refresh (the previous digest is served), or a served version built while indexed
    pages were unavailable."""
    if not status:
        return []
    state, message = status.get("status"), status.get("message")
    built_from_this = status.get("version") == served_version and state in ("ok", "degraded") and \
        status.get("published", True)
    if state in ("failed", "anomaly") or (state == "degraded" and not built_from_this):
        word = {"failed": "failed", "anomaly": "was rejected", "degraded": "was degraded"}[state]
        return [f"{name}: last refresh {word} ({message}); serving the previous digest"]
    if built_from_this and status.get("unavailable"):
        lead = "was built by a degraded refresh" if state == "degraded" else "was built without some indexed pages"
        return [f"{name}: digest version {served_version} {lead} ({message})"]
    return []


def reference_warnings(name: str, index: DomainIndex, path, digest: Digest, now: datetime) -> list[str]:
    """An external reference whose knowledge is in the digest but whose copy is older than its
    TTL: its figures may have moved since."""
    out = []
    record = read_references(path)
    text = "\n".join(b.text for b in digest.bullets())
    for ref in index.entry(name).external_references:
        if f"(source: {ref.url})" not in text:
            continue
        checked = record.get(ref.url, {}).get("checked_at")
        age = (now - datetime.fromisoformat(checked)).days if checked else None
        if age is None or age > ref.ttl_days:
            when = f"last fetched {age} days ago" if age is not None else "never fetched by a refresh"
            out.append(f"{name}: external reference {ref.description} ({ref.url}) was {when}, past its "
                       f"{ref.ttl_days}-day TTL; figures from it may be outdated")
    return out


def get_domain_context(
    domains: list[str] | str,
    topic_hints: list[str] | None = None,
    max_tokens_per_domain: int = DEFAULT_BUDGET,
    *,
    index: DomainIndex | None = None,
    clock: Clock = utc_now,
) -> DomainContextBrief:
    """A context brief for `domains` within `max_tokens_per_domain` tokens per domain.

    A cross-domain digest whose `applies-to` names a requested domain is included once and
    shares the budget of the domains it applies to (it may take up to its `budget-share` of
    each). Conflicts between tiers are always included (workstream knowledge wins them).
    Warnings: a digest older than 14 days (by `clock`), a last refresh that failed or was
    rejected, conflicts, a corrupt current digest served from an older version."""
    index = index or default_index()
    names = [d.strip() for d in (domains.split(",") if isinstance(domains, str) else domains) if d.strip()]
    if not names:
        raise DomainConfigError("get_domain_context: no domain given; known: " + ", ".join(index.reviewable()))
    for name in names:
        index.entry(name)
    if max_tokens_per_domain <= 0:
        raise DomainConfigError(f"max_tokens_per_domain must be positive, got {max_tokens_per_domain}")
    hints = [h for h in (topic_hints or []) if h.strip()]
    names = list(dict.fromkeys(names))
    cross = [c for c in index.cross_domains_for(names) if c not in names]
    now = clock()
    warnings: list[str] = []
    versions: dict[str, str] = {}
    tiers: dict[str, str] = {}
    authority: dict[str, str] = {}
    conflicts: list[str] = []
    notices: dict[str, str] = {}
    parts: list[str] = []
    cross_parts: list[str] = []
    included: list[str] = []
    budget_left = {name: max_tokens_per_domain for name in names}

    def serve(name: str) -> Digest | None:
        path = index.digest_path(name)
        status = read_status(path)
        try:
            served = load_current(path)
        except DigestStoreError as ex:
            warnings.append(f"{name}: no digest served ({ex}); run `review-harness domain refresh {name}`")
            return None
        warnings.extend(f"{name}: {w}" for w in served.warnings)
        digest = served.digest
        warnings.extend(refresh_warnings(name, status, digest.version))
        if digest.is_empty:
            warnings.append(f"{name}: digest version {digest.version} is empty: the domain reviewer has no team "
                            "knowledge to apply; refresh it or roll it back")
        warnings.extend(reference_warnings(name, index, path, digest, now))
        age = now - digest.version_time
        if age > STALE_AFTER:
            warnings.append(f"{name}: digest version {digest.version} is older than 14 days ({age.total_seconds() / 86400:.1f} days)")
        versions[name] = digest.version
        if digest.conflicts:
            notice = (f"{name}: {len(digest.conflicts)} conflict(s) between foundational and workstream "
                      "knowledge; workstream takes precedence")
            warnings.append(notice)
            notices[notice] = name
        return digest

    def conflict_lines(digest: Digest, room: float) -> list[str]:
        """The digest's conflicts when they fit `room` tokens (they go before any other bullet)."""
        if not digest.conflicts:
            return []
        lines = [f"### {digest.domain} / Conflicts (workstream takes precedence)"] + [
            b.render() for b in digest.conflicts] + [""]
        if _cost("\n".join(lines)) > room:
            warnings.append(f"{digest.domain}: its conflicts do not fit the budget and are left out of the brief")
            return []
        conflicts.extend(f"{digest.domain}: {b.text}" for b in digest.conflicts)
        return lines

    for name in cross:
        digest = serve(name)
        if digest is None:
            continue
        sharers = [n for n in names if n in index.entry(name).applies_to]
        share = index.entry(name).budget_share
        cap = int(sum(budget_left[n] * share for n in sharers))
        lines = conflict_lines(digest, cap)
        cap -= _cost("\n".join(lines))
        kept, _ = _select(digest, max(cap, 0), hints)
        lines = _render(digest, kept, tiers, authority, hints) + lines
        if not kept and not lines:
            continue
        used = _cost("\n".join(lines))
        for n in sharers:  # split what the cross-domain digest used across the domains it serves
            budget_left[n] -= used / len(sharers)
        cross_parts += lines
        included.append(name)

    for name in names:
        digest = serve(name)
        if digest is None:
            continue
        lines = conflict_lines(digest, int(budget_left[name]))
        room = int(budget_left[name]) - _cost("\n".join(lines))
        kept, _ = _select(digest, max(room, 0), hints)
        parts += _render(digest, kept, tiers, authority, hints) + lines
        included.append(name)
    parts += cross_parts

    content = "\n".join(parts).strip() + ("\n" if parts else "")
    included = [d for d in names if d in included] + [d for d in cross if d in included]
    versions = {d: versions[d] for d in included}
    return DomainContextBrief(
        content=content,
        domains_included=included,
        knowledge_tier=tiers,
        authority_level=authority,
        version="; ".join(f"{d}@{v}" for d, v in versions.items()),
        versions=versions,
        warnings=warnings,
        tokens=estimate_tokens(content),
        budget=max_tokens_per_domain * len(names),
        conflicts=conflicts,
        conflict_notices=notices,
    )
