"""Review memory per service and reviewer kind, in the seed's layout:

    <memory root>/project-orchestrator-{spec|quality}-reviewer/
        MEMORY.md                    index: review count, key learnings, cross-review patterns, recent reviews
        reviews/{date}-task-{N}.md   one file per review (a second review of a task that day: ...-2.md)
        service-patterns/{service}.md
            ## Common Issues            | Pattern | Frequency | Last Seen | Severity | Example |
            ## Service-Specific Rules   written by people; never touched by updates
            ## False Positives to Avoid | Pattern | Why It's Not an Issue | Category | File | Code |
            ## Archive                  patterns not seen for 30 days

At review start the service file is read once (`read_memory`): into the prompt (known issues first,
the dismissals with their places), and as entries the review weighs each finding against
(`recall`, applied by the merge): a dismissal applies at its place; memory can lower a finding to
Minor but never removes one, never touches a Critical or security finding at a new place, and never
approves a change by itself. After the review memory is updated once from every round of it (the
first review and each re-review after a fix: a pattern counts once per review). Only findings a
human dismissed by id become false positives, with their category, file and code; a human approval
alone dismisses nothing. Updates hold a lock and
write atomically; review notes take a name no other review has, so reviews running at once
never overwrite each other. Files get the user's umask.

Where memory lives (`-T memory=off|read|update`): `-T memory_dir=DIR`, else
`<repo>/.claude/agent-memory` for a repository run; a patch run has no repository, so it keeps no
memory unless `-T memory_dir` names one (`memory=update` without it is an error). Evals read a
per-sample copy of the case's seeded memory. The review records where memory was read and written
(`memory.root`, `memory.updated`) and says it in the report; a write that fails is named there
too, and the review is kept.
"""

from __future__ import annotations

import datetime
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rapidfuzz import fuzz, process

from review_harness.code.merge import Recalled
from review_harness.code.models import DECISION_WORDS, CodeFinding, Severity
from review_harness.core.files import file_lock, write_atomic, write_new

# the sample store keys of the memory as read when a review started, and as the review used it
MEMORY_KEY = "code:memory"
MEMORY_READ_KEY = "code:memory-read"
MEMORY_MODES = ("off", "read", "update", "write")  # write: another name of update
PRUNE_DAYS = 30
KINDS = {"spec": "spec-reviewer", "quality": "quality-reviewer"}
ISSUE_HEADER = ("Pattern", "Frequency", "Last Seen", "Severity", "Example")
FP_HEADER = ("Pattern", "Why It's Not an Issue", "Category", "File", "Code")
PATTERN_MATCH = 88
RULES_PLACEHOLDER = "<!-- Rules every review of this service checks: written by people, never changed by reviews. -->"


@dataclass
class PatternRow:
    pattern: str
    frequency: int
    last_seen: str
    severity: str
    example: str


@dataclass
class FalsePositive:
    """A finding the team dismissed, with what identifies it: the pattern (the finding's first
    clause), why, and where -- its category, file and the code it was about. An entry without a
    place (written by hand, or by an older version) is a pattern of the whole service."""

    pattern: str
    why: str = ""
    category: str = ""
    file: str = ""
    code: str = ""

    @property
    def placed(self) -> bool:
        return bool(self.file)

    def same(self, other: FalsePositive) -> bool:
        return (self.file, normal_code(self.code), self.category) == (other.file, normal_code(other.code), other.category) \
            and is_known(self.pattern, [other.pattern])

    def where(self) -> str:
        return f"{self.file}: `{self.code}`" if self.code else self.file or "anywhere in the service"


@dataclass
class ServicePatterns:
    service: str
    issues: list[PatternRow] = field(default_factory=list)
    rules: str = ""
    false_positives: list[FalsePositive] = field(default_factory=list)
    archive: list[PatternRow] = field(default_factory=list)


def kind_dir(root: Path, stage: str) -> Path:
    return root / f"project-orchestrator-{KINDS[stage]}"


def pattern_of(description: str) -> str:
    """The reusable pattern of a finding: its first clause, without file-specific names."""
    head = re.split(r"[:.;]\s", description.strip(), maxsplit=1)[0]
    return head.strip().rstrip(".")[:90]


