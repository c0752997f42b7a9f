"""tcplab against ns-2.35 on scenarios sampled from the differential space
(docs/differential.md): ns-2's Agent/TCP (Reno, Newreno, Sack1) against
``profile = "ns2"`` (space ``ns2-tcp``, the mapping of tests/ns2/cases.py), and
Agent/TCP/Linux with the Linux 2.6.22 modules against the mapping of
tests/ns2/linux_cc.py (space ``ns2-linux``), and Agent/SCTP's bulk associations against
tcplab's SCTP set as tests/ns2/sctp.tcl sets ns-2 (space ``ns2-sctp``).

Each sample is rendered twice from the same :class:`~tcplab.differential.space.Sample`:
as a tcplab scenario (``scenario.toml``) and as a self-contained ns-2 script
(``ns2-seed<K>.tcl``; ``ns ns2-seed1.tcl`` reruns it), both saved in the sample's
directory.

    python tests/differential/ns2.py --space ns2-tcp --sample 60 --seed 1 --out tests/differential/ns2-tcp
    python tests/differential/ns2.py --space ns2-tcp --seed 1 --only 7 --out /tmp/s7   # one sample again
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "ns2"))
import cases  # noqa: E402
import linux_cc  # noqa: E402
from tcplab.differential import campaign  # noqa: E402
from tcplab.differential.metrics import Comparison, RunMetrics, mean, measure  # noqa: E402
from tcplab.differential.scenario import BIG_QUEUE, UDP_PAYLOAD, access_delay_s, hop_delay_s, scenario  # noqa: E402
from tcplab.differential.space import BULK_KINDS, MSS, SCTP_MESSAGE, Flow, Sample, flow_classes  # noqa: E402
from tcplab.emu.crosscheck import sawtooth_period_s  # noqa: E402

#: Seeds of a sample: 5, doubled while the seed means are too imprecise for the
#: targets, up to 40 (docs/differential.md, "Seeds"); without random loss the seeds
#: are phase replicas (:meth:`Sample.replica`).
REPLICATION = campaign.Replication(initial=5, most=40)
#: cwnd is sampled this often for the sawtooth period (flows beyond the first four are not traced).
CWND_SAMPLE_S = 0.1
TRACED_FLOWS = 4
#: ns-2 runs at most this long per scenario.
NS2_TIMEOUT_S = 1800
#: ns2-sctp: the packet trace of each association's first and last links, per seed
#: (seeds run side by side in the sample's directory); deleted once read.
SCTP_TRACE = "sctp-seed{seed}.tr"
#: ns-2 runs an ns2-sctp sample past its duration by the duration again, this many
#: round trips of its longest flow, and SCTP_INIT_RETRIES_S: room for the three round
#: trips before an association's first DATA chunk with queues several times the
#: propagation delay, and for an INIT or COOKIE-ECHO lost to random loss up to three
#: times in a row (T1 backs off from 3 s: 3 + 6 + 12 s; ns2-sctp-s1-007's seed 16 lost
#: its INIT twice and sent its first DATA at 9.0 s).
SCTP_HANDSHAKE_ALLOWANCE_RTTS = 10
SCTP_INIT_RETRIES_S = 21.0


def window_packets(sample: Sample, flow: Flow) -> int:
    """ns-2's ``window_`` (and tcplab's receive window for Agent/TCP): twice what the
    flow's path holds (its BDP plus the buffer) and 100 more, so it never limits."""
    bdp = sample.neck_bps * flow.rtt_s / (8 * (MSS + 40))
    return int(math.ceil(2 * (bdp + sample.buffer_packets))) + 100


def transport(flow: Flow, sample: Sample) -> dict:
    """tcplab's side of a bulk flow, from the suites' own mappings. SCTP: tcplab's
    defaults are sctp.tcl's settings of ns-2 (RFC 4960 timers, delayed SACKs, Max.Burst
    4, windows that never limit, no initial ssthresh), with ns-2's flight accounting
    (chunks with their headers, in units of the largest chunk) and its loss response
    (the implementer's guide's, without RFC 4960's Fast Recovery); no handshake, since
    each side's goodput is counted from its first DATA chunk (:func:`read_sctp_trace`)."""
    if sample.space == "ns2-sctp":
        return {"type": "sctp", "handshake": False, "message_size": f"{SCTP_MESSAGE}B", "flight_accounting": "chunk",
                "recovery": "ns2"}
    if sample.space == "ns2-linux":
        return linux_cc.tcp_linux_transport(flow.cc)
    wired = cases.Wired(variant=flow.cc, payloads=(MSS,), window=window_packets(sample, flow), iw=2,
                        fixed_rto=sample.fixed_rto_s)
    return wired._tcp(MSS)


