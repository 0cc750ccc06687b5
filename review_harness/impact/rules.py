"""The offline reviewer of impact results: it reads the checks out of the prompt (the facts block
the harness computed from the artifact with the run's checks table, which a real model reads too),
or, when a template leaves the facts out, reads the artifact back out of the prompt and runs the
built-in checks itself; it scores each dimension from what failed and answers in the seed's text
format with the verdict the checks decide. It applies every check whether or not a methodology
note was retrieved.

score(dimension) = max(score_floor, 1 - sum of the penalties of its checks), penalties by status
and severity from prompts/impact/config.yaml. A dimension no check covers (a custom template's)
gets the mean of the covered ones, and says so.
"""

from __future__ import annotations

import re

from review_harness.impact.artifact import TEXT_CLOSE, TEXT_OPEN, envelope_from_text, validate_envelope
from review_harness.impact.checks import run_checks
from review_harness.impact.config import ImpactSettings, default_settings
from review_harness.impact.models import ConsistencyCheck
from review_harness.impact.verdict import checks_verdict

DIMENSIONS_LINE = re.compile(r"^Dimensions to score:\s*(.+)$", re.MULTILINE)
FACT = re.compile(r"^- \[(PASS|FAIL|WARN|NOT_AVAILABLE)\] ([a-z0-9_]+) \(([a-z0-9_]+), (major|minor)(, information)?\): "
                  r"(.+)$", re.MULTILINE)


def facts_from_prompt(prompt: str) -> list[ConsistencyCheck]:
    """The checks of the prompt's facts block (render_facts' lines), outside the artifact block."""
    start, end = prompt.find(TEXT_OPEN), prompt.find(TEXT_CLOSE)
    outside = prompt[:start] + prompt[end:] if 0 <= start < end else prompt
    return [ConsistencyCheck(id=m.group(2), dimension=m.group(3), status=m.group(1).lower(), severity=m.group(4),  # type: ignore[arg-type]
                             message=m.group(6).strip(), scored=not m.group(5)) for m in FACT.finditer(outside)]


def dimension_scores(
    checks: list[ConsistencyCheck], dimensions: list[str], settings: ImpactSettings
) -> dict[str, tuple[float, str]]:
    covered: dict[str, tuple[float, str]] = {}
    for dim in dimensions:
        own = [c for c in checks if c.dimension == dim and c.scored]
        if not own:
            continue
        penalty = sum(settings.penalty(c.status, c.severity) for c in own if c.status != "pass")
        score = round(max(settings.score_floor, 1.0 - penalty), 2)
        if any(c.status == "fail" for c in own):
            score = min(score, settings.fatal_score_cap)
        problems = [c for c in own if c.status != "pass"]
        if problems:
            worst = sorted(problems, key=lambda c: (c.status != "fail", c.status != "warn", c.severity != "major"))
            parts = [f"{c.message} ({c.status.replace('_', ' ')})" for c in worst]
            why = f"{len(problems)} of {len(own)} checks raise a problem: " + "; ".join(parts) + "."
        else:
            why = f"All {len(own)} checks hold: " + "; ".join(c.message for c in own[:3]) + "."
        covered[dim] = (score, why)
    out: dict[str, tuple[float, str]] = {}
    for dim in dimensions:
        if dim in covered:
            out[dim] = covered[dim]
        elif covered:
            mean = round(sum(s for s, _ in covered.values()) / len(covered), 2)
            out[dim] = (mean, f"No check covers {dim}; scored as the mean {mean:g} of the checked dimensions.")
        else:
            out[dim] = (0.5, f"No check covers {dim}; no evidence either way.")
    return out


def render_text_answer(scores: dict[str, tuple[float, str]], verdict: str | None = None) -> str:
    lines = []
    for name, (score, why) in scores.items():
        lines += [f"DIMENSION: {name}", f"SCORE: {score:.2f}", f"JUSTIFICATION: {why}", ""]
    overall = sum(s for s, _ in scores.values()) / len(scores) if scores else 0.0
    lines.append(f"OVERALL: {overall:.2f}")
    if verdict:
        lines.append(f"VERDICT: {verdict}")
    return "\n".join(lines)


def review_prompt(prompt: str, settings: ImpactSettings | None = None) -> str | None:
    """The text answer to an impact review prompt, or None when the prompt is not one."""
    settings = settings or default_settings()
    match = DIMENSIONS_LINE.search(prompt)
    if match is None:
        return None
    checks = facts_from_prompt(prompt)
    if not checks:
        envelope = envelope_from_text(prompt)
        if envelope is None:
            return None
        checks = run_checks(validate_envelope(envelope, "prompt"))
    dimensions = [d.strip() for d in match.group(1).split(",") if d.strip()]
    verdict, _ = checks_verdict(checks)
    return render_text_answer(dimension_scores(checks, dimensions, settings), verdict)