def _cells(line: str) -> list[str]:
    """A table row's cells ('\\|' is a pipe inside a cell)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def normal_code(text: str | None) -> str:
    """Code as memory compares it: whitespace runs as one space, no ends."""
    return " ".join((text or "").split())


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
    found.rules = "\n".join(line for line in sections.get("service-specific rules", "").splitlines()
                            if not _placeholder(line)).strip("\n")
    found.false_positives = [FalsePositive(*(r + [""] * 5)[:5]) for r in _rows(sections.get("false positives to avoid", ""))]
    found.archive = _issue_rows(sections.get("archive", ""))
    return found


def _placeholder(line: str) -> bool:
    """A line that holds no rule: an HTML comment, or the '(none yet)' older files carry."""
    text = line.strip().lstrip("-*").strip()
    return (text.startswith("<!--") and text.endswith("-->")) or text.lower() in ("(none yet)", "none yet")


def _table(header: tuple[str, ...], rows: list[tuple]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |" for row in rows]


def render_patterns(p: ServicePatterns) -> str:
    def issue(r: PatternRow) -> tuple:
        return (r.pattern, r.frequency, r.last_seen, r.severity, r.example)

    lines = [f"# {p.service} Review Patterns", "", "## Common Issues", ""]
    lines += _table(ISSUE_HEADER, [issue(r) for r in p.issues])
    lines += ["", "## Service-Specific Rules", "", p.rules or RULES_PLACEHOLDER, "", "## False Positives to Avoid", ""]
    lines += _table(FP_HEADER, [(f.pattern, f.why, f.category, f.file, f.code) for f in p.false_positives])
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
    the findings dismissed before and where. Memory informs: the reviewer still reports what it
    sees, and the review weighs each finding against memory at its place."""
    if patterns is None:
        return ""
    lines = [f"Memory of earlier reviews of service {patterns.service}. Look for the known issues first. Report every "
             "issue you find, also one like a dismissed finding below: the review itself weighs memory at each "
             "finding's place, and a new place is a new finding."]
    lines += ["", "Known issues:"] + ([f"- {r.pattern} (seen {r.frequency}x, last {r.last_seen}, {r.severity})"
                                       for r in sorted(patterns.issues, key=lambda r: -r.frequency)] or ["- none"])
    if patterns.rules:
        lines += ["", "Service rules:", patterns.rules]
    lines += ["", "Dismissed before (false positives):"] + [f"- {f.pattern} -- at {f.where()} -- {f.why}"
                                                          for f in patterns.false_positives]
    return "\n".join(lines)


def is_known(pattern: str, known: list[str]) -> bool:
    return known_index(pattern, known) is not None


def known_index(pattern: str, known: list[str]) -> int | None:
    """The position of the first known pattern that is the same pattern (case and small wording
    differences aside), None when there is none."""
    lowered = pattern.lower()
    for n, k in enumerate(known):
        if k.lower() == lowered:
            return n
    hit = process.extractOne(lowered, [k.lower() for k in known], scorer=fuzz.ratio, score_cutoff=PATTERN_MATCH)
    return None if hit is None else hit[2]


# ---------------------------------------------------------------------------- updates


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
    """(pattern, severity, example) of each finding of one review: increment or add, then prune."""
    for pattern, severity, example in findings:
        rows = p.issues + p.archive
        found = known_index(pattern, [r.pattern for r in rows])
        if found is None:
            p.issues.append(PatternRow(pattern, 1, today.isoformat(), severity, example))
            continue
        row = rows[found]
        if row in p.archive:
            p.archive.remove(row)
            p.issues.append(row)
        row.frequency += 1
        row.last_seen, row.example = today.isoformat(), example
    prune(p, today)


def record_false_positives(p: ServicePatterns, entries: list[FalsePositive]) -> None:
    """Add the dismissed findings (each once per pattern and place). A dismissal is about one
    place: the pattern stays a known issue everywhere else."""
    for entry in entries:
        if not any(entry.same(known) for known in p.false_positives):
            p.false_positives.append(entry)


def update_service(root: Path, stage: str, service: str, *, findings: list[tuple[str, str, str]] = (),
                   false_positives: list[FalsePositive] = (), review_note: str | None = None, slug: str = "review",
                   today: Callable[[], datetime.date] = datetime.date.today) -> list[Path]:
    """Apply one review's outcome to a reviewer kind's memory (under a lock); the files written."""
    now = today()
    folder = kind_dir(root, stage)
    path = folder / "service-patterns" / f"{service}.md"
    with file_lock(folder / ".lock"):
        patterns = read_patterns(root, stage, service) or ServicePatterns(service=service)
        record_findings(patterns, list(findings), now)
        record_false_positives(patterns, list(false_positives))
        written = [write_atomic(path, render_patterns(patterns))]
        if review_note is not None:
            written.append(write_new(folder / "reviews", f"{now.isoformat()}-{slug}", ".md", review_note))
        written.append(write_atomic(folder / "MEMORY.md", render_index(folder, stage)))
    return written


