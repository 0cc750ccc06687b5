"""Review memory per service and reviewer kind, in the seed's layout:

    <memory root>/project-orchestrator-{spec|quality}-reviewer/
        MEMORY.md                    index: review count, recent reviews, key learnings
        reviews/{date}-{slug}.md     one file per review
        service-patterns/{service}.md
            ## Common Issues            | Pattern | Frequency | Last Seen | Severity | Example |
            ## Service-Specific Rules   written by people; never touched by updates
            ## False Positives to Avoid | Pattern | Why It's Not an Issue |
            ## Archive                  patterns not seen for 30 days

At review start the service file is read into the prompt (known issues first, known false
positives to avoid); after the review it is updated once from the merged result. Updates hold a
file lock and write atomically, so samples running concurrently do not lose each other's rows.
`-T memory=off|read|update`; evals read a per-sample copy of the case's seeded memory.
"""

from __future__ import annotations

import datetime
import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz import fuzz

MEMORY_MODES = ("off", "read", "update")
PRUNE_DAYS = 30
KINDS = {"spec": "spec-reviewer", "quality": "quality-reviewer"}
ISSUE_HEADER = ("Pattern", "Frequency", "Last Seen", "Severity", "Example")
FP_HEADER = ("Pattern", "Why It's Not an Issue")
PATTERN_MATCH = 88


@dataclass
class PatternRow:
    pattern: str
    frequency: int
    last_seen: str
    severity: str
    example: str


@dataclass
class ServicePatterns:
    service: str
    issues: list[PatternRow] = field(default_factory=list)
    rules: str = ""
    false_positives: list[tuple[str, str]] = field(default_factory=list)
    archive: list[PatternRow] = field(default_factory=list)


def kind_dir(root: Path, stage: str) -> Path:
    return root / f"project-orchestrator-{KINDS[stage]}"


def pattern_of(description: str) -> str:
    """The reusable pattern of a finding: its first clause, without file-specific names."""
    head = re.split(r"[:.;]\s", description.strip(), maxsplit=1)[0]
    return head.strip().rstrip(".")[:90]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _rows(block: str) -> list[list[str]]:
    rows = [_cells(l) for l in block.splitlines() if l.strip().startswith("|")]
    return [r for r in rows[2:] if any(r)] if len(rows) >= 2 else []


def _issue_rows(block: str) -> list[PatternRow]:
    out = []
    for cells in _rows(block):
        cells += [""] * (5 - len(cells))
        try:
            frequency = int(cells[1] or 0)
        except ValueError:
            frequency = 1
        out.append(PatternRow(cells[0], frequency, cells[2], cells[3], cells[4]))
    return out


def parse_patterns(text: str, service: str) -> ServicePatterns:
    sections: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip().lower()
            sections[current] = ""
        elif current is not None:
            sections[current] += line + "\n"
    found = ServicePatterns(service=service)
    found.issues = _issue_rows(sections.get("common issues", ""))
    found.rules = sections.get("service-specific rules", "").strip("\n")
    found.false_positives = [(r[0], r[1] if len(r) > 1 else "") for r in _rows(sections.get("false positives to avoid", ""))]
    found.archive = _issue_rows(sections.get("archive", ""))
    return found


