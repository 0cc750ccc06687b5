"""Deterministic checks of one impact artifact, driven by the checks table (table.py,
prompts/impact/checks.yaml) over one reading of it (readings.py): the method's arithmetic
identities within the rounding of the numbers as written, the percent change against the basis it
states (or any the method allows), the uncertainty in whatever form it is reported (interval,
standard error, t, p-value, permutation inference) and whether its parts agree, the size of the
effect against its baseline and against the pre-period fit error; then the method's own checks
(method_checks.py: diagnostics by meaning, what the method needs, time and counts). They are given
to the reviewer as facts, decide the verdict (verdict.py), and the offline reviewer scores from
them. Each message names its numbers.

Statuses: ``fail`` is a fatal inconsistency, ``warn`` a weakness, ``not_available`` a check the
artifact does not let run (``major`` when the method needs it), ``pass``.
No Inspect import: the impact pipeline uses these without the harness.
"""

from __future__ import annotations

import math

from review_harness.impact.method_checks import method_checks
from review_harness.impact.models import CheckStatus, ConsistencyCheck, ImpactArtifact
from review_harness.impact.readings import Reading, read
from review_harness.impact.statistics import (  # noqa: F401 - fmt, implied_p_value, srm_p_value, z_for are this module's API too
    DIMENSION_ORDER, FIT, PLAUSIBILITY, RIGOR, check, fmt, implied_p_value, p_of_z, reported_p, srm_p_value, z_for,
    z_of_p,
)
from review_harness.impact.table import ChecksTable, Expression, default_table, expression

def standard_error(reading: Reading) -> tuple[float, str] | None:
    """The estimate's standard error: reported, or from the interval, or from t."""
    v = reading.values
    effect = reading.artifact.contract.effect_estimate
    if v.get("standard_error", 0) > 0:
        return v["standard_error"], f"{reading.written('standard_error')} {fmt(v['standard_error'])}"
    lower, upper = reading.artifact.contract.ci_lower, reading.artifact.contract.ci_upper
    if lower is not None and upper is not None and upper > lower:
        return (upper - lower) / (2 * z_for(reading.ci_level)), f"the {reading.ci_level:.0%} interval"
    if v.get("t_stat"):
        return abs(effect / v["t_stat"]) or math.inf, f"{reading.written('t_stat')} {fmt(v['t_stat'])}"
    return counts_standard_error(reading)


def counts_standard_error(reading: Reading) -> tuple[float, str] | None:
    """Two arms' counts and rates imply the standard error of their difference, when the outcome
    is a share of units (its name says a rate; in percent when it says so): the unpooled
    two-proportion standard error, in the estimate's unit."""
    v = reading.values
    if not reading.has("treatment_n", "control_n", "treatment_mean", "control_mean"):
        return None
    name = str(reading.artifact.model_params.get("dependent_variable") or "").lower()
    words = reading.table.words
    if not any(w in name for w in words.proportion):
        return None
    unit = 100.0 if any(w in name for w in words.percent) else 1.0
    n1, n0 = v["treatment_n"], v["control_n"]
    p1, p0 = v["treatment_mean"] / unit, v["control_mean"] / unit
    if not (0 <= p1 <= 1 and 0 <= p0 <= 1 and n1 > 0 and n0 > 0):
        return None
    se = math.sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0) * unit
    if se <= 0:
        return None
    return se, (f"counts and rates of the arms ({fmt(v['treatment_mean'])} of {fmt(n1)}, {fmt(v['control_mean'])} of "
                f"{fmt(n0)}: a standard error of {fmt(se)} for two proportions)")


def implied_p(reading: Reading) -> float | None:
    """The two-sided p-value the interval (or the standard error, or t) implies."""
    found = standard_error(reading)
    if found is None or not math.isfinite(found[0]):
        return None
    return p_of_z(reading.artifact.contract.effect_estimate / found[0])


def artifact_implied_p(artifact: ImpactArtifact, table: ChecksTable | None = None) -> float | None:
    return implied_p(read(artifact, table or default_table()))


# --- arithmetic ------------------------------------------------------------------------------