def tcl(sample: Sample, seed: int, run_s: float | None = None) -> str:
    """A self-contained ns-2 script of the sample (see the module doc); an ns2-sctp
    sample runs until ``run_s`` (default :func:`sctp_run_s`)."""
    rto = sample.fixed_rto_s
    minrto, maxrto, rtoinit = (rto, rto, rto) if rto else (0.2, 60, 1.0)
    lines = [
        f"# {sample.name} (seed {seed}): {sample.describe()}",
        "# Written by tests/differential/ns2.py; run with: ns <this file>",
        "set ns [new Simulator]",
        # Replication `seed` on its own substreams of one seed: small seeds themselves
        # give the same, scaled, draws (tests/ns2/common.tcl, independent_stream).
        "proc independent_stream {rng run} {", "    $rng seed 12345",
        "    for {set i 0} {$i < $run} {incr i} { $rng next-substream }", "}",
        f"independent_stream $defaultRNG {seed}",
        # As tests/ns2/common.tcl's match_tcplab_tcp: no send overhead, a 100 us RTT clock.
        "Agent/TCP set tcpTick_ 0.0001", "Agent/TCP set overhead_ 0", "Agent/TCP set maxcwnd_ 0",
        "Agent/TCP set windowInit_ 2", f"Agent/TCP set minrto_ {minrto}", f"Agent/TCP set maxrto_ {maxrto}",
        f"Agent/TCP set rtxcur_init_ {rtoinit}", f"Agent/TCP set packetSize_ {MSS}",
        "Agent/TCP set singledup_ 1", "Agent/TCP/Newreno set newreno_changes1_ 1",
        "Queue/DropTail set summarystats_ false",
    ]
    if sample.space == "ns2-linux":
        lines += ["Agent/TCP/Linux set timestamps_ true", "Agent/TCPSink set ts_echo_rfc1323_ true"]
    if sample.space == "ns2-sctp":
        # Each chunk's TSN in the packet trace (SCTP_TRACE's fields, read_sctp_trace).
        lines += ["Trace set show_sctphdr_ 1", f"set tf [open {SCTP_TRACE.format(seed=seed)} w]"]
    hops = sample.hops
    lines += [f"set r({h}) [$ns node]" for h in range(hops + 1)]
    for h in range(hops):
        bw, d = sample.neck_bps, hop_delay_s(sample)
        lines += [f"$ns simplex-link $r({h}) $r({h + 1}) {bw:.0f} {d:.9f} DropTail",
                  f"$ns simplex-link $r({h + 1}) $r({h}) {bw:.0f} {d:.9f} DropTail",
                  # DropTail keeps queue-limit - 1 waiting (drop-tail.cc); tcplab's limit counts waiting.
                  f"$ns queue-limit $r({h}) $r({h + 1}) {sample.buffer_packets + 1}",
                  f"$ns queue-limit $r({h + 1}) $r({h}) {BIG_QUEUE}",
                  f'set qmon({h}) [$ns monitor-queue $r({h}) $r({h + 1}) ""]']
    if sample.loss is not None:
        assert sample.loss.burst <= 1.0, "ns-2 samples draw Bernoulli loss only"
        # Before the first hop's queue, from its own generator (tests/ns2/common.tcl).
        lines += ["set lrng [new RNG]", f"independent_stream $lrng {seed + 1000}", "set lu [new RandomVariable/Uniform]",
                  "$lu use-rng $lrng",
                  "set em [new ErrorModel]", f"$em set rate_ {sample.loss.rate}", "$em unit pkt", "$em ranvar $lu",
                  "$ns lossmodel $em $r(0) $r(1)", "$em drop-target [new Agent/Null]"]
    access = sample.neck_bps * sample.access_factor
    traced = []
    for i, f in enumerate(sample.flows):
        d = access_delay_s(sample, f)
        first, last = f.hops[0], f.hops[-1] + 1
        lines += [f"set s({i}) [$ns node]", f"set d({i}) [$ns node]",
                  f"$ns duplex-link $s({i}) $r({first}) {access:.0f} {d:.9f} DropTail",
                  f"$ns duplex-link $r({last}) $d({i}) {access:.0f} {d:.9f} DropTail"]
        lines += [f"$ns queue-limit {a} {b} {BIG_QUEUE}" for a, b in
                  ((f"$s({i})", f"$r({first})"), (f"$r({first})", f"$s({i})"),
                   (f"$r({last})", f"$d({i})"), (f"$d({i})", f"$r({last})"))]
        if f.kind == "sctp":
            # As tests/ns2/sctp.tcl: one full chunk per packet, no initial ssthresh,
            # windows that never limit; FTP is Agent/SCTP's unlimited data source.
            lines += [f"set a({i}) [new Agent/SCTP]", f"$a({i}) set mtu_ 1500",
                      f"$a({i}) set dataChunkSize_ {SCTP_MESSAGE + 16}", f"$a({i}) set initialSsthresh_ 1000000000",
                      f"$a({i}) set initialRwnd_ 1000000000", f"set k({i}) [new Agent/SCTP]",
                      f"$k({i}) set initialRwnd_ 1000000000",
                      f"$ns attach-agent $s({i}) $a({i})", f"$ns attach-agent $d({i}) $k({i})",
                      f"$ns connect $a({i}) $k({i})", f"set app({i}) [$a({i}) attach-app FTP]",
                      f"$ns trace-queue $s({i}) $r({first}) $tf", f"$ns trace-queue $r({last}) $d({i}) $tf",
                      f'puts "path {i} [$s({i}) id] [$r({first}) id] [$r({last}) id] [$d({i}) id]"']
        elif f.kind == "tcp":
            if sample.space == "ns2-linux":
                agent, sink = "Agent/TCP/Linux", "Agent/TCPSink/Sack1"
            else:
                agent = f"Agent/TCP/{f.cc}" if f.cc != "Reno" else "Agent/TCP/Reno"
                sink = "Agent/TCPSink/Sack1" if f.cc == "Sack1" else "Agent/TCPSink"
            lines += [f"set a({i}) [new {agent}]", f"set k({i}) [new {sink}]",
                      f"$a({i}) set window_ {window_packets(sample, f)}",
                      f"$ns attach-agent $s({i}) $a({i})", f"$ns attach-agent $d({i}) $k({i})",
                      f"$ns connect $a({i}) $k({i})", f"set app({i}) [$a({i}) attach-app FTP]"]
            if sample.space == "ns2-linux":
                lines.append(f'$ns at {f.start_s} "$a({i}) select_ca {f.cc}"')
            if len(traced) < TRACED_FLOWS:
                traced.append(i)
        else:
            # Full 1,500-byte packets: ns-2's UDP adds no header to packetSize_, and
            # splits a message larger than the agent's own packetSize_ (1,000 by default).
            lines += [f"set a({i}) [new Agent/UDP]", f"$a({i}) set packetSize_ {UDP_PAYLOAD + 28}",
                      f"set k({i}) [new Agent/LossMonitor]",
                      f"$ns attach-agent $s({i}) $a({i})", f"$ns attach-agent $d({i}) $k({i})",
                      f"$ns connect $a({i}) $k({i})", f"set app({i}) [new Application/Traffic/CBR]",
                      # tcplab's CBR rate counts payload; ns-2's counts the whole packet.
                      f"$app({i}) set packetSize_ {UDP_PAYLOAD + 28}",
                      f"$app({i}) set rate_ {f.rate_bps * (UDP_PAYLOAD + 28) / UDP_PAYLOAD:.0f}",
                      f"$app({i}) attach-agent $a({i})"]
        lines.append(f'$ns at {f.start_s} "$app({i}) start"')
    lines += ["proc trace_cwnd {} {", "    global ns a", "    set line \"cwnd [$ns now]\""]
    lines += [f"    append line \" [$a({i}) set cwnd_]\"" for i in traced]
    lines += ["    puts $line", f"    $ns at [expr [$ns now] + {CWND_SAMPLE_S}] trace_cwnd", "}"]
    if traced:
        lines.append(f"$ns at {CWND_SAMPLE_S} trace_cwnd")
    sctp = sample.space == "ns2-sctp"
    # The figures at the sample's end; an SCTP sample runs on to its data window's end
    # (sctp_run_s), its packet trace closed only then.
    lines += ["proc report {} {" if sctp else "proc finish {} {", "    global a k qmon"]
    for i, f in enumerate(sample.flows):
        if f.kind == "tcp":
            lines.append(f'    puts "tcp {i} [$a({i}) set ack_] [$a({i}) set nrexmitpack_] [$a({i}) set nrexmit_]"')
        elif f.kind != "sctp":  # SCTP's figures come from the packet trace
            lines.append(f'    puts "udp {i} [$k({i}) set bytes_]"')
    lines += [f'    puts "drops {h} [$qmon({h}) set pdrops_]"' for h in range(hops)]
    if sctp:
        lines += ["}", "proc finish {} {", "    global ns tf", "    $ns flush-trace", "    close $tf",
                  "    exit 0", "}", f'$ns at {sample.duration_s} "report"', f'$ns at {run_s or sctp_run_s(sample)} "finish"']
    else:
        lines += ["    exit 0", "}", f'$ns at {sample.duration_s} "finish"']
    lines += ["$ns run", ""]
    return "\n".join(lines)


