"""`make bench`: tcplab, ns-2, ns-3 and htsim on the same dumbbell benchmarks, in one run.

For every scenario of ../shared/DESIGN.md (B1 dumbbell-10, B2 lfn, B3 scale-100) and
every tool, REPEATS runs are made with the tools interleaved (so drift on this noisy
machine hits all alike), each bounded by a time limit (a run that hits it is reported
as "> limit", never dropped). Per tool and scenario the median wall time, peak RSS,
bottleneck packets per wall second, aggregate goodput, Jain's index and bottleneck drops
are written to benchmarks/results.csv and benchmarks/RESULTS.md with the speed ratios
ns-2/tcplab and ns-3/tcplab. RESULTS.md is generated here, never edited by hand.

htsim (UCL/Broadcom, C++; `HTSIM_SOURCE`, default ../shared/peers/csg-htsim, built into
benchmarks/build/htsim) runs B1 and B2 with its dumbbell driver in both of its modes:
`htsim` (every link a queue and a pipe) and `htsim-lean` (links that never queue folded
into pipes). Its driver gives every flow one access delay, so B3 (per-flow delays) has no
htsim row.

`--scaling` adds tcplab's cost per bottleneck packet across bandwidths (10 Mbps to
10 Gbps) and flow counts (1 to 1,000); `--sweep-overhead` a sweep's cost per run
outside the engine (benchmarks/sweep_overhead.py).

usage: python benchmarks/run.py [--repeats N] [--limit SECONDS] [--only b1,b2,b3]
                                [--tools tcplab,tcplab-run,ns2,ns3,htsim,htsim-lean]
                                [--scaling] [--sack-cliff] [--fat-tree] [--sweep-overhead]
                                [--no-install]
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PYTHON = sys.executable
#: htsim's sources with the dumbbell driver (../shared/peers/csg-htsim, README there).
HTSIM_SOURCE = Path(os.environ.get("HTSIM_SOURCE", REPO.parent / "shared" / "peers" / "csg-htsim"))
#: Scenarios whose tcplab, `tcplab run` and ns-2 runs all take less than this get
#: `--end-to-end-repeats` rounds of those three (see main).
CHEAP_RUN_S = 5.0


@dataclass(frozen=True)
class Bench:
    """One benchmark scenario, as parameters every tool understands."""

    name: str
    toml: str
    flows: int
    access_bw: str
    access_delay: str
    neck_bw: str
    neck_delay: str
    neck_queue: int
    duration: float
    spacing: float
    iw: int = 2
    delay_mod: int = 0

    def ns2_args(self) -> list[str]:
        bw = lambda s: s.replace("bps", "").replace("G", "Gb").replace("M", "Mb")
        return [self.flows, bw(self.access_bw), self.access_delay, bw(self.neck_bw), self.neck_delay,
                self.neck_queue, self.duration, self.spacing, self.iw, self.delay_mod]

    def ns3_args(self) -> list[str]:
        return [f"--flows={self.flows}", f"--accessBw={self.access_bw}", f"--accessDelay={self.access_delay}",
                f"--neckBw={self.neck_bw}", f"--neckDelay={self.neck_delay}", f"--neckQueue={self.neck_queue}",
                f"--duration={self.duration}", f"--spacing={self.spacing}", f"--iw={self.iw}", f"--delayMod={self.delay_mod}"]

    def htsim_args(self) -> list[str] | None:
        """The driver's options for this benchmark; None where it cannot express it
        (per-flow access delays). The driver's other defaults are B1's TCP: initial
        window 2, unlimited ssthresh, initial RTO 1 s, no handshake."""
        if self.delay_mod:
            return None
        return ["-flows", self.flows, "-access_bw", self.access_bw, "-access_delay", self.access_delay,
                "-neck_bw", self.neck_bw, "-neck_delay", self.neck_delay, "-queue", self.neck_queue,
                "-duration", self.duration, "-gap", self.spacing, "-iw", self.iw]


BENCHES = [
    Bench("B1 dumbbell-10", "b1-dumbbell-10.toml", 10, "1Gbps", "1ms", "100Mbps", "20ms", 100, 60, 0.1),
    Bench("B2 lfn", "b2-lfn.toml", 1, "10Gbps", "1ms", "1Gbps", "50ms", 8333, 60, 0),
    Bench("B3 scale-100", "b3-scale-100.toml", 100, "10Gbps", "1ms", "10Gbps", "10ms", 5000, 10, 0.01, delay_mod=50),
]


@dataclass
class Run:
    """One process run: wall time, peak memory, and what it reported."""

    wall_s: float
    rss_mb: float
    timed_out: bool
    goodputs_bps: list[float] = field(default_factory=list)
    drops: int | None = None
    bottleneck_packets: int | None = None
    error: str | None = None


def measure(cmd: list[str], limit: float, cwd: Path = REPO) -> tuple[Run, str]:
    """Runs `cmd`, killing it at `limit` seconds; returns its wall time, its own peak RSS
    (os.wait4 reports the rusage of the child it reaps) and its standard output. The
    harness blocks in wait4 while the child runs (a timer thread enforces the limit):
    polling would wake this process a thousand times a second on a 2-core machine."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd)
        expired = threading.Event()

        def kill_at_limit() -> None:
            expired.set()
            proc.kill()

        timer = threading.Timer(limit, kill_at_limit)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - started
        timed_out = expired.is_set()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    run = Run(wall, usage.ru_maxrss / 1024.0, timed_out)  # ru_maxrss is in KiB on Linux
    if proc.returncode != 0 and not timed_out:
        run.error = (stderr or stdout).strip()[-300:]
    return run, stdout