def _half(reading: Reading, name: str) -> float:
    return reading.halves.get(name, 0.0)


def _substituted(expr: Expression, reading: Reading) -> str:
    import re

    return re.sub(r"[A-Za-z_][A-Za-z0-9_.]*",
                  lambda m: fmt(reading.values[m.group(0)]) if m.group(0) in reading.values else m.group(0), expr.text)


def _agreement(reading: Reading, got: float, got_half: float, expr: Expression) -> CheckStatus:
    """pass within rounding or the table's tolerance, warn when close, else fail."""
    table = reading.table
    expected = expr.evaluate(reading.values)
    bounds = expr.bounds(reading.values, reading.halves)
    assert expected is not None
    if bounds is not None and bounds[0] - got_half - 1e-12 <= got <= bounds[1] + got_half + 1e-12:
        return "pass"
    if table.tolerance.agree(got, expected):
        return "pass"
    return "warn" if table.tolerance.near(got, expected) else "fail"


def identity(reading: Reading, id: str) -> ConsistencyCheck:
    spec = reading.table.identities[id]
    value, equals = expression(spec.value), expression(spec.equals)
    fields = [*value.fields, *equals.fields]
    written = [reading.written(f) for f in fields if f in reading.values]
    missing = [f for f in fields if f not in reading.values]
    if missing:
        return check(id, spec.dimension, None, severity="minor", fields=written,
                     message=f"{value} = {equals} cannot be checked: {', '.join(dict.fromkeys(missing))} not reported")
    got, expected = value.evaluate(reading.values), equals.evaluate(reading.values)
    if got is None or expected is None:
        return check(id, spec.dimension, None, severity="minor", fields=written,
                     message=f"{value} = {equals} cannot be checked: a division by zero")
    status = _agreement(reading, got, sum(_half(reading, f) for f in value.fields), equals)
    if equals.fields == [str(equals)]:  # one field equals another
        message = f"{value} is {fmt(got)}; {equals} is {fmt(expected)}"
    else:
        message = f"{equals} = {_substituted(equals, reading)} = {fmt(expected)}; {value} is {fmt(got)}"
    if status == "pass" and not reading.table.tolerance.agree(got, expected):
        message += " (within the rounding of the numbers as written)"
    elif status == "warn":
        message += f": close, but beyond the rounding of the numbers (off by {fmt(abs(got - expected))})"
    return check(id, spec.dimension, status == "pass", message, failing="fail" if status == "fail" else "warn",
                 fields=written)


