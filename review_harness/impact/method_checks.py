"""The checks that depend on the method (checks table, model type by model type), over one
reading of the artifact (readings.py):

- diagnostics by meaning: every diagnostic the artifact reports that the table understands is
  checked against its threshold (a permutation p-value as inference, where small supports the
  effect); a sample ratio and a first-stage F are computed when the parts are reported;
- what the method needs (`needs`): a need the artifact does not report is a major gap (caution);
  a difference-in-differences with one pre-period is a two-wave design whose parallel trends
  cannot be tested (caution, not failure);
- non-randomised groups that already differ before treatment;
- time in periods: the pre-period against the method's minimum, the post-period against how far
  the method may project, the seasonal cycle of the frequency (stated, inferred from dates, or
  unknown and then not assessed), the analysis run after the post-period ended, and whether the
  observations add up (one series: pre + post periods; a panel: units x periods);
- counts of zero, the method's parameters, and the diagnostics the table does not understand.

No Inspect import."""

from __future__ import annotations

import datetime as dt

from review_harness.impact.artifact import parse_date
from review_harness.impact.statistics import FIT, RIGOR, check, fmt, reported_p, srm_p_value
from review_harness.impact.models import ConsistencyCheck
from review_harness.impact.readings import Reading
from review_harness.impact.table import Diagnostic, expression, fold_name
from review_harness.impact.words import verdict_of

COUNT_FIELDS = ("n_observations", "treatment_n", "control_n", "pre_period_length", "post_period_length", "n_units")


# --- diagnostics by meaning ------------------------------------------------------------------

def _by_leaf(reading: Reading, *leaves: str, prefix: str | None = None) -> tuple[float, str] | None:
    """A value whose folded name ends with one of `leaves` (under `prefix` when given)."""
    wanted = [fold_name(leaf) for leaf in leaves]
    for key, value in reading.values.items():
        folded = fold_name(key)
        if prefix and not folded.startswith(fold_name(prefix) + "_"):
            continue
        for leaf in wanted:
            if folded == leaf or folded.endswith("_" + leaf):
                return value, key
    return None


def _first_stage_f(reading: Reading) -> tuple[float, str, list[str]] | None:
    t = _by_leaf(reading, "t_stat", "t", "t_value", "tstat", prefix="first_stage")
    if t is not None:
        return t[0] ** 2, f"the square of the first stage's t {fmt(t[0])} (one instrument)", [t[1]]
    coef = _by_leaf(reading, "coefficient", "coef", "estimate", prefix="first_stage")
    se = _by_leaf(reading, "std_error", "standard_error", "se", "std_err", "bse", prefix="first_stage")
    if coef is not None and se is not None and se[0] > 0:
        t_value = coef[0] / se[0]
        return (t_value ** 2, f"the square of the first stage's t = {fmt(coef[0])} / {fmt(se[0])} = "
                f"{fmt(t_value)} (one instrument)", [coef[1], se[1]])
    return None


SPLIT_NAMES = ("treatment_share", "planned_split", "expected_split", "split", "allocation", "traffic_split")


def _split_texts(reading: Reading) -> list[tuple[str, str]]:
    """(name, text) of every planned split the artifact writes as text."""
    parts = [reading.artifact.model_params, reading.artifact.diagnostics]
    return [(key, value.strip()) for part in parts for key, value in part.items()
            if isinstance(value, str) and fold_name(key.rsplit(".", 1)[-1]) in SPLIT_NAMES]


def _written_split(reading: Reading) -> tuple[float, str, str] | None:
    """An equal split written as text ('50/50', '50-50'): the treatment share is 1/arms. An unequal
    one ('40/60') does not say which arm is which, so it is not used."""
    import re

    for key, value in _split_texts(reading):
        shares = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", value)]
        if len(shares) >= 2 and len(set(shares)) == 1 and re.fullmatch(r"[\d.\s/:%-]+", value):
            return 1 / len(shares), f"the planned split {value!r} ({key})", key
    return None


