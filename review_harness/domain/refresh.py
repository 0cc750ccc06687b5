"""The refresh pipeline: pages -> importance -> budgets -> digest -> checked new version.

1. the index's pages by id, then discovery (spaces OR labels, changed in the lookback window;
   discovered pages get the discovery's default tier; pages not in the index are reported as
   candidates for inclusion);
2. the curator scores each page (knowledge density, review impact, rationale); the tiebreaker
   adds recency, comments and incoming links; scores are logged with their rationale in
   `<domain>.scores.json`, keyed by page id, so a page seen again is re-scored and the latest
   score wins (discovery windows overlap on purpose);
3. each page gets a share of the budget by importance; the synthesis drafts each page's bullets
   within its share (the curator model, synthesis.py, or extractively: the page's most
   knowledge-dense sentences, no model call); code (drafting.py) places every bullet in its tier
   section with that section's authority, cites the page, and lists conflicts between the tiers
   (workstream wins them);
4. conflicts are carried: a workstream refresh keeps the earlier ones, the next foundational (or
   full) refresh reviews each as a review item, resolved when the foundational tier no longer names
   the technique, kept otherwise;
5. external references (the index's web pages, each with a TTL) are fetched again only when
   their copy is older than their TTL; a fresh reference's bullets are carried over;
6. indexed pages the source cannot show (missing, hidden, failed) are counted: above the index's
   `max-unavailable` share the refresh is degraded and keeps the current digest (or, with
   `when-degraded: publish`, publishes with a warning every brief repeats); below it, the version
   is published and the brief names the pages it was built without;
7. the new version is published unless it looks broken (see versions.py).

A `tier="workstream"` refresh keeps the current foundational sections.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from inspect_ai.model import Model
from review_harness.domain.config import DomainIndex, TeamRoster
from review_harness.domain.digest import Digest, Subsection, TierSection, format_version
from review_harness.domain.drafting import review_conflicts, synthesize
from review_harness.domain.importance import (
    PageScore,
    author_context,
    budgets,
    incoming_links,
    score_from_answer,
    tiebreakers,
)
from review_harness.domain.sources import Page, PageHidden, PageSource, SourceError
from review_harness.domain.synthesis import model_synthesis
from review_harness.domain.versions import (
    DigestStoreError,
    load_current,
    publish,
    read_references,
    references_path,
    write_status,
)

DEFAULT_BUDGET = 5000

Curator = Callable[[Page, str], Awaitable[tuple[object, str | None]]]


@dataclass
class RefreshReport:
    domain: str
    version: str
    published: bool
    pages: list[str] = field(default_factory=list)
    candidates: list[dict] = field(default_factory=list)
    scores: list[dict] = field(default_factory=list)
    budgets: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    tokens: int = 0
    digest_path: str = ""
    review_items: list[str] = field(default_factory=list)  # earlier conflicts a foundational refresh reviewed
    unavailable: list[dict] = field(default_factory=list)  # indexed pages that could not be read


def scores_path(current: Path) -> Path:
    return current.with_name(f"{current.stem}.scores.json")


def log_scores(current: Path, scores: list[PageScore], at: dt.datetime) -> None:
    """Merge into the score log by page id: the latest score of a page wins."""
    path = scores_path(current)
    try:
        log = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        log = {}
    for score in scores:
        log[score.page_id] = {**score.as_log(), "scored_at": at.isoformat()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(sorted(log.items())), indent=1) + "\n", encoding="utf-8")


@dataclass
class Unavailable:
    """An indexed page the refresh could not read: missing (no such page), hidden (the source
    refuses to show it) or failed (reading it went wrong)."""

    id: str
    title: str
    reason: str  # missing | hidden | failed
    detail: str = ""

    def line(self) -> str:
        return f"{self.id} ({self.title}) {self.reason}" + (f": {self.detail}" if self.detail and self.reason == "failed" else "")


def collect_pages(name: str, index: DomainIndex, source: PageSource, now: dt.datetime,
                  warnings: list[str], unavailable: list[Unavailable] | None = None
                  ) -> tuple[dict[str, tuple[Page, str]], list[dict]]:
    """page id -> (page, tier) and the candidates for inclusion (discovered, not indexed). Indexed
    pages that cannot be read are counted in `unavailable` (and warned about); a discovery that
    fails raises SourceError."""
    entry = index.entry(name)
    unavailable = [] if unavailable is None else unavailable
    pages: dict[str, tuple[Page, str]] = {}
    for indexed in entry.pages:
        try:
            page = source.get_page(indexed.id)
        except PageHidden as ex:
            unavailable.append(Unavailable(indexed.id, indexed.title, "hidden", str(ex)))
            warnings.append(f"{name}: indexed page {indexed.id} ({indexed.title}) is hidden in {source.name}")
            continue
        except SourceError as ex:
            unavailable.append(Unavailable(indexed.id, indexed.title, "failed", str(ex)))
            warnings.append(f"{name}: indexed page {indexed.id} ({indexed.title}) could not be read ({ex})")
            continue
        if page is None:
            unavailable.append(Unavailable(indexed.id, indexed.title, "missing"))
            warnings.append(f"{name}: indexed page {indexed.id} ({indexed.title}) not found in {source.name}")
            continue
        pages[page.id] = (page, indexed.tier)
    candidates = []
    if entry.discovery:
        since = now - dt.timedelta(days=entry.discovery.lookback_days)
        found = source.discover(entry.discovery.spaces, entry.discovery.labels, since)
        for page in sorted(found, key=lambda p: p.updated):  # the latest copy of a page wins
            if page.id in {p.id for p in entry.pages}:
                continue
            pages[page.id] = (page, entry.discovery.default_tier)
            candidates.append({"id": page.id, "title": page.title, "space": page.space,
                               "updated": page.updated.date().isoformat()})
    return pages, candidates


def collect_references(name: str, index: DomainIndex, source: PageSource, current: Path, now: dt.datetime,
                       warnings: list[str]) -> tuple[dict[str, tuple[Page, str]], dict[str, dict]]:
    """The external references whose copy is older than their TTL (or was never fetched), fetched
    again through the source as foundational pages; those still fresh are not fetched (their
    bullets stay in the digest). Returns the fetched pages and the updated reference record."""
    record = read_references(current)
    pages: dict[str, tuple[Page, str]] = {}
    for ref in index.entry(name).external_references:
        seen = record.get(ref.url, {})
        checked = seen.get("checked_at")
        if checked and now - dt.datetime.fromisoformat(checked) < dt.timedelta(days=ref.ttl_days):
            continue  # fresh: within its TTL
        page = source.get_reference(ref.url)
        if page is None:
            record[ref.url] = {**seen, "description": ref.description, "status": "not fetched",
                               "tried_at": now.isoformat()}
            if checked:
                warnings.append(f"{name}: external reference {ref.description} is past its {ref.ttl_days}-day TTL and "
                                f"{source.name} cannot fetch it; its knowledge in the digest is from {checked[:10]}")
            continue
        page = page.model_copy(update={"id": ref.url, "title": ref.description})
        pages[ref.url] = (page, "foundational")
        record[ref.url] = {"description": ref.description, "status": "fetched", "checked_at": now.isoformat()}
    return pages, record


def carry_fresh_references(previous: Digest | None, digest: Digest, fetched: set[str], urls: list[str]) -> None:
    """Bullets of external references that were not fetched again (still within their TTL, or not
    fetchable) are kept from the previous digest."""
    if previous is None:
        return
    kept = [u for u in urls if u not in fetched]
    if not kept:
        return
    for section in previous.sections:
        for sub in section.subsections:
            carried = [b for b in sub.bullets if any(f"(source: {u})" in b.text for u in kept)]
            if not carried:
                continue
            target = digest.section(section.title)
            if target is None:
                target = TierSection(title=section.title, authority=section.authority, cadence=section.cadence)
                digest.sections.append(target)
            mine = next((s for s in target.subsections if s.title == sub.title), None)
            if mine is None:
                mine = Subsection(title=sub.title)
                target.subsections.append(mine)
            mine.bullets += [b for b in carried if b not in mine.bullets]


def degraded_message(unavailable: list[Unavailable], indexed: int) -> str:
    counts = {r: sum(1 for u in unavailable if u.reason == r) for r in ("missing", "hidden", "failed")}
    parts = ", ".join(f"{n} {r}" for r, n in counts.items() if n)
    return (f"{len(unavailable)} of {indexed} indexed pages unavailable ({parts}: "
            + "; ".join(u.line() for u in unavailable) + ")")


async def refresh_domain(
    name: str,
    index: DomainIndex,
    roster: TeamRoster,
    source: PageSource,
    curator: Curator,
    *,
    now: dt.datetime,
    budget: int = DEFAULT_BUDGET,
    tier: str = "all",
    synthesis_model: Model | None = None,
) -> RefreshReport:
    """Refresh one domain's digest from `source`; `curator(page, author_context)` returns
    (CuratorAnswer | None, reason). With `synthesis_model` the model drafts the bullets
    (synthesis.py), else the synthesis is extractive. A source that fails records a failed
    refresh and keeps the current digest (the skill warns about it)."""
    entry = index.entry(name)
    current = index.digest_path(name)
    version = format_version(now)
    report = RefreshReport(domain=name, version=version, published=False, digest_path=str(current))
    unavailable: list[Unavailable] = []
    try:
        pages, report.candidates = collect_pages(name, index, source, now, report.warnings, unavailable)
        fetched, references = collect_references(name, index, source, current, now, report.warnings)
    except SourceError as ex:
        write_status(current, "failed", str(ex), now)
        report.warnings.insert(0, f"{name}: refresh failed ({ex}); the current digest stays")
        return report
    report.unavailable = [u.__dict__ for u in unavailable]
    indexed = len(entry.pages)
    if indexed and unavailable and len(unavailable) == indexed and not pages and all(
            u.reason == "failed" for u in unavailable):
        message = degraded_message(unavailable, indexed)
        write_status(current, "failed", message, now, unavailable=report.unavailable)
        report.warnings.insert(0, f"{name}: refresh failed ({message}); the current digest stays")
        return report
    degraded = bool(indexed) and len(unavailable) / indexed > entry.refresh.max_unavailable
    if degraded and entry.refresh.when_degraded == "keep":
        message = degraded_message(unavailable, indexed) + f", over the {entry.refresh.max_unavailable:.0%} allowed"
        try:
            kept = load_current(current).digest.version
        except DigestStoreError:
            kept = None
        write_status(current, "degraded", message + (f"; kept version {kept}" if kept else "; nothing published"),
                     now, kept, unavailable=report.unavailable, indexed=indexed, published=False)
        report.warnings.append(f"{name}: refresh degraded ({message}); "
                               + (f"kept version {kept}" if kept else "nothing published"))
        return report
    pages.update(fetched)
    report.pages = sorted(pages)
    plain = [p for p, _ in pages.values()]
    links = incoming_links(plain)
    ties = tiebreakers(plain, links, now)

    async def score(page: Page) -> PageScore:
        answer, reason = await curator(page, author_context(page, roster, plain, links))
        return score_from_answer(page, answer, ties[page.id], reason)

    results: dict[str, PageScore] = {}

    async def run(page: Page) -> None:
        results[page.id] = await score(page)

    async with anyio.create_task_group() as group:
        for page in plain:
            group.start_soon(run, page)
    scores = [results[p.id] for p in plain]
    log_scores(current, scores, now)
    report.scores = [s.as_log() for s in scores]
    report.warnings += [f"{name}: page {s.page_id} not scored ({s.reason})" for s in scores if s.reason]

    own_budget = budget
    if entry.is_cross_domain:
        own_budget = int(budget * entry.budget_share)
    else:
        shares = [index.entry(c).budget_share for c in index.cross_domains_for([name])]
        own_budget = int(budget * (1 - max(shares, default=0.0)))
    report.budgets = budgets({s.page_id: s.final for s in scores}, own_budget)
    try:
        previous = load_current(current).digest
    except DigestStoreError:
        previous = None
    digest = None
    if synthesis_model is not None:
        digest = await model_synthesis(name, pages, report.budgets, version, previous, tier, synthesis_model,
                                       report.warnings)
    if digest is None:
        digest = synthesize(name, pages, report.budgets, version, previous, tier)
    carry_fresh_references(previous, digest, set(fetched), [r.url for r in entry.external_references])
    digest.conflicts, report.review_items = review_conflicts(previous, digest, tier)
    scored = [s.final for s in scores if s.reason is None]
    if not scored and scores:
        write_status(current, "failed", "the curator scored no page", now)
        report.warnings.append(f"{name}: refresh failed (the curator scored no page); the current digest stays")
        return report
    status = None
    if unavailable:
        message = degraded_message(unavailable, indexed)
        if degraded:
            message += f", over the {entry.refresh.max_unavailable:.0%} allowed; published with this warning"
            report.warnings.append(f"{name}: refresh degraded ({message})")
        status = ("degraded" if degraded else "ok", message)
    result = publish(current, digest, entry.refresh.retain_versions, at=now, importances=scored, status=status,
                     unavailable=report.unavailable, indexed=indexed, published=True)
    if result.published and fetched:
        references_path(current).write_text(json.dumps(references, indent=1) + "\n", encoding="utf-8")
    report.published = result.published
    report.warnings += result.warnings
    report.tokens = digest.tokens
    return report
