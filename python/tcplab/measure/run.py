"""Runs a scenario's flows between real hosts (``tcplab measure SCENARIO --hosts FILE``)
and returns the measurements as a run's results, as the simulator and the emulator
give them (the same summary.json and series; ``backend = "measure"``).

What a real host can be told, per flow, is set per socket: the congestion control
(``TCP_CONGESTION``), the MSS (``TCP_MAXSEG``), the receive buffer (``SO_RCVBUF``), a
window limit (``TCP_WINDOW_CLAMP``), when the flow starts and stops, and what its
application sends. The path is what it is: the scenario's links, queues and loss are
not applied but measured (``tcplab measure --path``), and host-wide TCP settings (SACK,
timestamps, initial window, RTO bounds) are the hosts' own — each difference from the
scenario is a stated warning, and the hosts' settings are in the provenance.
"""

from __future__ import annotations

import time

import numpy as np

from .. import __version__, _core
from ..emu.results import completion, delay_columns, delay_rows, endpoint_results, kernel_series, run_bins
from ..emu.support import KERNEL_CC
from ..emu.traffic import delay_summary
from ..provenance import provenance
from ..results import RunResult
from ..scenario import Scenario, ScenarioError
from ..scenario.units import amount_bytes
from ..series import Series
from ..stack import describe
from .hosts import HostSpec
from .remote import Agent, MeasureError, bundle

#: Time between telling the hosts to start and the run's time zero.
LEAD_NS = 500_000_000
#: How long after the run's end a host may take to report.
GRACE_S = 30.0
#: Host-wide TCP settings a scenario may ask for, and the sysctl that decides them on a host.
HOST_WIDE = {"sack": "net.ipv4.tcp_sack", "timestamps": "net.ipv4.tcp_timestamps",
             "window_scaling": "net.ipv4.tcp_window_scaling"}


def _socket_settings(flow: dict) -> dict:
    """What a socket can be told of a TCP flow: the kernel's algorithm name, MSS,
    receive buffer and window clamp (bytes)."""
    t = flow["transport"]
    mss = t.get("mss_bytes") or 1460
    buffer = t["receive_buffer"]
    clamp = t.get("max_window")
    return {"kernel_cc": KERNEL_CC.get(t["cc"]["algorithm"], t["cc"]["algorithm"]), "mss_bytes": t.get("mss_bytes"),
            "rcvbuf": amount_bytes(buffer, mss), "window_clamp": None if clamp is None else amount_bytes(clamp, mss)}


def plan(scenario: Scenario, hosts: dict[str, HostSpec]) -> tuple[dict[str, dict], list[str]]:
    """Each host's work (its flows' endpoints) and the warnings: what of the scenario a
    real path does not take. SCTP, or an application TCP cannot carry, is an error."""
    engine = scenario.engine
    sim = engine["simulation"]
    work: dict[str, dict] = {}
    warnings = ["the scenario's links, queues and loss are not applied: the real path between the hosts is what "
                "is measured (tcplab measure --path characterises it)"]
    for index, f in enumerate(engine["flows"]):
        kind = f["transport"]["type"]
        if kind == "sctp":
            raise ScenarioError(f"{f['origin']}.transport", "tcplab measure runs TCP and UDP (SCTP needs the hosts' "
                                "SCTP module and lksctp; not supported)", scenario.source)
        if kind == "tcp" and f["app"]["type"] not in ("bulk", "file", "rate_limited"):
            raise ScenarioError(f"{f['origin']}.app", "TCP carries bulk, file or rate_limited applications",
                                scenario.source)
        if kind == "tcp" and not f["transport"]["small_queues"]:
            warnings.append(f"{f['origin']}.transport.small_queues: the scenario says false, but a Linux host always "
                            "runs TCP Small Queues (since 3.6): measured with them")
        stop = min(f["stop_ns"] or sim["duration_ns"], sim["duration_ns"])
        flow = {"index": index, "transport": kind, "port": _core.emu_flow_port(index), "start_ns": f["start_ns"],
                "stop_ns": stop, "app": f["app"], "tcp": _socket_settings(f) if kind == "tcp" else None}
        sender, receiver = hosts[f["from"]], hosts[f["to"]]
        work.setdefault(sender.name, {"endpoints": []})["endpoints"].append(
            {"role": "sender", "flow": flow, "peer": receiver.address, "seed": sim["seed"] * 1_000_003 + index})
        work.setdefault(receiver.name, {"endpoints": []})["endpoints"].append(
            {"role": "receiver", "flow": flow, "bind": "0.0.0.0"})
    return work, warnings


