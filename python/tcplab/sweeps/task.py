"""One run of a sweep, as a worker executes it: scenario + overrides + seed in, rows of
the catalog's tables out. The same function runs in a local worker process and as a
Dask task, so both give identical results.
"""

from __future__ import annotations

import math
import time
import traceback
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..results import NOT_COLUMNS


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run (picklable, self-contained: workers on
    other machines need no files)."""

    key: str
    point_id: str
    replication: int
    seed: int
    scenario: dict
    #: ``KEY=VALUE`` strings and ``(KEY, value)`` pairs, as :func:`tcplab.load` takes.
    overrides: tuple[str | tuple[str, object], ...]
    series: bool
    time_limit_s: float | None
    #: "sim" (the simulator), "emu" (the scenario over the Linux stack: needs root,
    #: runs in real time, one at a time) or "measure" (between real hosts: ``hosts``).
    backend: str = "sim"
    #: For "measure": (scenario host name, :class:`tcplab.measure.HostSpec`) pairs.
    hosts: tuple = ()
    #: The hash of the point's scenario after overrides, without the seed: the runs of
    #: a point share it, and a worker compiles the scenario once per point.
    point_key: str = ""


class TimeLimitExceeded(Exception):
    """A run took longer (wall clock) than the sweep's ``time_limit``."""


def execute(task: RunTask) -> dict:
    """Runs ``task``; returns ``{"run": {...}, "flows": [...], "links": [...]}`` (plus
    ``flow_series``/``link_series`` columns when series are kept). Never raises for
    a failing run: the failure is the result (``run.status`` = "failed", ``message``)."""
    from ..emu.run import EmuError
    from ..measure import MeasureError
    from ..runner import simulate
    from ..scenario import ScenarioError

    started = time.perf_counter()
    run = {"key": task.key, "point": task.point_id, "rep": task.replication, "seed": task.seed}
    try:
        scenario, compiled = _load(task)
        deadline = None if task.time_limit_s is None else started + task.time_limit_s

        def check_deadline(_now: int, _total: int, _events: int) -> None:
            if deadline is not None and time.perf_counter() > deadline:
                raise TimeLimitExceeded(f"stopped after the time limit of {task.time_limit_s:g} s wall time")

        if task.backend == "emu":
            engine, engine_wall = _emulate(scenario)
        elif task.backend == "measure":
            engine, engine_wall = _measure(scenario, dict(task.hosts))
        else:
            engine, engine_wall = simulate(scenario, check_deadline if deadline else None, series=task.series,
                                           cost=compiled and compiled.cost,
                                           config_json=compiled and compiled.config_json)
    except (ScenarioError, TimeLimitExceeded, EmuError, MeasureError) as e:
        return {"run": {**run, "status": "failed", "message": str(e), "wall_s": time.perf_counter() - started}}
    except Exception as e:  # an internal error in one run must not stop the sweep
        detail = traceback.format_exception_only(type(e), e)[-1].strip()
        return {"run": {**run, "status": "failed", "message": f"internal error: {detail}", "wall_s": time.perf_counter() - started}}
    result: dict[str, Any] = {
        "run": {**run, "status": "ok", "message": None, "engine_s": engine_wall, **run_metrics(engine)},
        "flows": [_flatten(f, {"key": task.key}) for f in engine["flows"]],
        "links": [_flatten(link, {"key": task.key}) for link in engine["links"]],
    }
    if task.series:
        result["flow_series"], result["link_series"] = _series(task.key, engine)
        result["delay_hist"] = _delay_histograms(task.key, engine)
    result["run"]["wall_s"] = time.perf_counter() - started
    return result


def execute_all(tasks: list[RunTask]) -> list[dict]:
    """:func:`execute` of each task in turn (a chunk of short runs: one hand-over)."""
    return [execute(task) for task in tasks]


#: Compiled scenarios of the points this worker ran last, by point key (a few: a
#: worker takes a sweep's runs point by point, replications together).
_COMPILED: OrderedDict[str, Any] = OrderedDict()
_COMPILED_POINTS = 16


class CompiledPoint(NamedTuple):
    """A point as planning compiled it: its scenario (with the sweep's base seed), its
    engine configuration as JSON, and the engine's estimate of a run's cost (the seed
    changes neither: a run gives the engine its own seed beside the JSON)."""

    scenario: Any
    config_json: str
    cost: Any


#: The points the planning process compiled, by point key: set in that process while
#: it forks its local workers, which thus have them without compiling again.
_INHERITED: dict[str, CompiledPoint] = {}


@contextmanager
def inherited_by_workers(compiled: dict[str, CompiledPoint]) -> Iterator[None]:
    """Within the block, worker processes forked from this one find ``compiled``
    (point key -> compiled point) and take a point's scenario and cost from it.
    Planning compiled and estimated every point already; doing it again in the worker
    was a third of a 10 ms run's cost outside the engine (benchmarks/README.md,
    "Sweep overhead")."""
    _INHERITED.update(compiled)
    try:
        yield
    finally:
        _INHERITED.clear()