def run_tcplab(b: Bench, limit: float) -> Run:
    run, out = measure([PYTHON, HERE / "tcplab_run.py", HERE / "scenarios" / b.toml], limit)
    if out.strip() and not run.timed_out:
        r = json.loads(out.strip().splitlines()[-1])
        run.goodputs_bps, run.drops, run.bottleneck_packets = r["goodputs_bps"], r["drops"], r["bottleneck_packets"]
    return run


def run_tcplab_command(b: Bench, limit: float) -> Run:
    """The everyday command end to end: `tcplab run` with every default output
    (summary table, summary.json, CSV, Parquet series, report.html) into a
    temporary directory."""
    tcplab = Path(PYTHON).with_name("tcplab")
    with tempfile.TemporaryDirectory(prefix="tcplab-bench-") as tmp:
        run, _ = measure([tcplab, "run", HERE / "scenarios" / b.toml, "--out", Path(tmp) / "out"], limit)
        summary = Path(tmp) / "out" / "summary.json"
        if summary.exists() and not run.timed_out:
            s = json.loads(summary.read_text())
            neck = next(l for l in s["links"] if l["id"] == "router_left->router_right")
            run.goodputs_bps = [f["goodput_bps"] for f in s["flows"]]
            run.drops, run.bottleneck_packets = sum(neck["drops"].values()), neck["tx_packets"]
    return run


def _parse_flows(out: str, b: Bench, bytes_of) -> tuple[list[float], int | None, int | None]:
    goodputs, drops, departures = [], None, None
    for line in out.splitlines():
        parts = line.split()
        if parts[:1] == ["flow"]:
            start, value = float(parts[2]), int(parts[3])
            goodputs.append(bytes_of(value) * 8 / (b.duration - start))
        elif parts[:1] == ["drops"]:
            drops = int(parts[1])
        elif parts[:1] == ["departures"]:
            departures = int(parts[1])
    return goodputs, drops, departures


def run_ns2(b: Bench, limit: float, ns: str) -> Run:
    run, out = measure([ns, HERE / "ns2" / "dumbbell.tcl", *b.ns2_args()], limit)
    if not run.timed_out:
        # ns-2 reports the highest cumulatively acknowledged segment number (from 0).
        run.goodputs_bps, run.drops, run.bottleneck_packets = _parse_flows(out, b, lambda acked: (acked + 1) * 1460)
    return run


def run_ns3(b: Bench, limit: float, binary: Path) -> Run:
    run, out = measure([binary, *b.ns3_args()], limit)
    if not run.timed_out:
        run.goodputs_bps, run.drops, run.bottleneck_packets = _parse_flows(out, b, lambda rx: rx)
    return run


def run_htsim(b: Bench, limit: float, binary: Path, lean: bool) -> Run | None:
    args = b.htsim_args()
    if args is None:
        return None
    run, out = measure([binary, *args, *(["-lean"] if lean else [])], limit)
    if not run.timed_out:
        # Each delivered packet is 1,500 bytes of htsim's sequence space: 1,460 of payload
        # in tcplab's and ns-2's terms (the driver's README, "Output").
        run.goodputs_bps, run.drops, run.bottleneck_packets = _parse_flows(
            out, b, lambda delivered_bytes: delivered_bytes / 1500 * 1460)
    return run