def percent_change(reading: Reading) -> ConsistencyCheck:
    """The percent change against the basis the artifact states, or any basis its method allows."""
    table, spec = reading.table, reading.spec
    if reading.has("percent_change"):
        got, said = reading.values["percent_change"], f"percent_change {fmt(reading.values['percent_change'])}"
        half = _half(reading, "percent_change")
    elif reading.has("relative_effect"):  # a fraction, as CausalImpact reports it
        got = reading.values["relative_effect"] * 100
        said = f"{reading.written('relative_effect')} {fmt(reading.values['relative_effect'])} ({fmt(got)}%)"
        half = _half(reading, "relative_effect") * 100
    else:
        return check("percent_change", PLAUSIBILITY, None, severity="minor", message="no percent_change is reported")
    names = list(spec.percent_bases)
    if reading.basis is not None:
        names = [n for n in table.percent_bases if table.percent_bases[n].basis == reading.basis]
        names.sort(key=lambda n: n not in spec.percent_bases)
    stated = f" (stated against the {reading.basis}: {reading.basis_given!r})" if reading.basis else ""
    if reading.basis_given and reading.basis is None:
        stated = f" (its basis {reading.basis_given!r} is not one the table knows: baseline or counterfactual)"
    candidates = []
    for name in names:
        expr = expression(table.percent_bases[name].equals)
        if all(f in reading.values for f in expr.fields) and expr.evaluate(reading.values) is not None:
            candidates.append((name, expr))
    fields = [reading.written("percent_change" if reading.has("percent_change") else "relative_effect"), *(reading.written(f) for _, e in candidates for f in e.fields)]
    if not candidates:
        need = " or ".join(" and ".join(expression(table.percent_bases[n].equals).fields) for n in names) or "a basis"
        return check("percent_change", PLAUSIBILITY, None, severity="minor", fields=fields,
                     message=f"{said}{stated} cannot be checked: needs {need}")
    results = []
    for name, expr in candidates:
        status = _agreement(reading, got, half, expr)
        basis = table.percent_bases[name].basis
        results.append((status, name, basis, expr, expr.evaluate(reading.values)))
    for status, name, basis, expr, expected in results:
        if status == "pass":
            return check("percent_change", PLAUSIBILITY, True, fields=fields,
                         message=f"{said}{stated} is {expr} = {_substituted(expr, reading)} = "
                         f"{fmt(expected)}, against the {basis}")
    tried = "; ".join(f"against the {basis}: {expr} = {fmt(expected)}" for _, _, basis, expr, expected in results)
    if reading.basis is not None:
        other = [r for r in _other_basis(reading, got, half) if r]
        if other:
            return check("percent_change", PLAUSIBILITY, False, failing="warn", fields=fields,
                         message=f"{said}{stated} does not match {tried}; it is the change "
                         f"against the other basis ({other[0]}): the label is wrong, the number is not")
    near = any(status == "warn" for status, *_ in results)
    return check("percent_change", PLAUSIBILITY, False, failing="warn" if near else "fail", fields=fields,
                 message=f"{said}{stated} matches no basis its method reports against ({tried})"
                 + (": close, beyond rounding" if near else ""))


def _other_basis(reading: Reading, got: float, half: float) -> list[str]:
    table = reading.table
    out = []
    for name, basis in table.percent_bases.items():
        if basis.basis == reading.basis:
            continue
        expr = expression(basis.equals)
        if all(f in reading.values for f in expr.fields) and expr.evaluate(reading.values) is not None:
            if _agreement(reading, got, half, expr) == "pass":
                out.append(f"{expr} = {fmt(expr.evaluate(reading.values))}, against the {basis.basis}")
    return out


# --- size of the effect ----------------------------------------------------------------------

def effect_size(reading: Reading) -> ConsistencyCheck:
    effect = reading.artifact.contract.effect_estimate
    n = reading.artifact.contract.sample_size
    plaus = reading.table.plausibility
    baseline = next((f for f in reading.spec.baseline if reading.values.get(f)), None)
    if baseline:
        rel = abs(effect / reading.values[baseline] * 100)
        basis = f"{fmt(effect)} against {reading.written(baseline)} {fmt(reading.values[baseline])}"
        fields = [reading.written(baseline)]
    elif "percent_change" in reading.values:
        rel = abs(reading.values["percent_change"])
        basis = "the reported percent_change"
        fields = ["percent_change"]
    else:
        return check("effect_size", PLAUSIBILITY, None, severity="minor", topic="effect plausibility",
                     message=f"the size of the effect {fmt(effect)} cannot be judged: no baseline level "
                     f"({', '.join(reading.spec.baseline) or 'none'}) or percent_change is reported")
    times = rel / 100
    if n is not None:
        fields.append(reading.written("n_observations"))
    if n is not None and n < plaus.small_sample and rel > plaus.large_percent_change:
        return check("effect_size", PLAUSIBILITY, False, topic="effect plausibility", fields=fields,
                     message=f"a {fmt(rel)}% change ({basis}) estimated from {n} observations: above "
                     f"{fmt(plaus.large_percent_change)}% with fewer than {plaus.small_sample} observations is not credible")
    if rel > plaus.implausible_percent_change:
        return check("effect_size", PLAUSIBILITY, False, topic="effect plausibility", fields=fields,
                     message=f"a {fmt(rel)}% change ({basis}) makes the outcome {fmt(round(1 + times, 1))} times its "
                     f"baseline: above {fmt(plaus.implausible_percent_change)}%, an intervention rarely moves a metric "
                     "this far; check the units, the baseline and the data")
    if rel > plaus.extreme_percent_change:
        return check("effect_size", PLAUSIBILITY, False, failing="warn", topic="effect plausibility", fields=fields,
                     message=f"a {fmt(rel)}% change ({basis}) is above {fmt(plaus.extreme_percent_change)}%: "
                     "large for most metrics; it needs an intervention that plausibly moves this much")
    sample = "an unreported number of" if n is None else fmt(n)
    return check("effect_size", PLAUSIBILITY, True, topic="effect plausibility", fields=fields,
                 message=f"a {fmt(rel)}% change ({basis}) from {sample} observations is within the plausible range")


