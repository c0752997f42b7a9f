"""An emulated run's measurements as the simulator's results: the same summary.json
fields and series tables (docs/results.md), so that ``report``, ``compare``, sweeps
and studies read emulated runs unchanged.

Where each figure comes from:

* the network (the forwarder, which attributes packets to flows by port): packets
  sent, dropped (by cause) and delivered, IP bytes received, reverse counters, and
  every link direction's summary and series — measured exactly where the simulator
  measures them;
* the receiving application: delivered bytes per bin, completion time (its last
  byte), one-way delays of datagrams (stamped by the sender, same clock);
* the sending kernel (``TCP_INFO`` at the end of every bin): cwnd, ssthresh, smoothed
  RTT, retransmissions.

Figures with no measurement here are ``null``: per-cause TCP retransmission counts
(fast vs timeout), TCP one-way delay, and wire bytes per flow.
"""

from __future__ import annotations

import math

import numpy as np

from .. import __version__, _core
from ..provenance import provenance
from ..results import RunResult
from ..scenario.loader import Scenario
from ..series import Series
from ..stack import describe
from .timekeeping import judge
from .traffic import INFINITE_SSTHRESH, delay_summary

#: A link's achieved rate is reported once it was busy this long (model time, s): the
#: forwarder's lateness jitter (~0.1 ms) at the ends of a busy period would otherwise
#: dominate (an access link busy for 1 ms reads ±10%).
MIN_BUSY_S = 0.1
#: One-way delay histogram resolution, ms.
_DELAY_BUCKET_MS = 0.1


def kernel_series(samples: list[dict | None], bins: int) -> dict[str, np.ndarray]:
    """cwnd, ssthresh (bytes) and SRTT (ms) at the end of each bin, NaN before the
    connection exists (and ssthresh while it is still infinite)."""
    cwnd, ssthresh, srtt = (np.full(bins, np.nan, dtype=np.float32) for _ in range(3))
    for i, s in enumerate(samples[:bins]):
        if s is None:
            continue
        cwnd[i] = s["snd_cwnd"] * s["snd_mss"]
        if s["snd_ssthresh"] < INFINITE_SSTHRESH:
            ssthresh[i] = s["snd_ssthresh"] * s["snd_mss"]
        srtt[i] = s["rtt"] / 1000
    return {"cwnd_bytes": cwnd, "ssthresh_bytes": ssthresh, "srtt_ms": srtt}


def run_bins(sim: dict) -> tuple[float, float, int, np.ndarray, np.ndarray]:
    """A run's duration and bin width (s), its number of bins, each bin's start and
    width (s; the last bin may be cut short by the end of the run)."""
    duration_s, bin_s = sim["duration_ns"] / 1e9, sim["bin_ns"] / 1e9
    bins = max(1, math.ceil(sim["duration_ns"] / sim["bin_ns"]))
    bin_start = np.arange(bins) * bin_s
    return duration_s, bin_s, bins, bin_start, np.minimum(bin_start + bin_s, duration_s) - bin_start


def endpoint_results(reports: list[tuple[str, list[dict]]], flows: list[dict]) -> tuple[dict, list[str]]:
    """The endpoints' results the hosts reported (host name, endpoint results), by
    (flow index, "sender" | "receiver"), and their errors naming flow, role and host."""
    ends: dict[tuple[int, str], dict] = {}
    errors = []
    for host, endpoints in reports:
        for e in endpoints:
            role = "receiver" if e["role"].endswith("Receiver") else "sender"
            ends[(e["flow"], role)] = e
            if e.get("error"):
                errors.append(f"flow {flows[e['flow']]['name']} ({role} on {host}): {e['error']}")
    return ends, errors


def completion(flow: dict, receiver: dict, end_ns: int) -> tuple[float | None, int]:
    """A file transfer's completion time (s, from its start to its receiver's last
    byte; None unless all of it arrived) and when the flow's activity ended (ns)."""
    size = flow["app"].get("size_bytes")
    if size is not None and receiver.get("delivered_total") == size and receiver.get("last_byte_ns") is not None:
        return receiver["last_byte_ns"] / 1e9 - flow["start_ns"] / 1e9, receiver["last_byte_ns"]
    return None, end_ns


def delay_rows(index: int, delays_us: list[int]) -> list[tuple[int, float, int]]:
    """Flow ``index``'s one-way delays as histogram rows (flow, bucket upper bound in
    ms, packets), in buckets of :data:`_DELAY_BUCKET_MS`."""
    if not delays_us:
        return []
    buckets = np.ceil(np.asarray(delays_us) / 1000 / _DELAY_BUCKET_MS) * _DELAY_BUCKET_MS
    upper, counts = np.unique(np.round(buckets, 6), return_counts=True)
    return [(index, u, c) for u, c in zip(upper, counts, strict=True)]


