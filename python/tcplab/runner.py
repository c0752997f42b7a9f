"""Runs a compiled scenario on the engine, in steps so progress can be shown."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import _core
from .engine_errors import scenario_error
from .scenario import Scenario

if TYPE_CHECKING:
    from .budget import Estimate

#: The first step of the run loop is 1/PROGRESS_STEPS of the run (a progress update
#: follows each step; later steps are sized by STEP_WALL_S).
PROGRESS_STEPS = 200
#: Wall time one step of the run loop aims at, in seconds.
STEP_WALL_S = 0.1

ProgressCallback = Callable[[int, int, int], None]
"""Called with (simulated ns so far, total ns, events so far) after each step."""

IntervalCallback = Callable[[int, int, list], None]
"""Called with (interval start ns, interval end ns, every flow's counters at its end —
``Simulation.snapshot``) at the end of each reporting interval."""


class InternalError(RuntimeError):
    """The engine found a bug in itself (e.g. packets not conserved). Not bad input."""


def build(scenario: Scenario, config_json: str | None = None, seed: int | None = None) -> _core.Simulation:
    """The engine's simulation for ``scenario``; engine-side validation errors become
    :class:`ScenarioError` naming the scenario's file and field. ``config_json``: the
    scenario's :meth:`Scenario.engine_json` if the caller has it; with ``seed``, that of
    another replication of its sweep point, whose seed ``seed`` replaces."""
    try:
        return _core.Simulation(config_json or scenario.engine_json(), seed)
    except _core.EngineConfigError as e:
        raise scenario_error(scenario, e) from None


def validate(scenario: Scenario) -> None:
    """Checks everything the engine checks, without running."""
    build(scenario)


def simulate(scenario: Scenario, progress: ProgressCallback | None = None, *, series: bool = True,
             cost: Estimate | None = None, interval_ns: int | None = None,
             on_interval: IntervalCallback | None = None, pcap: tuple[list[str], Path, int] | None = None,
             config_json: str | None = None) -> tuple[dict, float]:
    """Runs the scenario to its end; returns the engine's results and the wall time.

    The results are the summaries (docs/results.md) plus, under ``"series"``, the time
    series as a :class:`tcplab.series.Series`; ``series=False`` leaves them out. With
    ``interval_ns`` and ``on_interval``, every flow's counters are reported at the end
    of each interval of simulated time (``tcplab run --interval``). A run
    that would need more memory than is available is refused before it starts
    (:func:`tcplab.budget.check_memory`; pass ``cost`` if it is already estimated).
    ``pcap`` = (selectors, directory, snap length) writes packet captures there
    (:func:`tcplab.capture.capture_files`). ``config_json``: the engine configuration of
    any replication of the scenario's sweep point, as JSON (a sweep serializes it once
    per point); the scenario's own seed is run."""
    from .budget import check_memory, estimate, memory_cap

    # Serialized once for the estimate and the engine: 0.2 ms of a sweep's ~10 ms run.
    if config_json is None:
        config_json, seed = scenario.engine_json(), None
    else:
        seed = scenario.engine["simulation"]["seed"]
    cost = cost or estimate(scenario, config_json)
    check_memory(scenario, cost)
    with memory_cap(cost):
        return _simulate(scenario, config_json, seed, progress, series, interval_ns, on_interval, pcap)


def _simulate(scenario: Scenario, config_json: str, seed: int | None, progress: ProgressCallback | None,
              series: bool, interval_ns: int | None, on_interval: IntervalCallback | None,
              pcap: tuple[list[str], Path, int] | None) -> tuple[dict, float]:
    """:func:`simulate`'s run, once admitted."""
    sim = build(scenario, config_json, seed)
    if pcap is not None:
        from .capture import capture_files

        selectors, directory, snaplen = pcap
        flow_ids = [f["name"] for f in scenario.engine["flows"]]
        files = capture_files(selectors, sim.channel_names(), sim.first_hops(), flow_ids, directory)
        sim.capture(files, snaplen)
    started = time.perf_counter()
    total = sim.duration_ns
    # Steps of simulated time sized to take about STEP_WALL_S each (the first is
    # 1/PROGRESS_STEPS of the run): the progress bar moves smoothly on a long run, and
    # a short run returns to Python only a few times.
    step = max(total // PROGRESS_STEPS, 1)
    # Reporting intervals end on multiples of interval_ns (and at the end of the run);
    # progress steps fall in between.
    interval = (interval_ns or 0) if on_interval is not None else 0
    next_report = interval if interval > 0 else total
    t = 0
    while t < total:
        before, step_started = t, time.perf_counter()
        t = min(t + step, total, next_report)
        sim.run_until(t)
        took = time.perf_counter() - step_started
        if t - before == step:  # a full step: its cost says how long the next may be
            step = max(min(int(step * STEP_WALL_S / max(took, 1e-4)), step * 4, total), 1)
        if progress is not None:
            progress(t, total, sim.events)
        if on_interval is not None and interval > 0 and t in (next_report, total):
            on_interval(next_report - interval, t, json.loads(sim.snapshot()))
            next_report += interval
    try:
        summary_json, tables = sim.finish(series)
    except _core.EngineInternalError as e:
        raise InternalError(str(e)) from None
    results = json.loads(summary_json)
    for emptied in ("flow_series", "link_series", "delay_histograms"):
        results.pop(emptied, None)
    if tables is not None:
        from .series import Series

        results["series"] = Series.from_engine(results, tables)
    return results, time.perf_counter() - started