def _planned_share(reading: Reading) -> tuple[float | None, str, list[str]]:
    """The planned treatment share, what states it, and the fields that do: a number, a split
    written as text, the design's words, and only then the split the method's label assumes."""
    share = reading.values.get("treatment_share")
    if share is not None:
        share = share / 100 if share > 1 else share
        if 0 < share < 1:
            return share, f"the planned share {fmt(share)}", [reading.written("treatment_share")]
    written = _written_split(reading)
    if written is not None:
        return written[0], written[1], [written[2]]
    plans = reading.said.get("plan", [])
    plan = next((p for p in plans if p.value is not None), None)
    if plan is not None:
        return plan.value, f"the planned share {fmt(plan.value)} the design states in words ({plan.evidence})", [plan.field]
    if plans:  # the design says the split was not equal, without the share: nothing to assume
        return None, f"the design's words say the split was not equal but not the share ({plans[0].evidence})", [plans[0].field]
    if reading.spec.planned_share is not None:
        return reading.spec.planned_share, (f"the {fmt(reading.spec.planned_share)} split this method assumes when no "
                                            "treatment_share is stated"), []
    return None, "", []


def _sample_ratio(reading: Reading, d: Diagnostic) -> ConsistencyCheck | None:
    treated, control = reading.values.get("treatment_n"), reading.values.get("control_n")
    if treated is None or control is None:
        return None
    share, said, stated_by = _planned_share(reading)
    arms = f"treatment_n {fmt(treated)} and control_n {fmt(control)}"
    if share is None:
        texts = _split_texts(reading)
        why = (f"the planned split {texts[0][1]!r} ({texts[0][0]}) does not say which arm is the treatment "
               "(state treatment_share)" if texts else said or "no planned split (treatment_share) is stated")
        # information: what the method needs is the sample ratio or balance, and that need says the gap
        return check("sample_ratio", d.dimension, None, severity="minor", topic=d.topic, fields=["treatment_n", "control_n"],
                     message=f"arms of {fmt(treated)} and {fmt(control)}, but {why}, so the sample ratio cannot be "
                     "tested: unequal arms are not by themselves a mismatch")
    p = srm_p_value(treated, control, share)
    if p is None:
        return None
    ok = p >= (d.at_least or 0)
    return check("sample_ratio", d.dimension, ok, topic=d.topic, failing=d.on_fail,
                 fields=["treatment_n", "control_n", *stated_by],
                 message=f"{d.describe} {fmt(p)} (chi-square of {arms} against {said}) is "
                 f"{'' if ok else 'not '}{d.threshold.text()}" + ("" if ok else ": the assignment or the logging is "
                                                                  "broken, so no metric of this experiment can be trusted"))


def _permutation(reading: Reading, d: Diagnostic, value: float, name: str) -> ConsistencyCheck:
    found = _by_leaf(reading, "n_placebos", "n_permutations") or _by_leaf(reading, "n_donors")
    derived = ""
    if found is None and reading.spec.time == "panel" and reading.values.get("n_units", 0) >= 2 \
            and "permutation_inference" in reading.spec.inference:
        # one treated unit: every other unit is a donor, and each donor is one placebo
        found = (reading.values["n_units"] - 1, reading.written("n_units"))
        derived = f" ({found[1]} {fmt(found[0] + 1)} less the treated unit)"
    alpha = reading.table.significance_level
    fields = [name, *([found[1]] if found else [])]
    attainable = ""
    minimum = None
    if found and found[0] >= 1:
        minimum = 1 / (found[0] + 1)
        attainable = (f"; with {fmt(found[0])} placebos{derived} the smallest attainable p is 1/{fmt(found[0] + 1)} = "
                      f"{fmt(minimum)}")
        if minimum > alpha:
            attainable += f", so no result of this design can fall below {fmt(alpha)}"
    supports = value <= alpha or (minimum is not None and value <= minimum * 1.05)
    if supports:
        return check("permutation_inference", d.dimension, True, topic=d.topic, fields=fields,
                     message=f"{d.describe}: {name} {fmt(value)}{attainable}: the treated unit's gap is more extreme "
                     "than the placebo units', which supports the effect")
    other = reported_p(reading)
    if other is not None and other[0] < alpha:
        return check("permutation_inference", d.dimension, False, failing="warn", topic=d.topic, fields=fields,
                     message=f"{d.describe}: {name} {fmt(value)}{attainable}: the placebo gaps are as large as the "
                     f"treated unit's, while {other[1]} {fmt(other[0])} calls the effect significant: the two "
                     "inferences disagree")
    return check("permutation_inference", d.dimension, True, topic=d.topic, fields=fields,
                 message=f"{d.describe}: {name} {fmt(value)}{attainable}: the effect is not distinguishable from the "
                 "placebo gaps (a result of no detectable effect)")