def ensure_htsim(install: bool) -> Path | None:
    """htsim's dumbbell driver, built from HTSIM_SOURCE into benchmarks/build/htsim (a
    copy: the shared sources stay untouched). None when the sources are not there."""
    binary = HERE / "build" / "htsim" / "dumbbell" / "htsim_dumbbell"
    if binary.exists():
        return binary
    if not install or not (HTSIM_SOURCE / "sim" / "Makefile").exists():
        return None
    build = HERE / "build" / "htsim"
    shutil.rmtree(build, ignore_errors=True)
    shutil.copytree(HTSIM_SOURCE, build, ignore=shutil.ignore_patterns("*.o", "*.a", "htsim_dumbbell"))
    jobs = str(os.cpu_count() or 1)
    for cmd in (["make", "-C", build / "sim", "-j", jobs, "libhtsim.a"], ["make", "-C", build / "dumbbell"]):
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"htsim build failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
            return None
    return binary


def ensure_ns2(install: bool) -> str | None:
    found = shutil.which("ns")
    if found or not install:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "ns2"], env=env, check=False)
    return shutil.which("ns")


def ensure_ns3(install: bool) -> Path | None:
    binary = HERE / "build" / "ns3-dumbbell"
    source = HERE / "ns3" / "dumbbell.cc"
    if binary.exists() and binary.stat().st_mtime >= source.stat().st_mtime:
        return binary
    if install:
        subprocess.run([PYTHON, "-m", "pip", "install", "--quiet", "-r", REPO / "requirements" / "bench.txt"], check=False)
    proc = subprocess.run(["bash", HERE / "ns3" / "build.sh"], env={**os.environ, "PYTHON": PYTHON},
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"ns-3 build failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    return binary


def jain(xs: list[float]) -> float | None:
    s2 = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * s2) if xs and s2 > 0 else None


def _read(path: str) -> str:
    """A /proc file's text, or "" where there is none (not Linux)."""
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def machine() -> str:
    """CPU model, cores, memory, OS and Python: what RESULTS.md records of the machine."""
    models = [l.split(":", 1)[1].strip() for l in _read("/proc/cpuinfo").splitlines() if l.startswith("model name")]
    cpu = models[0] if models else "unknown CPU"
    fields = _read("/proc/meminfo").split()
    mem = f", {int(fields[1]) / 2**20:.0f} GiB RAM" if len(fields) > 1 and fields[1].isdigit() else ""
    return f"{platform.node()}: {cpu}, {os.cpu_count()} cores{mem}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def fmt_time(runs: list[Run], limit: float) -> tuple[str, float | None]:
    if not runs:
        return "n/a", None
    if any(r.timed_out for r in runs):
        return f"> {limit:g} s", None
    med = statistics.median(r.wall_s for r in runs)
    return f"{med:.2f} s", med


