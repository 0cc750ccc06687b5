"""Digest files: one markdown file per domain, parsed and written here.

    # search-ranking domain digest
    # Version: 2026-02-15T09:00:00Z
    # Previous: 2026-02-08T09:00:00Z

    ## Foundational Knowledge [authority: authoritative] (monthly refresh)
    ### Known Pitfalls
    - Position bias in click data ... (source: 12347)

    ## Workstream Learnings [authority: advisory] (weekly refresh)
    ### Recent Experiment Learnings
    - [2026-02-10] Embedding retrieval A/B: p99 latency regressed 40ms ...

    ## Conflicts
    - [2026-02-08] CONFLICT: Foundational says ... -> Workstream takes precedence.

A tier section's title says its tier ("Foundational ..." or "Workstream ..."), its tag says its
authority; a bullet may start with a [YYYY-MM-DD] date and continue on indented lines.
`render_digest(parse_digest(text)) == text` for a digest this module wrote.
"""

from __future__ import annotations

import re
import datetime as dt
from datetime import datetime, timezone
from typing import Literal

from pydantic import BaseModel

from review_harness.core.tokens import estimate_tokens

Authority = Literal["authoritative", "advisory"]
TierName = Literal["foundational", "workstream"]

TITLE_RE = re.compile(r"^# (?P<domain>\S+) domain digest\s*$")
HEADER_RE = re.compile(r"^# (?P<key>Version|Previous):\s*(?P<value>\S+)\s*$")
SECTION_RE = re.compile(
    r"^## (?P<title>.+?) \[authority: (?P<authority>authoritative|advisory)\]"
    r"(?: \((?P<cadence>\w+) refresh\))?\s*$"
)
DATED_RE = re.compile(r"^\[(?P<date>\d{4}-\d{2}-\d{2})\]\s+(?P<text>.+)$", re.DOTALL)
CONFLICTS_TITLE = "Conflicts"
VERSION_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class DigestError(ValueError):
    """A digest file that cannot be read as a digest (one line, naming the line)."""


class Bullet(BaseModel):
    text: str
    date: dt.date | None = None

    def render(self) -> str:
        body = f"[{self.date.isoformat()}] {self.text}" if self.date else self.text
        lines = body.split("\n")
        return "\n".join([f"- {lines[0]}"] + [f"  {line}" for line in lines[1:]])


class Subsection(BaseModel):
    title: str
    bullets: list[Bullet] = []


class TierSection(BaseModel):
    title: str
    authority: Authority
    cadence: str | None = None
    subsections: list[Subsection] = []

    @property
    def tier(self) -> TierName:
        return "foundational" if self.title.lower().startswith("foundational") else "workstream"

    def heading(self) -> str:
        cadence = f" ({self.cadence} refresh)" if self.cadence else ""
        return f"## {self.title} [authority: {self.authority}]{cadence}"


class Digest(BaseModel):
    domain: str
    version: str
    previous: str | None = None
    sections: list[TierSection] = []
    conflicts: list[Bullet] = []

    @property
    def version_time(self) -> datetime:
        return parse_version(self.version)

    def bullets(self) -> list[Bullet]:
        return [b for s in self.sections for sub in s.subsections for b in sub.bullets]

    @property
    def is_empty(self) -> bool:
        return not self.bullets()

    @property
    def tokens(self) -> int:
        return estimate_tokens(render_digest(self))

    def section(self, title: str) -> TierSection | None:
        return next((s for s in self.sections if s.title == title), None)


def parse_version(text: str) -> datetime:
    try:
        return datetime.strptime(text, VERSION_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError:
        raise DigestError(f"version '{text}' is not a timestamp like 2026-02-15T09:00:00Z") from None


def format_version(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(VERSION_FORMAT)


def _bullet(raw: str, where: str) -> Bullet:
    match = DATED_RE.match(raw)
    if not match:
        return Bullet(text=raw)
    try:
        return Bullet(text=match.group("text"), date=dt.date.fromisoformat(match.group("date")))
    except ValueError:
        raise DigestError(f"{where}: bad date [{match.group('date')}]") from None


def parse_digest(text: str, source: str = "digest") -> Digest:
    """Read a digest file. Any line that fits nowhere is an error naming it: a corrupt digest
    must be noticed (the store then serves an older version), not half-read."""
    domain = version = previous = None
    sections: list[TierSection] = []
    conflicts: list[Bullet] = []
    in_conflicts = False
    pending: list[str] | None = None  # lines of the bullet being read
    pending_where = ""

    def flush() -> None:
        nonlocal pending
        if pending is None:
            return
        bullet = _bullet("\n".join(pending), pending_where)
        if in_conflicts:
            conflicts.append(bullet)
        else:
            sections[-1].subsections[-1].bullets.append(bullet)
        pending = None

    for n, line in enumerate(text.splitlines(), 1):
        where = f"{source} line {n}"
        if pending is not None and line.startswith("  ") and line.strip():
            pending.append(line[2:])
            continue
        flush()
        if not line.strip():
            continue
        if domain is None:
            match = TITLE_RE.match(line)
            if not match:
                raise DigestError(f"{where}: expected '# <domain> domain digest' first")
            domain = match.group("domain")
            continue
        header = HEADER_RE.match(line)
        if header and not sections and not in_conflicts:
            if header.group("key") == "Version":
                version = header.group("value")
            else:
                previous = None if header.group("value") == "none" else header.group("value")
            continue
        if line.startswith("## "):
            if line.strip() == f"## {CONFLICTS_TITLE}":
                in_conflicts = True
                continue
            match = SECTION_RE.match(line)
            if not match or in_conflicts:
                raise DigestError(f"{where}: a section heading needs '[authority: authoritative|advisory]'")
            sections.append(TierSection(title=match.group("title"), authority=match.group("authority"),
                                        cadence=match.group("cadence")))
            continue
        if line.startswith("### "):
            if not sections or in_conflicts:
                raise DigestError(f"{where}: a '###' subsection outside a tier section")
            sections[-1].subsections.append(Subsection(title=line[4:].strip()))
            continue
        if line.startswith("- "):
            if not in_conflicts and (not sections or not sections[-1].subsections):
                raise DigestError(f"{where}: a bullet outside a '###' subsection")
            pending, pending_where = [line[2:]], where
            continue
        raise DigestError(f"{where}: unexpected line {line[:60]!r}")
    flush()
    if domain is None:
        raise DigestError(f"{source}: empty file")
    if version is None:
        raise DigestError(f"{source}: no '# Version:' header")
    parse_version(version)
    return Digest(domain=domain, version=version, previous=previous, sections=sections, conflicts=conflicts)


def render_digest(digest: Digest) -> str:
    lines = [f"# {digest.domain} domain digest", f"# Version: {digest.version}",
             f"# Previous: {digest.previous or 'none'}", ""]
    for section in digest.sections:
        lines.append(section.heading())
        for sub in section.subsections:
            lines.append(f"### {sub.title}")
            lines += [b.render() for b in sub.bullets]
        lines.append("")
    if digest.conflicts:
        lines.append(f"## {CONFLICTS_TITLE}")
        lines += [b.render() for b in digest.conflicts]
        lines.append("")
    return "\n".join(lines)
