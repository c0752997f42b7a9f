"""The kinds of conclusion a study can check, each a small generic rule over the
per-point summary of one sweep (mean of a metric per point). A study names the kind
and its arguments in its study.toml; nothing here knows any particular study.

Kinds:

* ``optimum`` — per group (``by``), the ``x`` that maximises ``y`` (``method =
  "argmax"``) or the smallest ``x`` whose ``y`` reaches ``knee_fraction`` of the
  group's maximum (``"knee"``: where the curve reaches its plateau) is within
  ``tolerance`` of the expected value (a number or a [low, high] range) for each group.
* ``rise`` — ``y`` at ``x = high`` is at least ``min_ratio`` times ``y`` at ``x = low``.
* ``flat_after`` — for ``x ≥ after``, (max - min) / max of ``y`` is at most ``max_spread``.
* ``ratio_to_best`` — ``y`` at ``x = at`` is at least ``min_ratio`` times ``y`` at the
  point that maximises ``best_by``.
* ``best_beats`` — the best ``y`` over the sweep is at least ``min_ratio`` times ``y``
  of the ``other`` sweep, group by group.
* ``measure_ratio`` — one measured quantity divided by another (each a table row's
  column at one point, as in ``[[published]]``, averaged over replications) lies in
  [``min``, ``max``]; ``sweep`` is shared by both unless given in them.
* ``measure_difference`` — as ``measure_ratio``, with ``a − b`` (divided by ``scale``,
  default 1) in [``min``, ``max``].
* ``ratio_change`` — two ``measure_ratio``-style ratios, ``first`` and ``second`` (each
  with ``a`` and ``b``); ``second`` divided by ``first`` lies in [``min``, ``max``]
  (e.g. "the gap shrinks as delay grows": max 1).
* ``compare`` — the mean of ``y`` over the points matching ``a`` divided by the mean
  over the points matching ``b`` lies in [``min``, ``max``].
* ``value`` — the mean of ``y`` over the points matching ``where``, divided by
  ``scale`` (default 1), lies in [``min``, ``max``]; or, with ``of`` (a measured
  quantity as in ``measure_ratio``: ``where``, ``table``, ``row``, ``column``), that
  quantity divided by ``scale``.
* ``extreme`` — among the points matching ``where``, the one with the largest
  (``largest = true``) or smallest ``y`` has ``by`` equal to ``expect``.
* ``ranking`` — a published table's column, by rank: among the points matching
  ``where``, the ``by`` entries ordered by mean ``y`` against the study's
  ``[[published]]`` values of the same sweep, column and point. Holds when Spearman's
  ρ is at least ``min_rho`` and the first ``top`` entries come in the paper's order.
* ``cells`` — a published table cell by cell: every ``[[published]]`` value of the
  sweep and column (matching ``where``, if given) is within a factor ``factor`` of
  tcplab's mean at the same point.

``measure_ratio``, ``measure_difference`` and ``value`` take an optional ``published`` number: the paper's
value of the same quantity, shown next to tcplab's in the report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..scenario.errors import suggest


class CheckError(ValueError):
    """A conclusion's check is malformed (unknown kind, missing argument)."""


@dataclass
class Comparison:
    """One published number next to tcplab's."""

    label: str
    published: object
    tcplab: object
    ci: float | None = None
    #: The same quantity in a reference simulator's runs of the point (ns-2), if any.
    reference: float | None = None

    @property
    def ratio(self) -> float | None:
        """tcplab / published, when both are single numbers."""
        return ratio_to(self.tcplab, self.published)

    @property
    def reference_ratio(self) -> float | None:
        """The reference simulator's value / published, when both are single numbers."""
        return ratio_to(self.reference, self.published)


def ratio_to(value: object, published: object) -> float | None:
    """``value / published`` when both are numbers and ``published`` is not zero."""
    if isinstance(value, (int, float)) and isinstance(published, (int, float)) and published:
        return value / published
    return None


@dataclass
class Outcome:
    """Whether a conclusion holds in tcplab's runs, and the numbers that decide it."""

    holds: bool | None
    detail: str
    comparisons: list[Comparison] = field(default_factory=list)
    #: The decisive measured quantity (a ratio, a share, a difference), one number per
    #: group for the per-group rules; what :mod:`.grading` sets against the paper's value.
    value: float | list[float] | None = None


