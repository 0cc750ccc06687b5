"""Processing a review's findings: accept, or reject with a note.

Works on the files ``artifacts.write_iteration`` wrote, never on the log: it takes the latest
iteration's ``vN/findings-vN.jsonl``, records each decision there and in the '## Finding
Dispositions' section of ``vN/summary-vN.md`` and ``summary.md`` (under the topic's lock), and turns
every rejection note into a calibration rule in ``calibration.yaml`` that the next review of the
topic puts in its prompts (``calibration_block``).

``calibration.yaml``::

    version: cal-2          # bumped each time the rules change
    updated: 2026-02-16
    rules:
      - id: cal-001
        from_finding: v1-assumption-hunter-001
        personas: [assumption-hunter, feasibility-skeptic]
        title: ...           # the rejected finding's title and section, for context
        section: ...
        evidence: ...        # its quote: the offline reviewer holds the finding back while the text is unchanged
        note: ...            # why the author rejected it
        date: 2026-02-16
        iteration: 1
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date as date_type
from pathlib import Path
from typing import Any, Literal

import yaml

from review_harness.core.files import locked
from review_harness.core.yamlio import YamlReadError, read_yaml
from review_harness.design.artifacts import (
    SUMMARY_FILE,
    ArtifactError,
    findings_path,
    latest_iteration,
    read_findings,
    read_run,
    summary_path,
    write_jsonl,
    write_text,
)
from review_harness.design.models import SEVERITIES
from review_harness.design.render import (
    INTERACTIVE_LIMIT,
    persona_name,
    render_dispositions,
    replace_dispositions,
)

CALIBRATION_FILE = "calibration.yaml"
NO_CALIBRATION = "cal-0"
Mode = Literal["critical-first", "all"]
MODES: tuple[str, ...] = ("critical-first", "all")
_DECISIONS = {"accept": "accepted", "accepted": "accepted", "reject": "rejected", "rejected": "rejected"}

Decision = tuple[str, "str | None"]  # ("accepted" | "rejected", note)
Ask = Callable[[dict], "tuple[str, str | None] | None"]


class TriageError(ValueError):
    """The folder, a decision or the commit cannot be processed; the message says which."""


class StopTriage(Exception):
    """Raised by an ``ask`` callable to stop walking; decisions made so far are kept."""


@dataclass
class TriageResult:
    topic_dir: Path
    iteration: int
    mode: str
    total: int
    walked: list[str] = field(default_factory=list)
    decided: dict[str, Decision] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    interactive_skipped: bool = False
    calibration_version: str = NO_CALIBRATION
    rules_changed: bool = False
    committed: str | None = None
    messages: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> list[str]:
        return [fid for fid, (d, _) in self.decided.items() if d == "accepted"]

    @property
    def rejected(self) -> list[str]:
        return [fid for fid, (d, _) in self.decided.items() if d == "rejected"]


# ---------------------------------------------------------------------------- decisions


def normalize_decision(finding_id: str, value: Any) -> Decision:
    """(disposition, note) from {decision: accept|reject, note: ...}; a rejection needs a note."""
    if isinstance(value, str):
        value = {"decision": value}
    elif isinstance(value, tuple) and len(value) == 2:  # already normalized (load_decisions)
        value = {"decision": value[0], "note": value[1]}
    if not isinstance(value, Mapping):
        raise TriageError(f"entry {finding_id!r}: expected a mapping with 'decision' and 'note'")
    unknown = set(value) - {"decision", "note"}
    if unknown:
        raise TriageError(f"entry {finding_id!r}: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    decision = _DECISIONS.get(str(value.get("decision", "")).strip().lower())
    if decision is None:
        raise TriageError(f"entry {finding_id!r}: decision must be accept or reject, not {value.get('decision')!r}")
    note = value.get("note")
    if note is not None and not isinstance(note, str):
        raise TriageError(f"entry {finding_id!r}: note must be text")
    note = (note or "").strip() or None
    if decision == "rejected" and not note:
        raise TriageError(f"entry {finding_id!r}: a rejection needs a note saying why")
    return decision, note


def load_decisions(path: str | Path) -> dict[str, Decision]:
    """A YAML or JSON file mapping finding id -> {decision: accept|reject, note: ...}."""
    path = Path(path)
    try:
        data = read_yaml(path)  # the core's one reader: a FIFO, binary data or deep nesting is one line
    except YamlReadError as ex:
        where = f" at line {ex.line}" if ex.line else ""
        raise TriageError(f"decisions file {path}: not YAML or JSON{where}" if ex.syntax
                          else f"decisions file {path}: {ex.problem}") from None
    if not isinstance(data, Mapping) or not data:
        raise TriageError(f"decisions file {path}: expected a mapping of finding id -> {{decision, note}}")
    try:
        return {str(fid): normalize_decision(str(fid), value) for fid, value in data.items()}
    except TriageError as ex:
        raise TriageError(f"decisions file {path}: {ex}") from None


# ---------------------------------------------------------------------------- process


def process(
    topic_dir: str | Path,
    mode: Mode = "critical-first",
    decisions: Mapping[str, Any] | None = None,
    ask: Ask | None = None,
    *,
    commit: bool = False,
    today: str | None = None,
) -> TriageResult:
    """Record decisions for the latest iteration's findings.

    ``critical-first`` walks the Critical findings only; ``all`` walks every finding, Critical
    first. A finding's decision comes from ``decisions`` (id -> {decision, note}) or else from
    ``ask(finding) -> (decision, note)`` (None leaves it pending; raising StopTriage ends the
    walk). Above INTERACTIVE_LIMIT findings nobody is asked; a decisions file still applies.
    """
    folder = Path(topic_dir)
    if not folder.is_dir():
        raise TriageError(f"{folder}: no such review folder")
    if mode not in MODES:
        raise TriageError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    n = latest_iteration(folder)
    if n == 0:
        raise TriageError(f"{folder}: no review iteration (v*/findings-v*.jsonl) in it; export a review into it first")
    try:
        records = read_findings(folder, n)
    except ArtifactError as ex:
        raise TriageError(str(ex)) from None
    by_id = {r["id"]: r for r in records}
    given = {str(fid): normalize_decision(str(fid), v) for fid, v in (decisions or {}).items()}
    unknown = [fid for fid in given if fid not in by_id]
    if unknown:
        raise TriageError(f"decision for {unknown[0]!r}: no such finding in {findings_path(folder, n).name}")

    walk = [r for r in records if mode == "all" or r["severity"] == "Critical"]
    walk.sort(key=lambda r: SEVERITIES.index(r["severity"]) if r["severity"] in SEVERITIES else len(SEVERITIES))
    result = TriageResult(topic_dir=folder, iteration=n, mode=mode, total=len(records), walked=[r["id"] for r in walk])
    walked_ids = set(result.walked)
    result.ignored = [fid for fid in given if fid not in walked_ids]
    if result.ignored:
        result.messages.append(
            f"{len(result.ignored)} decision(s) name findings outside mode {mode} and were not applied: "
            + ", ".join(result.ignored)
        )

    asking = ask is not None
    if asking and len(records) > INTERACTIVE_LIMIT:
        asking = False
        result.interactive_skipped = True
        result.messages.append(
            f"{len(records)} findings, more than {INTERACTIVE_LIMIT}: not walking them one by one. "
            f"Process them from {findings_path(folder, n).name} and summary.md with a decisions file (--decisions FILE)."
        )

    for record in walk:
        fid = record["id"]
        if fid in given:
            result.decided[fid] = given[fid]
        elif asking and not record.get("disposition"):
            try:
                answer = ask(dict(record))
            except StopTriage:
                asking = False
                result.messages.append("stopped; the remaining findings stay pending")
                continue
            if answer is not None:
                result.decided[fid] = normalize_decision(fid, {"decision": answer[0], "note": answer[1]})
    # the walk above may wait on a person for minutes: the lock is taken only now, and the findings
    # are read again under it, so a decision another run recorded meanwhile is kept
    with locked(folder):
        if result.decided:
            try:
                records = read_findings(folder, n)
            except ArtifactError as ex:
                raise TriageError(str(ex)) from None
            by_id = {r["id"]: r for r in records}
            for fid, (disposition, note) in result.decided.items():
                by_id[fid]["disposition"] = disposition
                by_id[fid]["disposition_note"] = note
            write_jsonl(findings_path(folder, n), records)
            summaries = [summary_path(folder, n)] + ([folder / SUMMARY_FILE] if latest_iteration(folder) == n else [])
            for summary in summaries:
                text = summary.read_text(encoding="utf-8") if summary.exists() else ""
                write_text(summary, replace_dispositions(text, render_dispositions(records)) if text
                           else render_dispositions(records))
        result.calibration_version, result.rules_changed = update_calibration(folder, records, result.decided, today)
    result.pending = [fid for fid in result.walked if not by_id[fid].get("disposition")]

    if commit:
        result.committed = commit_topic(folder)
    return result


# ---------------------------------------------------------------------------- presenting and wrapping up


def _latest(folder: Path) -> tuple[int, dict, list[dict]]:
    """(iteration, its run record, its findings) of the latest complete iteration."""
    n = latest_iteration(folder)
    if n == 0:
        raise TriageError(f"{folder}: no review iteration (v*/findings-v*.jsonl) in it; export a review into it first")
    try:
        return n, read_run(folder, n), read_findings(folder, n)
    except ArtifactError as ex:
        raise TriageError(str(ex)) from None


def overview_lines(topic_dir: str | Path) -> list[str]:
    """Step 5 of the review: the verdict, the counts and the Critical findings, shown before the
    processing mode is chosen."""
    folder = Path(topic_dir)
    n, run, records = _latest(folder)
    verdict = run.get("verdict") or f"no verdict ({run.get('status', 'failed')})"
    if run.get("escalation_target"):
        verdict += f" to {run['escalation_target']}"
    counts = {s: sum(1 for r in records if r.get("severity") == s) for s in SEVERITIES}
    lines = [f"{folder.name}, iteration {n}: {verdict}",
             " · ".join(f"{s} {counts[s]}" for s in SEVERITIES) + f" · Contradictions {run.get('contradictions', 0)}"]
    critical = [r for r in records if r.get("severity") == "Critical"]
    if critical:
        lines.append("Critical findings:")
        lines += [f"  {r['id']}: {r.get('title', '')}" for r in critical]
    lines.append("Modes: critical-first (Critical findings only, the rest next pass) or all (every finding).")
    return lines


def ask_mode(read: Callable[[str], str]) -> str:
    """The processing mode, asked until the answer is one (an empty answer: critical-first)."""
    while True:
        try:
            answer = read("mode: [c]ritical-first or [a]ll? ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            raise StopTriage from None
        if answer in ("", "c", "critical", "critical-first"):
            return "critical-first"
        if answer in ("a", "all"):
            return "all"


def wrap_up_lines(topic_dir: str | Path) -> list[str]:
    """Step 7: what to do next, by the verdict; on escalate, the phase to revisit and why."""
    from review_harness.design.personas import default_personas

    folder = Path(topic_dir)
    n, run, records = _latest(folder)
    verdict, target = run.get("verdict"), run.get("escalation_target")
    if verdict == "escalate" and target:
        phase = default_personas().phases[target]
        gaps = [r for r in records if r.get("primary_phase") == target]
        why = "; ".join(f"{r['id']} {r.get('title', '')}" for r in gaps[:3])
        return [f"Escalate: revisit the {target} phase ({phase.label.lower()}): {phase.action}.",
                f"Why: {len(gaps)} finding(s) in that phase: {why}." if gaps else "Why: see the verdict reasoning in summary.md."]
    if verdict == "revise":
        return [f"Revise: fix the document and run the review again (it becomes iteration {n + 1}; commit the "
                "document first so the reviewers see what changed)."]
    if verdict == "proceed":
        return ["Proceed: the document is approved; move on to the next phase with the noted improvements."]
    return [f"No verdict ({run.get('status', 'failed')}): run the review again."]


# ---------------------------------------------------------------------------- calibration


def read_calibration(topic_dir: str | Path | None) -> dict[str, Any]:
    if topic_dir is None:
        return {"version": NO_CALIBRATION, "rules": []}
    path = Path(topic_dir) / CALIBRATION_FILE
    if not path.exists():
        return {"version": NO_CALIBRATION, "rules": []}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as ex:
        raise TriageError(f"{path}: not readable YAML ({type(ex).__name__})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("rules", []), list):
        raise TriageError(f"{path}: expected 'version' and a list of 'rules'")
    return {"version": str(data.get("version") or NO_CALIBRATION), "rules": list(data.get("rules") or []),
            **{k: v for k, v in data.items() if k not in ("version", "rules")}}


def _version_number(version: str) -> int:
    m = re.fullmatch(r"cal-(\d+)", version or "")
    return int(m.group(1)) if m else 0


def update_calibration(
    folder: Path, records: list[dict], decided: Mapping[str, Decision], today: str | None = None
) -> tuple[str, bool]:
    """Add (or update) a rule per rejection, drop the rule of a finding now accepted. Returns the
    version and whether the rules changed (the version is bumped once per change)."""
    data = read_calibration(folder)
    rules: list[dict] = data["rules"]
    by_id = {r["id"]: r for r in records}
    today = today or date_type.today().isoformat()
    changed = False
    for fid, (disposition, note) in decided.items():
        existing = next((r for r in rules if r.get("from_finding") == fid), None)
        if disposition == "accepted":
            if existing is not None:
                rules.remove(existing)
                changed = True
            continue
        if existing is not None:
            if existing.get("note") != note:
                existing.update(note=note, date=today)
                changed = True
            continue
        record = by_id[fid]
        numbers = [int(m.group(1)) for r in rules if (m := re.fullmatch(r"cal-(\d+)", str(r.get("id", ""))))]
        numbers.append(int(data.get("last_rule", 0) or 0))
        rules.append({
            "id": f"cal-{max(numbers) + 1:03d}",
            "from_finding": fid,
            "personas": list(record.get("reviewers") or []),
            "title": record.get("title", ""),
            "section": record.get("section", ""),
            "evidence": record.get("evidence") or None,
            "note": note,
            "date": today,
            "iteration": record.get("iteration"),
        })
        data["last_rule"] = max(numbers) + 1
        changed = True
    if not changed:
        return data["version"], False
    version = f"cal-{_version_number(data['version']) + 1}"
    out = {"version": version, "updated": today, "last_rule": data.get("last_rule", 0), "rules": rules}
    write_text(folder / CALIBRATION_FILE, yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=100))
    return version, True


def _flat(text: Any) -> str:
    """A rule's value on one line (a rule is one line of the prompt's calibration block)."""
    return " ".join(str(text or "").split())


def calibration_block(topic_dir: str | Path | None, persona: str | None = None) -> tuple[str, str]:
    """(text for the prompt's calibration block, version). ("", "cal-0") when there are no rules.
    With ``persona``, only the rules from findings that persona raised."""
    data = read_calibration(topic_dir)
    rules = [r for r in data["rules"] if persona is None or persona in (r.get("personas") or [])]
    if not data["rules"]:
        return "", NO_CALIBRATION
    if not rules:
        return "", data["version"]
    lines = [
        "Calibration from earlier reviews of this document. The author rejected each finding below and "
        "wrote why. Do not report the same point again unless the document has changed so that the "
        "author's note no longer holds; report related but different problems as usual.",
    ]
    for rule in rules:
        who = ", ".join(persona_name(p) for p in rule.get("personas") or []) or "a reviewer"
        where = f" [{_flat(rule['section'])}]" if rule.get("section") else ""
        quote = f"; quoting \"{_flat(rule['evidence'])}\"" if rule.get("evidence") else ""
        lines.append(f"- {rule.get('id')}: \"{_flat(rule.get('title', ''))}\"{where}, raised by {who}{quote}. "
                     f"Author's note: {_flat(rule.get('note', ''))}")
    return "\n".join(lines), data["version"]


# ---------------------------------------------------------------------------- git


def git_root(path: str | Path) -> Path | None:
    """The work tree that holds ``path`` (found by its .git entry, without running git)."""
    path = Path(path).resolve()
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder
    return None


def commit_message(folder: Path) -> str:
    n = latest_iteration(folder)
    records = read_findings(folder, n) if n else []
    verdict = None
    if n:
        try:
            run = read_run(folder, n)
            verdict = run.get("verdict") or run.get("status")
        except ArtifactError:
            verdict = None
    if verdict is None:
        summary = folder / SUMMARY_FILE
        text = summary.read_text(encoding="utf-8") if summary.exists() else ""
        m = re.search(r"^\*\*Verdict:\*\* (\S+)", text, re.M)
        verdict = m.group(1) if m else "none"
    return f"parallax:review — {folder.name} — {verdict} ({len(records)} findings)"


def commit_topic(folder: str | Path) -> str | None:
    """Commit the topic folder alone (other staged changes stay staged). Returns the message, or
    None when nothing changed. Refuses, without running git, when no repository holds the folder."""
    folder = Path(folder).resolve()
    root = git_root(folder)
    if root is None:
        raise TriageError(f"{folder}: not inside a git repository; nothing committed")
    if shutil.which("git") is None:
        raise TriageError("git is not installed; nothing committed")
    rel = str(folder.relative_to(root)) or "."
    message = commit_message(folder)

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)

    done = git("add", "-A", "--", rel)
    if done.returncode != 0:
        raise TriageError(f"git add failed: {_last_line(done)}")
    if git("diff", "--cached", "--quiet", "--", rel).returncode == 0:
        return None
    done = git("commit", "--quiet", "-m", message, "--", rel)
    if done.returncode != 0:
        raise TriageError(f"git commit failed: {_last_line(done)}")
    return message


def _last_line(done: subprocess.CompletedProcess) -> str:
    lines = [line for line in (done.stderr or done.stdout or "").splitlines() if line.strip()]
    return lines[-1].strip() if lines else f"exit status {done.returncode}"
