"""The offline reviewer of impact results: it reads the artifact back out of the prompt, runs
the consistency checks itself, applies the knowledge-base rules whose notes were retrieved into
the prompt, and answers in the seed's text format with scores computed from what failed.

score(dimension) = max(score_floor, 1 - sum of the penalties of its checks), penalties by status
and severity from prompts/impact/config.yaml. A dimension no rule covers (a custom template's)
gets the mean of the covered ones, and says so.
"""

from __future__ import annotations

import re

from review_harness.impact.artifact import envelope_from_text, validate_envelope
from review_harness.impact.checks import run_checks
from review_harness.impact.config import ImpactSettings, default_settings
from review_harness.impact.models import ConsistencyCheck

DIMENSIONS_LINE = re.compile(r"^Dimensions to score:\s*(.+)$", re.MULTILINE)
KNOWLEDGE_HEADING = re.compile(r"^### (.+?) \([^)]*\)\s*$", re.MULTILINE)


def applicable(checks: list[ConsistencyCheck], headings: list[str]) -> list[ConsistencyCheck]:
    """Checks that rest on a methodology note count only when that note is in the prompt."""
    text = " ".join(headings).lower()
    return [c for c in checks if c.topic is None or c.topic in text]


def dimension_scores(
    checks: list[ConsistencyCheck], dimensions: list[str], settings: ImpactSettings
) -> dict[str, tuple[float, str]]:
    covered: dict[str, tuple[float, str]] = {}
    for dim in dimensions:
        own = [c for c in checks if c.dimension == dim]
        if not own:
            continue
        penalty = sum(settings.penalty(c.status, c.severity) for c in own if c.status != "pass")
        score = round(max(settings.score_floor, 1.0 - penalty), 2)
        problems = [c for c in own if c.status != "pass"]
        if problems:
            worst = sorted(problems, key=lambda c: (c.status != "fail", c.severity != "major"))
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


def render_text_answer(scores: dict[str, tuple[float, str]]) -> str:
    lines = []
    for name, (score, why) in scores.items():
        lines += [f"DIMENSION: {name}", f"SCORE: {score:.2f}", f"JUSTIFICATION: {why}", ""]
    overall = sum(s for s, _ in scores.values()) / len(scores) if scores else 0.0
    lines.append(f"OVERALL: {overall:.2f}")
    return "\n".join(lines)


def review_prompt(prompt: str, settings: ImpactSettings | None = None) -> str | None:
    """The text answer to an impact review prompt, or None when the prompt is not one."""
    settings = settings or default_settings()
    match = DIMENSIONS_LINE.search(prompt)
    envelope = envelope_from_text(prompt)
    if match is None or envelope is None:
        return None
    dimensions = [d.strip() for d in match.group(1).split(",") if d.strip()]
    artifact = validate_envelope(envelope, "prompt", settings)
    checks = applicable(run_checks(artifact, settings), KNOWLEDGE_HEADING.findall(prompt))
    return render_text_answer(dimension_scores(checks, dimensions, settings))
