"""The review folder on disk: ``<output_dir>/<topic>/``.

::

    topic.json               what the topic reviews (a document path, 'inline', or a gold case)
    summary.md               the latest iteration's summary
    runs.jsonl               one line per written iteration: verdict, status, tokens, cost, versions
    calibration.yaml         rules from rejected findings (written by triage, never here)
    v1/                      one folder per iteration N, written whole:
      summary-v1.md            its summary
      <persona-id>-v1.md       one per dispatched persona, completed or failed
      findings-v1.jsonl        one flat JSON object per synthesized finding (jq-friendly)
      patterns-v1.json         its patterns
      run-v1.json              its line of runs.jsonl
      reports-v1.json          each completed persona's report and run (a partial iteration is completed from it)
    v2/
      ...
      delta-v1-v2.json         resolved / persisting / new against the latest earlier iteration
                               that did not fail (normally N-1)

Nothing is ever half-written or overwritten by another run:

* an iteration number is claimed by creating its folder exclusively (`claim_iteration`), under
  the topic's lock, so two runs of one topic get two numbers;
* a different document under an existing topic gets its own, timestamped folder
  (``<topic>-YYYYMMDD-HHMMSS``); the earlier one is never touched;
* an iteration's files are written into a temporary folder that is renamed onto the claimed one
  when complete (`write_iteration`); runs.jsonl and summary.md change under the lock;
* files get the user's umask (core/files.py).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from review_harness.core.files import claim_folder, locked, publish_folder, temporary_folder, write_output
from review_harness.design.models import DesignFinding, DesignReview
from review_harness.design.render import (
    failure_reason,
    persona_name,
    persona_names,
    render_persona_markdown,
    render_summary,
    severity_range_text,
)

SAFE_TOPIC = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_TOPIC = 100  # a folder name, with room for the timestamp of a second document
ITERATION_DIR = re.compile(r"^v(\d+)$")
TOPIC_FILE = "topic.json"
SUMMARY_FILE = "summary.md"
RUNS_FILE = "runs.jsonl"


class ArtifactError(ValueError):
    """The folder or its files cannot be used (bad topic, unreadable file)."""


# ---------------------------------------------------------------------------- paths


def topic_problem(topic: str) -> str | None:
    """What is wrong with a topic as a folder name (None: nothing)."""
    if not SAFE_TOPIC.match(topic or ""):
        return "use letters, digits, hyphens and underscores only"
    if len(topic) > MAX_TOPIC:
        return f"{len(topic)} characters, at most {MAX_TOPIC}"
    return None


def check_topic_name(topic: str) -> str:
    """The one rule for a topic (a folder name): letters, digits, '-' and '_', at most MAX_TOPIC."""
    problem = topic_problem(topic)
    if problem:
        shown = topic if len(topic) <= 60 else topic[:60] + "..."
        raise ArtifactError(f"topic {shown!r}: {problem}")
    return topic


def topic_dir(output_dir: str | Path, topic: str) -> Path:
    return Path(output_dir) / check_topic_name(topic)


def iteration_dir(folder: Path, n: int) -> Path:
    return Path(folder) / f"v{n}"


def findings_path(folder: Path, n: int) -> Path:
    return iteration_dir(folder, n) / f"findings-v{n}.jsonl"


def patterns_path(folder: Path, n: int) -> Path:
    return iteration_dir(folder, n) / f"patterns-v{n}.json"


def summary_path(folder: Path, n: int) -> Path:
    return iteration_dir(folder, n) / f"summary-v{n}.md"


def run_path(folder: Path, n: int) -> Path:
    return iteration_dir(folder, n) / f"run-v{n}.json"


def persona_path(folder: Path, n: int, persona: str) -> Path:
    return iteration_dir(folder, n) / f"{persona}-v{n}.md"


def delta_path(folder: Path, previous: int, current: int) -> Path:
    return iteration_dir(folder, current) / f"delta-v{previous}-v{current}.json"


def claimed_iterations(folder: str | Path) -> list[int]:
    """Every iteration folder, complete or still being written, ascending."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = (ITERATION_DIR.match(p.name) for p in folder.iterdir() if p.is_dir())
    return sorted(int(m.group(1)) for m in found if m)


