"""A campaign: N samples of a space compared one by one against a reference, each in
its own directory (the scenario file, both backends' runs, ``comparison.json``),
resumable, and summarised in a report.

The reference is a function ``compare(sample, directory) -> Comparison``
(:mod:`.kernel` for the Linux kernel, ``tests/differential/ns2.py`` for ns-2). After a
change to the engine a campaign can be re-compared without running the reference again
(``simulate``: tcplab's side alone, against the reference's stored figures) — the
kernel's runs take real time and root, ns-2's hours.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..scenario import toml_writer
from . import report
from .metrics import Comparison, RunMetrics
from .space import Sample, draw, draw_many

CompareFn = Callable[[Sample, Path], Comparison]
#: tcplab's side of a sample alone, on the seeds given: the seed mean of its runs.
SimulateFn = Callable[[Sample, Path, list[int]], RunMetrics]
#: More runs of the reference on a compared sample: the outcome with their figures.
RepeatFn = Callable[[Comparison, Sample, Path], Comparison]
#: File of a sample's outcome in its directory.
OUTCOME = "comparison.json"
#: File of a sample's scenario in its directory.
SCENARIO_FILE = "scenario.toml"


class StaleReference(Exception):
    """A stored reference run was made on a scenario other than today's draw of its
    sample (the space changed since): it cannot be reused."""


def seeds_for(sample: Sample, seeds_when_random: int) -> list[int]:
    """The simulation seeds a sample runs with first: several when it draws random numbers."""
    return list(range(1, 1 + (seeds_when_random if sample.random else 1)))


@dataclass(frozen=True)
class Replication:
    """How many seeds a sample is compared on (random loss, or :meth:`~.space.Sample.replica`'s phases;
    the kernel runs each sample on :func:`seeds_for`'s): ``initial`` first, then
    twice as many, again and again, while the comparison is too imprecise to judge by
    its targets, up to ``most``.

    Too imprecise: two standard errors of the difference of the seed means (the
    aggregate's, or any flow class's) above half the target's tolerance
    (:meth:`~.metrics.Comparison.precise_enough`). The rule reads how the seeds spread,
    never how far tcplab is from the reference, so it cannot steer a verdict: a sample
    gets more seeds because its own runs disagree with each other, whether it meets the
    targets or not, and one that missed can come to meet them or one that met can come to
    miss. It is the same for every sample and fixed before any result."""

    initial: int
    most: int

    def first_seeds(self) -> list[int]:
        """The seeds every sample is compared on first."""
        return list(range(1, 1 + self.initial))

    def more_seeds(self, outcome: Comparison) -> list[int]:
        """The seeds to add to ``outcome`` (none when it is precise enough, has the most
        seeds, or ran one seed)."""
        n = len(outcome.seeds)
        if outcome.status != "compared" or n < 2 or n >= self.most or outcome.precise_enough():
            return []
        return list(range(max(outcome.seeds) + 1, max(outcome.seeds) + 1 + min(n, self.most - n)))


def write_scenario(directory: Path, sample: Sample, scenario: dict, comment: str) -> Path:
    """Saves the sample's scenario file (``tcplab run`` reruns it) with a header saying
    where it comes from."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SCENARIO_FILE
    header = (f"# {sample.name}: {sample.describe()}\n"
              f"# Drawn by tcplab.differential.space.draw({sample.space!r}, {sample.seed}, {sample.index}); {comment}\n")
    path.write_text(header + toml_writer.dumps(scenario))
    return path


def stored_scenario_is(directory: Path, scenario: dict) -> bool:
    """Whether the scenario file saved in ``directory`` (its header comments aside) is
    ``scenario``: a stored reference run stands for today's draw only then."""
    path = directory / SCENARIO_FILE
    if not path.exists():
        return False
    body = "".join(line for line in path.read_text().splitlines(keepends=True) if not line.startswith("#"))
    return body == toml_writer.dumps(scenario)


def resimulate(stored: Comparison, sample: Sample, directory: Path, simulate: SimulateFn) -> Comparison:
    """``stored`` with tcplab's side run again and the reference's figures kept. A sample
    the reference did not compare (excluded, failed) is returned as it was."""
    if stored.status != "compared":
        return stored
    stored.ours = simulate(sample, directory, stored.seeds)
    return stored


def run(space: str, seed: int, count: int, out: Path, compare: CompareFn, reference: str, command: str,
        progress: Callable[[str], None] = print, rerun: bool = False, only: list[int] | None = None,
        simulate: SimulateFn | None = None, reference_ran: Callable[[Sample, Path], bool] | None = None,
        repeat: RepeatFn | None = None) -> list[Comparison]:
    """Compares samples 0 … count − 1 (those already in ``out`` are read back unless
    ``rerun``; those that failed are run again), writes ``out/REPORT.md`` and ``out/report.html`` (``command`` is the
    command line they say wrote them), returns the outcomes. ``only``: just these
    sample indices (to rerun a few). ``repeat``: run the reference again on every
    compared sample (the runs it already has are kept).

    With ``simulate`` (and ``reference_ran``: whether the reference's input stored in a
    sample's directory is today's rendering of the sample), every stored sample is
    re-compared with tcplab's side run again and the reference's stored figures; a
    sample with no stored outcome is compared in full. Raises :class:`StaleReference`
    (before running anything) when a stored reference input is not today's."""
    out.mkdir(parents=True, exist_ok=True)
    outcomes: list[Comparison] = []
    samples = [draw(space, seed, i) for i in only] if only is not None else draw_many(space, seed, count)
    if simulate is not None:
        assert reference_ran is not None, "simulate needs reference_ran"
        stale = [s.name for s in samples if (out / s.name / OUTCOME).exists() and not reference_ran(s, out / s.name)]
        if stale:
            raise StaleReference(f"{out}: the stored reference runs of {', '.join(stale)} were made on other inputs "
                                 "than today's draw; compare them in full (without --rescore)")
    for sample in samples:
        directory = out / sample.name
        stored = directory / OUTCOME
        outcome = Comparison.from_json(json.loads(stored.read_text())) if stored.exists() and not rerun else None
        if outcome is not None and simulate is not None:
            outcome = resimulate(outcome, sample, directory, simulate)  # wall_s stays the comparison's
            _store(stored, outcome)
        elif outcome is None or outcome.status == "failed":  # a backend's failure is retried
            started = time.monotonic()
            outcome = compare(sample, directory)
            outcome.wall_s = time.monotonic() - started
            directory.mkdir(parents=True, exist_ok=True)
            _store(stored, outcome)
        if repeat is not None:
            outcome = repeat(outcome, sample, directory)
            _store(stored, outcome)
        outcomes.append(outcome)
        progress(report.progress_line(len(outcomes), len(samples), outcome))
    report.write(out, outcomes, space=space, seed=seed, reference=reference, command=command)
    return outcomes


def _store(path: Path, outcome: Comparison) -> None:
    """Writes a sample's outcome whole or not at all (a campaign stopped half-way)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(outcome.to_json(), indent=1) + "\n")
    tmp.replace(path)
