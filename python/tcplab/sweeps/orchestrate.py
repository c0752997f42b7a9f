"""Running a sweep: validate every point, skip the runs already stored, execute the
rest on local worker processes or a Dask cluster, and commit results in batches.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..provenance import engine_build
from ..runner import validate
from ..scenario import ScenarioError, load
from .spec import SweepSpec, canonical_json, derive_seed, point_id
from .store import BatchBuffer, SweepDirectoryError, SweepStore
from .task import RunTask, execute

#: Seconds between batch commits: at most this much finished work is redone after a kill.
FLUSH_SECONDS = 2.0

ProgressCallback = Callable[[int, int, int, int], None]
"""Called with (runs done, of which failed, runs to do in this invocation, runs already stored)."""


class SweepInputError(ValueError):
    """The sweep cannot start (bad declaration, every point invalid, unusable output
    directory, unreachable cluster). Bad input: exit status 2, nothing written."""


@dataclass
class SweepOutcome:
    """What one invocation of a sweep did."""

    root: Path
    total: int
    skipped: int
    ran: int
    failed: int
    wall_s: float
    #: Damaged batches moved aside when the sweep started (their runs ran again).
    quarantined: tuple = ()
    #: Runs stored in the directory that this sweep did not plan (another engine build,
    #: an earlier definition of the sweep): kept, not counted (SweepStore.write_plan).
    outside_plan: int = 0


@dataclass(frozen=True)
class PlannedRun:
    """One replication of one point, with the row values the catalog stores for it."""

    task: RunTask
    point: dict
    error: str | None


def plan(spec: SweepSpec, backend: str = "sim") -> list[PlannedRun]:
    """Every run of the sweep on ``backend``, each validated (loaded and compiled) up
    front."""
    base_seed = _base_seed(spec.scenario)
    runs = []
    keys: set[str] = set()
    engine = engine_build()
    for point in spec.points():
        overrides: tuple[str | tuple[str, object], ...] = (*spec.base_overrides, *spec.overrides(point))
        pid = point_id(point)
        # The seed changes nothing but simulation.seed, so one load validates every
        # replication of the point; the key adds the seed.
        error = None
        try:
            loaded = load(spec.scenario, list(overrides))
            validate(loaded)  # the engine's own checks too (a zero bandwidth, a route)
            content = loaded.raw
        except ScenarioError as e:
            error = str(e.with_source(f"{spec.scenario_source} at point {_describe(point)}"))
            content = {"scenario": spec.scenario, "overrides": [list(o) if isinstance(o, tuple) else o for o in overrides]}
        # What the point's runs share, all but the seed: a worker compiles it once.
        point_key = hashlib.sha256(canonical_json({"scenario": content, "tcplab": __version__,
                                                   "engine": engine}).encode()).hexdigest()[:24]
        for rep in range(spec.replications):
            seed = derive_seed(base_seed, {k: v for k, v in point.items() if k not in spec.seed_ignores}, rep)
            # The engine's build too: a rebuilt engine (a fix, a change) under the same
            # version must not find the old engine's runs stored as its own.
            identity_of_run = {"scenario": content, "seed": seed, "tcplab": __version__, "engine": engine}
            if backend != "sim":  # simulated runs keep the keys they always had
                identity_of_run["backend"] = backend
            key = hashlib.sha256(canonical_json(identity_of_run).encode()).hexdigest()[:24]
            if key in keys:
                # Another point resolved to the same scenario and seed (a case that sets
                # a field another parameter sets too, or a seed that ignores the
                # parameter telling them apart): still a run of its own, so that each
                # point has its runs; the point tells the keys apart.
                identity_of_run["point"] = point
                key = hashlib.sha256(canonical_json(identity_of_run).encode()).hexdigest()[:24]
            keys.add(key)
            task = RunTask(key=key, point_id=pid, replication=rep, seed=seed, scenario=spec.scenario,
                           overrides=tuple(overrides), series=spec.series, time_limit_s=spec.time_limit_s,
                           backend=backend, point_key=point_key)
            runs.append(PlannedRun(task=task, point=point, error=error))
    if runs and all(r.error for r in runs):
        raise SweepInputError(runs[0].error)
    return runs


def _base_seed(scenario: dict) -> int:
    from ..scenario.schema import DEFAULT_SEED

    sim = scenario.get("simulation")
    seed = sim.get("seed", DEFAULT_SEED) if isinstance(sim, dict) else DEFAULT_SEED
    return seed if isinstance(seed, int) else DEFAULT_SEED


def _describe(point: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def identity(spec: SweepSpec, backend: str = "sim") -> dict:
    """What sweep.json records: a sweep directory belongs to one scenario (its hash)
    and one backend."""
    scenario_hash = hashlib.sha256(canonical_json({"scenario": spec.scenario, "set": list(spec.base_overrides)}).encode()).hexdigest()
    return {
        **({"backend": backend} if backend != "sim" else {}),
        "scenario_source": spec.scenario_source,
        "scenario_hash": scenario_hash,
        "parameters": {p.name: list(p.values) for p in spec.parameters},
        "replications": spec.replications,
        "metrics": list(spec.metrics),
        "tcplab_version": __version__,
    }


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    jobs: int | None = None,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    backend: str = "sim",
    hosts: dict | None = None,
) -> SweepOutcome:
    """Runs every run of ``spec`` not yet stored in ``out``. Failed runs are stored with
    their message and do not stop the others. On the ``"emu"`` backend runs go one at
    a time in this process (an emulated run takes the machine; needs root), and so on
    the ``"measure"`` backend, between the real ``hosts`` (:mod:`tcplab.measure`)."""
    started = time.perf_counter()
    if backend == "measure":
        if not hosts:
            raise SweepInputError("--backend measure needs --hosts FILE (docs/measure.md)")
        if dask_address:
            raise SweepInputError("--backend measure runs from this machine: it cannot use a Dask cluster")
    if backend == "emu":
        from ..emu import EmuError, require_root

        try:
            require_root()
        except EmuError as e:
            raise SweepInputError(str(e)) from None
        if dask_address:
            raise SweepInputError("--backend emu runs on this machine: it cannot use a Dask cluster")
    planned = plan(spec, backend)
    if backend == "measure":
        assert hosts is not None
        planned = [PlannedRun(dataclasses.replace(r.task, hosts=tuple(sorted(hosts.items()))), r.point, r.error)
                   for r in planned]
    store = SweepStore(Path(out))
    client = _dask_client(dask_address) if dask_address else None
    try:
        store.open(identity(spec, backend))
    except SweepDirectoryError as e:
        raise SweepInputError(str(e)) from None
    done = store.done_keys()
    planned_keys = [r.task.key for r in planned]
    store.write_plan(planned_keys)
    todo = [r for r in planned if r.task.key not in done]
    outside_plan = len(done.difference(planned_keys))
    skipped = len(planned) - len(todo)
    rows_of = {r.task.key: r for r in todo}
    buffer = BatchBuffer()
    ran = failed = 0
    last_flush = time.monotonic()
    if progress:
        progress(0, 0, len(todo), skipped)

    def record(result: dict) -> None:
        nonlocal ran, failed, last_flush
        planned_run = rows_of[result["run"]["key"]]
        result["run"].update(planned_run.point)
        result["run"]["tcplab_version"] = __version__
        buffer.add(result)
        ran += 1
        failed += result["run"]["status"] != "ok"
        if progress:
            progress(ran, failed, len(todo), skipped)
        if time.monotonic() - last_flush >= FLUSH_SECONDS:
            store.commit(buffer.take())
            last_flush = time.monotonic()

    # Points that failed validation are results already: recorded, never executed.
    for r in todo:
        if r.error:
            record({"run": {"key": r.task.key, "point": r.task.point_id, "rep": r.task.replication,
                            "seed": r.task.seed, "status": "failed", "message": r.error, "wall_s": 0.0}})
    runnable = [r.task for r in todo if not r.error]
    try:
        if backend in ("emu", "measure"):
            results: Iterator[dict] = (execute(t) for t in runnable)
        else:
            results = _dask_results(client, runnable) if client else _local_results(runnable, jobs)
        for result in results:
            record(result)
    finally:
        if buffer.runs:
            store.commit(buffer.take())
        if client is not None:
            client.close()
    from .catalog import write_catalog

    try:
        write_catalog(store.root)
    finally:
        store.close()
    return SweepOutcome(root=store.root, total=len(planned), skipped=skipped, ran=ran, failed=failed,
                        wall_s=time.perf_counter() - started, quarantined=tuple(store.quarantined),
                        outside_plan=outside_plan)


# ----------------------------------------------------------------------- local workers


def _worker_init() -> None:
    """Worker processes die with the sweep (Linux PR_SET_PDEATHSIG), so a sweep killed
    with SIGKILL leaves no orphans still running."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)
    except OSError:
        # No libc prctl (not Linux): workers still exit when the pool shuts down
        # normally; only the SIGKILL-orphan guarantee is lost.
        return