def iterations(folder: str | Path) -> list[int]:
    """Complete iterations (their folder holds a findings file), ascending."""
    return [n for n in claimed_iterations(folder) if findings_path(Path(folder), n).exists()]


def latest_iteration(folder: str | Path) -> int:
    """The highest complete iteration; 0 when there is none."""
    its = iterations(folder)
    return its[-1] if its else 0


# ---------------------------------------------------------------------------- reading


def write_text(path: Path, text: str) -> None:
    write_output(path, text, update=True)  # read-modify-write under the topic's lock: recorded as the tool's


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def read_jsonl(path: Path) -> list[dict]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as ex:
        raise ArtifactError(f"{path}: cannot read ({getattr(ex, 'strerror', None) or ex})") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as ex:
            raise ArtifactError(f"{path}: line {number} is not JSON ({ex.msg})") from None
        if not isinstance(record, dict):
            raise ArtifactError(f"{path}: line {number} is not a JSON object")
        records.append(record)
    return records


def read_findings(folder: Path, n: int) -> list[dict]:
    records = read_jsonl(findings_path(folder, n))
    for number, record in enumerate(records, start=1):
        if not record.get("id") or not record.get("severity"):
            raise ArtifactError(f"{findings_path(folder, n)}: finding {number} has no id or severity")
    return records


def read_patterns(folder: Path, n: int) -> list[dict]:
    path = patterns_path(folder, n)
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [{"id": str(p["id"]), "theme": str(p["theme"]), "members": [str(m) for m in p.get("members") or []]}
                for p in data["patterns"]]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as ex:
        raise ArtifactError(f"{path}: not a patterns file ({type(ex).__name__}: {ex})") from None


def read_run(folder: Path, n: int) -> dict:
    path = run_path(folder, n)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as ex:
        raise ArtifactError(f"{path}: cannot read ({type(ex).__name__})") from None
    if not isinstance(data, dict):
        raise ArtifactError(f"{path}: not a JSON object")
    return data


@dataclass
class EarlierIteration:
    """An earlier iteration, read whole before anything of the new one is written."""

    iteration: int
    findings: list[dict]
    patterns: list[dict]


def earlier_iteration(folder: Path, before: int) -> tuple[EarlierIteration | None, str | None]:
    """The latest complete iteration below `before` that did not fail, read in full; or None and
    why there is none to compare with (None: a first review, nothing to say)."""
    for n in reversed([n for n in iterations(folder) if n < before]):
        try:
            if read_run(folder, n).get("status") == "failed":
                continue
            return EarlierIteration(n, read_findings(folder, n), read_patterns(folder, n)), None
        except ArtifactError as ex:
            return None, f"Iteration {n} of this topic cannot be read ({ex}): this iteration is written without a delta."
    pending = [n for n in claimed_iterations(folder) if n < before and n not in iterations(folder)]
    if pending:
        return None, (f"Iteration {pending[-1]} of this topic was not complete when this one was compared: "
                      "no delta.")
    return None, None


# ---------------------------------------------------------------------------- claiming an iteration


@dataclass(frozen=True)
class Claim:
    """Where a review writes: its topic folder (possibly a new, timestamped one) and iteration."""

    folder: Path
    iteration: int
    note: str | None = None  # said on the console and in the review when the topic folder changed

    @property
    def topic(self) -> str:
        return self.folder.name


def _topic_document(folder: Path) -> str | None:
    """What a topic folder reviews; None when it is empty (a new topic). A folder written by
    something else than this review counts as another document's."""
    path = folder / TOPIC_FILE
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return str(data["document"])
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            return "(unreadable topic.json)"
    visible = [p for p in folder.iterdir() if not p.name.startswith(".")]
    return "(another folder's content)" if visible else None


