"""Rules of thumb from the five studies tcplab reproduces (``tcplab reproduce``), each
with the conditions under which the study observed it. The advisor prints the ones
that apply to the path next to its own simulated evidence, marked as what a study
found — not as this path's result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .path import PathSummary

#: A path at least this fast and this long is a long fat network in the highspeed and
#: lfn studies' sense.
LFN_RATE_BPS = 100e6
LFN_RTT_S = 0.05
#: LAN-sized, as in the lan study (10 Mb/s, one-way delay up to 20 ms).
LAN_RTT_S = 0.05
LAN_RATE_BPS = 100e6


@dataclass(frozen=True)
class Rule:
    """A finding of one study, the question it bears on, and when it applies."""

    study: str
    question: str
    applies: Callable[[PathSummary], bool]
    text: Callable[[PathSummary], str]


def _reno(path: PathSummary) -> bool:
    return any(f["transport"]["type"] == "tcp" and f["transport"]["cc"]["algorithm"] in ("reno", "newreno")
               for f in path.yours)


def _long_fat(path: PathSummary) -> bool:
    return path.bottleneck.bandwidth_bps >= LFN_RATE_BPS and path.rtt_s >= LFN_RTT_S


def _lan(path: PathSummary) -> bool:
    return path.rtt_s < LAN_RTT_S and path.bottleneck.bandwidth_bps <= LAN_RATE_BPS


RULES = (
    Rule("highspeed", "cc", lambda p: _long_fat(p) and _reno(p), lambda p: (
        f"On a long fat path Reno regains its window after a loss one segment per round trip (here the BDP is "
        f"{p.bdp_packets:,.0f} packets). The highspeed study (Linux 2.6.18, 1 Gb/s, loss 1e-6) measured HighSpeed, "
        "Scalable, BIC and CUBIC at 2.6-8x Reno's throughput at 50-200 ms (its Table 2), and over 80% of a 622 Mb/s, "
        "140 ms path where Reno got about 8%.")),
    Rule("highspeed", "cc", lambda p: _long_fat(p) and len(p.yours) + len(p.others) > 1, lambda p: (
        "Sharing between flows of different RTTs (highspeed study, Table 3): at 6x the RTT the short flow got 14x "
        "the long one's throughput with Scalable TCP, 10x with BIC, 5x with Reno and 2x with CUBIC.")),
    Rule("lfn", "cc", lambda p: _long_fat(p) and _reno(p), lambda p: (
        "The lfn study (Korea-USA, 10 Gb/s): Reno on a shared path peaked near 330 Mb/s; FAST TCP on a dedicated "
        "lightpath with no end-host bottleneck reached 4.7 Gb/s disk to disk, about 15x.")),
    Rule("lfn", "buffer", _long_fat, lambda p: (
        f"A window needs the whole bandwidth-delay product in the socket buffers: here {p.bdp_bytes / 2**20:,.1f} MiB "
        "(lfn study: the hosts' buffers and the disk/PCI path were the first bottlenecks).")),
    Rule("lan", "buffer", _lan, lambda p: (
        "The lan study (10 clients, 10 Mb/s, one-way delay 0.1-20 ms) found throughput rising with the receive "
        "buffer up to about delay x bandwidth and flat beyond (best 40 packets at 0.1 ms, 60 at 10-20 ms). Reproduced "
        "in tcplab and in ns-2.35 (`tcplab reproduce lan`), ten clients' throughput is flat from 10 packets; the rise "
        "shows where one connection's window is the limit.")),
    Rule("lan", "rto", _lan, lambda p: (
        "The lan study: a fixed RTO near the loaded round trip beat ns-2's default RTO algorithm (best 0.05 s at "
        "0.1 ms, 0.075 s at 1 ms, 0.1 s at 10 ms, 0.1-0.125 s at 20 ms of one-way delay); 0.025 s retransmitted "
        "excessively. Reproduced in tcplab and in ns-2.35 (`tcplab reproduce lan`), the best fixed RTO lies at "
        "0.075-0.125 s at every delay and gains under 0.5% over the default. "
        f"This path's RTT with its bottleneck queue full is {p.loaded_rtt_s * 1000:.0f} ms.")),
    Rule("jumbo", "mtu", lambda p: True, lambda p: (
        "The jumbo study (ns-2, one flow with 9,180-byte frames among 1,500-byte ones): the jumbo flow's mean rose "
        "7-13x while competing TCP lost 7-12x of theirs; jumbo frames paid off only with spare bandwidth, low loss, "
        "and an end-to-end delay no larger than the competitors'. Reproduced in tcplab and in ns-2.35 on the study's "
        "reading (`tcplab reproduce jumbo`), the gain needs RED in packet mode or a broad backbone, and the "
        "competitors lose at most about a third (node 8 beside the jumbo flow in packet mode), not 7-12x."
        + (f" This path drops {p.loss_rate * 100:.2g}% at random: the study's 5% loss erased most of the gain."
           if p.loss_rate >= 0.01 else ""))),
    Rule("sctp", "transport", lambda p: "tcp" in p.transports or "sctp" in p.transports, lambda p: (
        "The sctp study (Linux 2.6, lksctp, NISTNET): SCTP was 20-30% faster without loss (its larger initial "
        "window) and finished 100 MB transfers up to 50% sooner than TCP under 1-5% loss (SACK gap blocks); with "
        "5-10% loss 2 streams were best."
        + (f" This path's random loss is {p.loss_rate * 100:.2g}%." if p.loss_rate > 0 else ""))),
)


def applicable(path: PathSummary, question: str) -> list[Rule]:
    """The rules bearing on ``question`` that apply to ``path``."""
    return [r for r in RULES if r.question == question and r.applies(path)]
