"""Drafting a digest from pages: each page's bullets within its token share, placed by code in
the tier section that gives them their authority. The extractive drafts (the page's most
knowledge-dense sentences, no model call) serve the refresh without a synthesis model and the
offline synthesis; the model's drafts (synthesis.py) go through the same budget check and
assembly."""

from __future__ import annotations

import re

from pydantic import BaseModel

from review_harness.core.tokens import estimate_tokens
from review_harness.domain.digest import Bullet, Digest, Subsection, TierSection
from review_harness.domain.knowledge import (
    classify,
    is_learning,
    is_postmortem,
    page_sentences,
    replaced_terms,
    subsection_for,
)
from review_harness.domain.sources import Page
from review_harness.domain.topics import mentions_term, same_term

FOUNDATIONAL = ("Foundational Knowledge", "authoritative")
STANDARDS = ("Workstream Standards", "authoritative")
LEARNINGS = ("Workstream Learnings", "advisory")


def pick_sentences(page: Page, budget: int) -> list[str]:
    """The page's most knowledge-dense sentences (ties: page order) that fit `budget` tokens,
    returned in page order."""
    ranked = [(s, i) for i, s in enumerate(page_sentences(page.body)) if s.kinds]
    ranked.sort(key=lambda t: (-t[0].weight, t[1]))
    chosen, used = [], 0
    suffix = f" (source: {page.id})"
    for sentence, i in ranked:
        cost = estimate_tokens(sentence.text + suffix) + 1
        if used + cost > budget:
            continue
        used += cost
        chosen.append((i, sentence.text))
    return [text for _, text in sorted(chosen)]


class DraftBullet(BaseModel):
    """One bullet a synthesis proposes: which page it comes from, under which subsection."""

    page_id: str
    subsection: str
    text: str


def kind_of(page: Page, page_tier: str) -> str:
    """foundational | learning | standard: decides the section, hence the authority, of a page's bullets."""
    if page_tier == "foundational":
        return "foundational"
    return "learning" if is_learning(page.title, page.labels) else "standard"


def default_subsection(kind: str, page: Page, text: str) -> str:
    if kind == "foundational":
        return subsection_for(classify(text))
    if kind == "learning":
        return "Recent Post-Mortems" if is_postmortem(page.title, page.labels) else "Recent Experiment Learnings"
    return "Active Project Decisions"


def extractive_drafts(pages: dict[str, tuple[Page, str]], shares: dict[str, int], tier: str,
                      kinds: dict[str, str] | None = None) -> list[DraftBullet]:
    """Each page's most knowledge-dense sentences within its share, biggest share first.
    `kinds` overrides what kind_of() would say of a page."""
    drafts = []
    for page_id, (page, page_tier) in sorted(pages.items(), key=lambda kv: (-shares.get(kv[0], 0), kv[0])):
        if tier != "all" and page_tier != tier:
            continue
        kind = (kinds or {}).get(page_id) or kind_of(page, page_tier)
        for text in pick_sentences(page, shares.get(page_id, 0)):
            drafts.append(DraftBullet(page_id=page_id, subsection=default_subsection(kind, page, text), text=text))
    return drafts


def within_budgets(drafts: list[DraftBullet], pages: dict[str, tuple[Page, str]], shares: dict[str, int],
                   tier: str, warnings: list[str]) -> list[DraftBullet]:
    """Drafts whose page exists (and is of the refreshed tier) and that fit the page's share."""
    used: dict[str, int] = {}
    kept = []
    for draft in drafts:
        if draft.page_id not in pages or (tier != "all" and pages[draft.page_id][1] != tier):
            warnings.append(f"synthesis: dropped a bullet citing page {draft.page_id!r}, not a page of this refresh")
            continue
        cost = estimate_tokens(f"{draft.text} (source: {draft.page_id})") + 1
        if used.get(draft.page_id, 0) + cost > shares.get(draft.page_id, 0):
            warnings.append(f"synthesis: dropped a bullet of page {draft.page_id} over its {shares.get(draft.page_id, 0)}-token share")
            continue
        used[draft.page_id] = used.get(draft.page_id, 0) + cost
        kept.append(draft)
    return kept


def assemble(name: str, pages: dict[str, tuple[Page, str]], drafts: list[DraftBullet], version: str,
             previous: Digest | None, tier: str, conflicts: list[Bullet] | None = None) -> Digest:
    """The digest from drafted bullets. Code, not the synthesis, decides each bullet's section and
    so its authority (foundational pages: Foundational Knowledge; experiment write-ups and
    post-mortems: Workstream Learnings, advisory; other workstream pages: Workstream Standards),
    dates workstream bullets with the page's date and cites the page."""
    keys = {"foundational": FOUNDATIONAL, "learning": LEARNINGS, "standard": STANDARDS}
    sections: dict[tuple[str, str], dict[str, list[Bullet]]] = {}
    for draft in drafts:
        page, page_tier = pages[draft.page_id]
        kind = kind_of(page, page_tier)
        bullet = Bullet(text=f"{draft.text} (source: {page.id})",
                        date=None if kind == "foundational" else page.updated.date())
        sub = draft.subsection.strip() or default_subsection(kind, page, draft.text)
        sections.setdefault(keys[kind], {}).setdefault(sub, []).append(bullet)
    cadence = {FOUNDATIONAL: "monthly", STANDARDS: "weekly", LEARNINGS: "weekly"}
    built = [
        TierSection(title=key[0], authority=key[1], cadence=cadence[key],
                    subsections=[Subsection(title=t, bullets=b) for t, b in sorted(subs.items())])
        for key in (FOUNDATIONAL, STANDARDS, LEARNINGS) if (subs := sections.get(key))
    ]
    if previous is not None and tier != "all":
        kept = [s for s in previous.sections if s.tier != tier]
        built = sorted(kept + built, key=lambda s: (s.tier != "foundational", s.authority != "authoritative"))
    digest = Digest(domain=name, version=version, previous=previous.version if previous else None, sections=built)
    digest.conflicts = find_conflicts(digest) if conflicts is None else conflicts
    return digest