def _own_topic_folder(output_dir: Path, topic: str, document: str, now: datetime) -> tuple[Path, str | None]:
    """The folder for `document` under `topic`: the topic's own, or a new timestamped one when
    the topic already reviews something else."""
    folder = topic_dir(output_dir, topic)
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder):
        owner = _topic_document(folder)
        if owner is None:
            write_text(folder / TOPIC_FILE, json.dumps({"topic": topic, "document": document}, indent=1) + "\n")
            return folder, None
        if owner == document:
            return folder, None
    stamp = now.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        candidate = output_dir / (f"{topic}-{stamp}" if n == 1 else f"{topic}-{stamp}-{n}")
        if claim_folder(candidate):
            write_text(candidate / TOPIC_FILE, json.dumps({"topic": candidate.name, "document": document}, indent=1) + "\n")
            return candidate, (f"topic '{topic}' in {output_dir} reviews {owner}; this review of {document} "
                               f"goes to {candidate} (the earlier folder is left as it is)")
    raise ArtifactError(f"{output_dir}: no free folder name for topic {topic}")


def claim_iteration(output_dir: str | Path, topic: str, document: str, wanted: int | None = None,
                    *, replace: bool = False, now: datetime | None = None) -> Claim:
    """Claim an iteration of `topic` for `document`: `wanted` when it is free (or, with
    `replace`, even when it exists: a re-export of the same review), else the next number after
    every claimed one. Atomic: the iteration's folder is created exclusively."""
    output_dir = Path(output_dir)
    folder, note = _own_topic_folder(output_dir, topic, document, now or datetime.now())
    with locked(folder):
        if wanted is not None and (replace or claim_folder(iteration_dir(folder, wanted))):
            iteration_dir(folder, wanted).mkdir(exist_ok=True)
            return Claim(folder, wanted, note)
        n = max(claimed_iterations(folder), default=0) + 1
        while not claim_folder(iteration_dir(folder, n)):
            n += 1
        return Claim(folder, n, note)


# ---------------------------------------------------------------------------- records


def finding_record(finding: DesignFinding, review: DesignReview) -> dict[str, Any]:
    """The flat JSONL record of a synthesized finding: every value a string, number, null or list,
    so `jq 'select(.severity == "Critical")'` and `select(.reviewers | index("prior-art-scout"))` work."""
    return {
        "id": finding.id,
        "topic": review.topic,
        "iteration": review.iteration,
        "title": finding.title,
        "severity": finding.severity.value,
        "severity_range": [{"persona": v.persona, "severity": v.severity.value} for v in finding.severity_range],
        "severity_range_text": severity_range_text(finding),
        "reviewers": list(finding.reviewers),
        "primary_phase": finding.primary_phase,
        "contributing_phase": finding.contributing_phase,
        "phase_rationale": finding.phase_rationale,
        "section": finding.section,
        "issue": finding.issue,
        "why_it_matters": finding.why_it_matters,
        "suggestion": finding.suggestion,
        "evidence": finding.evidence,
        "evidence_verified": finding.evidence_verified,
        "member_ids": list(finding.member_ids),
        "disposition": finding.disposition,
        "disposition_note": finding.disposition_note,
    }


def patterns_document(review: DesignReview) -> dict[str, Any]:
    owner: dict[str, str] = {}
    for f in review.findings:
        for member in [f.id, *f.member_ids]:
            owner.setdefault(re.sub(r"^v\d+-", "", member), f.id)
    return {
        "topic": review.topic,
        "iteration": review.iteration,
        "patterns": [
            {"id": p.id, "theme": p.theme, "members": list(p.members),
             "findings": list(dict.fromkeys(owner[b] for b in (re.sub(r"^v\d+-", "", m) for m in p.members) if b in owner))}
            for p in review.patterns
        ],
    }


