"""Checking that a sweep directory's batches are what was written: every batch carries
a manifest (each file's size and SHA-256), and every run key is stored once.

A batch whose files no longer match its manifest — a flipped bit, a truncated or
missing file, a file that was not written with it — is *damaged*: reading the sweep
stops with the batch and the problem named, and the next ``tcplab sweep`` on the
directory moves the batch to ``DIR/damaged/`` and runs its runs again. A run key in
two batches (a batch copied by hand, two writers) is an error naming both: averaged,
it would count a replication twice (#35).

Batches written before tcplab kept manifests have none: they are read as they are,
but cannot be checked (the sweep says how many).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

#: The manifest file of a batch.
MANIFEST = "manifest.json"
#: Where damaged batches are moved, under the sweep directory.
DAMAGED_DIR = "damaged"
#: Verified batches, by their files' (name, size, mtime): a batch is hashed again only
#: when one of its files changed since it was last checked in this process.
_VERIFIED: dict[Path, tuple] = {}


class SweepIntegrityError(ValueError):
    """A sweep directory whose batches are damaged or store a run twice (exit status 2)."""


@dataclass(frozen=True)
class Damage:
    """A damaged batch and what is wrong with it."""

    batch: Path
    problem: str


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(batch: Path) -> None:
    """Records every Parquet file of ``batch`` (a batch being written, not yet visible)."""
    files = {p.name: {"bytes": p.stat().st_size, "sha256": _sha256(p)} for p in sorted(batch.glob("*.parquet"))}
    with open(batch / MANIFEST, "w") as f:
        json.dump({"files": files}, f, indent=1)
        f.flush()
        os.fsync(f.fileno())


def _state(batch: Path) -> tuple:
    return tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in batch.iterdir() if p.is_file()))


def check_batch(batch: Path) -> str | None:
    """What is wrong with ``batch``, or None (also for a batch without a manifest)."""
    manifest_path = batch / MANIFEST
    present = {p.name for p in batch.glob("*.parquet")}
    if not manifest_path.exists():
        return None if "runs.parquet" in present or not present else "it has no runs.parquet"
    try:
        state = _state(batch)
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if _VERIFIED.get(batch) == state:
        return None
    try:
        files = json.loads(manifest_path.read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"its {MANIFEST} is unreadable"
    extra = sorted(present - set(files))
    if extra:
        return f"{extra[0]} was not written with the batch"
    for name, expected in files.items():
        path = batch / name
        if not path.exists():
            return f"{name} is missing"
        size = path.stat().st_size
        if size != expected["bytes"]:
            return f"{name} has {size:,} bytes, {expected['bytes']:,} were written (truncated or altered)"
        if _sha256(path) != expected["sha256"]:
            return f"{name} does not match its checksum (its content changed after it was written)"
    if "runs.parquet" not in files:
        return "it has no runs.parquet"
    _VERIFIED[batch] = state
    return None


def batches(root: Path) -> list[Path]:
    """The batch directories of the sweep at ``root``."""
    return sorted(p for p in (root / "batches").glob("batch=*") if p.is_dir())


def damaged(root: Path) -> list[Damage]:
    """Every damaged batch of the sweep at ``root``."""
    found = []
    for batch in batches(root):
        problem = check_batch(batch)
        if problem is not None:
            found.append(Damage(batch, problem))
    return found


def duplicates(root: Path) -> dict[str, list[str]]:
    """Run keys stored in more than one batch (key → batch names)."""
    import pyarrow.parquet as pq

    seen: dict[str, list[str]] = {}
    for batch in batches(root):
        if not (batch / "runs.parquet").exists():
            continue
        for key in set(pq.read_table(batch / "runs.parquet", columns=["key"]).column("key").to_pylist()):
            seen.setdefault(key, []).append(batch.name)
    return {k: v for k, v in seen.items() if len(v) > 1}


def require_intact(root: Path) -> None:
    """:class:`SweepIntegrityError` naming the first damaged batch or duplicated run."""
    for d in damaged(root):
        raise SweepIntegrityError(f"{d.batch}: damaged: {d.problem}. Rerun the sweep command on {root}: the batch is "
                                  f"moved to {root / DAMAGED_DIR} and its runs run again")
    twice = duplicates(root)
    if twice:
        raise SweepIntegrityError(stored_twice(root, twice))


def stored_twice(root: Path, twice: dict[str, list[str]]) -> str:
    """The message for runs stored in more than one batch (:func:`duplicates`)."""
    key, names = next(iter(twice.items()))
    return (f"{root}: run {key} is stored in batches {', '.join(names)} ({len(twice):,} run(s) stored more than "
            "once; averaged they would count twice): remove the copies you made, or move one of the batches away")
