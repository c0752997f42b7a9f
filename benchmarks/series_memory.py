"""Memory per time-series cell, end to end (issue "Robustness", part 4).

Each scenario runs twice in a fresh child process (``tcplab run --no-plots``): once as
written and once with a single bin. The difference of the two children's peak RSS,
divided by the number of series cells (bins × (flows + link directions)), is what one
cell costs from the engine's first sample to the Parquet file.

    python benchmarks/series_memory.py            # the three reference scenarios
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import tcplab
from tcplab import _core

DUMBBELL = """
[simulation]
duration = "{duration}"
seed = 1
bin = "{bin}"

[topology.dumbbell]
pairs = 10
access = {{ bandwidth = "100Mbps", delay = "1ms" }}
bottleneck = {{ bandwidth = "10Mbps", delay = "10ms" }}

[[flow]]
count = 10
from = "left{{i}}"
to = "right{{i}}"
transport = {transport}
app = {app}
"""

#: (label, duration, bin, transport, app): sparse UDP bins, sparse TCP bins, and TCP
#: with every bin written; 31.2 million cells each (600,000 bins × 52 entities), the
#: scale at which memory matters and fixed costs (libraries, one chunk of rows being
#: written) no longer blur the per-cell figure.
CASES = [
    ("udp, 0.1 ms bins", "60s", "0.1ms", '"udp"', '{ type = "cbr", rate = "0.5Mbps", packet_size = "1000B" }'),
    ("tcp cubic, 0.1 ms bins", "60s", "0.1ms", '{ type = "tcp", cc = "cubic" }', '{ type = "bulk" }'),
    ("tcp cubic, 1 ms bins", "600s", "1ms", '{ type = "tcp", cc = "cubic" }', '{ type = "bulk" }'),
]


def peak_rss(scenario: Path, out: Path) -> int:
    """Peak RSS in bytes of one ``tcplab run`` child (its own, from wait4)."""
    args = [sys.executable, "-m", "tcplab", "run", str(scenario), "--out", str(out), "--no-plots", "--yes"]
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{scenario}: {p.stderr.read().decode()}")
    return usage.ru_maxrss * 1024


def measure(label: str, duration: str, bin_width: str, transport: str, app: str, work: Path) -> dict:
    text = DUMBBELL.format(duration=duration, bin=bin_width, transport=transport, app=app)
    full, single = work / "full.toml", work / "single.toml"
    full.write_text(text)
    single.write_text(text.replace(f'bin = "{bin_width}"', f'bin = "{duration}"'))
    cost = json.loads(_core.estimate(tcplab.load(str(full)).engine_json()))
    added = peak_rss(full, work / "o1") - peak_rss(single, work / "o2")
    cells = cost["series_cells"]
    return {"case": label, "cells": cells, "added_mb": added / 1e6, "bytes_per_cell": added / cells,
            "estimate_bytes_per_cell": cost["series_bytes"] / cells}


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'case':<26} {'cells':>11} {'added':>9} {'B/cell':>7} {'estimate':>9}")
        for case in CASES:
            r = measure(*case, Path(tmp))
            print(f"{r['case']:<26} {r['cells']:>11,} {r['added_mb']:>7.0f}MB {r['bytes_per_cell']:>7.1f} "
                  f"{r['estimate_bytes_per_cell']:>9.1f}")


if __name__ == "__main__":
    main()
