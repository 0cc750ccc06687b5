"""Deterministic consistency checks of one impact artifact: the arithmetic, the interval and
the p-value, the counts, the timing and the fit of the model type. They are given to the
reviewer as facts, and the offline reviewer scores from them. Each message names the numbers.

Checks with a ``topic`` rest on a methodology note of the knowledge base (autocorrelation,
seasonality, placebo tests): the offline reviewer applies them only when that note was
retrieved into the prompt.
"""

from __future__ import annotations

import datetime as dt
import math

from review_harness.impact.artifact import parse_date
from review_harness.impact.config import ImpactSettings, default_settings
from review_harness.impact.models import ConsistencyCheck, ImpactArtifact

PLAUSIBILITY = "estimate_plausibility"
RIGOR = "statistical_rigor"
FIT = "methodology_fit"


def fmt(x: float | int | None) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, int) or float(x).is_integer():
        return f"{x:,.0f}" if abs(x) >= 10_000 else f"{x:g}"
    return f"{x:.4g}" if abs(x) < 1 else f"{x:,.2f}".rstrip("0").rstrip(".")


def _check(id: str, dimension: str, ok: bool | None, message: str, *, severity: str = "major",
           topic: str | None = None, failing: str = "fail") -> ConsistencyCheck:
    status = "not_available" if ok is None else ("pass" if ok else failing)
    return ConsistencyCheck(id=id, dimension=dimension, status=status, severity=severity, message=message, topic=topic)


def implied_p_value(estimate: float, lower: float, upper: float, ci_level: float) -> float | None:
    """Two-sided p-value of a normal estimate whose symmetric interval is [lower, upper]."""
    z_crit = _z_for(ci_level)
    se = (upper - lower) / (2 * z_crit)
    if se <= 0:
        return None
    return math.erfc(abs(estimate) / se / math.sqrt(2))