def _threshold_check(meaning: str, d: Diagnostic, value: float, source: str, fields: list[str],
                     context: str = "") -> ConsistencyCheck:
    threshold = d.threshold
    assert threshold is not None
    ok = threshold.holds(value)
    fatal = d.fatal is not None and not d.fatal.holds(value)
    status = "fail" if fatal else d.on_fail
    text = f"{d.describe} {fmt(value)} ({source}) is {'' if ok else 'not '}{threshold.text()}"
    if fatal:
        text += f", nor {d.fatal.text()}"  # type: ignore[union-attr]
    return check(meaning, d.dimension, ok, text + context, topic=d.topic, failing=status, fields=fields)


def diagnostic(reading: Reading, meaning: str) -> ConsistencyCheck | None:
    """The check of one diagnostic the artifact reports or lets compute (None when absent)."""
    d = reading.table.diagnostics[meaning]
    found = reading.diagnostic(meaning)
    if found is not None and found.value is None:
        return check(meaning, d.dimension, None, severity="minor", topic=d.topic, fields=[found.name],
                     message=f"{found.name} is reported as {found.raw!r}, not a number: {d.describe} not checked")
    if found is not None:
        assert found.value is not None
        if d.inference:
            return _permutation(reading, d, found.value, found.name)
        context = ""
        if d.compute == "srm" and reading.has("treatment_n", "control_n"):
            context = (f" (arms: treatment_n {fmt(reading.values['treatment_n'])}, control_n "
                       f"{fmt(reading.values['control_n'])})")
            recomputed = _sample_ratio(reading, d)
            if recomputed is not None and recomputed.status == "fail":
                # the arms as reported contradict the reported test: the arms are the evidence
                return recomputed.model_copy(update={"message": recomputed.message + f"; the reported {found.name} "
                                                     f"{fmt(found.value)} does not match these arms"})
        return _threshold_check(meaning, d, found.value, found.name, [found.name], context)
    if d.compute == "srm":
        return _sample_ratio(reading, d)
    if d.compute == "first_stage_f":
        computed = _first_stage_f(reading)
        if computed is not None:
            return _threshold_check(meaning, d, computed[0], computed[1], computed[2])
    if d.expression:
        expr = expression(d.expression)
        value = expr.evaluate(reading.values)
        if value is not None:
            shown = " ".join(f"{f} {fmt(reading.values[f])}" for f in expr.fields)
            return _threshold_check(meaning, d, value, f"{d.expression}, with {shown}",
                                    [reading.written(f) for f in expr.fields])
    return None


def words_check(reading: Reading, meaning: str, numeric: ConsistencyCheck | None) -> ConsistencyCheck | None:
    """What the artifact's words say about a diagnostic, as a check quoting them. Without a number
    the words decide; beside a number they can only add a failure the number did not show (words
    never relax a numeric check). A gap before treatment given in words is weighed against the
    effect as the numbers' pre-treatment gap is."""
    statement = verdict_of(reading.said.get(meaning, []))
    if statement is None:
        return None
    d = reading.table.diagnostics[meaning]
    if numeric is not None and numeric.status != "not_available":
        if numeric.status != "pass" or statement.holds is not False:
            return None
    quote = f"{statement.evidence}"
    ident = meaning if numeric is None or numeric.status == "not_available" else f"{meaning}_in_words"
    if statement.holds is None:
        return check(ident, d.dimension, None, severity="minor", topic=d.topic, fields=[statement.field],
                     message=f"{d.describe}: named in words ({quote}), but its result cannot be read from them")
    if statement.what == "gap":
        effect = abs(reading.artifact.contract.effect_estimate)
        share = reading.table.plausibility.pre_gap_share
        gap = statement.value or 0.0
        unit = f" {statement.unit}" if statement.unit else ""
        said = (f"{d.describe}: the words report a divergence before treatment of {fmt(gap)}{unit} ({quote}) "
                f"against the estimated effect {fmt(effect)}")
        if gap >= effect:
            return check(ident, d.dimension, False, topic=d.topic, fields=[statement.field],
                         message=said + ": as large as the effect, so the groups' own trends could produce all of it")
        if gap >= share * effect:
            return check(ident, d.dimension, False, failing="warn", topic=d.topic, fields=[statement.field],
                         message=said + f": at least {fmt(share)} of the effect, so their trends could produce much of it")
        return check(ident, d.dimension, True, topic=d.topic, fields=[statement.field],
                     message=said + ": small beside the effect")
    if statement.what == "chance":
        return check(ident, d.dimension, True, topic=d.topic, fields=[statement.field],
                     message=f"{d.describe}: the words report {fmt(statement.value)} of {statement.out_of} tests "
                     f"failing ({quote}), as many as chance alone gives at the 5% level")
    if statement.value is not None and d.threshold is not None:
        found = _threshold_check(meaning, d, statement.value, f"the {statement.what} the words give, {quote}",
                                 [statement.field])
        return found.model_copy(update={"id": ident})
    # a failure in words with no number to place it: the table's words_fail, else the diagnostic's own
    status = "pass" if statement.holds else (d.words_fail or d.on_fail)
    return check(ident, d.dimension, statement.holds, topic=d.topic, fields=[statement.field], failing=status,
                 message=f"{d.describe}: reported in words as {'passing' if statement.holds else 'failing'} ({quote})")


