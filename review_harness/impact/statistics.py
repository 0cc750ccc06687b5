"""Statistics and the shape of a check, shared by the impact checks (checks.py, method_checks.py):
the check constructor, number formatting, normal quantiles and p-values, the sample-ratio test, and
the p-value an artifact reports (a one-sided tail doubled). No Inspect import."""

from __future__ import annotations

import math

from review_harness.impact.models import CheckStatus, ConsistencyCheck
from review_harness.impact.readings import Reading

PLAUSIBILITY = "estimate_plausibility"
RIGOR = "statistical_rigor"
FIT = "methodology_fit"
DIMENSION_ORDER = {PLAUSIBILITY: 0, RIGOR: 1, FIT: 2}


def fmt(x: float | int | None) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, int) or float(x).is_integer():
        return f"{x:,.0f}" if abs(x) >= 10_000 else f"{x:g}"
    return f"{x:.4g}" if abs(x) < 1 else f"{x:,.2f}".rstrip("0").rstrip(".")


def check(id: str, dimension: str, ok: bool | None, message: str, *, severity: str = "major",
          topic: str | None = None, failing: CheckStatus = "fail", fields: list[str] | None = None,
          scored: bool = True) -> ConsistencyCheck:
    status = "not_available" if ok is None else ("pass" if ok else failing)
    return ConsistencyCheck(id=id, dimension=dimension, status=status, severity=severity, message=message, topic=topic,
                            fields=list(dict.fromkeys(fields or [])), scored=scored)


# --- statistics ------------------------------------------------------------------------------

def normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2))


def z_for(level: float) -> float:
    """The normal quantile of a two-sided interval of `level` (bisection: stdlib only)."""
    target = 1 - (1 - level) / 2
    lo, hi = 0.0, 40.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if normal_cdf(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def z_of_p(p: float) -> float:
    """The |z| of a two-sided p-value (p clipped into (1e-300, 1])."""
    p = min(max(p, 1e-300), 1.0)
    if p >= 1:
        return 0.0
    lo, hi = 0.0, 40.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if math.erfc(mid / math.sqrt(2)) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def p_of_z(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def implied_p_value(estimate: float, lower: float, upper: float, ci_level: float) -> float | None:
    """Two-sided p-value of a normal estimate whose interval is [lower, upper] (its standard error
    is the interval's width over 2 z); None for an empty or reversed interval."""
    se = (upper - lower) / (2 * z_for(ci_level))
    if se <= 0:
        return None
    return p_of_z(estimate / se)


def srm_p_value(treated: float, control: float, share: float) -> float | None:
    """Chi-square test (1 df) of the arms' counts against the planned treatment share."""
    total = treated + control
    if total <= 0:
        return None
    expected_t, expected_c = total * share, total * (1 - share)
    chi2 = (treated - expected_t) ** 2 / expected_t + (control - expected_c) ** 2 / expected_c
    return math.erfc(math.sqrt(chi2 / 2))


def reported_p(reading: Reading) -> tuple[float, str] | None:
    """The two-sided p-value the artifact reports, and how it was read (a one-sided tail
    probability is doubled; a posterior probability of an effect is 1 minus the tail)."""
    if reading.has("p_value"):
        return reading.values["p_value"], reading.written("p_value")
    if reading.has("p_value_one_sided"):
        p = reading.values["p_value_one_sided"]
        return min(1.0, 2 * p), f"twice the one-sided {reading.written('p_value_one_sided')} {fmt(p)}"
    if reading.has("posterior_probability"):
        prob = reading.values["posterior_probability"]
        prob = prob / 100 if prob > 1 else prob
        return min(1.0, 2 * (1 - prob)), f"twice 1 - {reading.written('posterior_probability')} {fmt(prob)}"
    return None