def summarise(results: dict, benches: list[Bench], tools: list[str], limit: float, repeats: int, notes: list[str]) -> None:
    rows = []
    for b in benches:
        base_runs = results[b.name].get("tcplab", [])
        _, base = fmt_time(base_runs, limit)
        base_goodput = sum(base_runs[0].goodputs_bps) if base_runs and base_runs[0].goodputs_bps else None
        base_jain = jain(base_runs[0].goodputs_bps) if base_runs and base_runs[0].goodputs_bps else None
        for tool in tools:
            if tool.startswith("htsim") and b.htsim_args() is None:
                continue  # said in a note (main)
            runs = results[b.name].get(tool, [])
            shown, med = fmt_time(runs, limit)
            ok = [r for r in runs if not r.timed_out and r.goodputs_bps]
            agg = sum(ok[0].goodputs_bps) if ok else None
            j = jain(ok[0].goodputs_bps) if ok else None
            drops = ok[0].drops if ok else None
            pkts = ok[0].bottleneck_packets if ok else None
            rss = max((r.rss_mb for r in runs), default=float("nan"))
            if tool == "tcplab" or base is None:
                ratio = ""
            elif med is not None:
                ratio = f"{med / base:.1f}x"
            elif runs:
                ratio = f"> {limit / base:.0f}x"
            else:
                ratio = "n/a"
            flag = ""
            if tool != "tcplab" and agg and base_goodput:
                if abs(agg / base_goodput - 1) > 0.05 or (j is not None and base_jain is not None and abs(j - base_jain) > 0.05):
                    flag = "DIFFERS"
            errors = "; ".join(sorted({r.error for r in runs if r.error}))
            rows.append({
                "scenario": b.name, "tool": tool, "median_wall": shown, "runs": len(runs),
                "peak_rss_mb": f"{rss:.0f}", "bottleneck_pkts_per_wall_s": f"{pkts / med / 1e6:.2f} M" if pkts and med else "",
                "aggregate_goodput_mbps": f"{agg / 1e6:.2f}" if agg else "", "jain": f"{j:.4f}" if j is not None else "",
                "bottleneck_drops": drops if drops is not None else "", "slowdown_vs_tcplab": ratio, "agreement": flag,
                "error": errors,
            })
    with open(HERE / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    cols = ["scenario", "tool", "median_wall", "peak_rss_mb", "bottleneck_pkts_per_wall_s", "aggregate_goodput_mbps",
            "jain", "bottleneck_drops", "slowdown_vs_tcplab", "agreement", "runs"]
    head = ["scenario", "tool", "median wall", "peak RSS MB", "bottleneck pkts / wall s", "goodput Mbit/s",
            "Jain", "drops", "tool / tcplab", "agreement", "runs"]
    lines = [
        "# Benchmark results",
        "",
        "Generated by `make bench` (benchmarks/run.py); do not edit by hand.",
        "",
        f"- Date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- Machine: {machine()}",
        f"- Runs: {repeats} per tool and scenario, tools interleaved; time limit {limit:g} s per run; scenarios whose",
        f"  tcplab, `tcplab run` and ns-2 runs all take under {CHEAP_RUN_S:g} s get more interleaved rounds of those",
        "  three (the row's run count is in the last column)",
        "- tool / tcplab: the tool's median wall time divided by tcplab's (the speed ratio);",
        "  \"> N x\" when the tool hit the time limit. Wall times are whole processes: tcplab",
        "  includes Python start-up and scenario parsing (benchmarks/tcplab_run.py).",
        "- agreement: DIFFERS when aggregate goodput is more than 5% or Jain's index more than",
        "  0.05 away from tcplab's (benchmarks/README.md explains each such row).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in rows:
        lines.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    if any(r["error"] for r in rows):
        lines += ["", "Errors:"] + [f"- {r['scenario']} {r['tool']}: {r['error']}" for r in rows if r["error"]]
    if notes:
        lines += [""] + notes
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n")


def end_to_end(results: dict, benches: list[Bench], limit: float) -> list[str]:
    """The everyday command against ns-2: `tcplab run` (every default output) next to
    the engine-only figure, and ns-2's wall time divided by each."""
    lines = []
    for b in benches:
        _, engine = fmt_time(results[b.name].get("tcplab", []), limit)
        _, command = fmt_time(results[b.name].get("tcplab-run", []), limit)
        _, ns2 = fmt_time(results[b.name].get("ns2", []), limit)
        if command is None:
            continue
        parts = [f"`tcplab run` {command:.2f} s"]
        if engine is not None:
            parts.append(f"engine only (benchmarks/tcplab_run.py) {engine:.2f} s")
        if ns2 is not None:
            parts.append(f"ns-2 {ns2:.2f} s: ns-2 / `tcplab run` = {ns2 / command:.2f}x, ns-2 / engine only = {ns2 / engine:.2f}x"
                         if engine is not None else f"ns-2 {ns2:.2f} s: ns-2 / `tcplab run` = {ns2 / command:.2f}x")
        lines.append(f"- {b.name}, end to end: " + "; ".join(parts) + ".")
    if lines:
        lines.insert(0, "End to end: `tcplab run` with every default output (summary table, summary.json, CSV, Parquet, "
                        "report.html), medians of the interleaved runs above.")
        lines.insert(0, "")
    return lines


def _scaling_dumbbell(bw: str) -> tuple[float, str, int]:
    """Simulated seconds, access rate and bottleneck queue (packets) of the scaling
    sweep's dumbbell at bottleneck rate ``bw``: ~10^6 packets at full rate (at 10 Gbit/s
    slow start alone takes about a second), access 10x the bottleneck, 1 BDP of queue."""
    bps = {"10Mbps": 1e7, "100Mbps": 1e8, "1Gbps": 1e9, "10Gbps": 1e10}[bw]
    duration = max(round(1e6 * 12000 / bps, 3), 3.0)
    access = {"10Mbps": "100Mbps", "100Mbps": "1Gbps", "1Gbps": "10Gbps", "10Gbps": "100Gbps"}[bw]
    return duration, access, max(int(bps * 0.024 / 12000), 10)


def scaling_point(bw: str, flows: int) -> tuple[float, list[str]]:
    """Simulated seconds and scenario overrides of one point of the scaling sweep."""
    duration, access, queue = _scaling_dumbbell(bw)
    return duration, [f"topology.dumbbell.pairs={flows}", f"topology.dumbbell.bottleneck.bandwidth={bw}",
                      f"topology.dumbbell.access.bandwidth={access}", f"simulation.duration={duration}s",
                      f"topology.dumbbell.bottleneck.queue.limit=\"{queue} packets\"", "simulation.bin=1s"]


def htsim_scaling_args(bw: str, flows: int) -> list[str]:
    """htsim's driver on a point of the scaling sweep (the same dumbbell: access 10x the
    bottleneck and 1 ms, bottleneck 20 ms, flows 10 ms / N apart)."""
    duration, access, queue = _scaling_dumbbell(bw)
    return ["-flows", str(flows), "-neck_bw", bw, "-access_bw", access, "-neck_delay", "20ms", "-access_delay", "1ms",
            "-queue", str(queue), "-duration", str(duration), "-gap", f"{10 / flows:g}ms"]


def _htsim_ns_per_packet(out: str) -> tuple[float, int] | None:
    """htsim's event-loop wall time per forward-bottleneck departure (ns), and its
    departures, from the driver's closing lines."""
    fields = dict(line.split(maxsplit=1) for line in out.splitlines() if line.strip() and not line.startswith("flow "))
    try:
        wall, departures = float(fields["run_wall_s"]), int(fields["departures"])
    except (KeyError, ValueError):
        return None
    return wall / max(departures, 1) * 1e9, departures


def scaling(limit: float, repeats: int = 5, htsim: Path | None = None) -> list[str]:
    """tcplab's wall time per bottleneck packet across bandwidths and flow counts, the
    best of `repeats` runs per point (the least disturbed by other load: single runs on
    this VM vary by up to 2x, which would swamp the comparison between points). The
    points are run round-robin, so a slow spell of the machine is shared out. Events
    per packet show the algorithmic cost apart from the machine's caches. With
    ``htsim`` (its dumbbell driver), htsim runs every point too, in both modes,
    interleaved with tcplab's runs."""
    points = [(bw, 10) for bw in ("10Mbps", "100Mbps", "1Gbps", "10Gbps")] + [("1Gbps", n) for n in (1, 100, 1000)]
    modes = [("htsim", []), ("htsim-lean", ["-lean"])] if htsim else []
    rows = ["", "## Scaling (tcplab" + (" and htsim)" if htsim else ")"), "",
            "Each point simulates 2x10^5 to 10^6 bottleneck packets of 1,500 bytes on a dumbbell",
            "with NewReno flows (access 10x the bottleneck, 1 ms; bottleneck 20 ms, 1 BDP of queue).",
            f"Engine wall time (run and results, no Python start-up), best of {repeats} runs per point."]
    if htsim:
        rows += ["htsim: its event loop's wall time (`run_wall_s`) per forward-bottleneck departure, best of",
                 f"{repeats}; `htsim` models every link as a queue and a pipe, `htsim-lean` folds the links that",
                 "never queue into pipes (exact on this topology; ../shared/peers/csg-htsim/README.md).",
                 "tcplab / htsim-lean above 1 means htsim is faster per packet."]
    head = "| bottleneck | flows | simulated s | bottleneck packets | events per packet | wall s | ns per bottleneck packet | peak RSS MB |"
    rule = "|---|---|---|---|---|---|---|---|"
    if htsim:
        head += " htsim ns/pkt | htsim-lean ns/pkt | tcplab / htsim-lean |"
        rule += "---|---|---|"
    rows += ["", head, rule]
    best: dict = {}
    best_htsim: dict = {}
    failed: set = set()
    for _ in range(repeats):
        for point in points:
            if point in failed:
                continue
            _, overrides = scaling_point(*point)
            run, out = measure([PYTHON, HERE / "scaling_run.py", str(point[1]), *overrides], limit)
            if run.timed_out or not out.strip():
                failed.add(point)
                continue
            r = json.loads(out.strip().splitlines()[-1])
            if point not in best or r["engine_wall_s"] < best[point][1]["engine_wall_s"]:
                best[point] = (run, r)
            for mode, extra in modes:
                assert htsim is not None
                hrun, hout = measure([htsim, *htsim_scaling_args(*point), *extra], limit)
                cost = None if hrun.timed_out else _htsim_ns_per_packet(hout)
                if cost is not None and ((point, mode) not in best_htsim or cost[0] < best_htsim[(point, mode)][0]):
                    best_htsim[(point, mode)] = cost
    costs = []
    for bw, flows in points:
        duration, _ = scaling_point(bw, flows)
        if (bw, flows) not in best:
            rows.append(f"| {bw} | {flows} | {duration:g} | | | > {limit:g} | | |" + (" | | |" if htsim else ""))
            continue
        run, r = best[(bw, flows)]
        ns = r["engine_wall_s"] / max(r["bottleneck_packets"], 1) * 1e9
        costs.append(ns)
        per_packet = r["events"] / max(r["bottleneck_packets"], 1)
        row = f"| {bw} | {flows} | {duration:g} | {r['bottleneck_packets']:,} | {per_packet:.2f} | {r['engine_wall_s']:.2f} | {ns:.0f} | {run.rss_mb:.0f} |"
        if htsim:
            full, lean = best_htsim.get(((bw, flows), "htsim")), best_htsim.get(((bw, flows), "htsim-lean"))
            row += f" {full[0]:.0f} |" if full else " |"
            row += f" {lean[0]:.0f} | {ns / lean[0]:.2f} |" if lean else " | |"
        rows.append(row)
    if costs:
        rows += ["", f"Cost per packet ranges from {min(costs):.0f} to {max(costs):.0f} ns: a factor of {max(costs) / min(costs):.2f} across the sweep."]
    return rows


def sack_cliff(limit: float) -> list[str]:
    """Wall cost of SACK processing on long fat paths (issue #11): bottleneck packets
    per engine wall second of a SACK flow against the same flow without the thing
    that makes SACK work — first without SACK on a lossy 1 Gbps path, then loss-free
    at 10 Gbps x 200 ms (the requirement: at least half the loss-free rate)."""
    cliff = str(HERE / "scenarios" / "sack-cliff-10g.toml")
    gig = [f"topology.dumbbell.{k}" for k in (
        'bottleneck.bandwidth="1Gbps"', 'bottleneck.delay="48ms"', 'access.bandwidth="10Gbps"',
        'bottleneck.queue.limit="10000 packets"', 'bottleneck.forward={loss={type="bernoulli",rate=1e-5}}')]
    cases = [
        ("1 Gbps, 100 ms, 10,000-packet queue, loss 1e-5", "SACK", gig, "no SACK", gig + ["flow[0].transport.sack=false"]),
        ("10 Gbps, 200 ms, 1-BDP queue, slow-start overshoot", "SACK", [], "loss-free", ["flow[0].transport.receive_buffer=\"250MB\""]),
    ]
    rows = ["", "## SACK on long fat paths (tcplab)", "",
            "Bottleneck packets per engine wall second (30 simulated seconds, one flow). The",
            "scoreboard walks only the parts of each SACK block it has not seen before.", "",
            "| path | case | bottleneck packets | wall s | packets per wall s | vs reference |", "|---|---|---|---|---|---|"]
    for path, label, overrides, ref_label, ref_overrides in cases:
        rates = {}
        for case, extra in ((ref_label, ref_overrides), (label, overrides)):
            run, out = measure([PYTHON, HERE / "tcplab_run.py", cliff, *extra], limit)
            if run.timed_out or not out.strip():
                rows.append(f"| {path} | {case} | | > {limit:g} | | |")
                continue
            r = json.loads(out.strip().splitlines()[-1])
            rates[case] = r["bottleneck_packets"] / r["engine_wall_s"]
            ratio = f"{rates[case] / rates[ref_label]:.2f}" if case != ref_label and ref_label in rates else ""
            rows.append(f"| {path} | {case} | {r['bottleneck_packets']:,} | {r['engine_wall_s']:.2f} | {rates[case] / 1e6:.2f} M | {ratio} |")
            print(f"sack-cliff {path} / {case}: {rates[case] / 1e6:.2f} M packets per wall s", flush=True)
    return rows


def sweep_overhead(limit: float) -> list[str]:
    """A sweep's cost outside the engine per run (issue #31 item 4; benchmarks/
    sweep_overhead.py): the LAN study's RTO sweep, 160 runs of ~10 ms, on one worker."""
    rows = ["", "## Sweep overhead (tcplab)", "",
            "CPU time a sweep spends per run outside the engine (planning, handing the run to a worker,",
            "its results back, storing them), on the LAN study's RTO sweep of the switched star (160 runs,",
            "one worker): the difference between the full sweep and its first 16 runs, per run, median of",
            "5 pairs (benchmarks/sweep_overhead.py). Fixed: what a sweep costs besides its runs.", "",
            "| runs | engine ms per run | outside the engine, ms per run | share of engine time | fixed s |",
            "|---|---|---|---|---|"]
    run, out = measure([PYTHON, HERE / "sweep_overhead.py"], limit)
    if run.timed_out or not out.strip():
        return rows + [f"| 160 | > {limit:g} s | | | |"]
    r = json.loads(out.strip().splitlines()[-1])
    rows.append(f"| {r['runs']} | {r['engine_ms_per_run']:.2f} | {r['outside_ms_per_run']:.2f} | "
                f"{r['outside_share']:.0%} | {r['fixed_s']:.3f} |")
    print(f"sweep overhead: {r['outside_ms_per_run']:.2f} ms per run ({r['outside_share']:.0%})", flush=True)
    return rows


def fat_tree(limit: float, ns: str | None) -> list[str]:
    """The data-centre point (issue #31): a k = 16 fat tree with 10,000 web-search flows
    and a k = 8 tree with 1,000 (benchmarks/fat_tree.py), tcplab with ECMP and with
    every pair on one path (as ns-2 routes), ns-2 on both."""
    points = [(16, 10_000, "ecmp"), (16, 10_000, "first"), (8, 1_000, "ecmp"), (8, 1_000, "first")]
    rows = ["", "## Data-centre point: fat tree (tcplab, ns-2)", "",
            "A k-ary fat tree of 1 Gb/s, 1 µs links (100-packet DropTail), TCP flows of DCTCP's web-search",
            "sizes arriving as a Poisson process over 0.4 s between random hosts, 0.5 simulated seconds",
            "(benchmarks/fat_tree.py). tcplab: the default stack (CUBIC, SACK), whole process; ns-2:",
            "Agent/TCP/Sack1 over its static routing (one path per host pair: ns-2 has no per-flow ECMP),",
            "the same flows. A speed comparison: the two tools' TCP and routing differ, so the payload",
            "each delivers is shown, not required to agree.", "",
            "| k | hosts | flows | tool | routing | wall s | peak RSS MB | engine s | events | link packets | link packets / engine s | delivered MB | flows completed |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k, flows, multipath in points:
        run, out = measure([PYTHON, HERE / "fat_tree.py", "--k", str(k), "--flows", str(flows),
                            "--multipath", multipath], limit)
        if run.timed_out or not out.strip():
            rows.append(f"| {k} | {k**3 // 4:,} | {flows:,} | tcplab | {multipath} | > {limit:g} | | | | | | | |")
            continue
        r = json.loads(out.strip().splitlines()[-1])
        rows.append(f"| {k} | {r['hosts']:,} | {flows:,} | tcplab | {multipath} | {run.wall_s:.1f} | {run.rss_mb:.0f} | "
                    f"{r['engine_wall_s']:.1f} | {r['events']:,} | {r['link_packets']:,} | "
                    f"{r['link_packets'] / r['engine_wall_s'] / 1e6:.2f} M | {r['delivered_bytes'] / 1e6:,.0f} | "
                    f"{r['completed']:,} |")
        print(f"fat tree k={k} {flows} flows {multipath}: {run.wall_s:.1f} s", flush=True)
    if ns:
        for k, flows in ((8, 1_000), (16, 10_000)):
            with tempfile.TemporaryDirectory(prefix="tcplab-fat-tree-") as tmp:
                script = Path(tmp) / "fat_tree.tcl"
                subprocess.run([PYTHON, HERE / "fat_tree.py", "--k", str(k), "--flows", str(flows), "--ns2", script],
                               check=True)
                run, out = measure([ns, script], limit, cwd=Path(tmp))
            delivered = next((int(l.split()[1]) for l in out.splitlines() if l.startswith("delivered_bytes")), None)
            wall = f"> {limit:g}" if run.timed_out else f"{run.wall_s:.1f}"
            rows.append(f"| {k} | {k**3 // 4:,} | {flows:,} | ns-2 | static | {wall} | {run.rss_mb:.0f} | | | | | "
                        f"{'' if delivered is None else f'{delivered / 1e6:,.0f}'} | |")
            print(f"fat tree k={k} {flows} flows ns-2: {wall} s", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--end-to-end-repeats", type=int, default=15,
                    help="rounds of tcplab, tcplab-run and ns-2 on scenarios whose runs take under "
                         f"{CHEAP_RUN_S:g} s (the end-to-end comparison)")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per run before it is killed")
    ap.add_argument("--only", default="b1,b2,b3")
    ap.add_argument("--tools", default="tcplab,tcplab-run,ns2,ns3,htsim,htsim-lean")
    ap.add_argument("--scaling", action="store_true", help="also sweep bandwidth and flow count (tcplab)")
    ap.add_argument("--sack-cliff", action="store_true", help="also time SACK on long fat paths (tcplab)")
    ap.add_argument("--fat-tree", action="store_true", help="also run the data-centre point (k = 16 fat tree)")
    ap.add_argument("--sweep-overhead", action="store_true", help="also measure a sweep's cost per run outside the engine")
    ap.add_argument("--no-install", action="store_true", help="do not install missing peers")
    args = ap.parse_args()
    wanted = [b for b in BENCHES if b.toml.split("-")[0] in args.only.split(",")]
    tools = args.tools.split(",")
    notes = []
    ns = ensure_ns2(not args.no_install) if "ns2" in tools else None
    if "ns2" in tools and not ns:
        notes.append("- ns-2 is not installed and could not be installed: its rows are n/a.")
    ns3 = ensure_ns3(not args.no_install) if "ns3" in tools else None
    if "ns3" in tools and not ns3:
        notes.append("- ns-3 could not be built: its rows are n/a.")
    htsim = ensure_htsim(not args.no_install) if {"htsim", "htsim-lean"} & set(tools) else None
    if {"htsim", "htsim-lean"} & set(tools) and not htsim:
        notes.append(f"- htsim could not be built (sources looked for in {HTSIM_SOURCE}): its rows are n/a.")
    if htsim and any(b.htsim_args() is None for b in wanted):
        notes.append("- No htsim row for " + ", ".join(b.name for b in wanted if b.htsim_args() is None)
                     + ": htsim's dumbbell driver gives every flow the same access delay.")
    results: dict = {b.name: {t: [] for t in tools} for b in wanted}
    skipped: list[str] = []

    def measure_round(b: Bench, round_tools: list[str], label: str) -> None:
        for tool in round_tools:
            if any(r.timed_out for r in results[b.name][tool]):
                # A deterministic run that hit the limit once hits it again: the
                # repeat would only burn another full limit of machine time.
                skipped.append(f"{b.name} / {tool}")
                continue
            if tool == "tcplab":
                run = run_tcplab(b, args.limit)
            elif tool == "tcplab-run":
                run = run_tcplab_command(b, args.limit)
            elif tool == "ns2" and ns:
                run = run_ns2(b, args.limit, ns)
            elif tool == "ns3" and ns3:
                run = run_ns3(b, args.limit, ns3)
            elif tool in ("htsim", "htsim-lean") and htsim:
                found = run_htsim(b, args.limit, htsim, lean=tool == "htsim-lean")
                if found is None:
                    continue
                run = found
            else:
                continue
            results[b.name][tool].append(run)
            state = "TIMEOUT" if run.timed_out else ("ERROR" if run.error else "ok")
            print(f"[{label}] {b.name:15} {tool:10} {run.wall_s:8.2f} s {run.rss_mb:7.0f} MB {state}", flush=True)

    for rep in range(args.repeats):
        for b in wanted:
            measure_round(b, tools, f"{rep + 1}/{args.repeats}")
    # Where the end-to-end comparison is cheap (runs of a few seconds at most), it gets
    # more interleaved rounds of tcplab, `tcplab run` and ns-2: run-to-run noise on
    # this VM (±30%) swamps a median of three sub-second runs. ns-3 is not repeated.
    quick = [t for t in ("tcplab", "tcplab-run", "ns2") if t in tools]
    for b in wanted:
        cheap = all(results[b.name][t] and max(r.wall_s for r in results[b.name][t]) < CHEAP_RUN_S for t in quick)
        rounds = args.end_to_end_repeats - args.repeats
        for extra in range(rounds if cheap and "tcplab-run" in tools else 0):
            measure_round(b, quick, f"end to end {extra + 1}/{rounds}")
    if skipped:
        once = sorted(set(skipped))
        notes.append(f"- Hit the time limit on the first run, so not repeated: {', '.join(once)}.")
    notes += end_to_end(results, wanted, args.limit)
    if args.scaling:
        notes += scaling(args.limit, htsim=htsim)
    if args.sack_cliff:
        notes += sack_cliff(args.limit)
    if args.fat_tree:
        notes += fat_tree(args.limit, ns if "ns2" in tools else None)
    if args.sweep_overhead:
        notes += sweep_overhead(args.limit)
    summarise(results, wanted, tools, args.limit, args.repeats, notes)
    print((HERE / "RESULTS.md").read_text())


if __name__ == "__main__":
    main()