def sctp_run_s(sample: Sample) -> float:
    """How long ns-2 runs an ns2-sctp sample (:data:`SCTP_HANDSHAKE_ALLOWANCE_RTTS`), so
    that every association's data window (:func:`read_sctp_trace`) ends inside the run."""
    allowance = SCTP_HANDSHAKE_ALLOWANCE_RTTS * max(f.rtt_s for f in sample.flows) + SCTP_INIT_RETRIES_S
    return round(2 * sample.duration_s + allowance, 3)


class WindowPastRunEnd(RuntimeError):
    """An association's data window ends after ns-2's run: ``needed_s`` is a run end
    that holds every window (the first DATA chunks come at the same instants when the
    same script runs longer: nothing before the end depends on it)."""

    def __init__(self, message: str, needed_s: float) -> None:
        super().__init__(message)
        self.needed_s = needed_s


def read_sctp_trace(path: Path, links: dict[int, tuple[tuple[str, str], tuple[str, str]]],
                    windows_s: dict[int, float], run_s: float) -> dict[int, tuple[float, float]]:
    """Each association's (goodput b/s, retransmitted chunks) from ns-2's packet trace
    with ``show_sctphdr_`` (one line per chunk: event, time, from, to, "sctp", size,
    flags ending in D for DATA, flow id, source, destination, chunks, TSN, uid,
    stream, stream sequence number). ``links``: per flow, its first link (sender to
    router) and last (router to receiver) as node ids; ``windows_s``: per flow, how
    long its data is counted for (the sample's duration less the flow's start).

    ns-2's associations send their first DATA chunk three round trips after they start
    (INIT, COOKIE-ECHO and a HEARTBEAT, each answered); tcplab's side starts with DATA
    (``handshake = false``). So each side counts the same stretch of a transfer: the
    first ``windows_s`` seconds from the first DATA chunk. Goodput is the user data of
    the TSNs delivered in sequence by the stretch's end — up to the first one the
    receiver had not got, as SCTP hands them to the application — over its length. A
    retransmission is a DATA chunk leaving the sender, in the stretch, whose TSN has
    left before."""
    by_link = {}
    for i, (first, last) in links.items():
        by_link[("-",) + first] = (i, "sent")
        by_link[("r",) + last] = (i, "delivered")
    sent: dict[int, set[int]] = {i: set() for i in links}
    delivered: dict[int, set[int]] = {i: set() for i in links}
    first_data: dict[int, float] = {}
    retransmits = dict.fromkeys(links, 0)
    with path.open() as trace:
        for line in trace:
            w = line.split()
            if len(w) < 12 or not w[6].endswith("D"):
                continue
            hit = by_link.get((w[0], w[2], w[3]))
            if hit is None:
                continue
            i, what = hit
            t, tsn = float(w[1]), int(w[11])
            if i in first_data and t > first_data[i] + windows_s[i]:
                continue
            if what == "delivered":
                delivered[i].add(tsn)
            elif tsn in sent[i]:
                retransmits[i] += 1
            else:
                sent[i].add(tsn)
                first_data.setdefault(i, t)
    ends = {i: first_data[i] + windows_s[i] for i in first_data}
    if ends and max(ends.values()) > run_s:
        i = max(ends, key=lambda k: ends[k])
        raise WindowPastRunEnd(f"{path}: association {i}'s first DATA at {first_data[i]:.3f} s leaves its "
                               f"{windows_s[i]:g}-s data window past the run's end ({run_s:g} s)",
                               needed_s=math.ceil(max(ends.values())) + 1.0)
    figures = {}
    for i in links:
        if not sent[i]:
            figures[i] = (0.0, 0.0)
            continue
        tsn = min(sent[i])
        while tsn in delivered[i]:
            tsn += 1
        in_sequence = tsn - min(sent[i])
        figures[i] = (in_sequence * SCTP_MESSAGE * 8 / windows_s[i], float(retransmits[i]))
    return figures


