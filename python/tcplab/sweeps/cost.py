"""What a sweep will cost in wall time, said before it is planned (#35: a sweep of
about 200,000 short runs spent minutes validating its points, then hours running
them, without a word).

The estimate is the engine's for the sweep's first point (``tcplab.budget``), plus a
fixed cost per run, times the runs, shared among the workers; plus planning, which
validates every run before the first starts. Emulated and measured runs take their
scenario's duration in real time, one at a time.
"""

from __future__ import annotations

import os

from ..budget import estimate
from ..scenario import ScenarioError, load
from .spec import SweepSpec

#: Planning loads and compiles every run's scenario up front: about 1.2 ms each here
#: (measured on the fuzzer's sweep scenario, 4,000 runs in 4.75 s on two busy cores).
PLAN_S_PER_RUN = 0.0012
#: A run's cost beyond the engine's: handing it to a worker, reading its results,
#: storing its row.
RUN_OVERHEAD_S = 0.05


def sweep_wall_s(spec: SweepSpec, jobs: int | None = None, backend: str = "sim") -> tuple[int, float]:
    """``(runs, seconds)``: how many runs the sweep plans and about how long planning
    and running them takes with ``jobs`` workers (default: one per core)."""
    points = spec.points()
    runs = len(points) * spec.replications
    per_run = RUN_OVERHEAD_S + _first_run_s(spec, points[0], backend)
    workers = 1 if backend != "sim" else max(1, jobs or os.cpu_count() or 1)
    return runs, runs * PLAN_S_PER_RUN + runs * per_run / workers


def _first_run_s(spec: SweepSpec, point: dict, backend: str) -> float:
    """The engine's wall-time estimate for ``point`` (its duration in real time off the
    simulator), or 0 when the point is invalid: planning refuses it, and the count of
    runs still stands."""
    try:
        first = load(spec.scenario, [*spec.base_overrides, *spec.overrides(point)])
        engine_s = estimate(first).wall_s  # the engine's checks may refuse it here too
    except ScenarioError:
        return 0.0
    real_time = first.engine["simulation"]["duration_ns"] / 1e9 if backend != "sim" else 0.0
    return max(engine_s, real_time)
