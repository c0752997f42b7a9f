"""A sweep's declaration: its parameters, how they combine, and what each run sets.

A sweep is a ``[sweep]`` table in a scenario, or a sweep file whose ``scenario`` key
points to one (docs/sweeps.md has the format). Reading it gives a :class:`SweepSpec`;
:meth:`SweepSpec.points` enumerates the grid and :meth:`SweepSpec.overrides` says what a
point changes in the scenario, as ``--set`` assignments.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from dataclasses import dataclass, field

from ..scenario import ScenarioError
from ..scenario.errors import suggest
from ..scenario.expressions import evaluate, format_number, is_template, render
from ..scenario.fields import join

#: Metrics of a run (columns of the catalog's ``runs`` view) summarised per point by
#: default: aggregate goodput, Jain's index, drops and retransmissions.
DEFAULT_METRICS = ("goodput_bps", "jain", "drops", "retransmits")

#: Every per-run metric the catalog's ``runs`` view has (docs/sweeps.md).
RUN_METRICS = ("goodput_bps", "jain", "drops", "retransmits", "timeouts", "loss_rate", "srtt_ms", "delay_ms_mean",
               "events", "wall_s")

_SWEEP_KEYS = ["parameters", "replications", "zip", "exclude", "metrics", "series", "time_limit", "plot"]
_FILE_KEYS = ["scenario", "sweep", "set"]
_PARAMETER_KEYS = ["values", "from", "to", "step", "num", "scale", "unit", "set", "cases"]


@dataclass(frozen=True)
class Parameter:
    """One swept parameter: its name (a column of the results), its values in order,
    and how a value changes the scenario — set directly at the field path ``name``
    (``unit`` appended), through ``set`` templates, or through named ``cases``."""

    name: str
    values: tuple
    unit: str | None = None
    set: dict = field(default_factory=dict)
    cases: dict = field(default_factory=dict)
    log_scale: bool = False

    def overrides(self, point: dict) -> list[tuple[str, object]]:
        """(field path, value) pairs this parameter sets at ``point``."""
        value = point[self.name]
        if self.cases:
            return list(self.cases[value].items())
        if self.set:
            where = join("sweep.parameters", self.name)
            return [(path, _render_all(t, expression_names(point), where)) for path, t in self.set.items()]
        if self.unit is not None:
            return [(self.name, f"{format_number(value)} {self.unit}")]
        return [(self.name, value)]


@dataclass(frozen=True)
class PlotSpec:
    """A plot the sweep writes: metric ``y`` against parameter ``x``, one line per value
    of ``lines`` (optional), with 95% confidence intervals as error bars."""

    x: str
    y: str
    lines: str | None = None


@dataclass(frozen=True)
class SweepSpec:
    """A whole sweep: the scenario it varies, its parameters and how they combine."""

    scenario: dict
    scenario_source: str
    parameters: tuple[Parameter, ...]
    zip_groups: tuple[tuple[str, ...], ...] = ()
    exclude: tuple[str, ...] = ()
    replications: int = 1
    metrics: tuple[str, ...] = DEFAULT_METRICS
    series: bool = False
    time_limit_s: float | None = None
    plots: tuple[PlotSpec, ...] = ()
    base_overrides: tuple[str, ...] = ()
    #: Parameters left out of each run's seed: runs that differ only in them draw the
    #: same random numbers (common random numbers; a study's ``--explore`` compares
    #: readings of the paper's unstated parameters this way, and its default reading
    #: repeats the plain reproduction's runs exactly).
    seed_ignores: tuple[str, ...] = ()

    def axes(self) -> list[list[dict]]:
        """The grid's axes: a lone parameter, or a zip group moving together."""
        zipped = {name for group in self.zip_groups for name in group}
        axes: list[list[dict]] = []
        for group in self.zip_groups:
            params = [self.parameter(n) for n in group]
            axes.append([dict(zip(group, values, strict=True)) for values in zip(*(p.values for p in params), strict=True)])
        for p in self.parameters:
            if p.name not in zipped:
                axes.append([{p.name: v} for v in p.values])
        return axes

    def parameter(self, name: str) -> Parameter:
        """The parameter called ``name``."""
        return next(p for p in self.parameters if p.name == name)

    def points(self) -> list[dict]:
        """Every point of the grid (parameter name → value), in declaration order,
        without the excluded ones."""
        order = [p.name for p in self.parameters]
        points = []
        for combination in itertools.product(*self.axes()):
            point: dict = {}
            for part in combination:
                point.update(part)
            point = {name: point[name] for name in order}
            if not any(_excluded(cond, point, i) for i, cond in enumerate(self.exclude)):
                points.append(point)
        return points

    def overrides(self, point: dict) -> list[tuple[str, object]]:
        """(field path, value) pairs that turn the scenario into ``point``."""
        return [pair for p in self.parameters for pair in p.overrides(point)]


