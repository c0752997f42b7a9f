"""Runs one tcplab scenario the lean way for benchmarking: parse the scenario, run the
engine, print a JSON line with what the harness compares (no Parquet, no plots, no
pandas import, no per-bin series handed to Python: the engine still measures them),
like the ns-2 and ns-3 programs that only print their counters.

usage: python benchmarks/tcplab_run.py SCENARIO.toml [KEY=VALUE ...]
"""

from __future__ import annotations

import json
import sys
import time

from tcplab.runner import simulate
from tcplab.scenario import load


def main() -> None:
    path, overrides = sys.argv[1], sys.argv[2:]
    started = time.perf_counter()
    scenario = load(path, overrides)
    engine, engine_wall = simulate(scenario, series=False)
    neck = max(engine["links"], key=lambda l: l["tx_packets"] if l["id"] == "router_left->router_right" else -1)
    print(json.dumps({
        "goodputs_bps": [f["goodput_bps"] for f in engine["flows"]],
        "drops": sum(neck["drops"].values()),
        "bottleneck_packets": neck["tx_packets"],
        "engine_wall_s": engine_wall,
        "process_wall_s": time.perf_counter() - started,
    }))


if __name__ == "__main__":
    main()
