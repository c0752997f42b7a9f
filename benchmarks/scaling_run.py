"""One point of the scaling sweep: the B1-style dumbbell with N NewReno flows and the
given overrides; prints engine wall time, bottleneck packets and events as JSON.

usage: python benchmarks/scaling_run.py FLOWS KEY=VALUE ...
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from tcplab.runner import simulate
from tcplab.scenario import load


def main() -> None:
    flows, overrides = int(sys.argv[1]), sys.argv[2:]
    base = tomllib.loads((Path(__file__).parent / "scenarios" / "b1-dumbbell-10.toml").read_text())
    template = base["flow"][0]
    base["flow"] = [
        {**template, "name": f"f{i}", "from": f"left{i}", "to": f"right{i}", "start": f"{i * 10 / max(flows, 1):.6f}ms"}
        for i in range(flows)
    ]
    engine, wall = simulate(load(base, overrides), series=False)
    neck = next(l for l in engine["links"] if l["id"] == "router_left->router_right")
    print(json.dumps({"engine_wall_s": wall, "bottleneck_packets": neck["tx_packets"], "events": engine["events"]}))


if __name__ == "__main__":
    main()