def _local_results(tasks: list[RunTask], jobs: int | None) -> Iterator[dict]:
    if not tasks:
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    workers = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    # fork: workers start in milliseconds and inherit the loaded engine.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_init) as pool:
        # A bounded window of submitted tasks keeps memory flat on huge sweeps.
        pending = set()
        queue = iter(tasks)
        for task in queue:
            pending.add(pool.submit(execute, task))
            if len(pending) >= workers * 4:
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
                following = next(queue, None)
                if following is not None:
                    pending.add(pool.submit(execute, following))


# ------------------------------------------------------------------------------- Dask

#: Seconds to wait for a Dask scheduler to answer before giving up.
DASK_CONNECT_TIMEOUT_S = 5


def _dask_client(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise SweepInputError("--dask needs the dask extra: pip install 'tcplab[dask]'") from None
    try:
        return Client(address, timeout=f"{DASK_CONNECT_TIMEOUT_S}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise SweepInputError(f"--dask {address}: no Dask scheduler answered within {DASK_CONNECT_TIMEOUT_S} s ({e})") from None


def _dask_results(client, tasks: list[RunTask]) -> Iterator[dict]:
    """Each run is one task, keyed by its content hash. Tasks whose worker dies are
    rescheduled by the scheduler; results come back to this process (workers need no
    shared filesystem) and are committed here exactly like local ones."""
    if not tasks:
        return
    from distributed import as_completed

    futures = client.map(execute, tasks, key=[f"tcplab-run-{t.key}" for t in tasks], retries=3, pure=False)
    for future in as_completed(futures, loop=client.loop):
        yield future.result()
        future.release()
