"""ns-2's answer on the jumbo study's own points (#30 items 1 and 5): Table 2's sweep
(backbone × frames at node 7 × condition × RED mode) on its full grid, run by ns-2.35
(``jumbo.tcl``) on the study's topology and reading — the simulator the paper used.

What ns-2 is told is what the study reads from the paper (jumbo.toml's header): twelve
senders on routers a and b, the a - b - c - d backbone at 50 or 155 Mbit/s with RED in
byte or packet mode (ns-2.35's automatic configuration, a hard limit of 150,000 B),
node 7's segments of 9,140 bytes or 1,460, UDP CBR at nodes 0 and 6, Reno with a
20-segment window and an initial window of 1, 5% random loss before the b -> c queue,
and the path-length cases' access delays, read from study.toml itself. Everything else
is ns-2.35's default (tcpTick 10 ms, initial RTO 3 s; tcplab's jumbo scenario keeps its
own profile's 1 s). The quantities are measured as tcplab measures them: per flow the
goodput ((ack_ + 1) segments over the run), the largest 50-ms bin of IP bytes arriving
at the receiver, node 6's RFC 3550 jitter; the b -> c queue's largest backlog in bytes,
packets waiting (from the packet trace).

    python tests/ns2/studies.py --study jumbo [--seeds 5]
"""

from __future__ import annotations

import itertools
import re
import subprocess
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DURATION_S = 30.0
BIN_S = 0.05
BACKBONES = {"narrow": "50Mb", "broad": "155Mb"}
REFERENCE = ("ns-2.35 (tests/ns2/jumbo.tcl): Agent/TCP/Reno and TCPSink, window 20, initial window 1, ns-2.35's "
             "defaults otherwise (tcpTick 10 ms, initial RTO 3 s); RED as ns-2.35 configures it, 150,000-B limit; "
             "tests/ns2/study_jumbo.py")


def _access_delays(condition: str) -> list[float]:
    """The twelve access delays (ms) of a condition, from the study's own sweep."""
    from tcplab.studies import load_study

    sweep = next(s for s in load_study("jumbo").data["sweep"] if s["name"] == "table2")
    sets = sweep["table"]["parameters"]["condition"]["cases"][condition]
    delays = [2.0] * 12
    for key, value in sets.items():
        m = re.fullmatch(r"link\[from=s(\d+)\]\.delay", key)
        if m:
            delays[int(m.group(1))] = float(value.removesuffix("ms"))
    return delays


def points() -> list[tuple[str, dict, dict]]:
    """(sweep, point parameters, jumbo.tcl options) of every reference point: the
    study's grid without its excluded cases (standard frames with a path-length case)."""
    out = []
    for backbone, frames, red, condition in itertools.product(
            BACKBONES, ("standard", "jumbo"), ("byte", "packet"), ("none", "loss5", "delay_far", "delay_near")):
        if frames == "standard" and condition.startswith("delay"):
            continue
        options = {"backbone": BACKBONES[backbone], "jumbo": int(frames == "jumbo"), "red_bytes": int(red == "byte"),
                   "loss": 0.05 if condition == "loss5" else 0,
                   "access": ",".join(f"{d:g}" for d in _access_delays(condition))}
        out.append(("table2", {"backbone": backbone, "frames": frames, "red": red, "condition": condition}, options))
    return out


def run(point: tuple[str, dict, dict], seeds: int, ns: str) -> dict:
    """One point in ns-2 on replications 1 … ``seeds``."""
    sweep, params, options = point
    flows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    queue_max = []
    for seed in range(1, seeds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            trace = Path(tmp) / "jumbo.tr"
            args = [f"{k}={v}" for k, v in {**options, "seed": seed, "duration": DURATION_S, "trace": trace}.items()]
            proc = subprocess.run([ns, str(HERE / "jumbo.tcl"), *args], capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                raise RuntimeError(f"ns-2 failed on {params} seed {seed}: {proc.stderr.strip()[-500:]}")
            measured = _measure(proc.stdout, trace)
        for node, values in measured["flows"].items():
            for column, value in values.items():
                flows[node][column].append(value)
        queue_max.append(measured["queue_max_bytes"])
    n7 = flows["node7"]["goodput_bps"]
    print(f"{sweep} {params}: node 7 {sum(n7) / len(n7) / 1e6:.2f} Mb/s, b->c queue max "
          f"{max(queue_max) / 1e3:.0f} kB", flush=True)
    return {"sweep": sweep, "point": params, "runs": {},
            "flows": {node: dict(columns) for node, columns in flows.items()},
            "links": {"b->c": {"queue_max_bytes": queue_max}}}


def _measure(stdout: str, trace: Path) -> dict:
    """Per flow of nodes 6-8 and the b -> c queue, what one run measured."""
    ids, flows = {}, {}
    for line in stdout.splitlines():
        words = line.split()
        if words and words[0] == "node":
            ids[words[1]] = words[2]
        elif words and words[0] == "flow" and words[1] in ("7", "8"):
            acked, size = int(words[2]), int(words[3])
            # ack_ is the highest segment acknowledged cumulatively, numbered from 0.
            flows[f"node{words[1]}"] = {"goodput_bps": (acked + 1) * size * 8 / DURATION_S}
    bins: dict[str, list[int]] = {f"node{i}": [0] * int(round(DURATION_S / BIN_S)) for i in (6, 7, 8)}
    receiver = {ids[f"r{i}"]: f"node{i}" for i in (6, 7, 8)}
    b, c, d, s6 = ids["b"], ids["c"], ids["d"], ids["s6"]
    backlog = backlog_max = 0
    # The trace shows an arrival ("+") before the queue decides on it: one it drops
    # follows at once as "d" with the same uid and never was in the backlog.
    arrival = None
    sent_at: dict[str, float] = {}
    jitter, last_transit = 0.0, None
    with trace.open() as f:
        for line in f:
            event, t, src, dst, _, size, _, _, _, _, _, uid = line.split()
            if src == b and dst == c and event in "+-d":
                if arrival is not None and not (event == "d" and uid == arrival):
                    backlog_max = max(backlog_max, backlog)
                arrival = uid if event == "+" else None
                backlog += int(size) if event == "+" else -int(size)
            elif src == s6 and event == "+":
                sent_at[uid] = float(t)
            elif src == d and event == "r" and dst in receiver:
                node, at = receiver[dst], float(t)
                if at < DURATION_S:
                    bins[node][int(at / BIN_S)] += int(size)
                if node == "node6":
                    # RFC 3550 section 6.4.1: J += (|D| - J) / 16, over arrival order.
                    transit = at - sent_at.pop(uid)
                    if last_transit is not None:
                        jitter += (abs(transit - last_transit) - jitter) / 16
                    last_transit = transit
    for node, counts in bins.items():
        flows.setdefault(node, {})["throughput_max_bps"] = max(counts) * 8 / BIN_S
    flows["node6"]["jitter_ms"] = jitter * 1e3
    return {"flows": flows, "queue_max_bytes": float(backlog_max)}
