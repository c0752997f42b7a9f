"""Confidence intervals over replications: mean ± t(0.975, n-1)·s/√n (Student t).

The t quantile is computed here (no SciPy): the t distribution's CDF through the
regularized incomplete beta function I_x(a, b), evaluated by its continued fraction
(Abramowitz & Stegun 26.5.8, modified Lentz), and inverted by bisection.
"""

from __future__ import annotations

import math


def _beta_continued_fraction(x: float, a: float, b: float) -> float:
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < eps:
            break
    return result


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # The continued fraction converges fast for x < (a+1)/(a+b+2); use symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(1.0 - x, b, a) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (0.5 < p < 1)."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def mean_ci(values: list[float], level: float = 0.95) -> tuple[float, float | None]:
    """The mean of ``values`` and the half-width of its ``level`` confidence interval
    (None with fewer than two values: one replication says nothing about the spread)."""
    clean = [v for v in values if v is not None and not math.isnan(v)]
    n = len(clean)
    if n == 0:
        return math.nan, None
    mean = sum(clean) / n
    if n < 2:
        return mean, None
    variance = sum((v - mean) ** 2 for v in clean) / (n - 1)
    if variance <= (1e-12 * mean) ** 2:  # identical values, up to rounding of the mean
        return mean, 0.0
    return mean, t_quantile(0.5 + level / 2.0, n - 1) * math.sqrt(variance / n)


def difference_ci(a: list[float], b: list[float], level: float = 0.95) -> tuple[float, float | None]:
    """mean(a) − mean(b) and the half-width of its ``level`` confidence interval by
    Welch's t (unequal variances, Welch–Satterthwaite degrees of freedom); None when
    either sample has fewer than two values."""
    a = [v for v in a if v is not None and not math.isnan(v)]
    b = [v for v in b if v is not None and not math.isnan(v)]
    if not a or not b:
        return math.nan, None
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    if len(a) < 2 or len(b) < 2:
        return ma - mb, None
    va = sum((v - ma) ** 2 for v in a) / (len(a) - 1) / len(a)
    vb = sum((v - mb) ** 2 for v in b) / (len(b) - 1) / len(b)
    if va + vb <= (1e-12 * max(abs(ma), abs(mb), 1e-300)) ** 2:
        return ma - mb, 0.0
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return ma - mb, t_quantile(0.5 + level / 2.0, df) * math.sqrt(va + vb)


def mean_ci_text(value: float | None, ci: float | None = None, scale: float = 1.0, missing: str = "-") -> str:
    """A mean and its confidence half-width as a table shows them ("12.3 ± 0.45"),
    ``missing`` where there is no value, the mean alone where there is no interval."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    text = f"{value * scale:.4g}"
    if ci is not None and not (isinstance(ci, float) and math.isnan(ci)):
        text += f" ± {ci * scale:.2g}"
    return text