def _render_all(value: object, names: dict, path: str) -> object:
    """``value`` with every template string in it (also inside tables and lists) rendered."""
    if isinstance(value, str):
        return render(value, names, path) if is_template(value) else value
    if isinstance(value, dict):
        return {k: _render_all(v, names, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_render_all(v, names, path) for v in value]
    return value


def expression_names(point: dict) -> dict:
    """The parameters an expression can name: those whose names are identifiers."""
    return {k: v for k, v in point.items() if k.isidentifier()}


def _excluded(condition: str, point: dict, index: int) -> bool:
    return bool(evaluate(condition, expression_names(point), f"sweep.exclude[{index}]"))


def point_id(point: dict) -> str:
    """A short stable name for a point: a hash of its parameter values (so adding values
    to a sweep does not rename the points already run)."""
    return hashlib.sha256(canonical_json(point).encode()).hexdigest()[:12]


def derive_seed(base_seed: int, point: dict, replication: int) -> int:
    """The seed of one replication of one point: the first 52 bits of
    SHA-256("<base seed>|<point as canonical JSON>|<replication>"). Depends on nothing
    else — not on the worker, the order of runs or the other points — so a sweep gives
    the same results on any number of workers, and any run can be redone alone with
    ``tcplab run --seed``."""
    text = f"{base_seed}|{canonical_json(point)}|{replication}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 12


def canonical_json(value: object) -> str:
    """JSON with sorted keys and no spaces: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def canonical_object(members: dict[str, str]) -> str:
    """:func:`canonical_json` of a dict whose member values are given as their
    canonical JSON already: the same text, without serializing a large member (a
    point's scenario) again for each run of the point."""
    return "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in sorted(members.items())) + "}"


# ---------------------------------------------------------------------------- reading


#: Run columns a parameter may not be named after.
RESERVED_COLUMNS = ("key", "point", "rep", "seed", "status", "message", "wall_s", "engine_s", "tcplab_version",
                    "batch", "goodput_bps", "jain", "drops", "retransmits", "timeouts", "loss_rate", "srtt_ms",
                    "delay_ms_mean", "events")


#: The most runs a sweep may plan: a million runs of the smallest scenario take days on
#: one machine, and planning more would hold every point in memory (#35: a sweep of
#: 10^10 points ran out of memory, one of 10^12 replications planned for ever);
#: `tcplab sweep --yes` plans beyond it.
MAX_RUNS = 1_000_000


def read_sweep(source: str | os.PathLike, extra: dict | None = None, max_runs: int | None = MAX_RUNS) -> SweepSpec:
    """Reads a scenario with a ``[sweep]`` table, or a sweep file (``scenario = "x.toml"``
    plus ``[sweep]``, and optionally ``set = {path = value}`` applied to every run).
    ``extra`` replaces keys of the ``[sweep]`` table (used by ``tcplab reproduce
    --quick``); ``max_runs`` None plans a sweep of any size (``tcplab sweep --yes``)."""
    from ..scenario.loader import read_raw

    raw, name = read_raw(source)
    try:
        if "scenario" in raw and isinstance(raw.get("scenario"), str):
            for key in raw:
                if key not in _FILE_KEYS:
                    raise ScenarioError(key, f"unknown key '{key}' in a sweep file{suggest(key, _FILE_KEYS)}; "
                                             f"valid keys: {', '.join(_FILE_KEYS)}")
            base = os.path.join(os.path.dirname(os.path.abspath(name)), raw["scenario"])
            if not os.path.isfile(base):
                # The sweep file's pointer is what is wrong, not a scenario.
                raise ScenarioError("scenario", f"{raw['scenario']!r} is not a scenario file (it names "
                                    f"{'a directory' if os.path.isdir(base) else 'nothing'}); expected the path "
                                    "of a .toml or .yaml scenario, relative to this file")
            scenario, scenario_name = read_raw(base)
            base_overrides = _base_sets(raw.get("set", {}))
        else:
            scenario, scenario_name, base_overrides = raw, name, ()
        found = scenario.get("sweep") if scenario is raw else raw.get("sweep")
        if found is not None and not isinstance(found, dict):
            raise ScenarioError("sweep", f"expected a table ([sweep] with [sweep.parameters]), got {found!r:.60}")
        table = dict(found or {})
        if not table:
            raise ScenarioError("sweep", "missing: a sweep needs a [sweep] table with [sweep.parameters]")
        table.update(extra or {})
        scenario = {k: v for k, v in scenario.items() if k != "sweep"}
        return _parse(table, scenario, scenario_name, base_overrides, max_runs)
    except ScenarioError as e:
        raise e if e.source else e.with_source(name) from None


def sweep_from_table(table: dict, scenario: dict, source: str) -> SweepSpec:
    """A sweep from a ``[sweep]``-shaped table and a scenario dict (how studies declare
    their sweeps)."""
    try:
        return _parse(dict(table), {k: v for k, v in scenario.items() if k != "sweep"}, source, ())
    except ScenarioError as e:
        raise e if e.source else e.with_source(source) from None


def _base_sets(value: object) -> tuple[str, ...]:
    if not isinstance(value, dict):
        raise ScenarioError("set", "expected a table of field path = value, applied to every run")
    return tuple(f"{path}={json.dumps(v) if not isinstance(v, str) else v}" for path, v in value.items())


def _parse(table: dict, scenario: dict, source: str, base_overrides: tuple[str, ...],
           max_runs: int | None = MAX_RUNS) -> SweepSpec:
    for key in table:
        if key not in _SWEEP_KEYS:
            raise ScenarioError(f"sweep.{key}", f"unknown key '{key}'{suggest(key, _SWEEP_KEYS)}; valid keys: {', '.join(_SWEEP_KEYS)}")
    raw_params = table.get("parameters")
    if not isinstance(raw_params, dict) or not raw_params:
        raise ScenarioError("sweep.parameters", "expected a table with at least one parameter, e.g. "
                                                '"flow[*].transport.receive_buffer" = ["20 packets", "40 packets"]')
    parameters = tuple(_parameter(name, spec) for name, spec in raw_params.items())
    for p in parameters:
        if p.name in RESERVED_COLUMNS:
            raise ScenarioError(f"sweep.parameters.{p.name}", f"a parameter may not be called '{p.name}' (a column "
                                "of the runs table); rename it and give its field path in set = { ... }")
    names = [p.name for p in parameters]
    zip_groups = _zip_groups(table.get("zip", []), parameters)
    replications = table.get("replications", 1)
    if isinstance(replications, bool) or not isinstance(replications, int) or replications < 1:
        raise ScenarioError("sweep.replications", f"expected a whole number ≥ 1, got {replications!r}")
    exclude = table.get("exclude", [])
    if isinstance(exclude, str):
        exclude = [exclude]
    if not isinstance(exclude, list) or not all(isinstance(c, str) for c in exclude):
        raise ScenarioError("sweep.exclude", "expected a list of conditions, e.g. [\"rto_s < 0.05 and delay_ms > 1\"]")
    metrics = table.get("metrics", list(DEFAULT_METRICS))
    if not isinstance(metrics, list) or not metrics:
        raise ScenarioError("sweep.metrics", f"expected a non-empty list of: {', '.join(RUN_METRICS)}")
    for i, m in enumerate(metrics):
        if m not in RUN_METRICS:
            raise ScenarioError(f"sweep.metrics[{i}]", f"unknown metric {m!r}{suggest(str(m), RUN_METRICS)}; expected one of: {', '.join(RUN_METRICS)}")
    series = table.get("series", False)
    if not isinstance(series, bool):
        raise ScenarioError("sweep.series", "expected true or false (store per-bin time series of every run)")
    time_limit = None
    if "time_limit" in table:
        from ..scenario.units import parse_duration_ns

        time_limit = parse_duration_ns(table["time_limit"], "sweep.time_limit") / 1e9
    plots = tuple(_plot(p, i, names, metrics) for i, p in enumerate(_as_list(table.get("plot", []))))
    if max_runs is not None:
        _check_size(parameters, zip_groups, replications, max_runs)
    spec = SweepSpec(scenario=scenario, scenario_source=source, parameters=parameters, zip_groups=zip_groups,
                     exclude=tuple(exclude), replications=replications, metrics=tuple(metrics), series=series,
                     time_limit_s=time_limit, plots=plots, base_overrides=base_overrides)
    if not spec.points():
        raise ScenarioError("sweep.exclude", "excludes every point of the sweep")
    return spec


def _check_size(parameters: tuple[Parameter, ...], zip_groups: tuple[tuple[str, ...], ...], replications: int,
                max_runs: int) -> None:
    """A ScenarioError when the grid times the replications exceeds ``max_runs``, counted
    from the axes' lengths before any point is built."""
    zipped = {name for group in zip_groups for name in group}
    by_name = {p.name: p for p in parameters}
    points = math.prod(len(by_name[group[0]].values) for group in zip_groups)
    points *= math.prod(len(p.values) for p in parameters if p.name not in zipped)
    if points * replications > max_runs:
        raise ScenarioError("sweep", f"plans {points * replications:,} runs ({points:,} points × {replications:,} "
                                     f"replications); at most {max_runs:,}: split it into several sweeps, or pass "
                                     "--yes to plan it (every run is held in memory while the sweep is planned)")


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else [value]


def _parameter(name: str, spec: object) -> Parameter:
    path = join("sweep.parameters", name) if name.isidentifier() else f'sweep.parameters."{name}"'
    if isinstance(spec, list):
        spec = {"values": spec}
    if not isinstance(spec, dict):
        raise ScenarioError(path, "expected a list of values, a range { from, to, step } or a table with values")
    for key in spec:
        if key not in _PARAMETER_KEYS:
            raise ScenarioError(f"{path}.{key}", f"unknown key '{key}'{suggest(key, _PARAMETER_KEYS)}; valid keys: {', '.join(_PARAMETER_KEYS)}")
    unit = spec.get("unit")
    if unit is not None and not isinstance(unit, str):
        raise ScenarioError(f"{path}.unit", "expected a unit string appended to each value, e.g. \"ms\" or \"packets\"")
    log_scale = spec.get("scale", "linear") == "log"
    if "cases" in spec:
        cases = spec["cases"]
        if not isinstance(cases, dict) or not cases or not all(isinstance(v, dict) for v in cases.values()):
            raise ScenarioError(f"{path}.cases", "expected a table of named cases, each a table of field path = value")
        values = tuple(cases)
    elif "values" in spec:
        values = tuple(spec["values"]) if isinstance(spec["values"], list) else ()
        if not values:
            raise ScenarioError(f"{path}.values", "expected a non-empty list of values")
    elif "from" in spec or "to" in spec:
        values = _range(spec, path)
    else:
        raise ScenarioError(path, "expected values = [...], a range { from, to, step } (or num with scale = \"log\") or cases")
    kinds = {_value_kind(v) for v in values}
    if len(kinds) != 1 or None in kinds:
        # Each value becomes a cell of the parameter's column in the runs table.
        raise ScenarioError(f"{path}.values", "expected values of one kind — all numbers, all strings or all "
                            f"true/false — got {', '.join(sorted({_kind_name(v) for v in values}))}; for "
                            "settings that differ in several fields use cases = { name = { path = value } }")
    for v in values:
        if isinstance(v, int) and not -2**63 <= v < 2**63:
            raise ScenarioError(f"{path}.values", f"{v:.3g} is beyond a 64-bit integer (the runs table's column); "
                                "write it as a float (e.g. 1.8e19) or a string")
    if len(set(map(canonical_json, values))) != len(values):
        raise ScenarioError(path, "lists a value twice")
    set_ = spec.get("set", {})
    if not isinstance(set_, dict):
        raise ScenarioError(f"{path}.set", "expected a table of field path = value or \"{expression}\" template")
    return Parameter(name=name, values=values, unit=unit, set=set_, cases=dict(spec.get("cases", {})), log_scale=log_scale)


def _value_kind(value: object) -> str | None:
    """The column type a parameter value is stored as, or None if it cannot be one."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else None


def _kind_name(value: object) -> str:
    named = {"bool": "true/false", "number": "a number", "string": "a string"}.get(_value_kind(value) or "")
    return named or ("a table" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__)


def _range(spec: dict, path: str) -> tuple:
    for key in ("from", "to"):
        v = spec.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ScenarioError(f"{path}.{key}", f"expected a number (the range's {'first' if key == 'from' else 'last'} value), got {v!r}")
    start, stop = spec["from"], spec["to"]
    scale = spec.get("scale", "linear")
    if scale not in ("linear", "log"):
        raise ScenarioError(f"{path}.scale", f"unknown value {scale!r}; expected one of: linear, log")
    if scale == "log" or "num" in spec:
        num = spec.get("num")
        if isinstance(num, bool) or not isinstance(num, int) or num < 1:
            raise ScenarioError(f"{path}.num", f"expected a whole number of values ≥ 1, got {num!r}")
        if num > 1_000_000:
            raise ScenarioError(f"{path}.num", f"makes {num:,} values; more than a million is surely a mistake")
        if scale == "log":
            if start <= 0 or stop <= 0:
                raise ScenarioError(path, f"a log-spaced range needs from and to above 0, got {start} and {stop}")
            values = [start * (stop / start) ** (k / (num - 1)) if num > 1 else start for k in range(num)]
        else:
            values = [start + (stop - start) * k / (num - 1) if num > 1 else start for k in range(num)]
        return tuple(_tidy(v) for v in values)
    step = spec.get("step")
    if isinstance(step, bool) or not isinstance(step, (int, float)):
        raise ScenarioError(f"{path}.step", f"expected a number, got {step!r}")
    if step == 0:
        raise ScenarioError(f"{path}.step", "must not be 0")
    if (stop - start) * step < 0:
        raise ScenarioError(f"{path}.step", f"points the wrong way: from {start} to {stop} needs a step of sign {'+' if stop > start else '-'}, got {step}")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > 1_000_000:
        raise ScenarioError(path, f"makes {count:,} values; more than a million is surely a mistake")
    integral = all(isinstance(v, int) for v in (start, stop, step))
    return tuple(start + k * step if integral else _tidy(start + k * step) for k in range(count))


def _tidy(value: float) -> float:
    """Rounds away binary noise (0.1 + 2*0.025 = 0.15000000000000002 → 0.15)."""
    return float(format(value, ".12g"))


def _zip_groups(value: object, parameters: tuple[Parameter, ...]) -> tuple[tuple[str, ...], ...]:
    names = [p.name for p in parameters]
    if not isinstance(value, list) or not all(isinstance(g, list) for g in value):
        raise ScenarioError("sweep.zip", "expected a list of groups of parameter names, e.g. [[\"rate\", \"queue\"]]")
    seen: set[str] = set()
    groups = []
    for i, group in enumerate(value):
        for name in group:
            if name not in names:
                raise ScenarioError(f"sweep.zip[{i}]", f"unknown parameter {name!r}{suggest(str(name), names)}; parameters: {', '.join(names)}")
            if name in seen:
                raise ScenarioError(f"sweep.zip[{i}]", f"parameter {name!r} is in more than one zip group")
            seen.add(name)
        by_name = {p.name: p for p in parameters}
        lengths = {len(by_name[n].values) for n in group}
        if len(lengths) > 1:
            raise ScenarioError(f"sweep.zip[{i}]", f"parameters that move together need equally many values, got {sorted(lengths)}")
        groups.append(tuple(group))
    return tuple(groups)


def _plot(value: object, index: int, names: list[str], metrics: list[str]) -> PlotSpec:
    path = f"sweep.plot[{index}]"
    if not isinstance(value, dict):
        raise ScenarioError(path, "expected a table { x = parameter, y = metric, lines = parameter }")
    for key in value:
        if key not in ("x", "y", "lines"):
            raise ScenarioError(f"{path}.{key}", f"unknown key '{key}'; valid keys: x, y, lines")
    for key in ("x", "lines"):
        if key in value and value[key] not in names:
            raise ScenarioError(f"{path}.{key}", f"unknown parameter {value[key]!r}{suggest(str(value[key]), names)}; parameters: {', '.join(names)}")
    if "x" not in value:
        raise ScenarioError(f"{path}.x", "missing (required): the parameter on the x axis")
    y = value.get("y", metrics[0])
    if y not in RUN_METRICS:
        raise ScenarioError(f"{path}.y", f"unknown metric {y!r}{suggest(str(y), RUN_METRICS)}; expected one of: {', '.join(RUN_METRICS)}")
    return PlotSpec(x=value["x"], y=y, lines=value.get("lines"))
