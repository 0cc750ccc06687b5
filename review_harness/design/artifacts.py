"""The review folder on disk: ``<output_dir>/<topic>/``.

Per iteration N (the review's ``iteration``)::

    summary.md               the synthesized summary (latest iteration; git keeps the history)
    <persona-id>.md          one per dispatched persona, completed or failed (latest iteration)
    findings-vN.jsonl        one flat JSON object per synthesized finding (jq-friendly)
    patterns-vN.json         the review's patterns
    delta-vM-vN.json         resolved / persisting / new against iteration M, the latest earlier
                             iteration that did not fail (normally N-1); not written for a failed N
    runs.jsonl               one line per iteration: verdict, status, tokens, prompt versions
    calibration.yaml         rules from rejected findings (written by triage, never here)

Writing an iteration first removes what an earlier write of the same iteration left behind, so a
re-export never mixes two runs.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, utils

from review_harness.core.text import STOPWORDS
from review_harness.design.models import DesignFinding, DesignReview, Pattern
from review_harness.design.render import (
    failure_reason,
    persona_name,
    persona_names,
    render_persona_markdown,
    render_summary,
    severity_range_text,
)

SAFE_TOPIC = re.compile(r"^[A-Za-z0-9_-]+$")
FINDINGS_FILE = re.compile(r"^findings-v(\d+)\.jsonl$")
SUMMARY_FILE = "summary.md"
RUNS_FILE = "runs.jsonl"
MATCH_THRESHOLD = 70.0
MATCH_SCORER = "rapidfuzz.fuzz.token_set_ratio"


class ArtifactError(ValueError):
    """The folder or its files cannot be used (bad topic, unreadable file, older iteration)."""


class DeltaError(ArtifactError):
    """A delta whose resolved / persisting / new lists do not partition the two iterations."""


# ---------------------------------------------------------------------------- paths


def topic_dir(output_dir: str | Path, topic: str) -> Path:
    if not SAFE_TOPIC.match(topic or ""):
        raise ArtifactError(f"topic {topic!r}: use letters, digits, hyphens and underscores only")
    return Path(output_dir) / topic


def iterations(folder: str | Path) -> list[int]:
    """Iterations with a findings file, ascending."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = (FINDINGS_FILE.match(p.name) for p in folder.iterdir())
    return sorted(int(m.group(1)) for m in found if m)


def latest_iteration(folder: str | Path) -> int:
    """Highest N of the folder's findings-vN.jsonl; 0 when there is none."""
    its = iterations(folder)
    return its[-1] if its else 0


def next_iteration(folder: str | Path) -> int:
    return latest_iteration(folder) + 1


def findings_path(folder: Path, n: int) -> Path:
    return Path(folder) / f"findings-v{n}.jsonl"


def patterns_path(folder: Path, n: int) -> Path:
    return Path(folder) / f"patterns-v{n}.json"


def delta_path(folder: Path, previous: int, current: int) -> Path:
    return Path(folder) / f"delta-v{previous}-v{current}.json"


# ---------------------------------------------------------------------------- reading and writing


