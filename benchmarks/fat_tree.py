"""The data-centre point of `make bench` (issue #31): a k-ary fat tree of 1 Gb/s links
with per-flow ECMP, and TCP flows of the web-search workload arriving as a Poisson
process between random hosts. Prints one JSON line: the engine's wall time, the
time to build the scenario, peak memory, packets carried, events, and flow completion.

The workload is the web-search flow-size distribution measured by Alizadeh et al.
(DCTCP, SIGCOMM 2010, Figure 4; tabulated as in pFabric, SIGCOMM 2013, Figure 4(a)):
the CDF points below, interpolated linearly, from 4 kB (the CDF's zero, as pFabric's
simulations read it) to 30 MB; mean 1.7 MB. Sources and destinations are distinct hosts
drawn uniformly; arrivals are Poisson over the first ``--arrivals`` of the run.

    python benchmarks/fat_tree.py                               # k = 16, 10,000 flows, 0.5 s
    python benchmarks/fat_tree.py --k 8 --flows 500 --write ft.toml   # also save the scenario
    python benchmarks/fat_tree.py --k 8 --flows 500 --ns2 ft.tcl      # only write ns-2's script

ns-2's version (`--ns2`) runs the same flows over the same tree with Agent/TCP/Sack1
(one-way, no handshake, an ACK per segment) and ns-2's static routing, which gives every
pair of hosts one path: ns-2 has no per-flow ECMP (its `multiPath_` spreads packets,
not flows). It is a speed comparison, not an agreement test: `make bench` reports
both tools' wall time and the payload each delivered.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import resource
import statistics
import sys
import time
from pathlib import Path

#: (bytes, cumulative probability): DCTCP's web-search flow sizes.
WEB_SEARCH_CDF = [(4_000, 0.0), (10_000, 0.15), (20_000, 0.2), (30_000, 0.3), (50_000, 0.4), (80_000, 0.53),
                  (200_000, 0.6), (1_000_000, 0.7), (2_000_000, 0.8), (5_000_000, 0.9), (10_000_000, 0.97),
                  (30_000_000, 1.0)]
#: Every link of the tree.
LINK = {"bandwidth": "1Gbps", "delay": "1us", "queue": {"type": "droptail", "limit": "100 packets"}}


def web_search_size(u: float) -> int:
    """The flow size at quantile ``u`` of the web-search CDF (linear between points)."""
    probabilities = [p for _, p in WEB_SEARCH_CDF]
    i = max(1, bisect.bisect_left(probabilities, u))
    (x0, p0), (x1, p1) = WEB_SEARCH_CDF[i - 1], WEB_SEARCH_CDF[i]
    return round(x0 + (x1 - x0) * (u - p0) / (p1 - p0))


def web_search_mean() -> float:
    """The mean of the interpolated CDF (bytes)."""
    return sum((p1 - p0) * (x0 + x1) / 2 for (x0, p0), (x1, p1) in zip(WEB_SEARCH_CDF, WEB_SEARCH_CDF[1:], strict=False))


def scenario(k: int, flows: int, duration_s: float, arrivals_s: float, seed: int, multipath: str = "ecmp") -> dict:
    """The fat tree with ``flows`` web-search TCP flows (CUBIC, the default stack)."""
    rng = random.Random(seed)
    hosts = k**3 // 4
    start, tables = 0.0, []
    for i in range(flows):
        start += rng.expovariate(flows / arrivals_s)
        src = rng.randrange(hosts)
        dst = rng.choice([h for h in (rng.randrange(hosts), rng.randrange(hosts)) if h != src] or [(src + 1) % hosts])
        tables.append({"name": f"f{i}", "from": f"host{src}", "to": f"host{dst}", "start": f"{start * 1e6:.3f}us",
                       "transport": {"type": "tcp"}, "app": {"type": "file", "size": f"{web_search_size(rng.random())}B"}})
    return {"name": f"fat-tree-k{k}", "description": f"k = {k} fat tree, {flows} web-search flows, ECMP",
            "simulation": {"duration": f"{duration_s:g}s", "seed": seed, "bin": f"{duration_s / 10:g}s"},
            "topology": {"fat_tree": {"k": k, "link": LINK}}, "routing": {"multipath": multipath}, "flow": tables}


def ns2_script(doc: dict, k: int) -> str:
    """The scenario as a self-contained ns-2.35 script: the tree, each flow an FTP over
    Agent/TCP/Sack1 sending its file; prints the payload delivered and the events."""
    from tcplab.scenario.units import parse_duration_ns, parse_size_bytes

    half, hosts = k // 2, k**3 // 4
    lines = ["set ns [new Simulator]", "Agent/TCP set packetSize_ 1460", "Agent/TCP set window_ 100000",
             "Agent/TCP set windowInit_ 10", "Agent/TCP set tcpTick_ 0.000001", "Agent/TCP set minrto_ 0.2",
             "Agent/TCP set rtxcur_init_ 1.0", "Agent/TCP set overhead_ 0", "Queue/DropTail set summarystats_ false",
             "proc link {a b} { global ns; $ns duplex-link $a $b 1Gb 1us DropTail; "
             "$ns queue-limit $a $b 101; $ns queue-limit $b $a 101 }"]
    lines += [f"set core({j}) [$ns node]" for j in range(half * half)]
    for p in range(k):
        for a in range(half):
            lines.append(f"set agg({p},{a}) [$ns node]")
            lines += [f"link $agg({p},{a}) $core({a * half + j})" for j in range(half)]
        for e in range(half):
            lines.append(f"set edge({p},{e}) [$ns node]")
            lines += [f"link $edge({p},{e}) $agg({p},{a})" for a in range(half)]
    for i in range(hosts):
        lines += [f"set host({i}) [$ns node]", f"link $host({i}) $edge({i // (half * half)},{(i // half) % half})"]
    for i, f in enumerate(doc["flow"]):
        src, dst = int(f["from"][4:]), int(f["to"][4:])
        segments = -(-parse_size_bytes(f["app"]["size"], "size") // 1460)
        start = parse_duration_ns(f["start"], "start") / 1e9
        lines += [f"set tcp({i}) [new Agent/TCP/Sack1]", f"set sink({i}) [new Agent/TCPSink/Sack1]",
                  f"$ns attach-agent $host({src}) $tcp({i})", f"$ns attach-agent $host({dst}) $sink({i})",
                  f"$ns connect $tcp({i}) $sink({i})", f"$ns at {start:.9f} \"$tcp({i}) advance {segments}\""]
    flows = len(doc["flow"])
    duration = parse_duration_ns(doc["simulation"]["duration"], "duration") / 1e9
    lines += ["proc finish {} {", "  global tcp", "  set acked 0",
              f"  for {{set i 0}} {{$i < {flows}}} {{incr i}} {{ incr acked [expr [$tcp($i) set ack_] + 1] }}",
              "  puts \"delivered_bytes [expr $acked * 1460]\"", "  exit 0", "}",
              f"$ns at {duration} finish", "$ns run"]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--flows", type=int, default=10_000)
    ap.add_argument("--duration", type=float, default=0.5, help="simulated seconds")
    ap.add_argument("--arrivals", type=float, default=0.4, help="flows arrive over this many seconds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--multipath", choices=("ecmp", "first"), default="ecmp", help="[routing] multipath")
    ap.add_argument("--write", type=Path, help="also save the scenario as TOML here")
    ap.add_argument("--ns2", type=Path, help="only write ns-2's script of the same scenario here")
    args = ap.parse_args()
    if args.ns2:
        args.ns2.write_text(ns2_script(scenario(args.k, args.flows, args.duration, args.arrivals, args.seed), args.k))
        return

    import tcplab
    from tcplab.runner import simulate
    from tcplab.scenario import toml_writer

    built = time.perf_counter()
    doc = scenario(args.k, args.flows, args.duration, args.arrivals, args.seed, args.multipath)
    if args.write:
        args.write.write_text(toml_writer.dumps(doc))
    loaded = tcplab.load(doc)
    build_s = time.perf_counter() - built
    engine, wall = simulate(loaded, series=False)
    size = {t["name"]: int(t["app"]["size"][:-1]) for t in doc["flow"]}
    fct = [f["fct_s"] for f in engine["flows"] if f.get("fct_s") is not None]
    small = [f["fct_s"] for f in engine["flows"] if f.get("fct_s") is not None and size[f["id"]] <= 100_000]
    quantile = lambda xs, q: sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] if xs else None  # noqa: E731
    print(json.dumps({
        "k": args.k, "hosts": args.k**3 // 4, "flows": args.flows, "simulated_s": args.duration,
        "multipath": args.multipath,
        "offered_gbps": args.flows * web_search_mean() * 8 / args.arrivals / 1e9,
        "build_s": build_s, "engine_wall_s": wall, "events": engine["events"],
        "link_packets": sum(link["tx_packets"] for link in engine["links"]),
        "delivered_bytes": sum(f["delivered_bytes"] for f in engine["flows"]),
        "host_packets": sum(link["tx_packets"] for link in engine["links"] if link["id"].startswith("host")),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "completed": len(fct), "fct_median_s": statistics.median(fct) if fct else None,
        "small_fct_p99_s": quantile(small, 0.99),
    }))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
