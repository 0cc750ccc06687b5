"""`review-harness verdict`: a CI step's verdict over a log, one row per reviewed document.

For the user's own documents each row is the review's verdict, its figure and findings; the
command fails (exit 1) when a review meets a condition the user chose (`--fail-on`): one of the
kind's verdicts, which fails on that verdict and every stricter one (the kind's `verdicts` run from
the passing one to the strictest: `minor-fix` fails a Minor Fix and a Major Rework), `not-passed` (any verdict but the kind's passing one), `no-verdict` (draft feedback, a deferred
or failed review). For a gold-set run each row also says whether the case got its gold verdict
and which must-catch findings it missed; a case that missed either fails (`missed`, the
condition of a gold run unless others are chosen). A document that could not be reviewed (a
failed sample) or a run that did not finish fails the step whatever the conditions. Bad input
(no log, a condition the kind does not have, `missed` without gold) is exit 2.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.log import EvalLog, EvalSample

from review_harness.core.files import shown
from review_harness.core.kinds import ReviewKind, kind_of_log, kinds
from review_harness.core.logs import LogError, text_table
from review_harness.core.viewer import review_verdict

NOT_PASSED = "not-passed"
NO_VERDICT = "no-verdict"
MISSED = "missed"
GENERAL = (NOT_PASSED, NO_VERDICT, MISSED)


def spelled(name: str) -> str:
    """A verdict as a condition is written: 'Major Rework' -> 'major-rework'."""
    return re.sub(r"[\s_-]+", "-", name.strip().lower())


def conditions_of(kind: ReviewKind, chosen: list[str], gold: bool) -> list[str]:
    """The conditions in force, spelled as conditions: those chosen (comma-separated or
    repeated), else `missed` for a gold run and none for the user's own documents."""
    if any(not c.strip() for item in chosen for c in item.split(",")):
        raise LogError(f"--fail-on {','.join(chosen) or repr('')}: an empty condition; name one, e.g. --fail-on "
                       f"{spelled(kind.verdicts[-1]) if kind.verdicts else NOT_PASSED}")
    asked = [spelled(c) for item in chosen for c in item.split(",")]
    known = [spelled(v) for v in kind.verdicts] + list(GENERAL)
    for condition in asked:
        if condition not in known:
            other = next((k for k in kinds(with_task=True) if condition in {spelled(v) for v in k.verdicts}), None)
            hint = f" ({other.title} verdict: add --kind {other.name} for the newest {other.name} log)" if other else ""
            raise LogError(f"--fail-on {condition}: not a condition for {kind.title} reviews{hint}; choose from: "
                           f"{', '.join(known)} (verdicts from passing to strictest: {ordering(kind)})")
        if condition == MISSED and not gold:
            raise LogError(f"--fail-on {MISSED}: the log has no gold comparison (a run of your own documents)")
    if not asked:
        return [MISSED] if gold else []
    return list(dict.fromkeys(asked))


def at_or_worse(kind: ReviewKind, condition: str) -> set[str]:
    """The verdicts (spelled as conditions) a verdict condition fails on: itself and every
    stricter one of the kind's ordering (passing first, strictest last)."""
    order = [spelled(v) for v in kind.verdicts]
    return set(order[order.index(condition):]) if condition in order else set()


def ordering(kind: ReviewKind) -> str:
    """The kind's verdicts from the passing one to the strictest, as `--help` and errors show them."""
    return " < ".join(spelled(v) for v in kind.verdicts)


@dataclass
class Row:
    sample: str
    epoch: int
    verdict: str = "-"  # the kind's verdict as recorded (its value key), for the conditions
    shown: str = "-"  # the verdict as a reader reads it, with the reason it was capped
    figure: str = "-"
    findings: str = "-"
    gold_verdict: str | None = None  # 'right' / 'wrong' / None (no gold)
    missed: list[str] = field(default_factory=list)
    error: str | None = None
    failed: list[str] = field(default_factory=list)  # the conditions this row meets


def _gold_of(kind: ReviewKind, sample: EvalSample) -> tuple[str | None, list[str]]:
    score = (sample.scores or {}).get(kind.gold_scorer or "")
    if score is None or not isinstance(score.value, dict):
        return None, []
    right = score.value.get(kind.verdict_accuracy or "")
    verdict = None if right is None or (isinstance(right, float) and math.isnan(right)) else (
        "right" if float(right) == 1.0 else "wrong")
    compared: dict[str, Any] = (score.metadata or {}).get("gold") or {}
    return verdict, list(compared.get("missed_must_catch") or [])