def evaluate(check: dict, summaries: dict, measure_fn=None, published: list[dict] | None = None) -> Outcome:
    """Evaluates one check (``check["kind"]``) against ``summaries`` (sweep name →
    per-point summary DataFrame); ``measure_fn(spec)`` gives (mean, CI) of a measured
    quantity for ``measure_ratio``; ``published`` is the study's ``[[published]]``
    entries, which ``ranking`` and ``cells`` read the paper's table from."""
    kind = check.get("kind")
    if kind in _TABLE_KINDS:
        if check.get("sweep") not in summaries:
            return Outcome(None, f"not decided: sweep {check.get('sweep')!r} was not run")
        cells = _paper_cells(check, published or [])
        if not cells:
            return Outcome(None, "not decided: the study publishes no value for these points")
        return _TABLE_KINDS[kind](check, summaries[check["sweep"]], cells)
    if kind == "measure_ratio":
        return _measure_ratio(check, summaries, measure_fn)
    if kind == "measure_difference":
        return _measure_difference(check, summaries, measure_fn)
    if kind == "ratio_change":
        return _ratio_change(check, summaries, measure_fn)
    if kind == "value" and "of" in check:
        return _measured_value(check, summaries, measure_fn)
    rule = _KINDS.get(kind) if isinstance(kind, str) else None
    if rule is None:
        raise CheckError(f"unknown check kind {kind!r}; expected one of: measure_ratio, measure_difference, "
                         f"ratio_change, {', '.join(_KINDS)}")
    sweep = check.get("sweep")
    if sweep not in summaries:
        return Outcome(None, f"not decided: sweep {sweep!r} was not run")
    return rule(check, summaries[sweep], summaries)


def _groups(df, check: dict):
    by = check.get("by")
    if by is None:
        return [(None, df)]
    return [(value, g) for value, g in df.groupby(by, sort=False)]


def _label(by: str | None, value: object) -> str:
    return "" if by is None else f"{by} = {value}"


def _key(value: object) -> str:
    return format(float(value), "g") if isinstance(value, (int, float)) else str(value)


def _y_at(g, x: str, y: str, at: float):
    rows = g[(g[x] - at).abs() < 1e-9]
    return None if rows.empty else float(rows[y].iloc[0])


def _optimum(check: dict, df, _all) -> Outcome:
    x, y, method = check["x"], check["y"], check.get("method", "argmax")
    tolerance = check.get("tolerance", 0)
    expect = {str(k): v for k, v in check.get("expect", {}).items()}
    comparisons, misses = [], []
    for value, g in _groups(df, check):
        g = g.dropna(subset=[y]).sort_values(x)
        if g.empty:
            continue
        if method == "knee":
            peak = g[y].max()
            found = float(g[g[y] >= check.get("knee_fraction", 0.99) * peak][x].iloc[0])
        else:
            found = float(g.loc[g[y].idxmax(), x])
        wanted = expect.get(_key(value))
        label = f"best {x} ({method}) at {_label(check.get('by'), value)}".strip()
        comparisons.append(Comparison(label, wanted, found))
        if wanted is None:
            continue
        low, high = (wanted, wanted) if not isinstance(wanted, list) else wanted
        if not (low - tolerance - 1e-9 <= found <= high + tolerance + 1e-9):
            misses.append(f"{_label(check.get('by'), value)}: {found:g} (paper {wanted})")
    detail = ("all within ±" + format(tolerance, "g") + " of the paper" if not misses
              else "outside ±" + format(tolerance, "g") + ": " + "; ".join(misses))
    return Outcome(not misses, detail, comparisons)


def _rise(check: dict, df, _all) -> Outcome:
    x, y, lo, hi, need = check["x"], check["y"], check["low"], check["high"], check["min_ratio"]
    parts, ok, ratios = [], True, []
    for value, g in _groups(df, check):
        a, b = _y_at(g, x, y, lo), _y_at(g, x, y, hi)
        if a is None or b is None or a == 0:
            parts.append(f"{_label(check.get('by'), value)}: not measured")
            ok = False
            continue
        parts.append(f"{_label(check.get('by'), value)}: ×{b / a:.2f}")
        ratios.append(b / a)
        ok &= b / a >= need
    return Outcome(ok, f"{y} at {x}={hi:g} / at {x}={lo:g} (need ≥ {need:g}): " + "; ".join(parts), value=ratios)