def fit_error(reading: Reading) -> ConsistencyCheck | None:
    """The effect against the model's pre-period fit error (the typical gap before the
    intervention): a gap the fit error alone produces is not evidence of an effect."""
    error = reading.values.get("pre_rmspe")
    if error is None or error <= 0:
        return None
    name = reading.written("pre_rmspe")
    shown = f"{name} = {fmt(error)}" if name.startswith("the square root") else f"{name} {fmt(error)}"
    effect = reading.artifact.contract.effect_estimate
    ratio = abs(effect) / error
    multiple = reading.table.plausibility.fit_error_multiple
    fields = [name.split(" ")[-2] if name.startswith("the square root") else name, "intervention_effect"]
    if ratio <= 1:
        return check("effect_vs_fit_error", PLAUSIBILITY, False, topic="synthetic control fit", fields=fields,
                     message=f"the effect {fmt(effect)} is inside the pre-period fit error ({shown}): a gap of this "
                     "size is what the model's misfit alone produces before the intervention, so it is not credible "
                     "evidence of an effect")
    if ratio < multiple:
        return check("effect_vs_fit_error", PLAUSIBILITY, False, failing="warn", topic="synthetic control fit",
                     fields=fields, message=f"the effect {fmt(effect)} is only {fmt(round(ratio, 2))} times the "
                     f"pre-period fit error ({shown}): below {fmt(multiple)} times, misfit could explain much of it")
    return check("effect_vs_fit_error", PLAUSIBILITY, True, topic="synthetic control fit", fields=fields,
                 message=f"the effect {fmt(effect)} is {fmt(round(ratio, 1))} times the pre-period fit error ({shown})")


# --- uncertainty -----------------------------------------------------------------------------

