"""The gate's ratchet: no must-catch finding a baseline caught is lost, whatever the averages did.

Every gold scorer records, per sample, each expected finding's outcome (core/goldrun.py's
`finding_outcomes`: must-catch or not, caught or not, its summary). A baseline keeps them per gold
case; the gate compares the run's with the baseline's:

- a must-catch finding the baseline caught and the run did not is **lost**: the gate fails and
  names it `case: finding-id (summary)`, even when every aggregate metric rose (a run can keep
  its precision while trading one true finding for another);
- a must-catch finding the run caught and the baseline did not is a **gain**, reported;
- a loss listed in the accepted-losses file (`accepted-losses.yaml` beside the baseline, reviewed
  like code: the case, the finding id and the reason, one entry a line) is reported with its
  reason and does not fail. An entry without a reason is refused (bad input).

With several epochs a finding counts as caught when it was caught in at least half of them. A case
the run does not have is not judged here (the gate's metrics already fail on a missing sample).
A baseline written before the ratchet existed has no outcomes: the gate says in one line that
the ratchet could not run and asks for the baseline to be rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from review_harness.core.goldrun import FINDINGS_METADATA

ACCEPTED_LOSSES = "accepted-losses.yaml"


class FindingOutcome(BaseModel):
    """One expected finding of one gold case in one run."""

    model_config = ConfigDict(extra="forbid")

    must_catch: bool
    matched: bool
    summary: str = ""


Outcomes = dict[str, dict[str, FindingOutcome]]  # case (sample id) -> finding id -> outcome


def run_outcomes(log: EvalLog) -> Outcomes | None:
    """Each gold case's finding outcomes in `log` (None: the log records none: a run from before
    the ratchet, or one without a gold comparison). A case scored without a comparison (its
    review failed) has no finding caught."""
    seen: dict[str, list[Mapping[str, Any] | None]] = {}
    recorded = False
    for sample in getattr(log, "samples", None) or []:
        outcome = None
        for score in (sample.scores or {}).values():
            metadata = score.metadata or {}
            if FINDINGS_METADATA in metadata:
                outcome = metadata[FINDINGS_METADATA] or {}
                recorded = True
                break
            if "gold" in metadata:
                outcome = outcome or {}
        if outcome is not None:
            seen.setdefault(str(sample.id), []).append(outcome)
    if not recorded:
        return None
    return {case: _over_epochs(epochs) for case, epochs in seen.items()}


def _over_epochs(epochs: list[Mapping[str, Any] | None]) -> dict[str, FindingOutcome]:
    """A finding's outcome over the epochs: caught when caught in at least half of them."""
    described: dict[str, Mapping[str, Any]] = {}
    caught: dict[str, int] = {}
    for outcome in epochs:
        for finding, record in (outcome or {}).items():
            described.setdefault(finding, record)
            caught[finding] = caught.get(finding, 0) + bool(record.get("matched"))
    return {finding: FindingOutcome(must_catch=bool(record.get("must_catch")),
                                    matched=2 * caught[finding] >= len(epochs),
                                    summary=str(record.get("summary") or ""))
            for finding, record in sorted(described.items())}


class AcceptedLoss(BaseModel):
    """One reviewed loss: the case, the finding id, and why losing it is right (never empty).
    `baseline` (the baseline file's name without .json) limits it to one gold set."""

    model_config = ConfigDict(extra="forbid")

    case: str = Field(min_length=1)
    finding: str = Field(min_length=1)
    reason: str
    baseline: str | None = None

    @field_validator("reason")
    @classmethod
    def _said(cls, reason: str) -> str:
        if not reason.strip():
            raise ValueError("an accepted loss needs its reason")
        return reason.strip()

    def holds(self, baseline: str, case: str, finding: str) -> bool:
        return self.case == case and self.finding == finding and self.baseline in (None, baseline)