def _host_warnings(scenario: Scenario, hosts: dict[str, HostSpec], about: dict[str, dict]) -> list[str]:
    """Where a host's own TCP differs from what a flow asks, or lacks its algorithm."""
    out = []
    for f in scenario.engine["flows"]:
        if f["transport"]["type"] != "tcp":
            continue
        for name in (f["from"], f["to"]):
            sysctls = about[name]["sysctls"]
            for key, sysctl in HOST_WIDE.items():
                value = sysctls.get(sysctl)
                if value is not None and value.strip() != str(int(f["transport"][key])):
                    out.append(f"{f['origin']}.transport.{key}: the scenario says {str(f['transport'][key]).lower()}, "
                               f"host {name!r} has {sysctl} = {value} (host-wide: measured as the host has it)")
        kernel_cc = KERNEL_CC.get(f["transport"]["cc"]["algorithm"], f["transport"]["cc"]["algorithm"])
        available = (about[f["from"]]["sysctls"].get("net.ipv4.tcp_available_congestion_control") or "").split()
        if available and kernel_cc not in available:
            raise ScenarioError(f"{f['origin']}.transport.cc", f"host {f['from']!r} offers {', '.join(available)}, not "
                                f"{kernel_cc} (modprobe tcp_{kernel_cc} there, or choose another)", scenario.source)
    return out


def measure(scenario: Scenario, hosts: dict[str, HostSpec], progress=None, *, interval_ns: int | None = None,
            on_interval=None) -> RunResult:
    """Runs ``scenario``'s flows between ``hosts`` in real time; the results as a run's.
    ``progress(seconds_done, seconds_total)`` is called about every half second; with
    ``interval_ns`` and ``on_interval``, every flow's counters at the end of each
    interval, as ``tcplab run --interval`` reports them (``IntervalCallback``)."""
    work, warnings = plan(scenario, hosts)
    sim = scenario.engine["simulation"]
    clock = {"bin_ns": sim["bin_ns"], "duration_ns": sim["duration_ns"]}
    agents: dict[str, Agent] = {}
    try:
        code = bundle()
        for name in work:
            agents[name] = Agent(hosts[name])
            agents[name].send(code)
            agents[name].send({**work[name], "clock": clock, "interval_ns": interval_ns if on_interval else None})
        about = {name: a.receive()["host"] for name, a in agents.items()}
        warnings += _host_warnings(scenario, hosts, about)
        started = time.monotonic()
        for a in agents.values():
            a.send({"start_in_ns": LEAD_NS})
        reports = _collect(agents, sim["duration_ns"] / 1e9, started, progress,
                           _Intervals(scenario, len(agents), interval_ns, on_interval) if on_interval else None)
    finally:
        for a in agents.values():
            a.close()
    return assemble(scenario, hosts, work, reports, warnings, time.monotonic() - started)


def _collect(agents: dict[str, Agent], total_s: float, started: float, progress, intervals) -> dict[str, dict]:
    """Every agent's final report, passing interval lines on as they come."""
    reports: dict[str, dict] = {}
    while len(reports) < len(agents):
        waited = time.monotonic() - started - LEAD_NS / 1e9
        if progress is not None:
            progress(min(max(waited, 0.0), total_s), total_s)
        for name, a in agents.items():
            if name in reports:
                continue
            try:
                message = a.receive(timeout_s=0.1)
            except MeasureError:
                if waited > total_s + GRACE_S:
                    raise
                if a.process.poll() is None:
                    continue
                # It exited: its last lines may still be on their way through the
                # reader thread, which ends them with the end-of-output mark.
                message = a.receive(timeout_s=5.0)
            if "interval" in message:
                if intervals is not None:
                    intervals.add(message["interval"])
            else:
                reports[name] = message
    return reports