def _p_agreement(reading: Reading, p: float, p_written: str, se: float, se_from: str, se_half: float) -> ConsistencyCheck:
    """A reported p-value against the p its standard error (or interval) implies."""
    table = reading.table
    effect = reading.artifact.contract.effect_estimate
    level = reading.ci_level
    h_p = _half(reading, "p_value") if reading.has("p_value") else 0.0
    # an interval was computed around the unrounded estimate, so its bounds carry the estimate's
    # rounding; with a standard error the estimate's own rounding counts
    h_e = 0.0 if se_from.startswith("the ") else _half(reading, "intervention_effect")
    z_i = abs(effect) / se
    z_lo = max(0.0, (abs(effect) - h_e) / (se + se_half))
    z_hi = (abs(effect) + h_e) / max(se - se_half, 1e-300)
    zr_lo, zr_hi = z_of_p(min(1.0, p + h_p)), z_of_p(max(p - h_p, 0.0))
    z_r = z_of_p(p)
    implied = p_of_z(z_i)
    threshold = 1 - level
    says = p < threshold
    excludes = z_i > z_for(level)
    where = (f"the {level:.0%} interval {'excludes' if excludes else 'includes'} zero" if se_from.startswith("the ")
             else f"the estimate is {fmt(round(z_i, 2))} standard errors ({se_from}) from zero")
    numbers = (f"{p_written} is {'below' if says else 'at or above'} {fmt(1 - level)}; {where}, which implies p of "
               f"about {fmt(implied)} (estimate {fmt(effect)}, standard error {fmt(se)})")
    fields = [reading.written(f) for f in ("p_value", "p_value_one_sided", "posterior_probability", "ci_lower",
                                           "ci_upper", "standard_error", "t_stat") if f in reading.values]
    if zr_lo <= z_hi and z_lo <= zr_hi:
        return check("p_value_matches_ci", RIGOR, True, topic="intervals and significance", fields=fields,
                     message=f"{numbers}: they agree within the rounding of the numbers as written")
    gap = abs(z_r - z_i) / max(z_r, z_i, 1e-9)
    agreement = table.p_value_agreement
    straddle = says != excludes
    level_text = f"the {level:.0%} interval's threshold {fmt(threshold)}"
    if not straddle:
        if gap <= agreement.method:
            return check("p_value_matches_ci", RIGOR, True, topic="intervals and significance", fields=fields,
                         message=f"{numbers}: within what a t-based or asymmetric interval explains")
        if implied < p:
            floor = (f"a p-value this small is usually written at a reporting floor (p < {fmt(p)}), and "
                     if p <= agreement.floor else "")
            return check("p_value_matches_ci", RIGOR, True, topic="intervals and significance", fields=fields,
                         message=f"{numbers}: {floor}the p-value is weaker than the interval (by {gap:.0%} on the z "
                         "scale), conservative as a permutation or exact test is; they agree about significance")
        return check("p_value_matches_ci", RIGOR, False, failing="warn", topic="intervals and significance",
                     fields=fields, message=f"{numbers}: they agree about significance, but the p-value is stronger "
                     f"than the interval allows, by {gap:.0%} on the z scale, more than rounding or a t-based or "
                     "asymmetric interval explains: it overstates the evidence, or was computed another way")
    if gap <= agreement.method:
        return check("p_value_matches_ci", RIGOR, False, failing="warn", topic="intervals and significance",
                     fields=fields, message=f"{numbers}: close (rounding or a t-based interval explains the gap), "
                     f"but they fall on either side of {level_text}, so significance is borderline")
    if gap <= agreement.borderline:
        return check("p_value_matches_ci", RIGOR, False, failing="warn", topic="intervals and significance",
                     fields=fields, message=f"{numbers}: they disagree beyond rounding (by {gap:.0%} on the z scale) "
                     f"and fall on either side of {level_text}, both close to it: significance is borderline")
    return check("p_value_matches_ci", RIGOR, False, topic="intervals and significance", fields=fields,
                 message=f"{numbers}: the p-value and the interval contradict each other about significance, far "
                 f"beyond rounding (by {gap:.0%} on the z scale) and on either side of {level_text}")


def _near(ratio: float, factor: float, band: float) -> bool:
    return ratio > 0 and factor / band <= ratio <= factor * band


def common_scale(reading: Reading) -> ConsistencyCheck | None:
    """Estimate and interval (and standard error) in one unit: a midpoint, or an interval's
    standard error, about 100 times the estimate's (or a hundredth) is the interval in percentage
    points beside an estimate as a fraction (or the reverse). When a p-value is reported, the p the
    rescaled interval implies is shown beside it."""
    c = reading.artifact.contract
    effect, lower, upper = c.effect_estimate, c.ci_lower, c.ci_upper
    if lower is None or upper is None or upper <= lower or not effect:
        return None
    scale = reading.table.scale
    mid, half = (lower + upper) / 2, (upper - lower) / 2
    se_ci = half / z_for(reading.ci_level)
    se = reading.values.get("standard_error")
    rounding = _half(reading, "ci_lower") + _half(reading, "ci_upper") + _half(reading, "intervention_effect")
    for factor in scale.factors:
        for k in (factor, 1 / factor):
            found = []
            if _near(mid / effect, k, scale.band) and abs(mid - effect) > rounding + 0.05 * half:
                found.append(f"the interval's midpoint {fmt(mid)} is {fmt(round(mid / effect, 1))} times the estimate "
                             f"{fmt(effect)}")
            if se and _near(se_ci / se, k, scale.band):
                found.append(f"the interval implies a standard error of {fmt(se_ci)}, {fmt(round(se_ci / se, 1))} "
                             f"times the reported {reading.written('standard_error')} {fmt(se)}")
            if not found:
                continue
            p = reported_p(reading)
            shown = ""
            if p is not None:
                rescaled = p_of_z(effect / (se_ci / k))
                shown = (f"; rescaled by {fmt(1 / k)}, the interval implies p of about {fmt(rescaled)} against the "
                         f"reported {p[1]} {fmt(p[0])}")
            unit = ("likely percentage points (or percent) beside an estimate given as a fraction" if k > 1
                    else "likely a fraction beside an estimate given in percentage points (or percent)")
            return check("common_scale", RIGOR, False, topic="intervals and significance",
                         fields=[reading.written(f) for f in ("ci_lower", "ci_upper", "intervention_effect",
                                                              "standard_error") if f in reading.values],
                         message=f"{'; '.join(found)}{shown}: the interval is in other units than the estimate, "
                         f"{unit}, so the estimate and its uncertainty cannot be read together")
    return None


