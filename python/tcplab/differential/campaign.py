"""A campaign: N samples of a space compared one by one against a reference, each in
its own directory (the scenario file, both backends' runs, ``comparison.json``),
resumable, and summarised in a report.

The reference is a function ``compare(sample, directory) -> Comparison``
(:mod:`.kernel` for the Linux kernel, ``tests/differential/ns2.py`` for ns-2).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from ..scenario import toml_writer
from . import report
from .metrics import Comparison
from .space import Sample, draw, draw_many

CompareFn = Callable[[Sample, Path], Comparison]
#: File of a sample's outcome in its directory.
OUTCOME = "comparison.json"


def seeds_for(sample: Sample, seeds_when_random: int) -> list[int]:
    """The simulation seeds a sample runs with: several when it draws random numbers."""
    return list(range(1, 1 + (seeds_when_random if sample.random else 1)))


def write_scenario(directory: Path, sample: Sample, scenario: dict, comment: str) -> Path:
    """Saves the sample's scenario file (``tcplab run`` reruns it) with a header saying
    where it comes from."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "scenario.toml"
    header = (f"# {sample.name}: {sample.describe()}\n"
              f"# Drawn by tcplab.differential.space.draw({sample.space!r}, {sample.seed}, {sample.index}); {comment}\n")
    path.write_text(header + toml_writer.dumps(scenario))
    return path


def run(space: str, seed: int, count: int, out: Path, compare: CompareFn, reference: str, command: str,
        progress: Callable[[str], None] = print, rerun: bool = False, only: list[int] | None = None) -> list[Comparison]:
    """Compares samples 0 … count − 1 (those already in ``out`` are read back unless
    ``rerun``; those that failed are run again), writes ``out/REPORT.md`` and ``out/report.html`` (``command`` is the
    command line they say wrote them), returns the outcomes. ``only``: just these
    sample indices (to rerun a few)."""
    out.mkdir(parents=True, exist_ok=True)
    outcomes: list[Comparison] = []
    samples = [draw(space, seed, i) for i in only] if only is not None else draw_many(space, seed, count)
    for sample in samples:
        directory = out / sample.name
        stored = directory / OUTCOME
        outcome = Comparison.from_json(json.loads(stored.read_text())) if stored.exists() and not rerun else None
        if outcome is None or outcome.status == "failed":  # a backend's failure is retried
            started = time.monotonic()
            outcome = compare(sample, directory)
            outcome.wall_s = time.monotonic() - started
            directory.mkdir(parents=True, exist_ok=True)
            tmp = stored.with_suffix(".tmp")
            tmp.write_text(json.dumps(outcome.to_json(), indent=1) + "\n")
            tmp.replace(stored)
        outcomes.append(outcome)
        progress(report.progress_line(len(outcomes), len(samples), outcome))
    report.write(out, outcomes, space=space, seed=seed, reference=reference, command=command)
    return outcomes