def delay_columns(rows: list[tuple[int, float, int]]) -> dict[str, np.ndarray]:
    """:func:`delay_rows` of every flow as the series' delay columns."""
    return {"flow_index": np.asarray([r[0] for r in rows], dtype=np.int64),
            "delay_ms": np.asarray([r[1] for r in rows], dtype=float),
            "packets": np.asarray([r[2] for r in rows], dtype=np.int64)}


def _base_delay_ms(links: list[dict], route: list[int], packet_bytes: int) -> float:
    """Propagation plus one packet's serialization along ``route``, ms."""
    return sum(links[c]["delay_ms"] + (packet_bytes * 8 / links[c]["bandwidth_bps"] * 1e3
                                       if links[c]["bandwidth_bps"] else 0.0) for c in route)


def assemble(scenario: Scenario, hosts: list, reports: dict, forwarded: dict, plans: list, routes: list,
             wall_time_s: float) -> RunResult:
    """The :class:`RunResult` of an emulated run (see the module's documentation)."""
    engine = scenario.engine
    sim = engine["simulation"]
    duration_s, bin_s, bins, bin_start, widths = run_bins(sim)
    ends, errors = endpoint_results([(h.name, reports[h.name]["endpoints"]) for h in hosts], engine["flows"])
    links = forwarded["links"]
    flows, flow_columns, delays_by_flow, calibration = [], [], [], []
    for index, (f, plan) in enumerate(zip(engine["flows"], plans, strict=True)):
        net = forwarded["flows"][index]
        sender, receiver = ends.get((index, "sender"), {}), ends.get((index, "receiver"), {})
        start_s = f["start_ns"] / 1e9
        delivered = receiver.get("delivered_bytes") or [0] * bins
        fct, end_ns = completion(f, receiver, min(f["stop_ns"] or sim["duration_ns"], sim["duration_ns"]))
        end_s = end_ns / 1e9
        active = max(end_s - start_s, 1e-9)
        received = net["received_bytes"]
        sent_packets, dropped = sum(net["sent_packets"]), sum(net["dropped_packets"])
        info = sender.get("info") or {}
        samples = sender.get("samples") or []
        kernel = kernel_series(samples, bins) if plan else {}
        rtts = [s["rtt"] / 1000 for s in samples if s]
        delays = delay_summary(receiver.get("delays_us") or [])
        flows.append({
            "id": f["name"], "src": f["from"], "dst": f["to"], "transport": f["transport"]["type"],
            "label": describe(f, scenario.raw, "Linux kernel", plan["kernel_cc"]) if plan else describe(f, scenario.raw),
            "sent_bytes": sender.get("app_bytes_sent", 0),
            "delivered_bytes": receiver.get("delivered_total", 0),
            "goodput_bps": receiver.get("delivered_total", 0) * 8 / active,
            "goodput_max_bps": float(max(np.asarray(delivered) * 8 / widths)),
            "received_bytes": sum(received),
            "throughput_bps": sum(received) * 8 / active,
            "throughput_max_bps": float(max(np.asarray(received) * 8 / widths)),
            "goodput_tail_bps": _core.tail_goodput_bps(list(delivered), sim["bin_ns"], sim["duration_ns"],
                                                       f["start_ns"], end_ns),
            "packets_sent": sent_packets,
            "packets_delivered": net["packets_delivered"],
            "packets_dropped": dropped,
            "drops": net["drops"],
            "packets_in_flight": max(0, sent_packets - net["packets_delivered"] - dropped),
            "loss_rate": dropped / sent_packets if sent_packets else 0.0,
            "delay_ms": {k: delays[k] for k in ("min", "mean", "p50", "p95", "p99", "max")},
            "jitter_ms": delays["jitter"],
            "fragments": 0,
            "start_s": start_s, "end_s": end_s,
            "reverse": net["reverse"],
            "retransmits": info.get("total_retrans") if plan else None,
            "fast_retransmits": None, "rto_count": None,
            "srtt_ms": sum(rtts) / len(rtts) if rtts else None,
            "fct_s": fct,
            "wire_bytes_sent": None,
            "transport_details": {"kernel": {"congestion_control": plan["kernel_cc"], "tcp_info": info,
                                             "sysctls": plan["sysctls"]}} if plan else None,
            "delivered_bytes_by_stream": None,
        })
        flow_columns.append({"delivered_bytes": np.asarray(delivered, dtype=np.int64),
                             "received_bytes": np.asarray(received, dtype=np.int64),
                             "sent_packets": np.asarray(net["sent_packets"], dtype=np.int64),
                             "dropped_packets": np.asarray(net["dropped_packets"], dtype=np.int64),
                             **(kernel or {k: np.full(bins, np.nan, dtype=np.float32)
                                           for k in ("cwnd_bytes", "ssthresh_bytes", "srtt_ms")})})
        delays_by_flow += delay_rows(index, receiver.get("delays_us") or [])
        calibration.append(_calibrate(f, flows[-1], links, routes[index], info, delays))
    series = Series(
        bin_start_s=bin_start, duration_s=duration_s,
        flow_ids=[f["id"] for f in flows], link_ids=[link["id"] for link in links],
        link_bandwidth_bps=np.asarray([link["bandwidth_bps"] for link in links], dtype=float),
        flow={k: np.concatenate([c[k] for c in flow_columns]) for k in flow_columns[0]},
        link={k: np.concatenate([np.asarray(s[k], dtype=np.float32 if "mean" in k else np.int64)
                                 for s in forwarded["link_series"]])
              for k in ("tx_bytes", "drops", "queue_mean_packets", "queue_mean_bytes", "queue_max_packets",
                        "queue_max_bytes")},
        delay=delay_columns(delays_by_flow),
    )
    chosen = engine.get("fairness_flows")
    fair = flows if chosen is None else [f for f in flows if f["id"] in chosen]
    stats = forwarded["stats"]
    rates = _link_rates(links, forwarded["link_pacing"])
    summary = {
        "tcplab_version": __version__,
        "scenario": scenario.name,
        "scenario_as_run": scenario.as_run(),
        "provenance": provenance(scenario.source, scenario.overrides),
        "backend": "emu",
        "seed": sim["seed"],
        "duration_s": duration_s,
        "bin_s": bin_s,
        # An emulated run has no events; the packets the forwarder handled stand in.
        "events": stats["read_packets"] + stats["written_packets"],
        "wall_time_s": wall_time_s,
        "flows": flows,
        "links": links,
        "fairness": {"jain": _core.jain_index([f["goodput_bps"] for f in fair]), "flows": [f["id"] for f in fair]},
        "emulation": {"forwarder": stats, "calibration": calibration, "link_rates": rates, "errors": errors,
                      "link_rates_min_busy_s": MIN_BUSY_S,
                      "timekeeping": judge(calibration, rates, stats)},
    }
    return RunResult(summary=summary, series=series)


