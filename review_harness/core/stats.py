"""Small statistics the offline rule engines need, in plain Python (no SciPy in the install)."""

from __future__ import annotations

import math


def _upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a): a series below a + 1, a continued fraction above
    (Numerical Recipes, gammq)."""
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(500):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    b = x + 1 - a
    c = 1 / 1e-300
    d = 1 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for a chi-squared variable with `df` degrees of freedom."""
    if df < 1:
        raise ValueError("df must be at least 1")
    if statistic <= 0:
        return 1.0
    if df == 1:
        return math.erfc(math.sqrt(statistic / 2))
    return _upper_gamma_regularized(df / 2, statistic / 2)


def chi_square_p(observed: list[float], shares: list[float]) -> float:
    """Goodness of fit of counts to planned shares (a sample-ratio check): the p-value of the
    chi-squared statistic with len(observed) - 1 degrees of freedom."""
    if len(observed) != len(shares) or len(observed) < 2:
        raise ValueError("need two or more counts and one planned share per count")
    total = sum(observed)
    norm = sum(shares)
    statistic = sum((o - total * s / norm) ** 2 / (total * s / norm) for o, s in zip(observed, shares))
    return chi_square_sf(statistic, len(observed) - 1)