def _flat_after(check: dict, df, _all) -> Outcome:
    x, y, after, spread = check["x"], check["y"], check["after"], check["max_spread"]
    parts, ok, spreads = [], True, []
    for value, g in _groups(df, check):
        tail = g[g[x] >= after - 1e-9][y].dropna()
        if tail.empty or tail.max() == 0:
            continue
        s = (tail.max() - tail.min()) / tail.max()
        parts.append(f"{_label(check.get('by'), value)}: {100 * s:.1f}%")
        spreads.append(float(s))
        ok &= s <= spread
    return Outcome(ok, f"spread of {y} for {x} ≥ {after:g} (need ≤ {100 * spread:g}%): " + "; ".join(parts),
                   value=spreads)


def _ratio_to_best(check: dict, df, _all) -> Outcome:
    x, y, best_by, at, need = check["x"], check["y"], check["best_by"], check["at"], check["min_ratio"]
    parts, ok, ratios = [], True, []
    for value, g in _groups(df, check):
        best = g.loc[g[best_by].idxmax()]
        here = _y_at(g, x, y, at)
        if here is None:
            continue
        ratio = here / best[y] if best[y] else math.inf
        parts.append(f"{_label(check.get('by'), value)}: {here:g} vs {best[y]:g} at {x}={best[x]:g} (×{ratio:.1f})")
        ratios.append(ratio)
        ok &= ratio >= need
    return Outcome(ok, f"{y} at {x}={at:g} vs at the best {x} (need ×{need:g}): " + "; ".join(parts), value=ratios)


def _best_beats(check: dict, df, summaries) -> Outcome:
    y, other_name, need = check["y"], check["other"], check.get("min_ratio", 1.0)
    if other_name not in summaries:
        return Outcome(None, f"not decided: sweep {other_name!r} was not run")
    other = summaries[other_name]
    by = check.get("by")
    parts, ok, ratios = [], True, []
    for value, g in _groups(df, check):
        o = other if by is None else other[other[by] == value]
        if o.empty:
            continue
        best, base = float(g[y].max()), float(o[y].iloc[0])
        parts.append(f"{_label(by, value)}: {best:.4g} vs {base:.4g} (×{best / base:.3f})")
        ratios.append(best / base)
        ok &= best >= need * base
    return Outcome(ok, f"best {y} vs {other_name} (need ×{need:g}): " + "; ".join(parts), value=ratios)


def _select(df, where: dict):
    for k, v in where.items():
        df = df[df[k] == v]
    return df


def _point_label(where: dict) -> str:
    """A sweep point as a reader reads it: "variant reno, rtt_ms 200"."""
    return ", ".join(f"{k} {v}" for k, v in where.items())


def _compare(check: dict, df, _all) -> Outcome:
    y = check["y"]
    a, b = (float(_select(df, check[k])[y].mean()) for k in ("a", "b"))
    ratio = a / b if b else math.inf
    low, high = check.get("min", -math.inf), check.get("max", math.inf)
    # Unlabelled, the published-numbers table would show the bare column name for
    # every such ratio: say which two points it divides.
    label = check.get("label") or f"{y}, {_point_label(check['a'])} / {_point_label(check['b'])}"
    return Outcome(low <= ratio <= high, f"{y}: {a:.4g} / {b:.4g} = {ratio:.3g} (need {_bounds(low, high)})",
                   _published(check, label, ratio), value=ratio)


def _value(check: dict, df, _all) -> Outcome:
    y, scale = check["y"], check.get("scale", 1.0)
    sel = _select(df, check.get("where", {}))[y].dropna()
    if sel.empty:
        return Outcome(None, "not decided: no point matches")
    return _within_bounds(check, check.get("label", y), float(sel.mean()) / scale)


def _extreme(check: dict, df, _all) -> Outcome:
    """Which entry of ``by`` has the largest (smallest) ``y``. Decided only where the runs
    can tell: the entry found and the paper's (or, when they are the same, the runner-up)
    must lie further apart than the sum of their 95% confidence half-widths (``y_ci``
    of the sweep's summary); closer, the order is the replications' noise."""
    y, by, largest = check["y"], check["by"], check.get("largest", True)
    sel = _select(df, check.get("where", {})).dropna(subset=[y])
    if sel.empty:
        return Outcome(None, "not decided: no point matches")
    means = sel.groupby(by)[y].mean()
    order = means.sort_values(ascending=not largest)
    found, expect = order.index[0], str(check["expect"])
    ranking = ", ".join(f"{k} {v:.4g}" for k, v in order.items())
    word = "largest" if largest else "smallest"
    detail = f"{word} {y}: {found} (paper: {expect}); {ranking}"
    # The paper's entry when another was found, else the runner-up.
    rival = next((k for k in order.index[1:] if str(found) == expect or str(k) == expect), None)
    ci = f"{y}_ci"
    if rival is not None and ci in sel:
        half = sel.groupby(by)[ci].max()
        gap, noise = abs(means[found] - means[rival]), half[found] + half[rival]
        if gap <= noise:
            return Outcome(None, f"not decided: {found} and {rival} differ by {gap:.3g}, within their 95% "
                                 f"confidence intervals (±{half[found]:.3g}, ±{half[rival]:.3g}); {detail}")
    return Outcome(str(found) == expect, detail)