def run_record(review: DesignReview) -> dict[str, Any]:
    """The iteration's line of runs.jsonl: outcome, tokens and estimated cost per member."""
    from review_harness.core.prices import run_cost

    tokens: dict[str, dict[str, int]] = {}
    for run in review.reviewer_runs:  # a member may have run more than once (retries)
        entry = tokens.setdefault(run.member, {"input": 0, "cached_input": 0, "output": 0})
        entry["input"] += run.input_tokens
        entry["cached_input"] += run.cached_input_tokens
        entry["output"] += run.output_tokens
    return {
        "date": review.date,
        "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "topic": review.topic,
        "iteration": review.iteration,
        "stage": review.stage,
        "document": review.document,
        "reviewed_blob": review.reviewed_blob,
        "verdict": review.verdict,
        "escalation_target": review.escalation_target,
        "status": review.status,
        "findings": len(review.findings),
        "counts": {s: sum(1 for f in review.findings if f.severity.value == s) for s in ("Critical", "Important", "Minor")},
        "contradictions": len(review.contradictions),
        "reviewers_completed": f"{len(review.reviewers_completed)}/{len(review.personas)}",
        "tokens": tokens,
        "input_tokens": sum(t["input"] for t in tokens.values()),
        "cached_input_tokens": sum(t["cached_input"] for t in tokens.values()),
        "output_tokens": sum(t["output"] for t in tokens.values()),
        "cost": run_cost(review.reviewer_runs),
        "delta": {"from_iteration": review.delta.from_iteration, "method": review.delta.method,
                  **review.delta.findings.counts} if review.delta else None,
        "auto_fixes": {s: sum(1 for a in review.auto_fixes if a.status == s) for s in ("applied", "proposed", "rejected")},
        "prompt_version": review.prompt_version,
        "calibration_version": review.calibration_version,
    }


# ---------------------------------------------------------------------------- writing


def _iteration_files(review: DesignReview) -> dict[str, str]:
    """Every file of the iteration folder, by name."""
    n = review.iteration
    names = persona_names()
    files: dict[str, str] = {}
    for persona in review.personas:
        report = review.persona_reports.get(persona)
        reason = failure_reason(review, persona) if report is None else None
        files[f"{persona}-v{n}.md"] = render_persona_markdown(persona_name(persona, names), report, reason, iteration=n)
    files[f"summary-v{n}.md"] = render_summary(review, names)
    files[f"findings-v{n}.jsonl"] = "".join(json.dumps(finding_record(f, review), ensure_ascii=False) + "\n"
                                            for f in review.findings)
    files[f"patterns-v{n}.json"] = json.dumps(patterns_document(review), indent=2, ensure_ascii=False) + "\n"
    if review.delta is not None:
        files[f"delta-v{review.delta.from_iteration}-v{n}.json"] = json.dumps(
            {"topic": review.topic, **review.delta.model_dump(mode="json"),
             "counts": {"findings": review.delta.findings.counts, "patterns": review.delta.patterns.counts}},
            indent=2, ensure_ascii=False) + "\n"
    files[f"run-v{n}.json"] = json.dumps(run_record(review), indent=1, ensure_ascii=False) + "\n"
    runs_of = {run.member: run for run in review.reviewer_runs}
    files[f"reports-v{n}.json"] = json.dumps(
        {p: {"report": r.model_dump(mode="json"), "run": runs_of[p].model_dump(mode="json") if p in runs_of else None}
         for p, r in review.persona_reports.items()}, indent=1, ensure_ascii=False) + "\n"
    return files


def write_iteration(review: DesignReview, folder: str | Path) -> Path:
    """Write the review's iteration into `folder/v{N}/` (claimed beforehand, or written again
    from a log). Under the topic's lock: its runs.jsonl line first, then the finished temporary
    folder renamed into place (runs.jsonl restored if that fails), then summary.md when no later
    iteration is complete. Returns the iteration folder. A failure leaves no part of the
    iteration behind: no temporary folder, no run line without its folder."""
    folder = Path(folder)
    n = review.iteration
    if n < 1:
        raise ArtifactError(f"{review.topic}: iteration {n} is not a positive number")
    files = _iteration_files(review)
    tmp = temporary_folder(folder, f"v{n}")
    try:
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        with locked(folder):
            before = _append_run(folder, files[f"run-v{n}.json"])
            try:
                publish_folder(tmp, iteration_dir(folder, n))
            except BaseException:
                _restore_runs(folder, before)
                raise
            if n >= latest_iteration(folder):
                write_output(folder / SUMMARY_FILE, files[f"summary-v{n}.md"], earlier_runs=True)  # an edited one is kept
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return iteration_dir(folder, n)