def _two_waves(reading: Reading) -> bool:
    return reading.values.get("pre_period_length") == 1


def _parallel_trends_untestable(reading: Reading) -> ConsistencyCheck:
    d = reading.table.diagnostics["parallel_trends"]
    periods = reading.time.given or "period"
    return check("parallel_trends", d.dimension, False, failing="warn", topic="two-wave designs, parallel trends",
                 fields=["pre_period_length"],
                 message=f"one pre-period and {fmt(reading.values.get('post_period_length'))} after (a two-wave "
                 f"design in {periods}s): parallel trends cannot be tested, so the estimate rests on the assumption "
                 "that the groups would have moved alike")


def _describe_need(reading: Reading, name: str) -> str:
    if name in reading.table.diagnostics:
        return reading.table.diagnostics[name].describe
    return {"pre_treatment_gap": "the groups' outcome (or covariates) before treatment"}.get(name, name)


def diagnostics(reading: Reading) -> list[ConsistencyCheck]:
    spec = reading.spec
    needed = {name for group in spec.need_groups for name in group}
    expected = [name for group in spec.diagnostic_groups for name in group]
    out: dict[str, ConsistencyCheck] = {}
    # words are read for the diagnostics the method expects or needs (a fit named in a DiD's notes is
    # not a synthetic control's)
    for meaning in dict.fromkeys([*expected, *reading.diagnostics, *(n for n in needed if n in reading.table.diagnostics)]):
        found = diagnostic(reading, meaning)
        said = words_check(reading, meaning, found)
        if said is not None and said.id != meaning:
            out[said.id] = said
        elif said is not None and (found is None or said.status != "not_available"):
            found = said
        if found is None and meaning == "parallel_trends" and _two_waves(reading):
            found = _parallel_trends_untestable(reading)
        if found is not None:
            out[meaning] = found
    if "pre_treatment_gap" in needed:
        gap = pre_treatment_gap(reading)
        if gap is not None:
            out["pre_treatment_gap"] = gap
    for group in spec.need_groups:
        if any(out.get(name) is not None and out[name].status != "not_available" for name in group):
            continue
        first = group[0]
        said = next((out[n] for n in group if out.get(n) is not None), None)
        what = " or ".join(_describe_need(reading, n) for n in group)
        message = (f"{reading.method} needs {what}; " + (said.message if said else "none is reported"))
        d = reading.table.diagnostics.get(first)
        out[said.id if said else first] = check(said.id if said else first, d.dimension if d else FIT, None,
                                                topic=d.topic if d else "selection bias", message=message,
                                                fields=said.fields if said else [])
    for group in spec.diagnostic_groups:
        if any(name in out or name in needed for name in group):
            continue
        d = reading.table.diagnostics[group[0]]
        what = " or ".join(reading.table.diagnostics[n].describe for n in group)
        out[group[0]] = check(group[0], d.dimension, None, severity="minor", topic=d.topic,
                              message=f"no {what} is reported")
    return list(out.values())


# --- groups that differ before treatment -----------------------------------------------------