class _Intervals:
    """Joins the agents' interval lines (a flow's receiver on one host, its sender on
    another) into the per-flow counters ``tcplab run --interval`` prints."""

    def __init__(self, scenario: Scenario, agents: int, interval_ns: int | None, on_interval) -> None:
        self.flows = scenario.engine["flows"]
        self.agents, self.interval_ns, self.on_interval = agents, interval_ns or 0, on_interval
        self.parts: dict[int, list] = {}

    def add(self, part: dict) -> None:
        end = part["end_ns"]
        self.parts.setdefault(end, []).append(part["flows"])
        if len(self.parts[end]) < self.agents:
            return
        by_flow: dict[int, dict] = {i: {"delivered_bytes": 0, "received_bytes": None, "packets_sent": None,
                                        "packets_dropped": None, "retransmits": None, "cwnd_bytes": None,
                                        "srtt_ms": None} for i in range(len(self.flows))}
        for flows in self.parts.pop(end):
            for p in flows:
                entry = by_flow[p["flow"]]
                if p["role"].endswith("Receiver"):
                    entry["delivered_bytes"] = p["count"]
                elif "tcp_info" in p:
                    info = p["tcp_info"]
                    entry.update(packets_sent=info["data_segs_out"], retransmits=info["total_retrans"],
                                 cwnd_bytes=info["snd_cwnd"] * info["snd_mss"], srtt_ms=info["rtt"] / 1000)
                elif p["role"] == "UdpSender":
                    entry["packets_sent"] = p["count"]
        self.on_interval(end - self.interval_ns, end, [by_flow[i] for i in range(len(self.flows))])


def _clock_note(hosts_about: dict[str, dict]) -> tuple[bool, str]:
    """Whether one-way delays between these hosts mean anything: one machine (one
    clock), or every host's clock synchronised; and why, in words."""
    names = {a["hostname"] for a in hosts_about.values()}
    if len(names) == 1:
        return True, "one machine: every host reads the same clock"
    unsynced = [n for n, a in hosts_about.items() if not a["clock"].get("synchronised")]
    if unsynced:
        return False, f"the clocks of {', '.join(unsynced)} are not synchronised (adjtimex): one-way delays not reported"
    worst = max(a["clock"].get("esterror_us") or 0 for a in hosts_about.values())
    return True, f"every host's clock is synchronised (estimated error up to {worst} us)"