def _paper_cells(check: dict, published: list[dict]) -> list[tuple[dict, float]]:
    """(point, paper value) of each ``[[published]]`` entry of the check's sweep and
    column at a point matching its ``where``, in the units of ``y`` (the entry's
    ``scale`` undone)."""
    where = check.get("where", {})
    cells = []
    for item in published:
        point = item.get("where", {})
        if (item.get("sweep") == check["sweep"] and item.get("column") == check["y"] and item.get("table", "runs") == "runs"
                and isinstance(item.get("value"), (int, float)) and all(point.get(k) == v for k, v in where.items())):
            cells.append((point, float(item["value"]) / item.get("scale", 1.0)))
    return cells


def _mean_at(df, y: str, point: dict) -> float | None:
    sel = _select(df, point)[y].dropna()
    return None if sel.empty else float(sel.mean())


def _ranks(values: list[float]) -> list[float]:
    """Ranks from 1 (largest first), ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation of two equally long lists (Pearson's r of their
    ranks, ties averaged); NaN when either list is constant or shorter than 2."""
    ra, rb = _ranks(a), _ranks(b)
    n = len(ra)
    if n < 2:
        return math.nan
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va and vb else math.nan


def _ranking(check: dict, df, cells) -> Outcome:
    by, y = check["by"], check["y"]
    min_rho, top = check.get("min_rho", 0.8), check.get("top", 1)
    names, paper, ours = [], [], []
    for point, value in cells:
        mean = _mean_at(df, y, point)
        if by in point and mean is not None:
            names.append(str(point[by]))
            paper.append(value)
            ours.append(mean)
    if len(names) < 2:
        return Outcome(None, "not decided: fewer than two entries measured")
    rho = spearman(paper, ours)

    def order(values: list[float]) -> list[str]:
        return [names[i] for i in sorted(range(len(names)), key=lambda i: -values[i])]

    paper_order, our_order = order(paper), order(ours)
    same_top = paper_order[:top] == our_order[:top]
    holds = rho >= min_rho - 1e-12 and same_top
    detail = (f"paper: {' > '.join(paper_order)}; tcplab: {' > '.join(our_order)}; Spearman ρ = {rho:.2f} "
              f"(need ≥ {min_rho:g}); first {top}: {'same' if same_top else 'different'}")
    return Outcome(holds, detail, value=rho)


def _cells(check: dict, df, cells) -> Outcome:
    y, factor = check["y"], check["factor"]
    ratios, misses, unmeasured = [], [], 0
    for point, value in cells:
        mean = _mean_at(df, y, point)
        if mean is None or not value:
            unmeasured += 1
            continue
        ratio = mean / value
        ratios.append(ratio)
        if not 1 / factor <= ratio <= factor:
            misses.append((abs(math.log(ratio)) if ratio > 0 else math.inf, point, ratio))
    if not ratios:
        return Outcome(None, "not decided: no published cell was measured")
    within = len(ratios) - len(misses)
    worst = "; ".join(f"{', '.join(f'{k} = {v}' for k, v in p.items())}: ×{r:.2f}"
                      for _, p, r in sorted(misses, key=lambda m: -m[0])[:4])
    detail = (f"{within} of {len(ratios)} cells within ×{factor:g} of the paper"
              + (f"; furthest: {worst}" if misses else "")
              + (f"; {unmeasured} not measured" if unmeasured else ""))
    return Outcome(not misses and not unmeasured, detail, value=within / len(ratios))


def _measure_ratio(check: dict, summaries: dict, measure_fn) -> Outcome:
    pair = _measured_pair(check, summaries, measure_fn)
    if isinstance(pair, Outcome):
        return pair
    a, b = pair
    ratio = a / b if b else math.inf
    low, high = check.get("min", -math.inf), check.get("max", math.inf)
    label = check.get("label", "ratio")
    return Outcome(low <= ratio <= high, f"{label}: {a:.4g} / {b:.4g} = {ratio:.3g} (need {_bounds(low, high)})",
                   _published(check, label, ratio), value=ratio)