def pre_treatment_gap(reading: Reading) -> ConsistencyCheck | None:
    """Non-randomised groups compared after treatment: a difference they had before treatment
    is attributed to the intervention."""
    v = reading.values
    effect = reading.artifact.contract.effect_estimate
    share = reading.table.plausibility.pre_gap_share
    covariates = []
    for key in v:
        folded = fold_name(key)
        if folded.endswith("_treated_mean") and (folded.startswith("balance_") or folded.startswith("covariate_balance_")):
            other = key[: -len("treated_mean")] + "control_mean"
            if other in v:
                t, c = v[key], v[other]
                rel = abs(t - c) / max(abs(t), abs(c), 1e-12)
                covariates.append((rel, key.rsplit(".", 1)[0].split(".", 1)[-1], t, c, [key, other]))
    covariates.sort(reverse=True)
    listed = "; ".join(f"{name} {fmt(t)} vs {fmt(c)} ({rel:.0%} apart)" for rel, name, t, c, _ in covariates[:3])
    fields = [f for *_, fs in covariates[:3] for f in fs]
    if reading.has("treated_pre_mean", "control_pre_mean"):
        t, c = v["treated_pre_mean"], v["control_pre_mean"]
        gap = t - c
        rel = abs(gap) / max(abs(t), abs(c), 1e-12)
        fields += ["treated_pre_mean", "control_pre_mean"]
        base = (f"before treatment the groups' outcome was {fmt(t)} (treated) and {fmt(c)} (comparison), a gap of "
                f"{fmt(gap)} against the estimated effect {fmt(effect)}") + (f"; covariates: {listed}" if listed else "")
        if abs(gap) >= abs(effect) and rel >= 0.1:
            return check("pre_treatment_gap", FIT, False, topic="selection bias", fields=fields,
                         message=base + ": the groups differed by as much before the intervention, so an unadjusted "
                         "comparison attributes a pre-existing difference to it")
        if abs(gap) >= share * abs(effect) and rel >= 0.05:
            return check("pre_treatment_gap", FIT, False, failing="warn", topic="selection bias", fields=fields,
                         message=base + ": a pre-existing difference of this size could explain much of the estimate")
        return check("pre_treatment_gap", FIT, True, base, topic="selection bias", fields=fields)
    if covariates:
        worst = covariates[0][0]
        return check("pre_treatment_gap", FIT, worst <= 0.25, failing="warn", topic="selection bias", fields=fields,
                     message=f"pre-treatment covariates of the groups: {listed}"
                     + ("" if worst <= 0.25 else ": the groups differ before treatment"))
    return None


# --- time and counts -------------------------------------------------------------------------

def _periods(reading: Reading, n: float) -> str:
    t = reading.time
    unit = t.frequency if t.status in ("stated", "inferred") else (t.given if t.status == "named" else None)
    return f"{fmt(n)} {unit} periods" if unit else f"{fmt(n)} periods"


