"""Deterministic consistency checks of one impact artifact, driven by the checks table
(table.py, prompts/impact/checks.yaml): the method's arithmetic identities, the interval and the
p-value (with the p-value the interval implies, for every method that reports an interval), the
size of the effect, the counts, the method's parameters, pre-period, timing and seasonality, and
the diagnostics the method should report. They are given to the reviewer as facts, decide the
verdict (verdict.py), and the offline reviewer scores from them. Each message names the numbers.

Statuses: ``fail`` is a fatal inconsistency, ``warn`` a warning, ``not_available`` an input the
artifact does not report (``major`` when a reviewer must weigh its absence), ``pass``.
No Inspect import: the impact pipeline uses these without the harness.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping

from review_harness.impact.artifact import parse_date
from review_harness.impact.models import CheckStatus, ConsistencyCheck, ImpactArtifact
from review_harness.impact.table import ChecksTable, Diagnostic, Expression, ModelType, default_table

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
           topic: str | None = None, failing: CheckStatus = "fail") -> ConsistencyCheck:
    status = "not_available" if ok is None else ("pass" if ok else failing)
    return ConsistencyCheck(id=id, dimension=dimension, status=status, severity=severity, message=message, topic=topic)


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


def implied_p_value(estimate: float, lower: float, upper: float, ci_level: float) -> float | None:
    """Two-sided p-value of a normal estimate whose interval is [lower, upper] (its standard error
    is the interval's width over 2 z); None for an empty or reversed interval."""
    se = (upper - lower) / (2 * _z_for(ci_level))
    if se <= 0:
        return None
    return math.erfc(abs(estimate) / se / math.sqrt(2))


def artifact_implied_p(artifact: ImpactArtifact, table: ChecksTable | None = None) -> float | None:
    c = artifact.contract
    if c.ci_lower is None or c.ci_upper is None:
        return None
    return implied_p_value(c.effect_estimate, c.ci_lower, c.ci_upper, (table or default_table()).ci_level)


def srm_p_value(treated: float, control: float, share: float) -> float | None:
    """Chi-square test (1 df) of the arms' counts against the planned treatment share."""
    total = treated + control
    if total <= 0:
        return None
    expected_t, expected_c = total * share, total * (1 - share)
    chi2 = (treated - expected_t) ** 2 / expected_t + (control - expected_c) ** 2 / expected_c
    return math.erfc(math.sqrt(chi2 / 2))


def numbers(artifact: ImpactArtifact) -> dict[str, float]:
    """Every number of the artifact by field name: estimates, summary, numeric parameters and
    diagnostics (nested diagnostics by dotted name)."""
    out: dict[str, float] = {}
    for part in (artifact.model_params, artifact.diagnostics, artifact.model_summary, artifact.impact_estimates):
        for key, value in part.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                out[key] = float(value)
    return out


def _substituted(expr: Expression, values: Mapping[str, float]) -> str:
    """`a - b` with the values of a and b written in."""
    return re.sub(r"[A-Za-z_][A-Za-z0-9_.]*", lambda m: fmt(values[m.group(0)]) if m.group(0) in values else m.group(0),
                  expr.text)


def _identity(id: str, dimension: str, value: Expression, equals: Expression, values: Mapping[str, float],
              table: ChecksTable) -> ConsistencyCheck:
    missing = [f for f in [*value.fields, *equals.fields] if f not in values]
    if missing:
        return _check(id, dimension, None, severity="minor",
                      message=f"{value} = {equals} cannot be checked: {', '.join(dict.fromkeys(missing))} not reported")
    got, expected = value.evaluate(values), equals.evaluate(values)
    if got is None or expected is None:
        return _check(id, dimension, None, severity="minor",
                      message=f"{value} = {equals} cannot be checked: a division by zero")
    if equals.fields == [str(equals)]:  # one field equals another
        message = f"{value} is {fmt(got)}; {equals} is {fmt(expected)}"
    else:
        message = f"{equals} = {_substituted(equals, values)} = {fmt(expected)}; {value} is {fmt(got)}"
    return _check(id, dimension, table.tolerance.agree(got, expected), message)


def _diagnostic(id: str, d: Diagnostic, artifact: ImpactArtifact, values: Mapping[str, float]) -> ConsistencyCheck | None:
    name = next((f for f in d.fields if f in values), None)
    value: float | None = values[name] if name else None
    source = name or ""
    if value is None and d.expression:
        expr = Expression(d.expression)
        value = expr.evaluate(values)
        source = f"{d.expression} = {_substituted(expr, values)}" if value is not None else ""
    if value is None and d.compute == "srm":
        treated = values.get("treatment_n")
        control = values.get("control_n")
        share = values.get("treatment_share", d.expected_share or 0.5)
        if treated is not None and control is not None and 0 < share < 1:
            value = srm_p_value(treated, control, share)
            source = (f"chi-square of treatment_n {fmt(treated)} and control_n {fmt(control)} against a planned "
                      f"share of {fmt(share)}")
    if value is None:
        if d.missing == "skip":
            return None
        reported = next((f for f in d.fields if f in artifact.diagnostics), None)
        why = (f"{reported} is reported as {artifact.diagnostics[reported]!r}, not a number" if reported
               else f"no {d.describe} is reported")
        return _check(id, d.dimension, None, severity=d.missing, topic=d.topic, message=why)
    ok = d.holds(value)
    return _check(id, d.dimension, ok, topic=d.topic, failing=d.on_fail,
                  message=f"{d.describe} {fmt(value)} ({source}) is {'' if ok else 'not '}{d.threshold()}")


def _effect_size(artifact: ImpactArtifact, spec: ModelType, values: Mapping[str, float], table: ChecksTable) -> ConsistencyCheck:
    effect = artifact.contract.effect_estimate
    n = artifact.contract.sample_size
    baseline = next((f for f in spec.baseline if values.get(f)), None)
    if baseline:
        rel = abs(effect / values[baseline] * 100)
        basis = f"{fmt(effect)} against {baseline} {fmt(values[baseline])}"
    elif "percent_change" in values:
        rel = abs(values["percent_change"])
        basis = "the reported percent_change"
    else:
        return _check("effect_size", PLAUSIBILITY, None, severity="minor",
                      message=f"the size of the effect {fmt(effect)} cannot be judged: no baseline level "
                      f"({', '.join(spec.baseline) or 'none'}) or percent_change is reported")
    plaus = table.plausibility
    sample = "an unreported number of" if n is None else fmt(n)
    if n is not None and n < plaus.small_sample and rel > plaus.large_percent_change:
        return _check("effect_size", PLAUSIBILITY, False,
                      f"a {fmt(rel)}% change ({basis}) estimated from {n} observations: above "
                      f"{fmt(plaus.large_percent_change)}% with fewer than {plaus.small_sample} observations is implausible")
    if rel > plaus.extreme_percent_change:
        return _check("effect_size", PLAUSIBILITY, False, failing="warn",
                      message=f"a {fmt(rel)}% change ({basis}) is above {fmt(plaus.extreme_percent_change)}%, "
                      "extreme for most metrics")
    return _check("effect_size", PLAUSIBILITY, True,
                  f"a {fmt(rel)}% change ({basis}) from {sample} observations is within the plausible range")


def _uncertainty(artifact: ImpactArtifact, table: ChecksTable) -> list[ConsistencyCheck]:
    c = artifact.contract
    effect, lower, upper, p = c.effect_estimate, c.ci_lower, c.ci_upper, c.p_value
    checks: list[ConsistencyCheck] = []
    level = f"{table.ci_level:.0%}"
    if lower is None or upper is None:
        checks.append(_check("ci_reported", RIGOR, None,
                             message="no interval is reported for the estimate" + (
                                 f" (only the p-value {fmt(p)})" if p is not None else ": no uncertainty is reported at all")))
    else:
        if lower > upper:
            checks.append(_check("ci_order", RIGOR, False, f"ci_lower {fmt(lower)} is above ci_upper {fmt(upper)}"))
        contains = lower <= effect <= upper
        checks.append(_check(
            "ci_contains_estimate", RIGOR, contains,
            f"the interval [{fmt(lower)}, {fmt(upper)}] " + ("contains" if contains else "does not contain")
            + f" the estimate {fmt(effect)}"))
    implied = artifact_implied_p(artifact, table) if lower is not None and upper is not None and lower <= upper else None
    implied_text = f" (the interval implies p of about {fmt(implied)})" if implied is not None else ""
    if p is None:
        checks.append(_check("p_value_reported", RIGOR, None,
                             "p_value is not reported: significance rests on the interval alone" + implied_text
                             if lower is not None else "p_value is not reported"))
    elif lower is not None and upper is not None:
        alpha = table.significance_level
        excludes_zero = lower > 0 or upper < 0
        checks.append(_check(
            "p_value_matches_ci", RIGOR, (p < alpha) == excludes_zero,
            f"p_value {fmt(p)} is {'below' if p < alpha else 'at or above'} {fmt(alpha)} while the {level} interval "
            f"[{fmt(lower)}, {fmt(upper)}] {'excludes' if excludes_zero else 'includes'} zero" + implied_text))
    return checks


def _frequency(artifact: ImpactArtifact, table: ChecksTable) -> tuple[str, str]:
    given = artifact.model_params.get("frequency")
    if isinstance(given, str) and given in table.frequencies:
        return given, given
    return table.default_frequency, f"{table.default_frequency} (frequency not reported; {table.default_frequency} assumed)"


def _design(artifact: ImpactArtifact, spec: ModelType, name: str, values: Mapping[str, float],
            table: ChecksTable) -> list[ConsistencyCheck]:
    checks: list[ConsistencyCheck] = []
    params = artifact.model_params
    if spec.params:
        missing = [k for k in spec.params if params.get(k) in (None, "", [])]
        if not params and artifact.shape != "envelope":
            checks.append(_check("model_params_fit", FIT, None, severity="minor",
                                 message=f"{name} needs {', '.join(spec.params)}; the {artifact.shape} carries no "
                                 "model parameters, so they cannot be checked"))
        else:
            checks.append(_check(
                "model_params_fit", FIT, not missing,
                f"{name} needs {', '.join(spec.params)}; "
                + (f"model_params lack {', '.join(missing)}" if missing else "all are given")))
    frequency, said = _frequency(artifact, table)
    n_pre, n_post = values.get("pre_period_length"), values.get("post_period_length")
    minimum = spec.min_pre_period.get(frequency)
    if minimum is not None:
        if n_pre is None:
            checks.append(_check("pre_period_length", FIT, None, severity="minor",
                                 message=f"pre_period_length is not reported; {name} needs at least {minimum} {frequency} observations"))
        else:
            checks.append(_check(
                "pre_period_length", FIT, n_pre >= minimum,
                f"pre_period_length {fmt(n_pre)} {said} observations; {name} needs at least {minimum}"))
    if spec.max_post_to_pre is not None and n_pre and n_post is not None:
        ratio = n_post / n_pre
        checks.append(_check(
            "post_to_pre_ratio", FIT, ratio <= spec.max_post_to_pre, failing="warn",
            message=f"the post-period ({fmt(n_post)}) is {fmt(round(ratio, 2))} times the pre-period ({fmt(n_pre)}); "
            f"{name} projects its counterfactual at most {fmt(spec.max_post_to_pre)} times the pre-period ahead"))
    start_raw = params.get("intervention_date")
    if start_raw is not None and n_post is not None:
        start = parse_date(artifact.source, "model_params.intervention_date", start_raw)
        end = start + dt.timedelta(days=round(n_post * table.days_per_period[frequency]))
        if artifact.executed_at is None:
            checks.append(_check("executed_after_post_period", FIT, None, severity="minor",
                                 message=f"the post period ends {end.isoformat()}; executed_at is not reported"))
        else:
            executed = dt.datetime.fromisoformat(artifact.executed_at).date()
            checks.append(_check(
                "executed_after_post_period", FIT, executed >= end,
                f"post period of {fmt(n_post)} {frequency} observations from {start.isoformat()} ends {end.isoformat()}; "
                f"executed_at {executed.isoformat()}"))
    if spec.seasonality and n_pre is not None:
        season = table.season_length[frequency]
        adjusted = params.get("seasonality_adjusted") is True or artifact.diagnostics.get("seasonality_adjusted") is True
        covered = n_pre >= season or adjusted
        checks.append(_check(
            "seasonality", FIT, covered, severity="minor", topic="seasonality", failing="warn",
            message=f"pre-period of {fmt(n_pre)} {frequency} observations "
            + ("covers" if n_pre >= season else "is shorter than") + f" a yearly cycle of {season}"
            + ("; seasonality is adjusted for" if adjusted else "; seasonality is not adjusted for")))
    return checks


def run_checks(artifact: ImpactArtifact, table: ChecksTable | None = None) -> list[ConsistencyCheck]:
    """The checks of the artifact's model type (the generic ones, and a warning, for a type the
    table does not know), ordered by dimension."""
    table = table or default_table()
    resolved = table.resolve(artifact.model_type)
    spec = table.spec(artifact.model_type)
    name = resolved or artifact.model_type
    values = numbers(artifact)
    checks: list[ConsistencyCheck] = []
    if resolved is None:
        checks.append(_check(
            "model_type_known", FIT, False, failing="warn",
            message=f"model type {artifact.model_type!r} is not in the checks table "
            f"({', '.join(table.model_type_names)}): only the generic checks ran"))
    elif resolved != artifact.model_type:
        checks.append(_check("model_type_known", FIT, True,
                             f"model type {artifact.model_type!r} is checked as {resolved}"))
    for ident in spec.identities:
        d = table.identities[ident]
        checks.append(_identity(ident, d.dimension, Expression(d.value), Expression(d.equals), values, table))
    checks.append(_effect_size(artifact, spec, values, table))
    checks += _uncertainty(artifact, table)
    for diag in spec.diagnostics:
        found = _diagnostic(diag, table.diagnostics[diag], artifact, values)
        if found is not None:
            checks.append(found)
    checks += _design(artifact, spec, name, values, table)
    order = {PLAUSIBILITY: 0, RIGOR: 1, FIT: 2}
    return sorted(checks, key=lambda c: order.get(c.dimension, 3))


def render_facts(checks: list[ConsistencyCheck]) -> str:
    """The checks as the facts block of the prompt, one line each."""
    return "\n".join(
        f"- [{c.status.upper()}] {c.id} ({c.dimension}, {c.severity}): {c.message}" for c in checks
    ) or "- (no checks)"