def uncertainty(reading: Reading) -> list[ConsistencyCheck]:
    c = reading.artifact.contract
    effect, lower, upper = c.effect_estimate, c.ci_lower, c.ci_upper
    checks: list[ConsistencyCheck] = []
    forms = []
    if lower is not None and upper is not None:
        forms.append(f"a {reading.ci_level:.0%} interval [{fmt(lower)}, {fmt(upper)}]"
                     + (f" (level from {reading.ci_level_from})" if reading.ci_level_from else ""))
    if reading.values.get("standard_error"):
        forms.append(f"{reading.written('standard_error')} {fmt(reading.values['standard_error'])}")
    if "t_stat" in reading.values:
        forms.append(f"{reading.written('t_stat')} {fmt(reading.values['t_stat'])}")
    p = reported_p(reading)
    if p is not None:
        forms.append(p[1] if "twice" in p[1] else f"{p[1]} {fmt(p[0])}")
    counted = None if forms else counts_standard_error(reading)
    if counted is not None:
        forms.append(f"implied by {counted[1]}")
    inference = [d for name in reading.spec.inference if (d := reading.diagnostic(name)) and d.value is not None]
    forms += [f"permutation inference {d.name} {fmt(d.value)}" for d in inference]
    fields = [reading.written(f) for f in ("ci_lower", "ci_upper", "standard_error", "t_stat", "p_value",
                                           "p_value_one_sided", "posterior_probability") if f in reading.values]
    fields += [d.name for d in inference]
    if forms:
        checks.append(check("uncertainty_reported", RIGOR, True, topic="intervals and significance", fields=fields,
                            message="the uncertainty of the estimate is reported: " + "; ".join(forms)))
    else:
        checks.append(check("uncertainty_reported", RIGOR, None, topic="intervals and significance",
                            message="no uncertainty is reported: no interval, standard error, t statistic or p-value, "
                            "so whether the effect is distinguishable from zero cannot be judged"))
    if lower is not None and upper is not None:
        if lower > upper:
            checks.append(check("ci_order", RIGOR, False, f"ci_lower {fmt(lower)} is above ci_upper {fmt(upper)}",
                                fields=["ci_lower", "ci_upper"]))
        scaled = common_scale(reading)
        if scaled is not None:
            checks.append(scaled)
        h = _half(reading, "ci_lower") + _half(reading, "intervention_effect")
        contains = lower - h <= effect <= upper + _half(reading, "ci_upper") + _half(reading, "intervention_effect")
        checks.append(check(
            "ci_contains_estimate", RIGOR, contains, fields=["ci_lower", "ci_upper", reading.written("intervention_effect")],
            message=f"the interval [{fmt(lower)}, {fmt(upper)}] " + ("contains" if contains else "does not contain")
            + f" the estimate {fmt(effect)}"))
    se = standard_error(reading)
    if p is not None and se is not None and math.isfinite(se[0]) and se[0] > 0 and (lower is None or upper is None or lower <= upper):
        from_interval = se[1].startswith("the ")
        se_half = ((_half(reading, "ci_lower") + _half(reading, "ci_upper")) / (2 * z_for(reading.ci_level))
                   if from_interval else _half(reading, "standard_error"))
        found = _p_agreement(reading, p[0], f"{p[1]} {fmt(p[0])}" if "twice" not in p[1] else p[1], se[0], se[1],
                             se_half)
        if reading.spec.p_sides == "either" and reading.has("p_value") and found.status != "pass":
            # the method's tools report a one-sided tail under the plain name: read it both ways
            one_sided = _p_agreement(reading, min(1.0, 2 * p[0]), f"twice {p[1]} {fmt(p[0])} (read as one-sided, "
                                     "as this method's tools report it)", se[0], se[1], se_half)
            rank = {"pass": 0, "warn": 1, "fail": 2}
            if rank[one_sided.status] < rank[found.status]:
                found = one_sided
        checks.append(found)
    elif p is None and se is not None and math.isfinite(se[0]):
        implied = p_of_z(effect / se[0]) if se[0] > 0 else None
        checks.append(check("p_value_reported", RIGOR, None, severity="minor", topic="intervals and significance",
                            fields=fields, message="no p-value is reported; significance rests on "
                            f"{se[1]}" + (f", which implies p of about {fmt(implied)}" if implied is not None else "")))
    if reading.values.get("standard_error") and "t_stat" in reading.values:
        t, s = reading.values["t_stat"], reading.values["standard_error"]
        agree = abs(abs(effect / s) - abs(t)) <= max(0.02 * abs(t), 0.01 + _half(reading, "t_stat"))
        checks.append(check("t_matches_se", RIGOR, agree, failing="warn", topic="intervals and significance",
                            fields=[reading.written("t_stat"), reading.written("standard_error")],
                            message=f"estimate / standard error = {fmt(effect)} / {fmt(s)} = {fmt(effect / s)}; "
                            f"{reading.written('t_stat')} is {fmt(t)}"))
    return checks