def _link_rates(links: list[dict], pacing: list[dict]) -> list[dict]:
    """Each link direction's configured rate against the rate it achieved on the
    forwarder's clock while it was busy (the engine's ``Pacing``: its back-to-back
    departures' spacing in the model over their spacing as the forwarder moved them
    on); ``achieved_bps`` is null for a link busy less than :data:`MIN_BUSY_S` in all."""
    rates = []
    for link, p in zip(links, pacing, strict=True):
        achieved = p["achieved_bps"] if p["model_s"] >= MIN_BUSY_S else None
        rates.append({"link": link["id"], "configured_bps": link["bandwidth_bps"], "achieved_bps": achieved,
                      "deviation_pct": None if achieved is None else 100 * (achieved / link["bandwidth_bps"] - 1),
                      "busy_s": p["model_s"], "intervals": p["intervals"]})
    return rates


def _calibrate(flow: dict, result: dict, links: list[dict], route: list[list[int]], info: dict, delays: dict) -> dict:
    """The path's configured base delay against what the endpoints measured: the
    kernel's minimum RTT for TCP (its smallest sample is the handshake's: a SYN out, a
    SYN-ACK back, 60 bytes each with options), the smallest one-way delay for UDP."""
    if flow["transport"]["type"] == "tcp":
        configured = _base_delay_ms(links, route[0], 60) + _base_delay_ms(links, route[1], 60)
        measured = info.get("min_rtt", 0) / 1000 or None
        what = "min RTT (kernel) vs propagation + serialization of SYN and SYN-ACK"
    else:
        payload = flow["app"]["payload_bytes"]
        configured = _base_delay_ms(links, route[0], payload + 28)
        measured = delays["min"]
        what = "min one-way delay vs propagation + serialization"
    return {"flow": result["id"], "what": what, "configured_ms": configured, "measured_ms": measured,
            "deviation_ms": None if measured is None else measured - configured}
