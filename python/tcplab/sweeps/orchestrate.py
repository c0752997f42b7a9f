"""Running a sweep: validate every point, skip the runs already stored, execute the
rest on local worker processes or a Dask cluster, and commit results in batches.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..budget import estimate
from ..provenance import engine_build
from ..scenario import ScenarioError, load
from ..scenario.schema import CompiledTables
from .spec import SweepSpec, canonical_json, canonical_object, derive_seed, point_id
from .store import BatchBuffer, SweepDirectoryError, SweepStore
from .task import CompiledPoint, RunTask, execute, execute_all, inherited_by_workers

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


#: Bytes of engine configuration (its JSON) that planning keeps compiled for the
#: workers it forks (about three times that in Python objects). A sweep of more keeps
#: the first points' and lets the workers compile the rest again.
INHERITED_CONFIG_BYTES = 64 << 20


@dataclass(frozen=True)
class PlannedRun:
    """One replication of one point, with the row values the catalog stores for it."""

    task: RunTask
    point: dict
    error: str | None
    #: The point's scenario as planning compiled it and its estimated cost, kept for
    #: local workers, which fork from this process and so inherit them instead of
    #: compiling and estimating again (None beyond INHERITED_CONFIG_BYTES, and for an
    #: invalid point).
    compiled: CompiledPoint | None = None


def plan(spec: SweepSpec, backend: str = "sim") -> list[PlannedRun]:
    """Every run of the sweep on ``backend``, each validated (loaded and compiled) up
    front."""
    base_seed = _base_seed(spec.scenario)
    runs = []
    keys: set[str] = set()
    engine = engine_build()
    inherit_budget = INHERITED_CONFIG_BYTES
    # One set of compiled tables for all points: each compiles only the tables its
    # parameters change (the scenarios share the rest, and stay inside the sweep).
    tables = CompiledTables(shared=True)
    for point in spec.points():
        overrides: tuple[str | tuple[str, object], ...] = (*spec.base_overrides, *spec.overrides(point))
        pid = point_id(point)
        # The seed changes nothing but simulation.seed, so one load validates every
        # replication of the point; the key adds the seed.
        error = None
        compiled = None
        try:
            loaded = load(spec.scenario, list(overrides), tables=tables)
            config_json = loaded.engine_json()
            # The engine's own checks too (a zero bandwidth, a route): its estimate
            # runs every check building the network would, and builds nothing.
            cost = estimate(loaded, config_json)
            content = loaded.raw
            if len(config_json) <= inherit_budget:
                inherit_budget -= len(config_json)
                compiled = CompiledPoint(loaded, config_json, cost)
        except ScenarioError as e:
            error = str(e.with_source(f"{spec.scenario_source} at point {_describe(point)}"))
            content = {"scenario": spec.scenario, "overrides": [list(o) if isinstance(o, tuple) else o for o in overrides]}
        # The identities below as canonical JSON, the scenario serialized once.
        shared = {"scenario": canonical_json(content), "tcplab": canonical_json(__version__),
                  "engine": canonical_json(engine)}
        # What the point's runs share, all but the seed: a worker compiles it once.
        point_key = hashlib.sha256(canonical_object(shared).encode()).hexdigest()[:24]
        for rep in range(spec.replications):
            seed = derive_seed(base_seed, {k: v for k, v in point.items() if k not in spec.seed_ignores}, rep)
            # The engine's build too: a rebuilt engine (a fix, a change) under the same
            # version must not find the old engine's runs stored as its own.
            identity_of_run = {**shared, "seed": canonical_json(seed)}
            if backend != "sim":  # simulated runs keep the keys they always had
                identity_of_run["backend"] = canonical_json(backend)
            key = hashlib.sha256(canonical_object(identity_of_run).encode()).hexdigest()[:24]
            if key in keys:
                # Another point resolved to the same scenario and seed (a case that sets
                # a field another parameter sets too, or a seed that ignores the
                # parameter telling them apart): still a run of its own, so that each
                # point has its runs; the point tells the keys apart.
                identity_of_run["point"] = canonical_json(point)
                key = hashlib.sha256(canonical_object(identity_of_run).encode()).hexdigest()[:24]
            keys.add(key)
            task = RunTask(key=key, point_id=pid, replication=rep, seed=seed, scenario=spec.scenario,
                           overrides=tuple(overrides), series=spec.series, time_limit_s=spec.time_limit_s,
                           backend=backend, point_key=point_key)
            runs.append(PlannedRun(task=task, point=point, error=error, compiled=compiled))
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
        planned = [dataclasses.replace(r, task=dataclasses.replace(r.task, hosts=tuple(sorted(hosts.items()))))
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
            compiled = {r.task.point_key: r.compiled for r in todo if r.compiled is not None}
            results = _dask_results(client, runnable) if client else _local_results(runnable, jobs, compiled)
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


def _local_results(tasks: list[RunTask], jobs: int | None, compiled: dict[str, CompiledPoint]) -> Iterator[dict]:
    """Runs ``tasks`` on forked worker processes, which inherit ``compiled`` (point key
    -> the point as planning compiled it) and so compile no point planning did. Short
    runs go to a worker a few at a time (:class:`ChunkPacer`)."""
    if not tasks:
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    workers = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    # fork: workers start in milliseconds and inherit the loaded engine, and the
    # compiled scenarios (all forked at the first submit, after this is set).
    context = multiprocessing.get_context("fork")
    pacer = ChunkPacer()
    queue = iter(tasks)
    with inherited_by_workers(compiled), \
            ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_init) as pool:
        # A bounded window of submitted chunks keeps memory flat on huge sweeps.
        pending = set()
        for _ in range(workers * 4):
            chunk = list(itertools.islice(queue, pacer.size))
            if chunk:
                pending.add(pool.submit(execute_all, chunk))
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                for result in future.result():
                    pacer.observe(result["run"]["wall_s"])
                    yield result
                chunk = list(itertools.islice(queue, pacer.size))
                if chunk:
                    pending.add(pool.submit(execute_all, chunk))


class ChunkPacer:
    """How many runs to hand a worker at once: enough for about :attr:`CHUNK_S` of
    work, judged by the runs finished so far (one at a time until some have). Handing
    over a task and its result costs the pool ~0.2 ms of CPU, 2% of the LAN study's
    10 ms runs (benchmarks/README.md, "Sweep overhead"); runs of a second or more still
    go one by one, so the progress bar and the batches follow them closely."""

    #: Wall seconds of runs a chunk aims at.
    CHUNK_S = 0.05
    #: Most runs in one chunk.
    MOST = 16
    #: Finished runs whose wall times judge the next chunk.
    WINDOW = 16

    def __init__(self) -> None:
        self._recent: deque[float] = deque(maxlen=self.WINDOW)
        self.size = 1

    def observe(self, wall_s: float) -> None:
        """Takes a finished run's wall time into account."""
        self._recent.append(wall_s)
        typical = sorted(self._recent)[len(self._recent) // 2]
        self.size = max(1, min(self.MOST, int(self.CHUNK_S / max(typical, 1e-6))))


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