def _load(task: RunTask):
    """The task's scenario with its seed, and its point as planning compiled it if it
    was left to this worker (else None). Replications of a point differ only in ``simulation.seed``, so the
    point's scenario is compiled once per worker and each replication gets a copy with
    its own seed (the same result as compiling it anew: the seed is copied to the
    engine's configuration and nowhere else)."""
    from ..scenario import load
    from ..scenario.loader import Scenario

    if not task.point_key:
        return load(task.scenario, list(task.overrides), task.seed), None
    inherited = _INHERITED.get(task.point_key)
    base = inherited.scenario if inherited is not None else None
    if base is None:
        base = _COMPILED.get(task.point_key)
        if base is None:
            base = load(task.scenario, list(task.overrides))
            _COMPILED[task.point_key] = base
            if len(_COMPILED) > _COMPILED_POINTS:
                _COMPILED.popitem(last=False)
        else:
            _COMPILED.move_to_end(task.point_key)
    raw = {**base.raw, "simulation": {**(base.raw.get("simulation") or {}), "seed": task.seed}}
    engine = {**base.engine, "simulation": {**base.engine["simulation"], "seed": task.seed}}
    return Scenario(base.source, raw, engine, (*base.overrides, f"simulation.seed={task.seed}")), inherited


def _emulate(scenario) -> tuple[dict, float]:
    """An emulated run in the simulator's result shape (summary fields and ``series``)."""
    from ..emu import EmuError, emulate
    from ..emu.timekeeping import describe

    result = emulate(scenario)
    if result.summary["emulation"]["timekeeping"]["verdict"] == "unreliable":
        # Stored as a failed run with the reasons, not as the real stack's answer.
        raise EmuError(str(describe(result.summary["emulation"]["timekeeping"])))
    return {**result.summary, "series": result.series}, result.summary["wall_time_s"]


def _measure(scenario, hosts: dict) -> tuple[dict, float]:
    """A run between real hosts in the simulator's result shape."""
    from ..measure import measure

    result = measure(scenario, hosts)
    return {**result.summary, "series": result.series}, result.summary["wall_time_s"]


def _total(values: list) -> int | None:
    """The sum of counts, or None if a run has none of them (an emulated run's
    timeouts: the kernel does not tell them apart)."""
    known = [v for v in values if v is not None]
    return sum(known) if known or not values else None


def run_metrics(engine: dict) -> dict:
    """The per-run metrics of the catalog's ``runs`` view (docs/sweeps.md)."""
    flows = engine["flows"]
    tcp = [f for f in flows if f.get("retransmits") is not None]
    # Between real hosts (tcplab measure) drops are not observable: None, not zero.
    sent = _total([f["packets_sent"] for f in flows])
    dropped = _total([f["packets_dropped"] for f in flows])
    srtts = [f["srtt_ms"] for f in tcp if f.get("srtt_ms") is not None]
    delays = [f["delay_ms"]["mean"] for f in flows if f["delay_ms"]["mean"] is not None]
    return {
        "goodput_bps": float(sum(f["goodput_bps"] for f in flows)),
        "jain": engine["fairness"]["jain"],
        "drops": sum(sum(link["drops"].values()) for link in engine["links"]) if engine["links"] else None,
        "retransmits": _total([f["retransmits"] for f in tcp]),
        "timeouts": _total([f["rto_count"] for f in tcp]),
        "loss_rate": dropped / sent if sent and dropped is not None else math.nan,
        "srtt_ms": sum(srtts) / len(srtts) if srtts else None,
        "delay_ms_mean": sum(delays) / len(delays) if delays else None,
        "events": engine["events"],
    }


def _flatten(record: dict, out: dict, prefix: str = "") -> dict:
    """``out`` with ``record``'s columns added: nested tables as ``outer_inner``."""
    for k, v in record.items():
        if k in NOT_COLUMNS:
            continue
        if isinstance(v, dict):
            _flatten(v, out, f"{prefix}{k}_")
        else:
            out[prefix + k] = v
    return out


def _series(key: str, engine: dict) -> tuple[dict, dict]:
    """Per-bin series as columns (lists), the shape the catalog stores."""
    series = engine["series"]
    flow = series.flow_table()
    link = series.link_table()
    flow_cols = {"key": [key] * flow.num_rows}
    for name in ("flow", "time_s", "goodput_bps", "delivered_bytes", "sent_packets", "dropped_packets", "cwnd_bytes", "srtt_ms"):
        flow_cols[name] = _nan_to_none(flow.column(name).to_pylist())
    link_cols = {"key": [key] * link.num_rows}
    for name in ("link", "time_s", "throughput_bps", "drops", "queue_mean_packets", "queue_max_packets", "queue_max_bytes"):
        link_cols[name] = link.column(name).to_pylist()
    return flow_cols, link_cols


def _nan_to_none(values: list) -> list:
    """NaN (no value: UDP's window, a bin before the first sample) as a missing value."""
    return [None if isinstance(v, float) and v != v else v for v in values]


def _delay_histograms(key: str, engine: dict) -> dict:
    """Per flow, the one-way delay histogram: bucket upper bound (ms) and packet count."""
    series = engine["series"]
    index = series.delay["flow_index"]
    return {
        "key": [key] * len(index),
        "flow": [series.flow_ids[i] for i in index.tolist()],
        "delay_ms": series.delay["delay_ms"].tolist(),
        "packets": series.delay["packets"].tolist(),
    }