def time_checks(reading: Reading) -> list[ConsistencyCheck]:
    spec, v, time = reading.spec, reading.values, reading.time
    shape = spec.time
    if shape == "cross_section":
        return []
    out: list[ConsistencyCheck] = []
    n_pre, n_post = v.get("pre_period_length"), v.get("post_period_length")
    calendar = time.status in ("stated", "inferred")
    timed = shape in ("series", "panel")  # every check of time is listed, run or not
    if timed:
        if time.status == "unknown":
            out.append(check("frequency", FIT, None, severity="minor", topic="pre-period",
                             message=f"the frequency is {time.label}: periods are counted, but checks in days and "
                             "seasonal cycles are not assessed (no daily data is assumed)"))
        else:
            out.append(check("frequency", FIT, True, f"frequency: {time.label}", topic="pre-period",
                             fields=["frequency"] if time.given else []))
    limits = spec.min_pre_periods
    needs_pre = shape == "series" or limits is not None
    if n_pre is None:
        if needs_pre:
            out.append(check("pre_period_length", FIT, None, topic="pre-period",
                             message=f"pre_period_length is not reported: {reading.method} needs "
                             + (f"at least {fmt(limits.warn or limits.fail)} pre-periods" if limits and (limits.warn or limits.fail)
                                else "a pre-period long enough to fit its counterfactual")))
    elif limits is not None:
        said = _periods(reading, n_pre)
        if limits.fail is not None and n_pre < limits.fail:
            out.append(check("pre_period_length", FIT, False, topic="pre-period", fields=["pre_period_length"],
                             message=f"a pre-period of {said}: {reading.method} cannot fit its counterfactual on fewer "
                             f"than {fmt(limits.fail)}"))
        elif limits.warn is not None and n_pre < limits.warn:
            out.append(check("pre_period_length", FIT, False, failing="warn", topic="pre-period",
                             fields=["pre_period_length"], message=f"a pre-period of {said}: short for {reading.method} "
                             f"(fewer than {fmt(limits.warn)})"))
        else:
            out.append(check("pre_period_length", FIT, True, topic="pre-period", fields=["pre_period_length"],
                             message=f"a pre-period of {said}; {reading.method} needs at least "
                             f"{fmt(limits.warn or limits.fail)}"))
    projection = spec.max_post_to_pre
    if projection is not None and not (n_pre and n_post is not None):
        out.append(check("post_to_pre_ratio", FIT, None, severity="minor", topic="pre-period",
                         message="how far the counterfactual is projected cannot be checked: pre_period_length and "
                         "post_period_length are needed"))
    elif projection is not None and n_pre and n_post is not None:
        ratio = n_post / n_pre
        said = (f"the post-period ({fmt(n_post)}) is {fmt(round(ratio, 2))} times the pre-period ({fmt(n_pre)}); "
                f"{reading.method} projects its counterfactual ")
        fields = ["pre_period_length", "post_period_length"]
        if projection.fail is not None and ratio > projection.fail:
            out.append(check("post_to_pre_ratio", FIT, False, topic="pre-period", fields=fields,
                             message=said + f"reliably at most {fmt(projection.warn or projection.fail)} times the "
                             f"pre-period ahead; beyond {fmt(projection.fail)} times it is mostly extrapolation"))
        elif projection.warn is not None and ratio > projection.warn:
            out.append(check("post_to_pre_ratio", FIT, False, failing="warn", topic="pre-period", fields=fields,
                             message=said + f"reliably at most {fmt(projection.warn)} times the pre-period ahead"))
        else:
            out.append(check("post_to_pre_ratio", FIT, True, topic="pre-period", fields=fields,
                             message=said + f"at most {fmt(projection.warn or projection.fail)} times the pre-period ahead"))
    if timed:
        out += _executed(reading, n_post, calendar)
    if spec.seasonality:
        out.append(_seasonality(reading, n_pre, n_post) if n_pre is not None else check(
            "seasonality", FIT, None, severity="minor", topic="seasonality",
            message="whether the pre-period covers a yearly cycle cannot be checked: pre_period_length is not reported"))
    counted = counts_add_up(reading)
    if counted is not None:
        out.append(counted)
    elif timed:
        out.append(check("counts_add_up", RIGOR, None, severity="minor", topic="observations",
                         message="whether the observations add up cannot be checked: n_observations, pre_period_length "
                         "and post_period_length are not reported"))
    return out


def _executed(reading: Reading, n_post: float | None, calendar: bool) -> list[ConsistencyCheck]:
    start_raw = reading.artifact.model_params.get("intervention_date")
    if start_raw is None or n_post is None:
        missing = " and ".join(n for n, v in (("intervention_date", start_raw), ("post_period_length", n_post))
                               if v is None)
        return [check("executed_after_post_period", FIT, None, severity="minor", topic="pre-period",
                      message=f"whether the analysis ran after the post-period ended cannot be checked: {missing} "
                      "not reported")]
    if not calendar:
        return [check("executed_after_post_period", FIT, None, severity="minor", topic="pre-period",
                      message=f"the post-period of {_periods(reading, n_post)} cannot be placed in days (frequency "
                      f"{reading.time.label}), so whether the analysis ran after it ended is not assessed")]
    start = parse_date(reading.artifact.source, "model_params.intervention_date", start_raw)
    days = reading.time.days or 1
    end = start + dt.timedelta(days=round(n_post * days))
    if reading.artifact.executed_at is None:
        return [check("executed_after_post_period", FIT, None, severity="minor", topic="pre-period",
                      message=f"the post period ends {end.isoformat()}; executed_at is not reported")]
    executed = dt.datetime.fromisoformat(reading.artifact.executed_at).date()
    return [check("executed_after_post_period", FIT, executed >= end, topic="pre-period",
                  fields=["intervention_date", "post_period_length", "executed_at", "frequency"],
                  message=f"post period of {_periods(reading, n_post)} from {start.isoformat()} ends {end.isoformat()}; "
                  f"executed_at {executed.isoformat()}")]


