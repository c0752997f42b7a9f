"""Runs a compiled scenario on the engine, in steps so progress can be shown."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from . import _core
from .scenario import Scenario, ScenarioError

#: Number of steps a run is split into (a progress update after each).
PROGRESS_STEPS = 200

ProgressCallback = Callable[[int, int, int], None]
"""Called with (simulated ns so far, total ns, events so far) after each step."""


class InternalError(RuntimeError):
    """The engine found a bug in itself (e.g. packets not conserved). Not bad input."""


def build(scenario: Scenario) -> "_core.Simulation":
    """The engine's simulation for ``scenario``; engine-side validation errors become
    :class:`ScenarioError` naming the scenario's file and field."""
    try:
        return _core.Simulation(scenario.engine_json())
    except _core.EngineConfigError as e:
        path, message = e.args
        raise ScenarioError(path, message, scenario.source) from None


def validate(scenario: Scenario) -> None:
    """Checks everything the engine checks, without running."""
    build(scenario)


def simulate(scenario: Scenario, progress: ProgressCallback | None = None, *, series: bool = True) -> tuple[dict, float]:
    """Runs the scenario to its end; returns the engine's results and the wall time.
    ``series=False`` returns the summaries only (no per-bin series or histograms)."""
    sim = build(scenario)
    started = time.perf_counter()
    total = sim.duration_ns
    step = max(total // PROGRESS_STEPS, 1)
    t = 0
    while t < total:
        t = min(t + step, total)
        sim.run_until(t)
        if progress is not None:
            progress(t, total, sim.events)
    try:
        results = json.loads(sim.finish(series))
    except _core.EngineInternalError as e:
        raise InternalError(str(e)) from None
    return results, time.perf_counter() - started
