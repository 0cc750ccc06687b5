"""The verdict a pipeline acts on: `usable`, `caution` or `unusable`, decided in code from the
checks, and never made more lenient by a model.

- any `fail` (a fatal inconsistency: arithmetic that does not add up, an interval that excludes its
  estimate, a p-value that contradicts its interval, an implausible effect for the sample, a
  method without the inputs it needs, a failed placebo or balance test): `unusable`;
- any `warn` (a diagnostic outside its band, a counterfactual projected far past its pre-period,
  seasonality not covered, an unknown model type) or a major `not_available` (no interval, no
  p-value, a method's key diagnostic not reported): `caution`;
- otherwise `usable`.

A reviewer's own VERDICT may make it stricter; the stricter of the two is the review's verdict.
A review nobody read cannot vouch for a result: when the reviewer failed (no dimension parsed),
the verdict is `unreviewed` unless the checks alone found it `unusable`; when its answer was
incomplete (partial), at least `caution`. No Inspect import.
"""

from __future__ import annotations

from review_harness.impact.models import VERDICTS, ConsistencyCheck, ReviewStatus, ReviewVerdict, Verdict

MODEL_VERDICTS: tuple[str, ...] = ("usable", "caution", "unusable")  # what checks and reviewers say


def check_effect(check: ConsistencyCheck) -> Verdict:
    """What one check does to the verdict."""
    if check.status == "fail":
        return "unusable"
    if check.status == "warn" or (check.status == "not_available" and check.severity == "major"):
        return "caution"
    return "usable"


def strictest(*verdicts: ReviewVerdict | None) -> ReviewVerdict:
    given = [v for v in verdicts if v is not None]
    return max(given, key=VERDICTS.index) if given else "usable"


def review_verdict(checks: Verdict, model: Verdict | None, status: ReviewStatus) -> tuple[ReviewVerdict, str]:
    """The review's verdict from the checks', the reviewer's and the review's status, and what a
    failed or incomplete review did to it ('' when nothing)."""
    verdict = strictest(checks, model)
    if status == "failed" and verdict != "unusable":
        return "unreviewed", (f"the reviewer failed, so nobody read the artifact: unreviewed (the checks alone say "
                              f"{checks})")
    if status == "partial" and verdict == "usable":
        return "caution", "the reviewer's answer was incomplete (partial review): caution, not usable"
    return verdict, ""


def checks_verdict(checks: list[ConsistencyCheck]) -> tuple[Verdict, list[str]]:
    """The verdict of the checks and the checks that decide it (`id: status`)."""
    verdict = strictest(*(check_effect(c) for c in checks))
    reasons = [f"{c.id}: {c.status.replace('_', ' ')}" for c in checks if verdict != "usable" and check_effect(c) == verdict]
    return verdict, reasons


def read_verdict(text: object) -> Verdict | None:
    """'usable', 'Caution', '**UNUSABLE**' -> the verdict; anything else None."""
    word = "".join(ch for ch in str(text or "").lower() if ch.isalpha())
    return word if word in MODEL_VERDICTS else None  # type: ignore[return-value]