def script_of(sample: Sample, seed: int, run_s: float | None = None) -> str:
    """ns-2's script of the sample's replica ``seed`` (:meth:`Sample.replica`)."""
    return tcl(sample.replica(seed), seed, run_s)


def run_ns2(sample: Sample, seed: int, directory: Path, ns: str) -> RunMetrics:
    """Runs the sample's ns-2 script for ``seed`` and reads its figures. An ns2-sctp
    run whose association started its data so late (INIT lost again and again: T1
    backs off 3, 6, 12, 24 s) that its window outlasts the run is run again, longer."""
    try:
        return _run_ns2(sample, seed, directory, ns, None)
    except WindowPastRunEnd as late:
        return _run_ns2(sample, seed, directory, ns, late.needed_s)


def _run_ns2(sample: Sample, seed: int, directory: Path, ns: str, run_s: float | None) -> RunMetrics:
    script = directory / f"ns2-seed{seed}.tcl"
    script.write_text(script_of(sample, seed, run_s))
    sample = sample.replica(seed)  # its flows' starts are the goodputs' origins
    proc = subprocess.run([ns, script.name], capture_output=True, text=True, timeout=NS2_TIMEOUT_S, cwd=directory)
    if proc.returncode != 0:
        raise RuntimeError(f"ns-2 failed on {script}: {proc.stderr.strip()[-400:]}")
    n = len(sample.flows)
    goodput = [0.0] * n
    retx: list[float | None] = [None] * n
    times, cwnds = [], []
    traced = [i for i, f in enumerate(sample.flows) if f.kind == "tcp"][:TRACED_FLOWS]
    sctp_links: dict[int, tuple[tuple[str, str], tuple[str, str]]] = {}
    for line in proc.stdout.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "path":
            sctp_links[int(w[1])] = ((w[2], w[3]), (w[4], w[5]))
        elif w[0] == "tcp":
            i = int(w[1])
            # ack_: the highest cumulatively acknowledged segment, numbered from 0.
            goodput[i] = (int(w[2]) + 1) * MSS * 8 / (sample.duration_s - sample.flows[i].start_s)
            retx[i] = float(w[3])
        elif w[0] == "udp":
            i = int(w[1])
            payload = int(w[2]) * UDP_PAYLOAD / (UDP_PAYLOAD + 28)
            goodput[i] = payload * 8 / (sample.duration_s - sample.flows[i].start_s)
        elif w[0] == "cwnd":
            times.append(float(w[1]))
            cwnds.append([float(x) for x in w[2:]])
    if sctp_links:
        trace = directory / SCTP_TRACE.format(seed=seed)
        windows = {i: sample.duration_s - sample.flows[i].start_s for i in sctp_links}
        try:
            for i, (rate, resent) in read_sctp_trace(trace, sctp_links, windows, run_s or sctp_run_s(sample)).items():
                goodput[i], retx[i] = rate, resent
        finally:
            trace.unlink()
    periods: list[float | None] = [None] * n
    if times:
        import numpy as np

        t, c = np.asarray(times), np.asarray(cwnds)
        for col, i in enumerate(traced):
            periods[i] = sawtooth_period_s(t, c[:, col])
    kinds = [f.kind if f.kind in BULK_KINDS else "udp" for f in sample.flows]
    return RunMetrics(kinds, goodput, retx, [None] * n, periods)