# --- all checks ------------------------------------------------------------------------------

def run_checks(artifact: ImpactArtifact, table: ChecksTable | None = None) -> list[ConsistencyCheck]:
    """The checks of the artifact's model type (the generic ones, and a warning, for a type the
    table does not know), ordered by dimension."""
    return checks_of(read(artifact, table or default_table()))


def checks_and_implied_p(artifact: ImpactArtifact, table: ChecksTable | None = None
                         ) -> tuple[list[ConsistencyCheck], float | None]:
    """The checks and the p-value the uncertainty implies, from one reading of the artifact."""
    reading = read(artifact, table or default_table())
    return checks_of(reading), implied_p(reading)


def checks_of(reading: Reading) -> list[ConsistencyCheck]:
    artifact, table = reading.artifact, reading.table
    checks: list[ConsistencyCheck] = []
    if reading.resolved is None:
        checks.append(check(
            "model_type_known", FIT, False, failing="warn", topic="model choice",
            message=f"model type {artifact.model_type!r} is not in the checks table "
            f"({', '.join(table.model_type_names)}): only the generic checks ran"))
    elif reading.resolved != artifact.model_type:
        why = ""
        if reading.variant:
            shown = next((s.evidence for s in reading.said.get("design", []) if s.what == reading.variant), None)
            why = f" (a {reading.variant} design: " + (f"the words say so, {shown})" if shown else
                                                       "it reports the jump in the probability of treatment)")
        checks.append(check("model_type_known", FIT, True, f"model type {artifact.model_type!r} is checked as "
                            f"{reading.resolved}{why}", topic="model choice"))
    checks += [identity(reading, ident) for ident in reading.spec.identities]
    checks.append(percent_change(reading))
    checks.append(effect_size(reading))
    found = fit_error(reading)
    if found is not None:
        checks.append(found)
    checks += uncertainty(reading)
    checks += method_checks(reading)
    return sorted(checks, key=lambda c: DIMENSION_ORDER.get(c.dimension, 3))


def render_facts(checks: list[ConsistencyCheck]) -> str:
    """The checks as the facts block of the prompt, one line each."""
    return "\n".join(
        f"- [{c.status.upper()}] {c.id} ({c.dimension}, {c.severity}{'' if c.scored else ', information'}): {c.message}"
        for c in checks
    ) or "- (no checks)"