def _append_run(folder: Path, run_json: str) -> str | None:
    """runs.jsonl plus one line (earlier lines kept as they are, even unreadable ones); returns
    the text before (None: there was no file), to restore it."""
    path = folder / RUNS_FILE
    before = path.read_bytes().decode("utf-8", "replace") if path.exists() else None
    text = before or ""
    if text and not text.endswith("\n"):
        text += "\n"
    write_text(path, text + json.dumps(json.loads(run_json), ensure_ascii=False) + "\n")
    return before


def _restore_runs(folder: Path, before: str | None) -> None:
    path = folder / RUNS_FILE
    if before is None:
        path.unlink(missing_ok=True)
    else:
        write_text(path, before)


def export_review(review: DesignReview, output_dir: str | Path) -> Path:
    """Write a review (from a log) into `output_dir`: its own iteration number, replacing an
    earlier write of that iteration; a topic that reviews another document gets a new folder."""
    claim = claim_iteration(output_dir, review.topic, review.document or review.design_path, review.iteration,
                            replace=True)
    if claim.topic != review.topic:
        review = review.model_copy(update={"topic": claim.topic})
    return write_iteration(_with_dispositions(review, _recorded_dispositions(claim.folder, claim.iteration)), claim.folder)


def write_artifacts(review: DesignReview, output_dir: str | Path) -> Path:
    """Write a review into `output_dir/<topic>/` as `design export` does; the topic folder it went to."""
    return export_review(review, output_dir).parent


def _recorded_dispositions(folder: Path, n: int) -> dict[tuple[str, str], tuple[str, str | None]]:
    """Dispositions triage recorded for an iteration, kept when the same finding is written again."""
    if not findings_path(folder, n).exists():
        return {}
    try:
        records = read_jsonl(findings_path(folder, n))
    except ArtifactError:
        return {}
    return {(r.get("id"), r.get("title")): (r["disposition"], r.get("disposition_note"))
            for r in records if r.get("disposition") in ("accepted", "rejected")}


def _with_dispositions(review: DesignReview, kept: Mapping) -> DesignReview:
    if not kept:
        return review
    findings = []
    for finding in review.findings:
        previous = kept.get((finding.id, finding.title))
        if previous and finding.disposition is None:
            finding = finding.model_copy(update={"disposition": previous[0], "disposition_note": previous[1]})
        findings.append(finding)
    return review.model_copy(update={"findings": findings})


def runs(folder: Path) -> list[dict]:
    path = Path(folder) / RUNS_FILE
    return read_jsonl(path) if path.exists() else []


@dataclass
class PartialIteration:
    """A partial iteration of the same text that a new run completes in place."""

    iteration: int
    kept: dict[str, dict]  # persona -> {"report": ..., "run": ...} of the personas that completed
    missing: list[str]


def partial_to_complete(output_dir: str | Path, topic: str, document: str, blob: str,
                        personas: list[str]) -> PartialIteration | None:
    """The topic's latest iteration when it is partial, reviewed the same text (blob) with the same
    panel, and kept its completed reports: re-running the review completes it in place, calling
    only the personas that did not complete."""
    folder = topic_dir(Path(output_dir), topic)
    if not folder.is_dir() or _topic_document(folder) != document:
        return None
    done = iterations(folder)
    if not done:
        return None
    n = done[-1]
    try:
        record = read_run(folder, n)
        kept = json.loads((iteration_dir(folder, n) / f"reports-v{n}.json").read_text(encoding="utf-8"))
    except (ArtifactError, OSError, ValueError):
        return None
    if record.get("status") not in ("partial", "failed") or record.get("reviewed_blob") != blob or not isinstance(kept, dict):
        return None
    if not set(kept) <= set(personas) or set(personas) - set(kept) == set():
        return None
    return PartialIteration(n, {p: kept[p] for p in personas if p in kept}, [p for p in personas if p not in kept])