def scenario_of(sample: Sample) -> dict:
    """The sample as tcplab's scenario (the mapping of the module docstring); TCP/Linux's
    1,510-byte packets need links that carry them whole."""
    return scenario(sample, transport, mtu=linux_cc.WIRE_MTU if sample.space == "ns2-linux" else None)


def ns2_ran(sample: Sample, directory: Path) -> bool:
    """Whether the ns-2 scripts stored in ``directory`` are today's rendering of the
    sample (ns-2's stored figures stand for it only then), for every seed it was
    compared on."""
    stored = directory / campaign.OUTCOME
    seeds = Comparison.from_json(json.loads(stored.read_text())).seeds if stored.exists() else REPLICATION.first_seeds()
    scripts = {s: directory / f"ns2-seed{s}.tcl" for s in seeds}
    return all(path.exists() and path.read_text() == script_of(sample, s, _stored_run_s(sample, path))
               for s, path in scripts.items())


def _stored_run_s(sample: Sample, script: Path) -> float | None:
    """The run end a stored ns2-sctp script was rendered with, when :func:`run_ns2`
    lengthened it (None: the default)."""
    if sample.space != "ns2-sctp" or not script.exists():
        return None
    ends = [float(line.split()[2]) for line in script.read_text().splitlines() if line.endswith('"finish"')]
    return ends[0] if ends and ends[0] != sctp_run_s(sample) else None


