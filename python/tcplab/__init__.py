"""tcplab: a laboratory for end-to-end transport performance.

Write a scenario (hosts, routers, links, traffic), run it, and read throughput, loss,
delay, jitter, queue occupancy and fairness as tables, plots and machine-readable
results::

    import tcplab
    result = tcplab.run("scenarios/default.toml")
    result.flows[["id", "goodput_bps", "loss_rate"]]
    result.save("results/default")

The simulator is a Rust engine (``tcplab._core``); this package reads scenarios,
drives the engine and presents what it measured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import __version__
from .runner import InternalError, ProgressCallback, simulate
from .scenario import Scenario, ScenarioError
from .scenario import load as _load_scenario

if TYPE_CHECKING:
    import pandas

    from .results import RunResult


def __getattr__(name: str):
    # pandas and numpy load only when results are used, so `tcplab validate` and
    # error paths start fast.
    if name == "RunResult":
        from .results import RunResult

        return RunResult
    raise AttributeError(name)


def load(source, overrides: list | tuple = (), seed: int | None = None):
    """A scenario (file path, TOML text or dict; ``overrides`` and ``seed`` as for
    ``tcplab run``) as a :class:`Scenario` — or, given a results directory written
    by ``tcplab run``, that run's :class:`RunResult`."""
    import os

    if isinstance(source, (str, os.PathLike)) and "\n" not in str(source) and os.path.isfile(os.path.join(source, "summary.json")):
        from .results import RunResult

        return RunResult.from_directory(os.fspath(source))
    return _load_scenario(source, overrides, seed)


def run(
    scenario: str | dict | Scenario,
    *,
    overrides: list[str] | tuple[str, ...] = (),
    seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> RunResult:
    """Runs a scenario — a file path, TOML text, a dict, or a loaded :class:`Scenario` —
    and returns its results. ``overrides`` are ``KEY=VALUE`` strings as for
    ``tcplab run --set``. Raises :class:`ScenarioError` for invalid input."""
    from .results import RunResult

    if not isinstance(scenario, Scenario):
        scenario = _load_scenario(scenario, overrides, seed)
    engine, wall = simulate(scenario, progress)
    return RunResult.from_engine(engine, scenario, wall)


def validate(scenario: str | dict, *, overrides: list[str] | tuple[str, ...] = ()) -> Scenario:
    """Checks a scenario completely (syntax, units, references, routes) without running it."""
    from .runner import validate as _validate

    loaded = _load_scenario(scenario, overrides)
    _validate(loaded)
    return loaded


def sweep(
    source: str,
    *,
    out: str | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    progress=None,
) -> pandas.DataFrame:
    """Runs a sweep (a scenario with a ``[sweep]`` table, or a sweep file) into ``out``
    (default ``results/<name>-sweep``), resuming what is already there, and returns the
    runs as a DataFrame: one row per run with its parameters, seed, status and metrics
    (docs/sweeps.md). ``jobs`` local worker processes (default: all cores) or a Dask
    scheduler at ``dask``."""
    import os

    from .sweeps import finish, read_sweep, run_sweep, runs_frame

    spec = read_sweep(source)
    root = out or os.path.join("results", f"{os.path.splitext(os.path.basename(str(source)))[0]}-sweep")
    outcome = run_sweep(spec, root, jobs=jobs, dask_address=dask, progress=progress)
    finish(spec, outcome.root)
    return runs_frame(outcome.root)


def open_sweep(directory: str):
    """A DuckDB connection to a sweep directory's catalog (views ``runs``, ``flows``,
    ``links`` and, when kept, ``flow_series``/``link_series``)."""
    from .sweeps import connect

    return connect(directory)


__all__ = ["InternalError", "RunResult", "Scenario", "ScenarioError", "__version__", "load", "open_sweep", "run", "sweep", "validate"]