def write_text(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder, so a crash never leaves half a file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def read_jsonl(path: Path) -> list[dict]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as ex:
        raise ArtifactError(f"{path}: cannot read ({ex.strerror or ex})") from None
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


def read_patterns(folder: Path, n: int) -> list[Pattern]:
    path = patterns_path(folder, n)
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [Pattern(id=p["id"], theme=p["theme"], members=list(p.get("members") or [])) for p in data["patterns"]]
    except (OSError, ValueError, KeyError, TypeError) as ex:
        raise ArtifactError(f"{path}: not a patterns file ({type(ex).__name__}: {ex})") from None


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
    by_member = _findings_by_member(review.findings)
    return {
        "topic": review.topic,
        "iteration": review.iteration,
        "patterns": [
            {
                "id": p.id,
                "theme": p.theme,
                "members": list(p.members),
                "findings": _unique(by_member[m]["id"] for m in map(_bare_id, p.members) if m in by_member),
            }
            for p in review.patterns
        ],
    }


def run_record(review: DesignReview) -> dict[str, Any]:
    tokens: dict[str, dict[str, int]] = {}
    for run in review.reviewer_runs:  # a member may have run more than once (retries)
        entry = tokens.setdefault(run.member, {"input": 0, "output": 0})
        entry["input"] += run.input_tokens
        entry["output"] += run.output_tokens
    return {
        "date": review.date,
        "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "topic": review.topic,
        "iteration": review.iteration,
        "stage": review.stage,
        "verdict": review.verdict,
        "status": review.status,
        "findings": len(review.findings),
        "counts": {s: sum(1 for f in review.findings if f.severity.value == s) for s in ("Critical", "Important", "Minor")},
        "reviewers_completed": f"{len(review.reviewers_completed)}/{len(review.personas)}",
        "tokens": tokens,
        "input_tokens": sum(t["input"] for t in tokens.values()),
        "output_tokens": sum(t["output"] for t in tokens.values()),
        "prompt_version": review.prompt_version,
        "calibration_version": review.calibration_version,
    }


# ---------------------------------------------------------------------------- write


def write_artifacts(review: DesignReview, output_dir: str | Path) -> Path:
    """Write the review's iteration into ``output_dir/<topic>/`` and return that folder."""
    folder = topic_dir(output_dir, review.topic)
    n = review.iteration
    if n < 1:
        raise ArtifactError(f"{review.topic}: iteration {n} is not a positive number")
    latest = latest_iteration(folder)
    if n < latest:
        raise ArtifactError(
            f"{folder}: holds iteration {latest}; writing the older iteration {n} would replace its summary "
            "(export it into another folder)"
        )
    folder.mkdir(parents=True, exist_ok=True)
    kept = _dispositions_to_keep(folder, n) if n == latest else {}
    _remove_stale(folder, review)

    names = persona_names()
    for persona in review.personas:
        report = review.persona_reports.get(persona)
        reason = failure_reason(review, persona) if report is None else None
        text = render_persona_markdown(persona_name(persona, names), report, reason, iteration=n)
        write_text(folder / f"{persona}.md", text)

    if kept:
        review = _with_dispositions(review, kept)
    write_text(folder / SUMMARY_FILE, render_summary(review, names))
    write_jsonl(findings_path(folder, n), (finding_record(f, review) for f in review.findings))
    write_text(patterns_path(folder, n), json.dumps(patterns_document(review), indent=2, ensure_ascii=False) + "\n")

    runs = folder / RUNS_FILE
    past_runs = read_jsonl(runs) if runs.exists() else []
    failed = {r.get("iteration") for r in past_runs if r.get("status") == "failed"}
    previous = [i for i in iterations(folder) if i < n and i not in failed]
    if previous and review.status != "failed":
        m = previous[-1]
        delta = compute_delta(read_patterns(folder, m), read_findings(folder, m), review, previous_iteration=m)
        write_text(delta_path(folder, m, n), json.dumps(delta, indent=2, ensure_ascii=False) + "\n")

    write_jsonl(runs, [*(r for r in past_runs if r.get("iteration") != n), run_record(review)])
    return folder


def _remove_stale(folder: Path, review: DesignReview) -> None:
    """Files of this iteration from an earlier write, and persona files this run did not dispatch."""
    n = review.iteration
    stale = [findings_path(folder, n), patterns_path(folder, n), *folder.glob(f"delta-v*-v{n}.json")]
    dispatched = set(review.personas)
    stale += [folder / f"{pid}.md" for pid in persona_names() if pid not in dispatched]
    for path in stale:
        path.unlink(missing_ok=True)


def _dispositions_to_keep(folder: Path, n: int) -> dict[str, tuple[str, str | None]]:
    """Dispositions already recorded for this iteration, kept when the same finding is written again."""
    path = findings_path(folder, n)
    if not path.exists():
        return {}
    try:
        records = read_jsonl(path)
    except ArtifactError:
        return {}
    return {
        (r.get("id"), r.get("title")): (r["disposition"], r.get("disposition_note"))
        for r in records
        if r.get("disposition") in ("accepted", "rejected")
    }


def _with_dispositions(review: DesignReview, kept: Mapping) -> DesignReview:
    findings = []
    for finding in review.findings:
        previous = kept.get((finding.id, finding.title))
        if previous and finding.disposition is None:
            finding = finding.model_copy(update={"disposition": previous[0], "disposition_note": previous[1]})
        findings.append(finding)
    return review.model_copy(update={"findings": findings})


# ---------------------------------------------------------------------------- delta


def _bare_id(finding_id: str) -> str:
    """'v3-assumption-hunter-001' and 'assumption-hunter-001' name the same reviewer finding."""
    return re.sub(r"^v\d+-", "", finding_id or "")


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _findings_by_member(findings: Sequence[DesignFinding | Mapping]) -> dict[str, Mapping]:
    out: dict[str, Mapping] = {}
    for finding in findings:
        record = finding if isinstance(finding, Mapping) else {"id": finding.id, "title": finding.title,
                                                              "member_ids": finding.member_ids}
        for member in [record.get("id"), *(record.get("member_ids") or [])]:
            if member:
                out.setdefault(_bare_id(member), record)
    return out


def _text(*parts: str) -> str:
    # stop words make unrelated titles look alike to a token-set comparison
    words = utils.default_process(" ".join(p for p in parts if p)).split()
    return " ".join(w for w in words if w not in STOPWORDS)


def _pattern_text(pattern: Pattern, by_member: Mapping[str, Mapping]) -> str:
    titles = _unique(by_member[m]["title"] for m in map(_bare_id, pattern.members) if m in by_member)
    return _text(pattern.theme, *titles)


def match_items(
    previous: Sequence[tuple[str, str]], current: Sequence[tuple[str, str]], threshold: float = MATCH_THRESHOLD
) -> list[tuple[int, int, float]]:
    """One-to-one matches (previous index, current index, score) of (id, text) items: every pair
    scored with token_set_ratio, then taken greedily from the highest score (ties by position)."""
    pairs = []
    for i, (_, a) in enumerate(previous):
        for j, (_, b) in enumerate(current):
            score = fuzz.token_set_ratio(a, b) if a and b else 0.0
            if score >= threshold:
                pairs.append((-round(score, 6), i, j))
    pairs.sort()
    used_prev: set[int] = set()
    used_cur: set[int] = set()
    matches = []
    for neg, i, j in pairs:
        if i in used_prev or j in used_cur:
            continue
        used_prev.add(i)
        used_cur.add(j)
        matches.append((i, j, round(-neg, 1)))
    return sorted(matches)


def check_partition(level: str, previous_ids: Sequence[str], current_ids: Sequence[str], part: Mapping) -> None:
    """Raise DeltaError unless every previous id is in exactly one of resolved / persisting, and
    every current id in exactly one of persisting / new."""
    prev_seen = [r["id"] for r in part["resolved"]] + [p["previous"] for p in part["persisting"]]
    cur_seen = [p["current"] for p in part["persisting"]] + [r["id"] for r in part["new"]]
    for side, ids, seen in (("previous", previous_ids, prev_seen), ("current", current_ids, cur_seen)):
        for item in _unique([*ids, *seen]):
            expected = list(ids).count(item)
            got = seen.count(item)
            if expected != 1 or got != 1:
                raise DeltaError(
                    f"delta of {level}: {side} id {item!r} appears {expected} time(s) in the iteration "
                    f"and {got} time(s) in the delta"
                )


def _delta_level(level: str, previous: list[dict], current: list[dict], threshold: float) -> dict[str, Any]:
    """previous / current: dicts with 'id', 'text' and whatever else to show."""
    matches = match_items([(p["id"], p["text"]) for p in previous], [(c["id"], c["text"]) for c in current], threshold)
    matched_prev = {i for i, _, _ in matches}
    matched_cur = {j for _, j, _ in matches}
    shown = lambda item: {k: v for k, v in item.items() if k != "text"}  # noqa: E731
    part = {
        "resolved": [shown(p) for i, p in enumerate(previous) if i not in matched_prev],
        "persisting": [
            {"previous": previous[i]["id"], "current": current[j]["id"], "score": score,
             **{f"previous_{k}": v for k, v in shown(previous[i]).items() if k != "id"},
             **{f"current_{k}": v for k, v in shown(current[j]).items() if k != "id"}}
            for i, j, score in matches
        ],
        "new": [shown(c) for j, c in enumerate(current) if j not in matched_cur],
    }
    check_partition(level, [p["id"] for p in previous], [c["id"] for c in current], part)
    part["counts"] = {k: len(part[k]) for k in ("resolved", "persisting", "new")}
    part["partition_ok"] = True
    return part


def compute_delta(
    previous_patterns: list[Pattern],
    previous_findings: list[dict],
    current: DesignReview,
    *,
    previous_iteration: int | None = None,
    threshold: float = MATCH_THRESHOLD,
) -> dict[str, Any]:
    """What changed since the previous iteration, for patterns and for findings: resolved (previous
    with no match), persisting (matched pairs), new (current with no match). Deterministic."""
    if previous_iteration is None:
        its = {r.get("iteration") for r in previous_findings if isinstance(r.get("iteration"), int)}
        previous_iteration = max(its) if its else current.iteration - 1
    prev_by_member = _findings_by_member(previous_findings)
    cur_by_member = _findings_by_member(current.findings)
    patterns = _delta_level(
        "patterns",
        [{"id": p.id, "theme": p.theme, "text": _pattern_text(p, prev_by_member)} for p in previous_patterns],
        [{"id": p.id, "theme": p.theme, "text": _pattern_text(p, cur_by_member)} for p in current.patterns],
        threshold,
    )
    findings = _delta_level(
        "findings",
        [{"id": f["id"], "title": f.get("title", ""), "severity": f.get("severity"),
          "text": _text(f.get("title", ""))} for f in previous_findings],
        [{"id": f.id, "title": f.title, "severity": f.severity.value, "text": _text(f.title)}
         for f in current.findings],
        threshold,
    )
    return {
        "topic": current.topic,
        "from_iteration": previous_iteration,
        "to_iteration": current.iteration,
        "method": {
            "scorer": MATCH_SCORER,
            "threshold": threshold,
            "matching": "one-to-one, greedy from the highest score",
            "pattern_text": "theme + titles of its findings",
            "finding_text": "title",
        },
        "patterns": patterns,
        "findings": findings,
    }