def write_scenario(sample: Sample, directory: Path) -> None:
    """Saves tcplab's scenario of the sample (seed 1's) beside ns-2's scripts."""
    phases = "" if sample.random else "; seeds K > 1 start its flows later (tcplab.differential.space.Sample.replica)"
    campaign.write_scenario(directory, sample, scenario_of(sample), f"ns-2's side: ns2-seed<K>.tcl, written beside it by "
                            f"tests/differential/ns2.py --space {sample.space} --seed {sample.seed} --only {sample.index}"
                            + phases)


def simulate_runs(sample: Sample, directory: Path, seeds: list[int]) -> list[RunMetrics]:
    """tcplab's runs of the sample on ``seeds`` (its scenario file, seed 1's, rewritten;
    :meth:`Sample.replica` gives the others)."""
    import tcplab

    write_scenario(sample, directory)
    runs = []
    for s in seeds:
        runs.append(measure(tcplab.run(tcplab.load(scenario_of(sample.replica(s)), seed=s))))
        runs[-1].srtt_ms = [None] * len(sample.flows)  # ns-2's side has none to compare
    return runs


def simulate(sample: Sample, directory: Path, seeds: list[int]) -> RunMetrics:
    """tcplab's side of the sample on ``seeds``: the seed mean of its runs."""
    return mean(simulate_runs(sample, directory, seeds))


def compare(sample: Sample, directory: Path, ns: str) -> Comparison:
    """The sample in tcplab and in ns-2, on the seeds :data:`REPLICATION` gives it."""
    import tcplab

    outcome = Comparison(sample.name, sample.space, sample.describe(), "compared", seeds=[],
                         classes=flow_classes(sample))
    directory.mkdir(parents=True, exist_ok=True)
    ours: list[RunMetrics] = []
    theirs: list[RunMetrics] = []
    seeds = REPLICATION.first_seeds()
    while seeds:
        outcome.seeds += seeds
        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                theirs_f = [pool.submit(run_ns2, sample, s, directory, ns) for s in seeds]
                ours += simulate_runs(sample, directory, seeds)
                theirs += [f.result() for f in theirs_f]
        except (RuntimeError, subprocess.TimeoutExpired, tcplab.ScenarioError) as e:
            outcome.status, outcome.reason = "failed", f"{type(e).__name__}: {e}"
            return outcome
        outcome.ours, outcome.theirs = mean(ours), mean(theirs)
        seeds = REPLICATION.more_seeds(outcome)
    return outcome


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--space", choices=("ns2-tcp", "ns2-linux", "ns2-sctp"), required=True)
    ap.add_argument("--sample", type=int, help="number of scenarios (samples 0 ... N-1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--rerun", action="store_true", help="run samples again even if their results exist")
    ap.add_argument("--only", type=lambda v: [int(x) for x in v.split(",")], help="comma-separated sample indices")
    ap.add_argument("--rescore", action="store_true",
                    help="run only tcplab again, against the ns-2 figures stored in --out (after an engine change)")
    args = ap.parse_args(argv)
    if args.sample is None and args.only is None:
        ap.error("give --sample N or --only INDEX[,INDEX...]")
    ns = shutil.which("ns")
    if ns is None:
        print("ns-2 missing: apt-get install ns2", file=sys.stderr)
        return 2
    what = f"--sample {args.sample}" if args.only is None else "--only " + ",".join(map(str, args.only))
    command = f"python tests/differential/ns2.py --space {args.space} {what} --seed {args.seed} --out {args.out}"
    reuse: dict = {}
    if args.rescore:
        command += " --rescore"
        reuse = {"simulate": simulate, "reference_ran": ns2_ran}
    try:
        outcomes = campaign.run(args.space, args.seed, args.sample or 0, args.out, lambda s, d: compare(s, d, ns),
                                "ns-2", command, rerun=args.rerun, only=args.only, **reuse)
    except campaign.StaleReference as e:
        print(e, file=sys.stderr)
        return 2
    from tcplab.differential.report import summary

    return 0 if all(ok for *_, ok in summary(outcomes, args.space)) else 1


if __name__ == "__main__":
    sys.exit(main())
