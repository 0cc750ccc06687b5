"""The short markdown report that is the sample's answer."""

from __future__ import annotations

from review_harness.impact.models import ImpactReview


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_report(review: ImpactReview) -> str:
    r = review.result
    c = review.confidence
    lines = [
        f"# Impact results review: {r.initiative_id}",
        "",
        f"**Overall {_score(r.overall_score)}** (mean of {len(r.dimensions)} dimension(s); status {review.status}) · "
        f"deterministic confidence {c.score:.2f} (band {c.low:.2f}-{c.high:.2f} for {c.model_type}) · "
        f"prompt {r.prompt_name} v{r.prompt_version} · {r.backend_name}/{r.model}",
        "",
        "| dimension | score | justification |",
        "|---|---|---|",
    ]
    scored = {d.name: d for d in r.dimensions}
    for name in review.expected_dimensions:
        d = scored.get(name)
        lines.append(f"| {name} | {_score(d.score) if d else '-'} | {d.justification.replace('|', '/') if d else 'not scored'} |")
    problems = [c for c in review.checks if c.status != "pass"]
    if problems:
        lines += ["", "**Checks that raise a problem**", ""]
        lines += [f"- `{c.id}` ({c.dimension}, {c.status.replace('_', ' ')}): {c.message}" for c in problems]
    if review.notes:
        lines += ["", "**Reported**", ""] + [f"- {n}" for n in review.notes]
    if review.warnings:
        lines += ["", "**Warnings**", ""] + [f"- {w}" for w in review.warnings]
    return "\n".join(lines) + "\n"
