"""The short markdown report that is the sample's answer."""

from __future__ import annotations

from review_harness.impact.models import ImpactReview


VERDICT_MEANING = {
    "usable": "no check raises a problem",
    "caution": "usable with the reservations below",
    "unreviewed": "the reviewer failed, so nobody read these results: do not act on them before a review",
    "unusable": "a fatal inconsistency: do not act on these results",
}


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_report(review: ImpactReview) -> str:
    r = review.result
    c = review.confidence
    overall = f"**Overall {_score(r.overall_score)}**" + (
        f" ({review.overall_cap})" if review.overall_cap else f" (mean of {len(r.dimensions)} dimension(s))")
    lines = [
        f"# {review.verdict.upper()}: impact results review of {r.initiative_id}",
        "",
        f"**Verdict: {review.verdict}** ({VERDICT_MEANING[review.verdict]})"
        + (f" · decided by {', '.join(review.verdict_reasons)}" if review.verdict_reasons else "")
        + (f" · the reviewer said {review.model_verdict}" if review.model_verdict else ""),
        "",
        f"{overall} · status {review.status}"
        + (f" ({review.status_reason})" if review.status_reason else "") + " · "
        + (f"evidence coverage {review.evidence_coverage:.0%} of the method's checks ran · "
           if review.evidence_coverage is not None else "")
        + f"method confidence {c.score:.2f} (the band {c.low:.2f}-{c.high:.2f} of {c.model_type}, from the method "
        "alone) · "
        + (f"interval-implied p {review.implied_p_value:.2g} · " if review.implied_p_value is not None else "")
        + f"prompt {r.prompt_name} v{r.prompt_version} · {r.backend_name}/{r.model}",
        "",
        "| dimension | score | justification |",
        "|---|---|---|",
    ]
    scored = {d.name: d for d in r.dimensions}
    for name in review.expected_dimensions:
        d = scored.get(name)
        lines.append(f"| {name} | {_score(d.score) if d else '-'} | {d.justification.replace('|', '/') if d else 'not scored'} |")
    problems = [c for c in review.checks if c.status in ("fail", "warn")]
    if problems:
        lines += ["", "**Checks that raise a problem**", ""]
        lines += [f"- `{c.id}` ({c.dimension}, {c.status}): {c.message}" for c in problems]
    missing = [c for c in review.checks if c.status == "not_available"]
    if missing:
        lines += ["", "**Not assessed** (what the artifact did not let the checks see)", ""]
        lines += [f"- `{c.id}` ({c.dimension}, {'needed' if c.severity == 'major' and c.scored else 'optional'}): "
                  f"{c.message}" for c in missing]
    if review.notes:
        lines += ["", "**Reported**", ""] + [f"- {n}" for n in review.notes]
    if review.warnings:
        lines += ["", "**Warnings**", ""] + [f"- {w}" for w in review.warnings]
    return "\n".join(lines) + "\n"