def _measured_pair(check: dict, summaries: dict, measure_fn) -> tuple[float, float] | Outcome:
    """The means of ``check``'s ``a`` and ``b`` quantities, or the undecided outcome."""
    sweep = check.get("sweep")
    a_spec, b_spec = ({"sweep": sweep, **check[k]} for k in ("a", "b"))
    if a_spec["sweep"] not in summaries or b_spec["sweep"] not in summaries:
        return Outcome(None, "not decided: its sweep was not run")
    (a, _), (b, _) = measure_fn(a_spec), measure_fn(b_spec)
    if a is None or b is None:
        return Outcome(None, "not decided: a quantity was not measured (no successful run at that point)")
    return a, b


def _measure_difference(check: dict, summaries: dict, measure_fn) -> Outcome:
    pair = _measured_pair(check, summaries, measure_fn)
    if isinstance(pair, Outcome):
        return pair
    a, b = pair
    scale = check.get("scale", 1.0)
    return _within_bounds(check, check.get("label", "difference"), (a - b) / scale)


def _ratio_change(check: dict, summaries: dict, measure_fn) -> Outcome:
    ratios = []
    for key in ("first", "second"):
        pair = _measured_pair({"sweep": check.get("sweep"), **check[key]}, summaries, measure_fn)
        if isinstance(pair, Outcome):
            return pair
        a, b = pair
        ratios.append(a / b if b else math.inf)
    change = ratios[1] / ratios[0] if ratios[0] else math.inf
    low, high = check.get("min", -math.inf), check.get("max", math.inf)
    label = check.get("label", "ratio change")
    return Outcome(low <= change <= high, f"{label}: {ratios[1]:.3g} / {ratios[0]:.3g} = {change:.3g} "
                   f"(need {_bounds(low, high)})", _published(check, label, change), value=change)


def _measured_value(check: dict, summaries: dict, measure_fn) -> Outcome:
    spec = {"sweep": check.get("sweep"), **check["of"]}
    if spec["sweep"] not in summaries:
        return Outcome(None, "not decided: its sweep was not run")
    v, _ = measure_fn(spec)
    if v is None:
        return Outcome(None, "not decided: the quantity was not measured (no successful run at that point)")
    return _within_bounds(check, check.get("label", spec["column"]), v / check.get("scale", 1.0))


def _within_bounds(check: dict, label: str, v: float) -> Outcome:
    """``value``'s verdict: ``v`` within [``min``, ``max``], next to ``published``."""
    low, high = check.get("min", -math.inf), check.get("max", math.inf)
    return Outcome(low <= v <= high, f"{label}: {v:.4g} (need {_bounds(low, high)})", _published(check, label, v), value=v)


def _published(check: dict, label: str, v: float) -> list[Comparison]:
    """The paper's value of the checked quantity beside tcplab's, if the check gives one."""
    return [Comparison(label, check["published"], v)] if "published" in check else []


def _bounds(low: float, high: float) -> str:
    if high == math.inf:
        return f"≥ {low:g}"
    if low == -math.inf:
        return f"≤ {high:g}"
    return f"{low:g} … {high:g}"


_KINDS = {"optimum": _optimum, "rise": _rise, "flat_after": _flat_after, "ratio_to_best": _ratio_to_best,
          "best_beats": _best_beats, "compare": _compare, "value": _value, "extreme": _extreme}
_TABLE_KINDS = {"ranking": _ranking, "cells": _cells}
#: Every check kind a study may name: the measured ones and the sweep-summary rules.
CHECK_KINDS = ("measure_ratio", "measure_difference", "ratio_change", *_KINDS, *_TABLE_KINDS)


def check_problem(check: object, sweeps: set[str]) -> str | None:
    """What is wrong with a conclusion's ``check`` table before anything runs (an
    unknown kind, a sweep the study does not declare), or None. Measured quantities
    name their sweeps in ``a``/``b``/``of``."""
    if not isinstance(check, dict):
        return "expected a table with kind and sweep"
    kind = check.get("kind")
    if kind not in CHECK_KINDS:
        return (f"kind: unknown check kind {kind!r}{suggest(str(kind), list(CHECK_KINDS))}; expected one of "
                f"{', '.join(CHECK_KINDS)}")
    named = [check.get("sweep")] + [part.get("sweep") for part in (check.get(k) for k in ("a", "b", "of"))
                                    if isinstance(part, dict)]
    for sweep in named:
        if sweep is not None and sweep not in sweeps:
            return f"sweep: the study declares no sweep {sweep!r}{suggest(str(sweep), sorted(sweeps))}"
    return None