def render_index(folder: Path, stage: str) -> str:
    """MEMORY.md: how many reviews, the key learnings (the most frequent patterns and the false
    positives learned), the patterns seen across services, the latest reviews."""
    notes = sorted((folder / "reviews").glob("*.md"), key=lambda n: (n.stat().st_mtime_ns, n.name)) if (folder / "reviews").is_dir() else []
    services = {p.stem: parse_patterns(p.read_text(encoding="utf-8", errors="replace"), p.stem)
                for p in sorted((folder / "service-patterns").glob("*.md"))}
    rows = sorted(((r, name) for name, p in services.items() for r in p.issues), key=lambda t: (-t[0].frequency, t[0].pattern))
    lines = [f"# {KINDS[stage]} memory", "", f"Reviews: {len(notes)}",
             f"Services: {', '.join(services) or '-'}", "", "## Key learnings", ""]
    lines += [f"- {r.pattern} ({name}: seen {r.frequency}x, last {r.last_seen}, {r.severity})" for r, name in rows[:8]]
    fps = [(fp.pattern + (f" at {fp.where()}" if fp.placed else ""), fp.why, name)
           for name, p in services.items() for fp in p.false_positives]
    lines += [f"- not an issue in {name}: {fp} ({why})" for fp, why, name in fps[:8]]
    if not rows and not fps:
        lines.append("- none yet")
    lines += ["", "## Cross-review patterns", ""]
    shared: dict[str, list[str]] = {}
    for r, name in rows:
        key = next((k for k in shared if is_known(r.pattern, [k])), r.pattern)
        shared.setdefault(key, []).append(f"{name} {r.frequency}x")
    recurring = [(k, where) for k, where in shared.items()
                 if len(where) > 1 or int(where[0].rsplit(" ", 1)[1].rstrip("x")) > 1]
    lines += [f"- {k}: {', '.join(where)}" for k, where in recurring] or ["- none yet (a pattern seen in two reviews shows here)"]
    lines += ["", "## Recent reviews", ""] + [f"- {n.stem}" for n in notes[-10:]] + [""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the solvers' side


def memory_root(metadata: dict) -> Path | None:
    """Where this sample's memory lives: evals copy the case's seeded memory per sample (so
    samples stay independent); user runs use -T memory_dir, else the repository's
    .claude/agent-memory; a patch run without -T memory_dir keeps none."""
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
    if metadata.get("repo_root"):
        return default_memory_dir(metadata["repo_root"])
    return None


def default_memory_dir(repo_root: str | Path) -> Path:
    return Path(repo_root) / ".claude" / "agent-memory"


def release_copy(metadata: dict) -> None:
    """Remove a sample's read-only memory copy once its review is done (an updated copy stays:
    the log names the files it wrote)."""
    copy = metadata.get("memory_copy")
    if copy and metadata.get("memory_mode") == "read":
        shutil.rmtree(copy, ignore_errors=True)
        metadata.pop("memory_copy", None)


def read_memory(metadata: dict) -> dict:
    """What the reviewers' memory holds for this review, read once when it starts: per stage the
    prompt block and the dismissed findings as entries with ids (`quality#fp2`: the second row of
    the quality reviewer's False Positives table of this service)."""
    root = memory_root(metadata)
    out: dict = {}
    if root is None:
        return out
    for stage in STAGES_OF_MEMORY:
        patterns = read_patterns(root, stage, metadata["service"])
        if patterns is None:
            continue
        entries = [{"id": f"{stage}#fp{n}", "service": patterns.service, **asdict(fp)}
                   for n, fp in enumerate(patterns.false_positives, 1)]
        out[stage] = {"block": prompt_block(patterns), "entries": entries, "issues": len(patterns.issues)}
    return out


def recall(entries: list[dict]) -> Callable[[CodeFinding], Recalled | None] | None:
    """How memory weighs one finding of a stage (see `merge_stage`): a dismissal at the same place
    (file, the code quoted, and the same category or pattern) lowers it to Minor; a pattern dismissed
    without a place (service-wide, as people write them) lowers a finding of that pattern, unless the
    finding is Critical or about security: those are judged where they are, never by a pattern
    dismissed elsewhere."""
    if not entries:
        return None
    placed = [e for e in entries if e.get("file")]
    general = [e for e in entries if not e.get("file")]

    def weigh(finding: CodeFinding) -> Recalled | None:
        pattern = pattern_of(finding.description)
        code = normal_code(finding.quote)
        for e in placed:
            same_kind = e.get("category") == finding.category or is_known(pattern, [e["pattern"]])
            if e["file"] == finding.file and code and normal_code(e.get("code")) == code and same_kind:
                return Recalled(e["id"], True, f"memory {e['id']}: dismissed before at this place ({e.get('why') or 'no reason given'})")
        protected = finding.severity == Severity.CRITICAL or finding.category == "security"
        for e in general + placed:
            if (e.get("category") and e["category"] != finding.category) or not is_known(pattern, [e["pattern"]]):
                continue
            where = f"at {e['file']}" if e.get("file") else "without a place"
            if protected or e.get("file"):
                return Recalled(e["id"], False, f"memory {e['id']}: a finding like this was dismissed {where}; not applied "
                                                "here (a new place" + (", and a Critical or security finding" if protected else "") + ")")
            return Recalled(e["id"], True, f"memory {e['id']}: this pattern is a known false positive in the service "
                                           f"({e.get('why') or 'no reason given'})")
        return None

    return weigh


def memory_for_prompt(state, stage: str) -> str:
    """The memory block of a reviewer's prompt: as read when the review started."""
    read = state.store.get(MEMORY_READ_KEY)
    if read is None:
        read = read_memory(state.metadata)
    return (read.get(stage) or {}).get("block", "")


def false_positive_of(m, why: str) -> FalsePositive:
    """The memory entry of a dismissed finding: its pattern and where it is."""
    f = m.finding
    return FalsePositive(pattern_of(f.description), why, f.category, f.file, normal_code(f.quote))


def review_learnings(review, stage: str) -> tuple[list[tuple[str, str, str]], list[FalsePositive]]:
    """What one review teaches a reviewer kind: (pattern, severity, example) of every finding of
    the stage in any round that counted (a pattern once per review; contradictions and discarded
    speculative results left out), and an entry for each finding a human dismissed by id, with
    its place."""
    findings: dict[str, tuple[str, str, str]] = {}
    dismissed: list[FalsePositive] = []
    why = f"dismissed by a human in the review of task {review.task}"
    for it in review.iterations:
        ids = set(it.all_dismissed)
        for merged in it.reviewed():
            if merged.stage != stage or merged.discarded:
                continue
            for m in merged.findings:
                if m.id in ids:
                    entry = false_positive_of(m, why)
                    if not any(entry.same(known) for known in dismissed):
                        dismissed.append(entry)
                elif m.category != "contradiction" and not m.memory:
                    pattern = pattern_of(m.finding.description)
                    severity = (m.severity_before or m.finding.severity).value
                    findings.setdefault(pattern, (pattern, severity, m.finding.where))
    return list(findings.values()), dismissed


def review_note(review, stage: str) -> str:
    """The per-review file: the task, each round's decision and findings (with ids), the human's
    answers, the fixes and the final status."""
    lines = [f"# Task {review.task}: {review.title}", "", f"Service: {review.service}",
             f"Final status: {review.final_status}; fix iterations {review.fix_iterations}", ""]
    fixes = {f.reviewed_in: f for f in review.fixes}
    for it in review.iterations:
        heading = "First review" if it.iteration == 0 else f"Re-review after fix {it.iteration}"
        lines += [f"## {heading}", "", f"Decision: {DECISION_WORDS[it.decision]}" + (f"; human: {it.human_decision}" if it.human_decision else "")]
        if it.after_approval:
            lines.append(f"Spec approved by a human; quality decision: {DECISION_WORDS[it.after_approval.decision]}"
                         + (f"; human: {it.after_approval.human_decision}" if it.after_approval.human_decision else ""))
        if it.all_dismissed:
            lines.append(f"Dismissed: {', '.join(it.all_dismissed)}")
        for merged in it.stages():
            if merged.stage == stage:
                lines += [f"- {m.id} {m.category}: {m.finding.where} {m.finding.description}"
                          + (" (discarded)" if merged.discarded else "") for m in merged.findings]
        fix = fixes.get(it.iteration)
        if fix is not None:
            lines.append(f"Fixed by attempt {fix.attempt} ({fix.implementer}): {', '.join(fix.applied) or 'no file'}")
        lines.append("")
    return "\n".join(lines)


def update_memory_after_review(state, review) -> str | None:
    """Once per review, from all its rounds: counted findings become patterns, findings a human
    dismissed become false positives. Returns a warning when memory could not be written (the
    review itself is kept: it is in the log)."""
    meta = state.metadata
    used: dict = {"mode": meta.get("memory_mode", "off")}
    root = memory_root(meta)
    used["root"] = str(root) if root is not None else None
    warning = None
    if root is not None and meta.get("memory_mode") == "update" and review.iterations:
        updated: list[str] = []
        try:
            for stage in STAGES_OF_MEMORY:
                findings, dismissed = review_learnings(review, stage)
                written = update_service(root, stage, review.service, findings=findings, false_positives=dismissed,
                                         review_note=review_note(review, stage), slug=f"task-{review.task}")
                updated += [str(p) for p in written]
        except OSError as ex:
            where = ex.filename or root
            warning = f"memory not updated: could not write {where} ({ex.strerror or ex})"
            used["error"] = warning
        used["updated"] = updated
    state.store.set(MEMORY_KEY, used)
    release_copy(meta)
    return warning


STAGES_OF_MEMORY = ("spec", "quality")
