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

from .campaign import seeds_for, write_scenario
from .metrics import Comparison, mean, measure
from .scenario import scenario
from .space import Sample, flow_classes

#: Seeds of a sample with random loss (one without).
SEEDS_WHEN_RANDOM = 3
#: The sender's access queue, packets: the host's queue the emulator leaves in the
#: kernel (a TUN device's 500-packet txqueue plus its qdisc) is of this order.
HOST_QUEUE_PACKETS = 1000


def compare(sample: Sample, directory: Path, progress: Callable[[float], None] | None = None) -> Comparison:
    """Runs the sample in both backends (needs root) and returns the comparison."""
    import tcplab

    from ..emu import EmulationRefused, emulate
    from ..emu.crosscheck import plot_cwnd
    from ..scenario import ScenarioError

    doc = scenario(sample, access_queue_packets=HOST_QUEUE_PACKETS)
    write_scenario(directory, sample, doc, "rerun: tcplab crosscheck scenario.toml")
    seeds = seeds_for(sample, SEEDS_WHEN_RANDOM)
    base = Comparison(sample.name, sample.space, sample.describe(), "compared", seeds=seeds,
                         classes=flow_classes(sample))
    ours, theirs = [], []
    try:
        for seed in seeds:
            loaded = tcplab.load({**doc, "simulation": {**doc["simulation"], "seed": seed}})
            sim = tcplab.run(loaded)
            try:
                emu = emulate(loaded, progress)
            except EmulationRefused as e:
                base.status, base.reason = "excluded", str(e).splitlines()[-1]
                return base
            sim.save(directory / f"sim-seed{seed}", report=False)
            emu.save(directory / f"emu-seed{seed}", report=False)
            if seed == seeds[0]:
                plot_cwnd(sim, emu, directory / "cwnd.png")
            ours.append(measure(sim))
            theirs.append(measure(emu))
    except (ScenarioError, RuntimeError, OSError) as e:
        base.status, base.reason = "failed", f"{type(e).__name__}: {e}"
        (directory / "error.txt").write_text(traceback.format_exc())
        return base
    base.ours, base.theirs = mean(ours), mean(theirs)
    return base