def synthesize(name: str, pages: dict[str, tuple[Page, str]], shares: dict[str, int], version: str,
               previous: Digest | None, tier: str) -> Digest:
    """The extractive synthesis (no model call)."""
    return assemble(name, pages, extractive_drafts(pages, shares, tier), version, previous, tier)


def conflict_with(text: str, foundational: list[str]) -> str | None:
    """The conflict line when `text` (workstream knowledge) replaces or dismisses a technique
    one of the foundational texts names (an abbreviation and its long form are one technique:
    "IPW" and "inverse propensity weighting"), else None."""
    for term in replaced_terms(text):
        named = [f for f in foundational if mentions_term(f, term)]
        if len(term) >= 3 and named:
            return (f"CONFLICT: Foundational knowledge names {term} ({named[0][:80]}...); "
                    f"workstream knowledge says: {text[:160]} -> Workstream takes precedence. "
                    "Flagged for the next foundational review.")
    return None


def find_conflicts(digest: Digest) -> list[Bullet]:
    """A workstream bullet that replaces or dismisses a technique the foundational tier names."""
    foundational = [b.text for s in digest.sections if s.tier == "foundational" for sub in s.subsections for b in sub.bullets]
    out = []
    for section in digest.sections:
        if section.tier != "workstream":
            continue
        for bullet in (b for sub in section.subsections for b in sub.bullets):
            line = conflict_with(bullet.text, foundational)
            if line:
                out.append(Bullet(date=bullet.date, text=line))
    return out


CONFLICT_TERM_RE = re.compile(r"[Ff]oundational(?: knowledge| tier)? (?:names|says|uses) \"?(?P<term>[\w/-]+(?: [\w/-]+){0,3}?)\"?"
                              r"(?= \(| as | for |[;,.:])")


def conflict_terms(text: str) -> list[str]:
    """The foundational technique a conflict is about: the one it says the foundational tier names,
    else the ones it says are replaced."""
    m = CONFLICT_TERM_RE.search(text)
    if not m:
        return replaced_terms(text)
    words = m.group("term").split()
    while len(words) > 1 and words[0].lower() in ("use", "using", "uses", "the", "a", "an", "plain"):
        words = words[1:]
    return [" ".join(words)]


def same_conflict(a: Bullet, b: Bullet) -> bool:
    """Two conflict lines about one thing: the same text, or the same foundational technique (an
    abbreviation and its long form are one: "IPW", "inverse propensity weighting")."""
    if a.text == b.text:
        return True
    ours, theirs = conflict_terms(a.text), conflict_terms(b.text)
    return any(same_term(x, y) or mentions_term(x, y) or mentions_term(y, x) for x in ours for y in theirs)


def review_conflicts(previous: Digest | None, digest: Digest, tier: str) -> tuple[list[Bullet], list[str]]:
    """Conflicts carried from refresh to refresh (seed 001 s5, D19), each once: an earlier conflict
    about the same technique as one found again is kept (with the date it was first flagged) and the
    new wording is dropped. A workstream refresh keeps the earlier conflicts, so none is lost before
    the foundational tier is reviewed; a foundational (or full) refresh reviews each earlier conflict:
    resolved when the new foundational tier no longer names the technique, otherwise kept and listed
    as a review item. Returns (the new digest's conflicts, the review items)."""
    earlier = list(previous.conflicts) if previous else []
    found = list(digest.conflicts)
    if tier == "workstream":
        return _once(earlier + found), []
    foundational = [b.text for s in digest.sections if s.tier == "foundational" for sub in s.subsections
                    for b in sub.bullets]
    items = []
    kept = []
    for bullet in earlier:
        terms = conflict_terms(bullet.text)
        still = [t for t in terms if any(mentions_term(f, t) for f in foundational)]
        since = f" (flagged {bullet.date.isoformat()})" if bullet.date else ""
        if not terms:
            items.append(f"open{since}: {bullet.text} -> the technique it concerns is not named; review by hand")
        elif still:
            items.append(f"open{since}: the foundational tier still names {', '.join(still)}; update the foundational "
                         f"page or confirm it stands: {bullet.text}")
        else:
            items.append(f"resolved{since}: the foundational tier no longer names {', '.join(terms)}: {bullet.text}")
            found = [b for b in found if not same_conflict(b, bullet)]
            continue
        kept.append(bullet)
    return _once(kept + found), items


def _once(conflicts: list[Bullet]) -> list[Bullet]:
    """Each conflict once, the first (earliest flagged) wording kept."""
    out: list[Bullet] = []
    for bullet in conflicts:
        if not any(same_conflict(bullet, b) for b in out):
            out.append(bullet)
    return out