def assemble(scenario: Scenario, hosts: dict[str, HostSpec], work: dict, reports: dict, warnings: list[str],
             wall_time_s: float) -> RunResult:
    """The :class:`RunResult` of a measurement: what the receiving application and the
    sending kernel saw. The network's own counters (drops, queues, links) are not
    observable on a real path: ``null``, and no link series."""
    engine = scenario.engine
    sim = engine["simulation"]
    duration_s, bin_s, bins, bin_start, widths = run_bins(sim)
    about = {name: r["host"] for name, r in reports.items()}
    delays_valid, clock_note = _clock_note(about)
    ends, errors = endpoint_results([(name, r["endpoints"]) for name, r in reports.items()], engine["flows"])
    flows, columns, delays_by_flow = [], [], []
    for index, f in enumerate(engine["flows"]):
        sender, receiver = ends.get((index, "sender"), {}), ends.get((index, "receiver"), {})
        start_s = f["start_ns"] / 1e9
        delivered = np.asarray(receiver.get("delivered_bytes") or [0] * bins, dtype=np.int64)
        fct, end_ns = completion(f, receiver, min(f["stop_ns"] or sim["duration_ns"], sim["duration_ns"]))
        active = max(end_ns / 1e9 - start_s, 1e-9)
        tcp = f["transport"]["type"] == "tcp"
        info = sender.get("info") or {}
        samples = sender.get("samples") or []
        kernel = kernel_series(samples, bins)
        sent = np.full(bins, np.nan, dtype=np.float32)
        previous = 0
        for i, s in enumerate(samples[:bins]):
            if s is not None:  # segments sent in the bin, from the kernel's running count
                sent[i], previous = s["data_segs_out"] - previous, s["data_segs_out"]
        udp_sent = sender.get("datagrams_sent")
        udp_received = len(receiver.get("delays_us") or [])
        delays = delay_summary(receiver.get("delays_us") or []) if delays_valid else delay_summary([])
        rtts = [s["rtt"] / 1000 for s in samples if s]
        flows.append({
            "id": f["name"], "src": f["from"], "dst": f["to"], "transport": f["transport"]["type"],
            "label": describe(f, scenario.raw, f"Linux kernel on {f['from']}", KERNEL_CC.get(
                f["transport"]["cc"]["algorithm"], f["transport"]["cc"]["algorithm"])) if tcp else describe(f, scenario.raw),
            "sent_bytes": sender.get("app_bytes_sent", 0),
            "delivered_bytes": int(receiver.get("delivered_total", 0)),
            "goodput_bps": receiver.get("delivered_total", 0) * 8 / active,
            "goodput_max_bps": float(max(delivered * 8 / widths)),
            "received_bytes": None, "throughput_bps": None, "throughput_max_bps": None,
            "goodput_tail_bps": _core.tail_goodput_bps([int(x) for x in delivered], sim["bin_ns"], sim["duration_ns"],
                                                       f["start_ns"], end_ns),
            "packets_sent": info.get("data_segs_out") if tcp else udp_sent,
            "packets_delivered": None if tcp else udp_received,
            "packets_dropped": None if tcp else (udp_sent - udp_received if udp_sent is not None else None),
            "drops": None, "packets_in_flight": None,
            "loss_rate": None if tcp or not udp_sent else (udp_sent - udp_received) / udp_sent,
            "delay_ms": {k: delays[k] for k in ("min", "mean", "p50", "p95", "p99", "max")},
            "jitter_ms": delays["jitter"],
            "fragments": None, "start_s": start_s, "end_s": end_ns / 1e9, "reverse": None,
            "retransmits": info.get("total_retrans") if tcp else None,
            "fast_retransmits": None, "rto_count": None,
            "srtt_ms": sum(rtts) / len(rtts) if rtts else None,
            "fct_s": fct, "wire_bytes_sent": None,
            "transport_details": {"kernel": {"tcp_info": info}} if tcp else None,
            "delivered_bytes_by_stream": None,
        })
        columns.append({"delivered_bytes": delivered, "received_bytes": delivered,
                        "sent_packets": np.nan_to_num(sent).astype(np.int64),
                        "dropped_packets": np.zeros(bins, dtype=np.int64),
                        **kernel})
        if delays_valid:
            delays_by_flow += delay_rows(index, receiver.get("delays_us") or [])
    empty_link = {k: np.zeros(0, dtype=np.float32 if "mean" in k else np.int64)
                  for k in ("tx_bytes", "drops", "queue_mean_packets", "queue_mean_bytes", "queue_max_packets",
                            "queue_max_bytes")}
    series = Series(bin_start_s=bin_start, duration_s=duration_s, flow_ids=[f["id"] for f in flows], link_ids=[],
                    link_bandwidth_bps=np.zeros(0), flow={k: np.concatenate([c[k] for c in columns]) for k in columns[0]},
                    link=empty_link,
                    delay=delay_columns(delays_by_flow))
    chosen = engine.get("fairness_flows")
    fair = flows if chosen is None else [f for f in flows if f["id"] in chosen]
    summary = {
        "tcplab_version": __version__, "scenario": scenario.name, "scenario_as_run": scenario.as_run(),
        "provenance": provenance(scenario.source, scenario.overrides), "backend": "measure", "seed": sim["seed"],
        "duration_s": duration_s, "bin_s": bin_s, "events": 0, "wall_time_s": wall_time_s,
        "flows": flows, "links": [],
        "fairness": {"jain": _core.jain_index([f["goodput_bps"] for f in fair]), "flows": [f["id"] for f in fair]},
        "measurement": {"hosts": {name: {"reached_by": hosts[name].where, "address": hosts[name].address, **about[name]}
                                  for name in reports},
                        "one_way_delay": clock_note, "warnings": warnings, "errors": errors,
                        "not_observable": "the network's drops, queues and links, IP-level received bytes and TCP "
                                          "loss counts: a real path does not report them (null)"},
    }
    return RunResult(summary=summary, series=series)