def _table(header: tuple[str, ...], rows: list[tuple]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |" for row in rows]


def render_patterns(p: ServicePatterns) -> str:
    def issue(r: PatternRow) -> tuple:
        return (r.pattern, r.frequency, r.last_seen, r.severity, r.example)

    lines = [f"# {p.service} Review Patterns", "", "## Common Issues", ""]
    lines += _table(ISSUE_HEADER, [issue(r) for r in p.issues])
    lines += ["", "## Service-Specific Rules", "", p.rules or "- (none yet)", "", "## False Positives to Avoid", ""]
    lines += _table(FP_HEADER, p.false_positives)
    if p.archive:
        lines += ["", "## Archive", ""] + _table(ISSUE_HEADER, [issue(r) for r in p.archive])
    return "\n".join(lines) + "\n"


def read_patterns(root: Path, stage: str, service: str) -> ServicePatterns | None:
    path = kind_dir(root, stage) / "service-patterns" / f"{service}.md"
    if not path.is_file():
        return None
    return parse_patterns(path.read_text(encoding="utf-8", errors="replace"), service)


def prompt_block(patterns: ServicePatterns | None) -> str:
    """What the reviewer is told: known issues (most frequent first), the service's rules, and
    the false positives to avoid."""
    if patterns is None:
        return ""
    lines = [f"Memory of earlier reviews of service {patterns.service}. Look for the known issues first; do not report the known false positives."]
    lines += ["", "Known issues:"] + [f"- {r.pattern} (seen {r.frequency}x, last {r.last_seen}, {r.severity})"
                                      for r in sorted(patterns.issues, key=lambda r: -r.frequency)] or ["- none"]
    if patterns.rules:
        lines += ["", "Service rules:", patterns.rules]
    lines += ["", "Known false positives:"] + [f"- {p} -- {why}" for p, why in patterns.false_positives]
    return "\n".join(lines)


def known_false_positives(block: str) -> list[str]:
    """The false-positive patterns of a memory block (what the offline reviewer reads back)."""
    _, _, tail = block.partition("Known false positives:")
    return [line[2:].split(" -- ")[0].strip() for line in tail.splitlines() if line.startswith("- ")]


def is_known(pattern: str, known: list[str]) -> bool:
    return any(fuzz.ratio(pattern.lower(), k.lower()) >= PATTERN_MATCH for k in known)


# ---------------------------------------------------------------------------- updates


@contextmanager
def locked(root: Path):
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def prune(p: ServicePatterns, today: datetime.date) -> None:
    keep = []
    for row in p.issues:
        try:
            seen = datetime.date.fromisoformat(row.last_seen)
        except ValueError:
            keep.append(row)
            continue
        (keep if (today - seen).days <= PRUNE_DAYS else p.archive).append(row)
    p.issues = keep


def record_findings(p: ServicePatterns, findings: list[tuple[str, str, str]], today: datetime.date) -> None:
    """(pattern, severity, example) of each merged finding: increment or add, then prune."""
    for pattern, severity, example in findings:
        row = next((r for r in p.issues + p.archive if is_known(pattern, [r.pattern])), None)
        if row is None:
            p.issues.append(PatternRow(pattern, 1, today.isoformat(), severity, example))
            continue
        if row in p.archive:
            p.archive.remove(row)
            p.issues.append(row)
        row.frequency += 1
        row.last_seen, row.example = today.isoformat(), example
    prune(p, today)


def record_false_positives(p: ServicePatterns, patterns: list[tuple[str, str]]) -> None:
    for pattern, why in patterns:
        if not is_known(pattern, [fp for fp, _ in p.false_positives]):
            p.false_positives.append((pattern, why))
    p.issues = [r for r in p.issues if not is_known(r.pattern, [pattern for pattern, _ in patterns])]


def update_service(root: Path, stage: str, service: str, *, findings: list[tuple[str, str, str]] = (),
                   false_positives: list[tuple[str, str]] = (), review_note: str | None = None, slug: str = "review",
                   today: Callable[[], datetime.date] = datetime.date.today) -> Path:
    """Apply one review's outcome to a reviewer kind's memory (under a lock)."""
    now = today()
    folder = kind_dir(root, stage)
    path = folder / "service-patterns" / f"{service}.md"
    with locked(folder):
        patterns = read_patterns(root, stage, service) or ServicePatterns(service=service)
        record_findings(patterns, list(findings), now)
        record_false_positives(patterns, list(false_positives))
        write_atomic(path, render_patterns(patterns))
        if review_note is not None:
            write_atomic(folder / "reviews" / f"{now.isoformat()}-{slug}.md", review_note)
            index = folder / "MEMORY.md"
            entries = sorted((folder / "reviews").glob("*.md"))
            services = sorted(p.stem for p in (folder / "service-patterns").glob("*.md"))
            write_atomic(index, "\n".join([
                f"# {KINDS[stage]} memory", "", f"Reviews: {len(entries)}", f"Services: {', '.join(services)}", "",
                "## Recent reviews", *[f"- {e.stem}" for e in entries[-10:]], "",
            ]))
    return path


# ---------------------------------------------------------------------------- the solvers' side


def memory_root(metadata: dict) -> Path | None:
    """Where this sample's memory lives: evals copy the case's seeded memory per sample (so
    samples stay independent); user runs use -T memory_dir or .claude/agent-memory."""
    mode = metadata.get("memory_mode", "off")
    if mode == "off":
        return None
    if metadata.get("memory_copy"):
        return Path(metadata["memory_copy"])
    seed = metadata.get("memory_seed")
    if metadata.get("gold") is not None and not seed and mode == "read":
        return None  # a case without seeded memory: nothing to read
    if metadata.get("gold") is not None or seed:
        copy = Path(tempfile.mkdtemp(prefix="code-memory-"))
        if seed and Path(seed).is_dir():
            shutil.copytree(seed, copy, dirs_exist_ok=True)
        metadata["memory_copy"] = str(copy)
        return copy
    if metadata.get("memory_dir"):
        return Path(metadata["memory_dir"])
    return Path(metadata.get("repo_root") or ".") / ".claude" / "agent-memory"


def release_copy(metadata: dict) -> None:
    """Remove a sample's read-only memory copy once its review is done (an updated copy stays:
    the log names the files it wrote)."""
    copy = metadata.get("memory_copy")
    if copy and metadata.get("memory_mode") == "read":
        shutil.rmtree(copy, ignore_errors=True)
        metadata.pop("memory_copy", None)


def memory_for_prompt(state, stage: str) -> str:
    root = memory_root(state.metadata)
    if root is None:
        return ""
    return prompt_block(read_patterns(root, stage, state.metadata["service"]))


def update_memory_after_review(state, review) -> None:
    """Once per review, from the merged first review: counted findings become patterns; when a
    human approved despite findings, those patterns become false positives. Discarded quality
    results never reach memory."""
    from review_harness.code.merge import counted_stages

    meta = state.metadata
    used = {"mode": meta.get("memory_mode", "off")}
    root = memory_root(meta)
    if root is not None:
        used["root"] = str(root)
    if root is None or meta.get("memory_mode") != "update" or not review.iterations:
        state.store.set("code:memory", used)
        release_copy(meta)
        return
    first = review.first
    updated = []
    for stage in counted_stages(first.spec, first.quality):
        findings = [(pattern_of(m.finding.description), m.finding.severity.value, m.finding.where)
                    for m in stage.findings if m.category != "contradiction"]
        dismissed = []
        if first.human_decision == "approve":
            dismissed = [(pattern_of(m.finding.description), "dismissed by the lead in review of task " + review.task)
                         for m in stage.findings if m.finding.blocking]
            findings = [f for f in findings if f[0] not in {d[0] for d in dismissed}]
        note = "\n".join([f"# Task {review.task}: {review.title}", "", f"Service: {review.service}",
                          f"Decision: {first.decision}; final status {review.final_status}", ""]
                         + [f"- {m.category}: {m.finding.where} {m.finding.description}" for m in stage.findings])
        path = update_service(root, stage.stage, review.service, findings=findings, false_positives=dismissed,
                              review_note=note, slug=f"task-{review.task}")
        updated.append(str(path))
    used["updated"] = updated
    state.store.set("code:memory", used)
