"""tcplab against the real Linux kernel on a sample (``tcplab crosscheck --sample``):
the sample's scenario with the ``linux`` profile in the simulator and through
``tcplab emu``, for each of its seeds.

Exclusion, by rule and before running: a scenario whose flows offer more packets per
second than this machine's emulator sustains (docs/emulation.md, "Capacity") is
refused by the emulator and reported as excluded, with the figures.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path

from .campaign import seeds_for, stored_scenario_is, write_scenario
from .metrics import Comparison, RunMetrics, mean, measure
from .scenario import scenario
from .space import Sample, flow_classes

#: Seeds of a sample with random loss (one without).
SEEDS_WHEN_RANDOM = 3
#: tcplab's runs of a sample without random loss: phase replicas 1 … N
#: (:meth:`~.space.Sample.replica`, as the ns-2 campaigns run them), whose mean is set
#: against the kernel's. The kernel's runs of one scenario differ by the host's timing,
#: which moves every flow's phase; a single deterministic trajectory of the simulator is
#: one draw of that phase (on a DropTail queue, a knife edge: docs/differential.md).
SIM_REPLICAS_WHEN_DETERMINISTIC = 10
#: The sender's access queue, packets: the host's queue the emulator leaves in the
#: kernel (a TUN device's 500-packet txqueue plus its qdisc) is of this order.
HOST_QUEUE_PACKETS = 1000


def scenario_of(sample: Sample) -> dict:
    """The sample as a scenario, as both backends run it."""
    return scenario(sample, access_queue_packets=HOST_QUEUE_PACKETS)


def kernel_ran(sample: Sample, directory: Path) -> bool:
    """Whether the kernel's runs stored in ``directory`` were made on today's scenario
    of the sample (the emulator runs the scenario file itself)."""
    return stored_scenario_is(directory, scenario_of(sample))


def simulate(sample: Sample, directory: Path, seeds: list[int] | None = None) -> RunMetrics:
    """tcplab's side of the sample on ``seeds`` (by default the sample's own), or,
    without random loss, on :data:`SIM_REPLICAS_WHEN_DETERMINISTIC` phase replicas: each
    run saved as ``sim-seed<K>``, their mean returned; the cwnd plot (of seed 1, the
    drawn sample itself) is redrawn when the kernel's first run is there."""
    import tcplab

    from ..emu.crosscheck import plot_cwnd
    from ..results import RunResult

    seeds = seeds or seeds_for(sample, SEEDS_WHEN_RANDOM)
    if not sample.random:
        seeds = list(range(1, 1 + SIM_REPLICAS_WHEN_DETERMINISTIC))
    runs = []
    for seed in seeds:
        sim = tcplab.run(tcplab.load(scenario_of(sample.replica(seed)), seed=seed))
        sim.save(directory / f"sim-seed{seed}", report=False)
        runs.append(measure(sim))
    kernel_run = directory / f"emu-seed{seeds[0]}"
    if kernel_run.exists():
        plot_cwnd(RunResult.from_directory(directory / f"sim-seed{seeds[0]}"), RunResult.from_directory(kernel_run),
                  directory / "cwnd.png")
    return mean(runs)


def run_directory(directory: Path, seed: int, run: int) -> Path:
    """Where the kernel's ``run``-th run (from 1) of ``seed`` is stored."""
    return directory / (f"emu-seed{seed}" if run == 1 else f"emu-seed{seed}-run{run}")


def repeat_runs(outcome: Comparison, sample: Sample, directory: Path, runs: int,
                progress: Callable[[float], None] | None = None) -> Comparison:
    """The kernel's side of a sample without random loss run until it has ``runs``
    runs: those ``outcome`` records are kept (the first is the original run), the
    others are run and saved as ``emu-seed<K>-run<R>``. ``theirs`` becomes their mean
    and ``reference_runs`` holds each run's figures, so that the report can tell the
    kernel's own run-to-run spread from the model's error. A sample with random loss
    (its seeds already vary) or not compared is returned as it was."""
    import tcplab

    from ..emu import emulate
    from ..results import RunResult

    if outcome.status != "compared" or outcome.theirs is None or sample.random:
        return outcome
    doc = scenario_of(sample)
    seed = outcome.seeds[0]
    measured = list(outcome.reference_runs) or [outcome.theirs]
    for r in range(len(measured) + 1, runs + 1):
        where = run_directory(directory, seed, r)
        if not where.exists():  # saved by an attempt stopped before it was recorded
            emulate(tcplab.load(doc, seed=seed), progress).save(
                where, report=False)
        measured.append(measure(RunResult.from_directory(where)))
    outcome.reference_runs = measured
    outcome.theirs = mean(measured)
    return outcome


def compare(sample: Sample, directory: Path, progress: Callable[[float], None] | None = None) -> Comparison:
    """Runs the sample in both backends (needs root) and returns the comparison."""
    import tcplab

    from ..emu import EmulationRefused, emulate
    from ..scenario import ScenarioError

    doc = scenario_of(sample)
    write_scenario(directory, sample, doc, "rerun: tcplab crosscheck scenario.toml")
    seeds = seeds_for(sample, SEEDS_WHEN_RANDOM)
    base = Comparison(sample.name, sample.space, sample.describe(), "compared", seeds=seeds,
                      classes=flow_classes(sample))
    theirs = []
    try:
        for seed in seeds:
            try:
                emu = emulate(tcplab.load(doc, seed=seed), progress)
            except EmulationRefused as e:
                base.status, base.reason = "excluded", str(e).splitlines()[-1]
                return base
            emu.save(directory / f"emu-seed{seed}", report=False)
            theirs.append(measure(emu))
        base.ours = simulate(sample, directory, seeds)
    except (ScenarioError, RuntimeError, OSError) as e:
        base.status, base.reason = "failed", f"{type(e).__name__}: {e}"
        (directory / "error.txt").write_text(traceback.format_exc())
        return base
    base.theirs = mean(theirs)
    return base