CONTROL_SERIES = ("covariates", "control_series", "controls", "predictors", "regressors")


def _seasonality(reading: Reading, n_pre: float, n_post: float | None) -> ConsistencyCheck:
    """The pre-period covers the cycle the post-period can meet: the yearly one when the post-period
    runs past one season, the shorter one (daily data: the week) within it; adjusted for, or
    carried by control series, it need not."""
    params, diags = reading.artifact.model_params, reading.artifact.diagnostics
    time = reading.time
    fields = ["pre_period_length", "frequency"]
    if time.season is None:
        return check("seasonality", FIT, None, severity="minor", topic="seasonality",
                     message=f"whether the pre-period of {_periods(reading, n_pre)} covers a yearly cycle is not "
                     f"assessed: the frequency is {time.label}")
    if time.season <= 1:
        return check("seasonality", FIT, True, severity="minor", topic="seasonality", fields=fields,
                     message=f"{time.frequency} data: no cycle within a year to cover")
    adjusted = params.get("seasonality_adjusted") is True or diags.get("seasonality_adjusted") is True
    controls = next((k for k in CONTROL_SERIES if params.get(k) not in (None, "", [], {})), None)
    within = n_post is not None and time.days is not None and n_post * time.days <= reading.table.within_season
    cycle, name = ((time.short_season, "weekly") if within and time.short_season else (time.season, "yearly"))
    if within and not time.short_season:
        return check("seasonality", FIT, True, severity="minor", topic="seasonality", fields=[*fields, "post_period_length"],
                     message=f"a post-period of {_periods(reading, n_post or 0)} stays within one season")
    covered = n_pre >= cycle
    message = (f"pre-period of {_periods(reading, n_pre)} " + ("covers" if covered else "is shorter than")
               + f" a {name} cycle of {cycle}"
               + (f" (the post-period of {_periods(reading, n_post or 0)} stays within one season)" if within else ""))
    if not covered and (adjusted or controls):
        return check("seasonality", FIT, True, severity="minor", topic="seasonality", fields=fields,
                     message=message + ("; seasonality is adjusted for" if adjusted
                                        else f"; its control series ({controls}) carry the season"))
    return check("seasonality", FIT, covered, severity="minor", topic="seasonality", failing="warn", fields=fields,
                 message=message + ("" if covered else "; seasonality is not adjusted for"))


def counts_add_up(reading: Reading) -> ConsistencyCheck | None:
    """The observations against the periods (and units): one series counts pre + post periods, a
    panel units x periods (fewer when unbalanced), a table of changes one row per unit."""
    v = reading.values
    n, pre, post, units = (v.get(k) for k in ("n_observations", "pre_period_length", "post_period_length", "n_units"))
    if n is None or pre is None or post is None:
        missing = [k for k, x in (("n_observations", n), ("pre_period_length", pre), ("post_period_length", post)) if x is None]
        if len(missing) == 3:
            return None
        return check("counts_add_up", RIGOR, None, severity="minor", topic="observations",
                     message=f"whether the observations add up cannot be checked: {', '.join(missing)} not reported")
    periods = pre + post
    fields = ["n_observations", "pre_period_length", "post_period_length", *(["n_units"] if units else [])]
    said = f"n_observations {fmt(n)} against {fmt(pre)} + {fmt(post)} = {fmt(periods)} periods"
    if n == periods:
        return check("counts_add_up", RIGOR, True, said + ": one series", topic="observations", fields=fields)
    if units:
        said += f" and {fmt(units)} units"
        if n == units * periods:
            return check("counts_add_up", RIGOR, True, said + f": {fmt(units)} x {fmt(periods)}, a balanced panel",
                         topic="observations", fields=fields)
        if n == units:
            return check("counts_add_up", RIGOR, True, said + ": one observation per unit", topic="observations",
                         fields=fields)
        if reading.spec.time != "series" and n < units * periods:
            return check("counts_add_up", RIGOR, True, said + f": fewer than {fmt(units * periods)}, an unbalanced panel",
                         topic="observations", fields=fields)
        return check("counts_add_up", RIGOR, False, said + f": neither {fmt(periods)}, {fmt(units)} nor "
                     f"{fmt(units * periods)}", topic="observations", fields=fields)
    if periods and n % periods == 0:
        k = n / periods
        if reading.spec.time == "panel":
            return check("counts_add_up", RIGOR, True, said + f": consistent with {fmt(k)} units x {fmt(periods)} periods",
                         topic="observations", fields=fields)
        return check("counts_add_up", RIGOR, False, failing="warn", topic="observations", fields=fields,
                     message=said + f": {fmt(k)} times the periods, as if {fmt(k)} series were pooled; n_units is not "
                     "reported")
    if reading.spec.time == "panel":
        return check("counts_add_up", RIGOR, None, severity="minor", topic="observations", fields=fields,
                     message=said + ": a panel's count depends on its units, which are not reported")
    return check("counts_add_up", RIGOR, False, said + ": they do not add up", topic="observations", fields=fields)