def _z_for(level: float) -> float:
    # inverse normal by bisection (stdlib only, exact enough for a check)
    target = 1 - (1 - level) / 2
    lo, hi = 0.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def run_checks(artifact: ImpactArtifact, settings: ImpactSettings | None = None) -> list[ConsistencyCheck]:
    s = settings or default_settings()
    tol = s.tolerance
    est = artifact.impact_estimates
    summ = artifact.model_summary
    params = artifact.model_params
    effect, pre, post = est["intervention_effect"], est["pre_intervention_mean"], est["post_intervention_mean"]
    absolute, percent = est["absolute_change"], est["percent_change"]
    lower, upper, p = est["ci_lower"], est["ci_upper"], est["p_value"]
    n, n_pre, n_post = summ["n_observations"], summ["pre_period_length"], summ["post_period_length"]
    assert effect is not None and pre is not None and post is not None and absolute is not None
    assert percent is not None and lower is not None and upper is not None
    checks: list[ConsistencyCheck] = []

    # --- estimate plausibility: the arithmetic of the estimates and the size of the effect
    diff = post - pre
    checks.append(_check(
        "post_minus_pre", PLAUSIBILITY, tol.agree(diff, absolute),
        f"post_intervention_mean - pre_intervention_mean = {fmt(post)} - {fmt(pre)} = {fmt(diff)}; "
        f"absolute_change is {fmt(absolute)}"))
    checks.append(_check(
        "effect_equals_change", PLAUSIBILITY, tol.agree(effect, absolute),
        f"intervention_effect is {fmt(effect)}; absolute_change is {fmt(absolute)}"))
    if pre == 0:
        checks.append(_check("percent_change", PLAUSIBILITY, None,
                             f"pre_intervention_mean is 0: percent_change {fmt(percent)} cannot be checked"))
    else:
        expected = absolute / pre * 100
        checks.append(_check(
            "percent_change", PLAUSIBILITY, tol.agree(expected, percent),
            f"absolute_change / pre_intervention_mean x 100 = {fmt(absolute)} / {fmt(pre)} x 100 = {fmt(expected)}%; "
            f"percent_change is {fmt(percent)}%"))
    rel = abs(effect / pre * 100) if pre else abs(percent)
    plaus = s.plausibility
    if n < plaus.small_sample and rel > plaus.large_percent_change:
        checks.append(_check(
            "effect_size", PLAUSIBILITY, False,
            f"a {fmt(rel)}% change estimated from {n} observations: above {fmt(plaus.large_percent_change)}% "
            f"with fewer than {plaus.small_sample} observations is implausible"))
    elif rel > plaus.extreme_percent_change:
        checks.append(_check(
            "effect_size", PLAUSIBILITY, False, severity="minor",
            message=f"a {fmt(rel)}% change is above {fmt(plaus.extreme_percent_change)}%, extreme for most metrics"))
    else:
        checks.append(_check("effect_size", PLAUSIBILITY, True,
                             f"a {fmt(rel)}% change from {n} observations is within the plausible range"))

    # --- statistical rigor: interval, significance, counts, residuals
    if lower > upper:
        checks.append(_check("ci_order", RIGOR, False, f"ci_lower {fmt(lower)} is above ci_upper {fmt(upper)}"))
    contains = lower <= effect <= upper
    checks.append(_check(
        "ci_contains_estimate", RIGOR, contains,
        f"the interval [{fmt(lower)}, {fmt(upper)}] " + ("contains" if contains else "does not contain")
        + f" the estimate {fmt(effect)}"))
    alpha = s.significance_level
    if p is None:
        checks.append(_check("p_value_reported", RIGOR, None,
                             "p_value is not reported: significance rests on the interval alone"))
    else:
        excludes_zero = lower > 0 or upper < 0
        implied = implied_p_value(effect, lower, upper, s.ci_level) if lower <= upper else None
        agrees = (p < alpha) == excludes_zero
        text = (f"p_value {fmt(p)} is {'below' if p < alpha else 'at or above'} {fmt(alpha)} while the "
                f"{s.ci_level:.0%} interval [{fmt(lower)}, {fmt(upper)}] {'excludes' if excludes_zero else 'includes'} zero")
        if implied is not None:
            text += f" (the interval implies p of about {fmt(implied)})"
        checks.append(_check("p_value_matches_ci", RIGOR, agrees, text))
    total = n_pre + n_post
    checks.append(_check(
        "n_equals_periods", RIGOR, n == total,
        f"pre_period_length + post_period_length = {n_pre} + {n_post} = {total}; n_observations is {n}"))
    dw = artifact.diagnostics.get("durbin_watson")
    low_dw, high_dw = s.durbin_watson_band
    if isinstance(dw, (int, float)) and not isinstance(dw, bool):
        checks.append(_check(
            "autocorrelation", RIGOR, low_dw <= dw <= high_dw, topic="autocorrelation",
            message=f"Durbin-Watson {fmt(dw)} is {'inside' if low_dw <= dw <= high_dw else 'outside'} "
            f"[{fmt(low_dw)}, {fmt(high_dw)}]"))
    elif artifact.model_type in s.min_pre_period:
        checks.append(_check("autocorrelation", RIGOR, None, severity="minor", topic="autocorrelation",
                             message="no Durbin-Watson or other residual autocorrelation diagnostic is reported"))

    # --- methodology fit: parameters, pre-period, timing, seasonality, placebo
    needed = s.model_requirements.get(artifact.model_type, [])
    missing = [k for k in needed if params.get(k) in (None, "", [])]
    checks.append(_check(
        "model_params_fit", FIT, not missing,
        f"{artifact.model_type} needs {', '.join(needed)}; "
        + (f"model_params lack {', '.join(missing)}" if missing else "all are given")))
    frequency = str(params.get("frequency", s.default_frequency))
    minimum = s.min_pre_period.get(artifact.model_type, {}).get(frequency)
    if minimum is not None:
        checks.append(_check(
            "pre_period_length", FIT, n_pre >= minimum,
            f"pre_period_length {n_pre} {frequency} observations; {artifact.model_type} needs at least {minimum}"))
    if "intervention_date" in params:
        start = parse_date(artifact.source, "data.model_params.intervention_date", params["intervention_date"])
        end = start + dt.timedelta(days=round(n_post * s.days_per_period[frequency]))
        executed = dt.datetime.fromisoformat(artifact.executed_at).date()
        checks.append(_check(
            "executed_after_post_period", FIT, executed >= end,
            f"post period of {n_post} {frequency} observations from {start.isoformat()} ends {end.isoformat()}; "
            f"executed_at {executed.isoformat()}"))
    if "intervention_date" in params and artifact.model_type not in s.seasonality_controlled_by_design:
        season = s.season_length[frequency]
        adjusted = params.get("seasonality_adjusted") is True or artifact.diagnostics.get("seasonality_adjusted") is True
        covered = n_pre >= season or adjusted
        checks.append(_check(
            "seasonality", FIT, covered, severity="minor", topic="seasonality", failing="warn",
            message=f"pre-period of {n_pre} {frequency} observations "
            + ("covers" if n_pre >= season else "is shorter than") + f" a yearly cycle of {season}"
            + ("; seasonality is adjusted for" if adjusted else "; seasonality is not adjusted for")))
    placebo = artifact.diagnostics.get("placebo_p_value")
    if isinstance(placebo, (int, float)) and not isinstance(placebo, bool):
        checks.append(_check(
            "placebo_test", FIT, placebo >= alpha, topic="placebo",
            message=f"placebo test p-value {fmt(placebo)} "
            + (f"finds no effect where none should be (>= {fmt(alpha)})" if placebo >= alpha
               else f"finds an effect where none should be (< {fmt(alpha)})")))
    else:
        checks.append(_check("placebo_test", FIT, None, severity="minor", topic="placebo",
                             message="no placebo (falsification) test is reported"))
    return checks


def render_facts(checks: list[ConsistencyCheck]) -> str:
    """The checks as the facts block of the prompt, one line each."""
    return "\n".join(
        f"- [{c.status.upper()}] {c.id} ({c.dimension}, {c.severity}): {c.message}" for c in checks
    ) or "- (no checks)"
