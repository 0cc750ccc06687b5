"""The short markdown report that is the sample's answer."""

from __future__ import annotations

from review_harness.impact.models import ImpactReview


VERDICT_MEANING = {
    "usable": "no check raises a problem",
    "caution": "usable with the warnings below",
    "unusable": "a fatal inconsistency: do not act on these results",
}


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_report(review: ImpactReview) -> str:
    r = review.result
    c = review.confidence
    lines = [
        f"# {review.verdict.upper()}: impact results review of {r.initiative_id}",
        "",
        f"**Verdict: {review.verdict}** ({VERDICT_MEANING[review.verdict]})"
        + (f" · decided by {', '.join(review.verdict_reasons)}" if review.verdict_reasons else "")
        + (f" · the reviewer said {review.model_verdict}" if review.model_verdict else ""),
        "",
        f"**Overall {_score(r.overall_score)}** (mean of {len(r.dimensions)} dimension(s); status {review.status}) · "
        f"deterministic confidence {c.score:.2f} (band {c.low:.2f}-{c.high:.2f} for {c.model_type}) · "
        + (f"interval-implied p {review.implied_p_value:.2g} · " if review.implied_p_value is not None else "") +
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