def observations(reading: Reading) -> list[ConsistencyCheck]:
    zero = [k for k in COUNT_FIELDS if reading.values.get(k) == 0]
    if not zero:
        return []
    return [check("observations", RIGOR, False, topic="observations", fields=[reading.written(k) for k in zero],
                  message=f"{', '.join(reading.written(k) for k in zero)} {'is' if len(zero) == 1 else 'are'} 0: no "
                  "estimate can come from no observations")]


# --- parameters and names --------------------------------------------------------------------

def parameters(reading: Reading) -> list[ConsistencyCheck]:
    spec, artifact = reading.spec, reading.artifact
    if not spec.params:
        return []
    params, table = artifact.model_params, reading.table
    missing = [k for k in spec.params if params.get(k) in (None, "", [])]
    if not params and artifact.shape != "envelope":
        return [check("model_params_fit", FIT, None, severity="minor", topic="model choice",
                      message=f"{reading.method} needs {', '.join(spec.params)}; the {artifact.shape} carries no "
                      "model parameters, so they cannot be checked")]
    said = f"{reading.method} needs {', '.join(spec.params)}; "
    if not missing:
        return [check("model_params_fit", FIT, True, said + "all are given", topic="model choice")]
    folded = {fold_name(k) for k in [*reading.values, *artifact.diagnostics]}
    shown = {k: [e for e in table.param_evidence.get(k, []) if fold_name(e) in folded] for k in missing}
    absent = [k for k in missing if not shown[k] and k not in table.describing_params]
    if absent:
        return [check("model_params_fit", FIT, False, topic="model choice",
                      message=said + f"model_params lack {', '.join(missing)}, and no reported number shows "
                      f"{', '.join(absent)}: the method was not estimated as labelled")]
    unnamed = [k for k in missing if k in table.describing_params]
    if unnamed:
        return [check("model_params_fit", FIT, False, failing="warn", topic="model choice",
                      message=said + f"model_params lack {', '.join(missing)}: the result does not say what it "
                      "measured")]
    evidence = "; ".join(f"{k} (shown by {', '.join(v)})" for k, v in shown.items())
    return [check("model_params_fit", FIT, None, severity="minor", topic="model choice",
                  message=said + f"model_params do not name {evidence}")]


def names_understood(reading: Reading) -> list[ConsistencyCheck]:
    read_fields = {s.field.split(".", 1)[-1] for said in reading.said.values() for s in said}
    described = [d for d in reading.described if d not in read_fields]
    if not reading.unknown and not described and not reading.instructions:
        return []
    parts = []
    if reading.unknown:
        parts.append(f"not understood: {', '.join(reading.unknown)} (the checks table gives these names no meaning, "
                     "so they were not used; a table entry under checks.diagnostics.<meaning>.names teaches it)")
    if described:
        parts.append(f"given in words that name no check's result, read by the reviewer but not checked: "
                     f"{', '.join(described)}")
    if reading.instructions:
        parts.append("text addressed to the reviewer, read as data and not followed: "
                     + "; ".join(s.evidence for s in reading.instructions[:3]))
    names = [u.split(" = ")[0] for u in reading.unknown]  # the described ones are text: nothing was read
    return [check("diagnostics_understood", FIT, None if reading.unknown else True, severity="minor", scored=False,
                  topic="diagnostic names", fields=names, message="; ".join(parts))]


def method_checks(reading: Reading) -> list[ConsistencyCheck]:
    return [*observations(reading), *diagnostics(reading), *parameters(reading), *time_checks(reading),
            *names_understood(reading)]

