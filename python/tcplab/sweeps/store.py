"""A sweep directory: what is in it, and how runs get there without ever being lost,
half-written or stored twice.

Layout (docs/sweeps.md)::

    DIR/sweep.json                       identity: scenario hash, parameters, points
    DIR/plan.parquet                     the keys of the runs the latest sweep command
                                         planned: what the views and summaries count
    DIR/batches/batch=<id>/runs.parquet  one row per run (parameters, seed, status, metrics)
    DIR/batches/batch=<id>/flows.parquet one row per flow of each run   (also links, and
                                         flow_series / link_series when series are kept)
    DIR/batches/batch=<id>/manifest.json each file's size and SHA-256 (sweeps/integrity.py)
    DIR/damaged/                         batches found damaged, moved aside (their runs rerun)
    DIR/catalog.duckdb                   views over all batches (runs, flows, links, ...)
    DIR/.tmp/                            batches being written (removed on the next start)

Runs are stored in *batches*: the parent collects finished runs and commits them
together, every few seconds, by renaming one finished directory into ``batches/``. A
rename is atomic, so after a SIGKILL at any moment a batch is either wholly there or
not there; runs of a lost batch are simply run again. Batching is what keeps the
sweep's overhead small (one Parquet file per run cost 5 ms against 24 ms of engine
time on the LAN study's runs). Every row carries the run's ``key``, the content hash
that decides whether a run is already done.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path

from .integrity import DAMAGED_DIR, Damage, damaged, duplicates, stored_twice, write_manifest

#: The file naming the runs of the sweep's current plan (:meth:`SweepStore.write_plan`).
PLAN = "plan.parquet"
#: The tables a batch may hold, in the order they are written.
TABLES = ("runs", "flows", "links", "flow_series", "link_series", "delay_hist")


class SweepDirectoryError(ValueError):
    """The output directory cannot hold this sweep (another scenario's sweep, or not a
    sweep directory at all). Bad input: exit status 2."""


class SweepStore:
    """Reads and writes one sweep directory."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.batches = self.root / "batches"
        self.tmp = self.root / ".tmp"
        self._lock: int | None = None
        #: Batches found damaged when the directory was opened, moved to DIR/damaged/.
        self.quarantined: list[Damage] = []

    def open(self, identity: dict) -> None:
        """Creates the directory, or checks that it holds a sweep of the same scenario
        (same scenario hash); removes batches a killed sweep left half-written."""
        marker = self.root / "sweep.json"
        if self.root.exists() and not self.root.is_dir():
            raise SweepDirectoryError(f"{self.root}: exists and is not a directory; choose another --out")
        if marker.exists():
            try:
                existing = json.loads(marker.read_text())
            except (OSError, json.JSONDecodeError) as e:
                raise SweepDirectoryError(f"{marker}: unreadable ({e}); move the directory away or choose another --out") from None
            if existing.get("scenario_hash") != identity["scenario_hash"]:
                raise SweepDirectoryError(
                    f"{self.root} holds a sweep of a different scenario ({existing.get('scenario_source')}, hash "
                    f"{str(existing.get('scenario_hash'))[:12]}; this one is {identity['scenario_source']}, hash "
                    f"{identity['scenario_hash'][:12]}). To resume that sweep, rerun its own command; to start fresh, "
                    f"pass another --out or delete {self.root}.")
        elif self.root.exists() and any(self.root.iterdir()):
            raise SweepDirectoryError(f"{self.root}: not empty and not a sweep directory (no sweep.json); "
                                      "choose another --out")
        self.batches.mkdir(parents=True, exist_ok=True)
        self._take_lock()
        if self.tmp.exists():
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir(exist_ok=True)
        # Damaged batches go aside (their runs are run again); a run stored twice is
        # the user's to resolve: which copy is right cannot be told from here.
        for d in damaged(self.root):
            aside = self.root / DAMAGED_DIR / d.batch.name
            aside.parent.mkdir(exist_ok=True)
            os.rename(d.batch, aside)
            self.quarantined.append(Damage(aside, d.problem))
        twice = duplicates(self.root)
        if twice:
            self.close()
            raise SweepDirectoryError(stored_twice(self.root, twice))
        _write_atomically(marker, json.dumps(identity, indent=2, default=str) + "\n", self.tmp)

    def _take_lock(self) -> None:
        """One sweep writes a directory at a time: two at once both stored every run,
        and the summary averaged twice the replications asked for (#35). An advisory
        lock on ``.lock``, held until :meth:`close` or the process ends (a killed sweep
        leaves nothing to clean up: the kernel drops the lock)."""
        import fcntl

        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise SweepDirectoryError(f"{self.root}: another tcplab sweep is writing here (pid {holder}); "
                                      "wait for it to end, or choose another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock = fd

    def close(self) -> None:
        """Releases the directory for the next sweep."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def write_plan(self, keys: list[str]) -> None:
        """Records ``keys`` (every run the sweep command planned) as the runs this
        directory's views and summaries count. Runs stored under other keys — by
        another engine build, or before the sweep's replications or values changed —
        stay in their batches (a later command may plan them again) but are never
        averaged with these: a directory re-run after an engine fix had counted both
        builds' runs as six replications of three (#35)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        staging = self.tmp / f"{PLAN}.{uuid.uuid4().hex[:8]}"
        pq.write_table(pa.table({"key": keys}), staging)
        os.replace(staging, self.root / PLAN)

    def done_keys(self) -> set[str]:
        """Keys of the runs already stored (ok or failed)."""
        import pyarrow.parquet as pq

        keys: set[str] = set()
        for path in self.batches.glob("batch=*/runs.parquet"):
            keys.update(pq.read_table(path, columns=["key"]).column("key").to_pylist())
        return keys

    def commit(self, tables: dict[str, dict]) -> Path:
        """Writes one batch (table name → columns) and makes it visible atomically."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        batch_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        staging = self.tmp / f"batch={batch_id}"
        staging.mkdir()
        for name in TABLES:
            columns = tables.get(name)
            if columns and any(len(v) for v in columns.values()):
                pq.write_table(pa.table(columns), staging / f"{name}.parquet")
        write_manifest(staging)
        _fsync_dir(staging)
        final = self.batches / staging.name
        os.rename(staging, final)
        _fsync_dir(self.batches)
        return final


class BatchBuffer:
    """Finished runs waiting to be committed, as columns per table."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, list]] = {}
        self.runs = 0

    def add(self, result: dict) -> None:
        """Adds one run's rows (see :func:`tcplab.sweeps.task.execute`)."""
        self._rows("runs", [result["run"]])
        for name in ("flows", "links"):
            if name in result:
                self._rows(name, result[name])
        for name in ("flow_series", "link_series", "delay_hist"):
            if name in result:
                self._columns(name, result[name])
        self.runs += 1

    def _rows(self, name: str, rows: list[dict]) -> None:
        table = self.tables.setdefault(name, {})
        filled = len(next(iter(table.values()))) if table else 0
        for row in rows:
            for k in row:
                if k not in table:
                    table[k] = [None] * filled
            for k, column in table.items():
                column.append(row.get(k))
            filled += 1

    def _columns(self, name: str, columns: dict[str, list]) -> None:
        table = self.tables.setdefault(name, {})
        for k, values in columns.items():
            table.setdefault(k, []).extend(values)

    def take(self) -> dict[str, dict]:
        """The buffered tables; the buffer is empty afterwards."""
        tables, self.tables, self.runs = self.tables, {}, 0
        return tables


def _write_atomically(path: Path, text: str, tmp_dir: Path) -> None:
    staging = tmp_dir / f"{path.name}.{uuid.uuid4().hex[:8]}"
    staging.write_text(text)
    os.replace(staging, path)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
