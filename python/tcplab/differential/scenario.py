"""A :class:`~.space.Sample` as a tcplab scenario (the plain data of a scenario file).

The layout, shared with the ns-2 renderer (``tests/differential/ns2.py``): routers
``r0 … rH`` in a row, bottleneck hop *h* from ``r{h}`` to ``r{h+1}``; flow *i* runs
from its own host ``s{i}`` on the router before its first hop to its own host
``d{i}`` after its last. 40% of the base RTT is the bottlenecks' propagation delay
(split evenly over the hops); each flow's access links make up the rest of its RTT.
"""

from __future__ import annotations

from collections.abc import Callable

from .space import BULK_KINDS, MSS, Flow, Sample

#: Packets the access links and the bottleneck's reverse direction hold: more than any
#: window reaches in the space (queues that never drop), as in ns-2's cases.
BIG_QUEUE = 100_000
#: Share of the base RTT that is bottleneck propagation delay.
NECK_SHARE = 0.4
#: UDP datagram payload: full 1,500-byte packets.
UDP_PAYLOAD = MSS + 12


def hop_delay_s(sample: Sample) -> float:
    """One-way propagation delay of each bottleneck hop."""
    return NECK_SHARE * sample.base_rtt_s / 2 / sample.hops


def access_delay_s(sample: Sample, flow: Flow) -> float:
    """One-way delay of each of the flow's two access links."""
    return max(0.0, (flow.rtt_s / 2 - hop_delay_s(sample) * len(flow.hops)) / 2)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.6g}ms"


def _bps(rate: float) -> str:
    return f"{rate / 1e3:.12g}kbps"


def kernel_transport(flow: Flow, sample: Sample) -> dict:
    """A kernel-space TCP flow: the kernel's algorithm, the ``linux`` profile, and no TCP
    Small Queues: the emulated hosts' TUN device orphans each packet as it enters its
    ring (``tun_net_xmit``), so the kernel's TSQ never sees the host's queue there
    (docs/emulation.md, "What the emulated hosts cannot do")."""
    return {"type": "tcp", "profile": "linux", "cc": flow.cc, "sack": sample.sack, "small_queues": False}


def scenario(sample: Sample, transport: Callable[[Flow, Sample], dict] = kernel_transport,
             access_queue_packets: int = BIG_QUEUE, mtu: int | None = None) -> dict:
    """The sample as a scenario; ``transport`` gives each bulk flow's transport table,
    ``mtu`` every link's MTU (default: the format's 1,500 bytes)."""
    big = {"type": "droptail", "limit": f"{BIG_QUEUE} packets"}
    access_queue = {"type": "droptail", "limit": f"{access_queue_packets} packets"}
    routers = [f"r{h}" for h in range(sample.hops + 1)]
    nodes: list[dict] = [{"name": r, "kind": "router"} for r in routers]
    links: list[dict] = []
    for h in range(sample.hops):
        forward: dict = {"queue": {"type": "droptail", "limit": f"{sample.buffer_packets} packets"}}
        if sample.loss is not None and h == 0:
            forward |= {"loss": sample.loss.table(), "loss_at": "before_queue"}
        links.append({"from": routers[h], "to": routers[h + 1], "bandwidth": _bps(sample.neck_bps),
                      "delay": _ms(hop_delay_s(sample)), "forward": forward, "reverse": {"queue": big}})
    access = _bps(sample.neck_bps * sample.access_factor)
    flows: list[dict] = []
    for i, f in enumerate(sample.flows):
        src, dst = f"s{i}", f"d{i}"
        nodes += [{"name": src}, {"name": dst}]
        delay = _ms(access_delay_s(sample, f))
        links.append({"from": src, "to": routers[f.hops[0]], "bandwidth": access, "delay": delay,
                      "forward": {"queue": access_queue}, "reverse": {"queue": big}})
        links.append({"from": routers[f.hops[-1] + 1], "to": dst, "bandwidth": access, "delay": delay, "queue": big})
        entry: dict = {"name": f"f{i}", "from": src, "to": dst, "start": f"{f.start_s:g}s"}
        if f.kind in BULK_KINDS:
            entry |= {"app": {"type": "bulk"}, "transport": transport(f, sample)}
        elif f.kind == "udp_cbr":
            entry |= {"transport": "udp", "app": {"type": "cbr", "rate": _bps(f.rate_bps), "packet_size": f"{UDP_PAYLOAD}B"}}
        else:
            entry |= {"transport": "udp", "app": {"type": "onoff", "rate": _bps(f.rate_bps), "packet_size": f"{UDP_PAYLOAD}B",
                                                  "on": f"{f.on_s:g}s", "off": f"{f.off_s:g}s", "distribution": "constant"}}
        flows.append(entry)
    if mtu is not None:
        links = [{**link, "mtu": mtu} for link in links]
    bin_s = 0.1 if sample.duration_s <= 60 else 0.5
    return {
        "name": sample.name,
        "simulation": {"duration": f"{sample.duration_s:g}s", "seed": sample.seed, "bin": f"{bin_s:g}s"},
        "node": nodes, "link": links, "flow": flows,
    }