def row_of(kind: ReviewKind, sample: EvalSample) -> Row:
    row = Row(shown(str(sample.id)), sample.epoch)  # a name is data: a line break in it stays on its line
    if sample.error is not None:
        row.error = sample.error.message.splitlines()[0] if sample.error.message else "failed"
        return row
    score = (sample.scores or {}).get(kind.synthesis_scorer or "")
    if score is not None and isinstance(score.value, dict):
        row.verdict = str(score.value.get(kind.verdict_key, "-"))
    review = kind.review_from_score(score.metadata if score else None)
    line = review_verdict(kind, review) if review is not None else None
    if line is not None:
        row.shown = f"{line.verdict} (capped: {line.reason})" if line.reason else line.verdict
        row.figure = line.figure or "-"
        row.findings = line.counts_text()
    row.gold_verdict, row.missed = _gold_of(kind, sample)
    return row


def judge(kind: ReviewKind, row: Row, conditions: list[str]) -> None:
    """The conditions the row meets (a failed sample meets 'failed' whatever was chosen)."""
    if row.error is not None:
        row.failed = ["failed"]
        return
    verdict = spelled(row.verdict)
    passing = spelled(kind.verdicts[0]) if kind.verdicts else None
    has_verdict = any(verdict == spelled(v) for v in kind.verdicts)
    for condition in conditions:
        if condition == MISSED:
            if row.gold_verdict == "wrong" or row.missed:
                row.failed.append(MISSED)
        elif condition == NO_VERDICT:
            if not has_verdict:
                row.failed.append(NO_VERDICT)
        elif condition == NOT_PASSED:
            if has_verdict and verdict != passing:
                row.failed.append(NOT_PASSED)
        elif verdict in at_or_worse(kind, condition):
            row.failed.append(condition)


@dataclass
class Report:
    rows: list[Row]
    conditions: list[str]
    gold: bool
    status: str

    @property
    def passed(self) -> bool:
        return self.status == "success" and not any(r.failed for r in self.rows)

    def table(self) -> str:
        epochs = len({r.epoch for r in self.rows}) > 1
        header = ["sample", *(["epoch"] if epochs else []), "verdict", "figure", "findings"]
        if self.gold:
            header += ["gold verdict", "must-catch missed"]
        header.append("result")
        lines = [tuple(header)]
        for r in self.rows:
            cells = [r.sample, *([str(r.epoch)] if epochs else [])]
            if r.error is not None:
                cells += ["-", "-", f"failed: {r.error}"]
            else:
                cells += [r.shown, r.figure, r.findings]
            if self.gold:
                cells += [r.gold_verdict or "-", ", ".join(r.missed) or "-"]
            cells.append(f"FAIL ({', '.join(r.failed)})" if r.failed else "pass")
            lines.append(tuple(cells))
        return text_table(lines)

    def last_line(self) -> str:
        failing = [r for r in self.rows if r.failed]
        noun = "case" if self.gold else "document"
        what = f"fail on: {', '.join(self.conditions)}" if self.conditions else "no --fail-on condition"
        if self.status != "success":
            return f"verdict: FAIL (the run's status is {self.status}; {len(failing)} of {len(self.rows)} {noun}s failed)"
        if failing:
            return f"verdict: FAIL ({len(failing)} of {len(self.rows)} {noun}{'s' if len(self.rows) != 1 else ''}; {what})"
        return f"verdict: PASS ({len(self.rows)} {noun}{'s' if len(self.rows) != 1 else ''}; {what})"


def verdict_report(log: EvalLog, chosen: list[str]) -> Report:
    kind = kind_of_log(log)
    samples = log.samples or []
    gold = any(kind.gold_scorer in (s.scores or {}) for s in samples)
    conditions = conditions_of(kind, chosen, gold)
    if not samples:
        raise LogError(f"{log.location}: the log has no samples (status {log.status})")
    rows = [row_of(kind, s) for s in samples]
    for row in rows:
        judge(kind, row, conditions)
    return Report(rows, conditions, gold, log.status)