class AcceptedLosses(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accepted: list[AcceptedLoss] = Field(default_factory=list)


def load_accepted(path: Path, error: type[Exception]) -> list[AcceptedLoss]:
    """The reviewed accepted losses (none when the file does not exist); anything wrong in it,
    an entry without a reason first of all, is `error` with one line naming the file."""
    from review_harness.core.files import file_problem
    from review_harness.core.yamlio import invalid_message, read_mapping

    if file_problem(path) == "no such file":
        return []
    raw = read_mapping(path, error, label="accepted losses", expected="a mapping with 'accepted:'", allow_empty=True)
    try:
        return AcceptedLosses.model_validate(raw).accepted
    except ValidationError as ex:
        raise error(invalid_message(f"accepted losses {path}", ex)) from None


class FindingChange(BaseModel):
    case: str
    finding: str
    summary: str = ""
    reason: str | None = Field(default=None, description="the accepted-losses reason (a loss that does not fail)")

    def label(self) -> str:
        return f"{self.case}: {self.finding}" + (f" ({self.summary})" if self.summary else "")


class RatchetResult(BaseModel):
    """What the ratchet found; `note` says why it could not run (then nothing else is set)."""

    note: str = ""
    cases: int = 0
    lost: list[FindingChange] = Field(default_factory=list, description="must-catch findings lost")
    gained: list[FindingChange] = Field(default_factory=list, description="must-catch findings newly caught")
    other_lost: int = 0
    other_gained: int = 0
    stale: list[str] = Field(default_factory=list, description="accepted losses that are no loss of this run")

    @property
    def ran(self) -> bool:
        return not self.note

    @property
    def failing(self) -> list[FindingChange]:
        return [c for c in self.lost if c.reason is None]

    def lines(self) -> list[str]:
        if not self.ran:
            return [f"ratchet: not run: {self.note}"]
        accepted = len(self.lost) - len(self.failing)
        head = (f"ratchet over {self.cases} case(s): {len(self.failing)} must-catch finding(s) lost"
                + (f", {accepted} accepted loss(es)" if accepted else "") + f", {len(self.gained)} gained")
        if self.other_lost or self.other_gained:
            head += f" (other findings: {self.other_lost} lost, {self.other_gained} gained)"
        out = [head]
        out += [f"  LOST {c.label()}" for c in self.failing]
        out += [f"  lost, accepted: {c.label()}: {c.reason}" for c in self.lost if c.reason is not None]
        out += [f"  gained: {c.label()}" for c in self.gained]
        out += [f"  accepted loss no longer lost (remove it from {ACCEPTED_LOSSES}): {s}" for s in self.stale]
        return out


def ratchet(baseline: Outcomes | None, run: Outcomes | None, *, baseline_name: str,
            accepted: Iterable[AcceptedLoss] = ()) -> RatchetResult:
    """The run's finding outcomes against the baseline's (see the module docstring)."""
    if baseline is None:
        return RatchetResult(note=f"the baseline {baseline_name} records no per-finding outcomes (written before the "
                                  "ratchet); rewrite it on purpose: review-harness gate --write-baseline LOG")
    if run is None:
        return RatchetResult(note="the log records no per-finding outcomes (a run of an older version); "
                                  "run the gold set again")
    accepted = [a for a in accepted if a.baseline in (None, baseline_name)]
    result = RatchetResult(cases=len(set(baseline) & set(run)))
    for case in sorted(set(baseline) & set(run)):
        before, after = baseline[case], run[case]
        for finding in sorted(set(before) | set(after)):
            was, now = before.get(finding), after.get(finding)
            caught_before = was is not None and was.matched
            caught_now = now is not None and now.matched
            if caught_before == caught_now:
                continue
            must = (now or was).must_catch  # type: ignore[union-attr]
            summary = (now or was).summary  # type: ignore[union-attr]
            if not must:
                if caught_before:
                    result.other_lost += 1
                else:
                    result.other_gained += 1
                continue
            if caught_now:
                result.gained.append(FindingChange(case=case, finding=finding, summary=summary))
                continue
            reason = next((a.reason for a in accepted if a.holds(baseline_name, case, finding)), None)
            result.lost.append(FindingChange(case=case, finding=finding, summary=summary, reason=reason))
    lost = {(c.case, c.finding) for c in result.lost}
    result.stale = [f"{a.case}: {a.finding}" for a in accepted
                    if a.case in run and (a.case, a.finding) not in lost]
    return result
