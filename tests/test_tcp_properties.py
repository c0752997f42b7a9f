"""Property tests over random paths: a single bulk TCP flow with SACK on an otherwise idle
dumbbell uses the bottleneck as far as physics allows, in the `tcplab` and `linux`
profiles (both RACK-TLP), for every loss-driven algorithm, Vegas and BBR.

The bound is physical, not fitted. A loss-driven window that halves to β·W at a loss of
a window W = BDP + buffer (or more, overshooting in slow start) never falls below
β·(BDP + buffer) again without a timeout, so after its first loss the link carries at
least min(1, β·(1 + buffer/BDP)) of its rate — less the two segments FlightSize at
detection can lack (FLIGHT_SHORTFALL_SEGMENTS), and with W = 2·buffer when the buffer
is below the BDP: slow start overflows it at that window, and on a long path
congestion avoidance does not get back to BDP + buffer within the run (found by this
property: NewReno, 471 Mb/s, 164 ms, 0.74 BDP: 0.777 of the link after one recovery
of 8,732 losses, the same with every loss-detection setting) (β: 0.5 for Reno/NewReno, CUBIC's 0.7, and
0.5 for HighSpeed, BIC and Scalable, whose deeper-than-Reno decreases start only above a
window of 14–38 segments). Vegas keeps 2–4 segments queued and BBR paces at the
bottleneck's rate: both fill the link unless the buffer is below Vegas's 4 segments,
where Vegas falls back to halving on loss (β = 0.5) — or unless Vegas's slow start
overflowed the buffer before it measured the queue: after a loss Vegas has halved like
Reno, and β = 0.5 bounds it too (found by this property: 215 Mb/s, 46 ms, 0.33 BDP, a
second loss in the overshoot's tail; 0.746 of the link). The test asserts goodput after the
first 5 s ≥ 90% of that share of the payload rate.

Not asserted here, with the reason:
- FAST: its α = 100 segments of queue exceed most sampled buffers (it then overflows
  the queue even inside recovery), and far below equilibrium its window grows only
  γ·α = 50 segments per update, so its bound depends on its own dynamics.
- SACK off is its own property (`test_a_single_flow_without_sack_...`): NewReno
  (RFC 6582) learns of one hole a round trip, so after a slow-start overshoot of k
  losses the repair takes k RTTs or a timeout, and the bound holds only once the first
  overshoot's holes — up to (BDP + buffer)/2 — can have been repaired before SETTLE_S
  (`repairable_without_sack`; a 290-ms path of 527 segments needs 76 s: HighSpeed got
  0.81 there, CUBIC 0.67 on a 211-ms one, with 2-4 timeouts). It covers the `tcplab`
  profile and the algorithms that grow about a segment a round at capacity. Not there:
  BIC and Scalable, whose growth at capacity (up to 16 segments a round; 1% of the
  window) can lose more segments in one overflow than the `tcplab` profile's timer by
  holes repairs one a round trip (32), each such recovery ending in a timeout (BIC at
  0.69 of the bound on a 130 Mb/s, 17 ms path with 30 timeouts; Scalable at 0.62 on a
  613 Mb/s, 32 ms one holding more than the host queue); BBR, which paces on after a timeout
  at rates its go-back-N's cumulative ACKs inflate (0.33 of the link on a 191 Mb/s,
  160 ms path); FAST (above); and the `linux` profiles, whose recovery repairs one hole
  a round for as long as it takes and collapses on long paths as the kernel does
  (docs/loss-recovery.md, "Without SACK on a long fat path"). On #28's dumbbell, where
  the holes are few, BIC and BBR fill the link without SACK too (below).
- Random loss is its own property (`..._under_random_loss_...`): the bound is the
  smaller of the loss-free one and Padhye et al.'s Reno throughput (PFTK), which counts
  every loss of a round as one signal and every triple loss as a timeout; sampled
  flows reach 1.0-26x of it (112 paths surveyed, 2026-11-28).
- Access links slower than twice the bottleneck (MIN_ACCESS_RATIO).
- Found by this property in `make properties` before RACK-TLP became the default, and
  kept below as regressions: a decrease applied to a slow-start overshoot window
  (Scalable, 42 Mb/s, 300 ms, 1.24 BDP: leaving slow start at 4,700 segments on a
  2,370-packet path it reduced to 4,150, still above the path; RFC 6675's DupThresh
  rule then found the retransmissions lost inside that recovery only by the timer), and
  BIC at 530 Mb/s, 166 ms. RACK (RFC 8985) finds them one RTT after they were sent, and
  a lost retransmission lowers the window again (RFC 5681 section 4.3) or, with PRR,
  stops its growth (Linux): the `tcplab` and `linux` profiles now fill these paths.
  `linux-2.6.18` (FACK, rate halving, no RACK) still does not on the BIC path (0.65):
  that kernel's behaviour, not sampled here.
- The `ns2` profile: ns-2.35's timeout() halves window() again inside a recovery
  (`timeout_reduction = "per_timeout"`), so β·(1 + b) is no bound there (this property
  found CUBIC at 0.788 on a 158 ms, 0.25-BDP path, where 0.9·0.875 = 0.7875).
- Paths holding fewer than 5 segments (BDP + buffer): there one segment is a quarter
  of the window or more, a halving rounds to whole segments, and every loss also waits
  RACK's reordering window (min_RTT/4) because fewer than three segments can be SACKed
  above it. Found by this property: BIC, 2.3 Mb/s, 9.3 ms, 3.8 segments, 166 recoveries
  in 25 s without a timeout: 0.897 of the link with RACK-TLP, 0.908 with RFC 6675
  alone, against 0.9. Before RACK-TLP such paths fell to the timer (BIC, 10 Mb/s,
  1 ms, 2-packet buffer: 0.51); RACK's timer and TLP repair that case (1.00), kept
  below as a regression.
- Found by this property and fixed: BBR under the `linux` profile at 0.83 of a 1 Gb/s,
  10 ms, 1-BDP path. Its BtlBw filter aged out by the clock, so the ten-plus rounds
  of ProbeRTT (whose low samples Linux also marks application-limited) left it with
  none of the path's rate; and pacing spaced whole packets at a payload rate (Linux
  paces skb->len, the data). Kept below as a regression; BBR is sampled in both
  profiles.

Besides the share, every sample checks that no retransmission repeats delivered data
beyond go-back-N after a timeout, and that the sender's access queue stays free of
drops once the first loss is repaired (everywhere with TCP Small Queues, the `linux`
profile's; without them on paths within HOST_QUEUE_PACKETS, whose comment says why).

CI runs TCPLAB_PROPERTY_EXAMPLES examples (default 40); `make properties` runs 300.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass

import pytest
import tcplab
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("TCPLAB_PROPERTY_EXAMPLES", "40"))
DURATION_S = 25
SETTLE_S = 5
MSS = 1460
WIRE = 1500

#: The algorithm's window after a loss, as a fraction of the window before it (see the
#: module docstring); None for the rate- and delay-based ones, handled apart.
BETA = {"reno": 0.5, "newreno": 0.5, "cubic": 0.7, "highspeed": 0.5, "bic": 0.5, "scalable": 0.5,
        "vegas": None, "bbr": None}

#: Segments FlightSize at loss detection may fall short of the window that overflowed
#: the queue: the lost one, and one a delayed ACK holds back. Found by this property:
#: Reno, 12 Mb/s, 3 ms, 3-packet buffer (a 6-segment path): RACK detects the loss
#: before Limited Transmit's segments swell FlightSize, ssthresh became 3.5 segments
#: and the link carried 0.845 (0.984 without delayed ACKs).
FLIGHT_SHORTFALL_SEGMENTS = 2

#: How long after the first drop at the bottleneck its repair is surely over: the
#: larger of this and 20 RTTs.
REPAIR_S = 2.0

#: The sender's access queue (the default link queue, 1,000 packets). On paths holding
#: more, the end of a recovery can release a line-rate burst larger than it (cwnd =
#: ssthresh while the pipe is far below, RFC 9937 section 6.1 and Linux's
#: tcp_end_cwnd_reduction alike), and the host queue drops its own flow's packets.
#: Linux never does: TCP Small Queues hold the burst in the socket. Found by this
#: property in the `linux` profile before it modelled them (`small_queues`; 3 of ~1,200
#: paths, e.g. Scalable, 315 Mb/s, 292 ms, 31,000 packets: 14,679 access drops after
#: the first loss), kept below as a regression. Without them (the `tcplab` profile) the
#: access-queue property is asserted on paths within the host queue.
HOST_QUEUE_PACKETS = 1000

#: Vegas's β: the most segments it keeps queued.
VEGAS_QUEUE_SEGMENTS = 4


def expected_share(cc: str, buffer_packets: int, bdp_packets: float, lost: bool = False) -> float:
    """The least share of the bottleneck's payload rate a single flow must reach; `lost`:
    the flow saw a loss (Vegas then halves like Reno and regrows one segment per RTT,
    so only a loss-free Vegas must fill the link)."""
    beta = BETA[cc]
    if cc == "bbr" or (cc == "vegas" and buffer_packets >= VEGAS_QUEUE_SEGMENTS and not lost):
        return 1.0
    if beta is None:  # Vegas behind a buffer it cannot queue its segments in
        beta = 0.5
    # The reduction is from FlightSize when the loss is detected (RFC 5681 eq. 4): the
    # window that overflowed the queue less the lost segment and one a delayed ACK may
    # still hold back — negligible on large paths, a third of a 6-segment one.
    # Slow start sends two segments per segment acknowledged, so each round the queue
    # grows by half the window: a buffer smaller than the BDP overflows at a window of
    # twice the buffer, before the pipe is full (Hoe 1996; RFC 3742's motivation). On
    # a long path congestion avoidance then needs thousands of RTTs to reach BDP +
    # buffer, more than the run: the first loss's window is what the run shows.
    window = min(bdp_packets + buffer_packets, 2 * buffer_packets)
    flight = window - FLIGHT_SHORTFALL_SEGMENTS
    return min(1.0, beta * flight / bdp_packets)


def scenario(bw_bps: float, rtt_ms: float, buffer_bdp: float, access_ratio: float,
             cc: str, profile: str, sack: bool = True, loss_rate: float = 0.0) -> tuple[str, int, float]:
    """A dumbbell with one flow (and `loss_rate` Bernoulli loss at the bottleneck): the
    scenario text, its buffer in packets and its BDP."""
    bdp_packets = bw_bps * rtt_ms / 1e3 / 8 / WIRE
    buffer_packets = max(2, round(buffer_bdp * bdp_packets))
    # Access links: 0.5 ms each; the bottleneck's delay makes up the rest of the RTT.
    bottleneck_delay_ms = max(0.0, rtt_ms / 2 - 1.0)
    queue = f'{{ type = "droptail", limit = "{buffer_packets} packets" }}'
    loss = f', loss = {{ type = "bernoulli", rate = {loss_rate:.6g} }}' if loss_rate else ""
    text = f"""
[simulation]
duration = "{DURATION_S}s"
seed = 1
bin = "100ms"

[topology.dumbbell]
pairs = 1
access = {{ bandwidth = "{bw_bps * access_ratio:.0f}bps", delay = "0.5ms" }}
bottleneck = {{ bandwidth = "{bw_bps:.0f}bps", delay = "{bottleneck_delay_ms:.4f}ms", queue = {queue}{loss} }}

[[flow]]
from = "left0"
to = "right0"
app = {{ type = "bulk" }}

[flow.transport]
type = "tcp"
cc = "{cc}"
sack = {str(sack).lower()}
profile = "{profile}"
mss = "{MSS}B"
"""
    if profile == "ns2":  # ns-2's window_ of 20 segments would be the bound
        text += 'max_window = "1000000 segments"\nreceive_buffer = "2GiB"\n'
    return text, buffer_packets, bdp_packets


@dataclass(frozen=True)
class Outcome:
    """What one run of a path shows."""

    share: float  # goodput after SETTLE_S over the bottleneck's payload rate
    lost: bool  # the flow lost anything
    late_access_drops: int  # drops at the sender's access link after the first loss was repaired
    spurious_retransmissions: int  # retransmissions beyond the packets the network dropped
    timeouts: int


def run_path(text: str, bw_bps: float, rtt_ms: float) -> Outcome:
    """Runs a path's scenario and reads what the properties check."""
    result = tcplab.run(text)
    series = result.flow_series
    tail = series[series.time_s >= SETTLE_S]
    goodput = tail.delivered_bytes.sum() * 8 / (DURATION_S - SETTLE_S)
    flow = result.flows.iloc[0]
    links = result.link_series
    bottleneck = links[(links.link == "router_left->router_right") & (links.drops > 0)]
    access = links[links.link == "left0->router_left"]
    late = 0
    if len(bottleneck):
        # Repaired: one recovery of RTO.max at most would do; a second is ample.
        repaired_by = bottleneck.time_s.min() + max(REPAIR_S, 20 * rtt_ms / 1e3)
        late = int(access[access.time_s >= repaired_by].drops.sum())
    return Outcome(share=goodput / (bw_bps * MSS / WIRE), lost=bool(flow.packets_dropped > 0),
                   late_access_drops=late,
                   spurious_retransmissions=int(flow.retransmits - flow.packets_dropped),
                   timeouts=int(flow.rto_count))


#: Access links at least twice the bottleneck: slow start sends at twice the rate its
#: ACKs return, so a slower access link's queue (1,000 packets) overflows before the
#: bottleneck's and sets the window at the first loss below BDP + buffer (found here:
#: NewReno, 595 Mb/s, 224 ms, access ×1.78, first loss at 19,350 segments of 44,040;
#: afterwards Reno gains one segment per 224 ms RTT). That regime needs its own bound.
MIN_ACCESS_RATIO = 2.0

#: The profiles whose timeout rule keeps one reduction per window (`ns2` keeps ns-2.35's
#: slowdown(), which halves again on a timeout inside recovery: below β·(1 + b)).
PROFILES = ["tcplab", "linux"]


def draw_path(seed: int) -> dict:
    """A path drawn evenly in log scale from the sampled space. Hypothesis draws the seed
    (its own integer and float draws crowd small values and range ends: mostly 1 ms,
    1 Mb/s paths); a failure prints the whole scenario, and REGRESSIONS keeps it."""
    rng = random.Random(seed)

    def log_uniform(low: float, high: float) -> float:
        return 10 ** rng.uniform(math.log10(low), math.log10(high))

    return {
        "bw_bps": log_uniform(1e6, 1e9),
        "rtt_ms": log_uniform(1, 300),
        "buffer_bdp": log_uniform(0.25, 4),
        "access_ratio": log_uniform(MIN_ACCESS_RATIO, 1000),
        "cc": rng.choice(sorted(BETA)),
        "profile": rng.choice(PROFILES),
    }


#: Paths holding fewer segments than this (BDP + buffer) are not sampled: see the
#: module docstring.
SMALLEST_WINDOW = 5


def window_packets(p: dict) -> float:
    """What the path holds, BDP + buffer, packets."""
    _, buffer_packets, bdp_packets = scenario(**p)
    return bdp_packets + buffer_packets


def known_gap(p: dict) -> bool:
    """Paths under SMALLEST_WINDOW segments (see the module docstring): not drawn
    (Hypothesis draws another path instead)."""
    return window_packets(p) < SMALLEST_WINDOW


def check_share(p: dict, bounded_retransmissions: bool = True) -> None:
    """The properties of one path; `bounded_retransmissions` False where go-back-N may
    resend more than one window per timeout (without SACK, after a slow-start overshoot)."""
    text, buffer_packets, bdp_packets = scenario(**p)
    o = run_path(text, p["bw_bps"], p["rtt_ms"])
    bound = 0.9 * expected_share(p["cc"], buffer_packets, bdp_packets, o.lost)
    where = f"{p['cc']} ({p['profile']}), buffer {buffer_packets} packets, BDP {bdp_packets:.1f}:\n{text}"
    assert o.share >= bound, f"got {o.share:.3f} of the link, at least {bound:.3f} expected; {where}"
    # Once the first loss is repaired the flow knows the path: the sender's own access
    # queue never overflows again (a slow start after a timeout aims at an ssthresh
    # the path has shown it holds) — unless the path holds more than that queue and
    # nothing holds the sender back (see HOST_QUEUE_PACKETS).
    small_queues = tcplab.load(text).engine["flows"][0]["transport"]["small_queues"]
    if small_queues or bdp_packets + buffer_packets <= HOST_QUEUE_PACKETS:
        assert o.late_access_drops == 0, f"{o.late_access_drops} drops at the access link; {where}"
    if not bounded_retransmissions:
        return
    # Every retransmission repairs a drop, except go-back-N's after a timeout (the
    # window a timeout resends, at most BDP + buffer each).
    allowance = o.timeouts * (bdp_packets + buffer_packets)
    assert o.spurious_retransmissions <= allowance, (
        f"{o.spurious_retransmissions} retransmissions of delivered data, {o.timeouts} timeouts; {where}")


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 2**63))
def test_a_single_sack_flow_uses_the_link_as_physics_allows(seed: int) -> None:
    p = draw_path(seed)
    assume(not known_gap(p))
    check_share(p)


#: The algorithms the random-loss property covers: Reno's response, or one at least as
#: aggressive at a given loss rate (CUBIC's Reno-friendly region, HighSpeed's Reno
#: below 38 segments).
LOSS_ALGORITHMS = ["reno", "newreno", "cubic", "highspeed"]
#: Random loss drawn log-uniformly between these rates.
LOSS_RANGE = (1e-5, 0.05)


def pftk_share(loss_rate: float, rtt_s: float, link_pps: float) -> float:
    """Padhye, Firoiu, Towsley and Kurose's Reno throughput (SIGCOMM 1998, eq. 31) as a
    share of the link: 1 / (RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²))
    packets a second, with b = 2 (delayed ACKs) and T0 = RTT + 200 ms (the RTO floor
    above the RTT). It counts every loss of a round as one congestion signal and every
    triple loss as a timeout, so an independent random loss and SACK recovery do at
    least as well."""
    b, t0 = 2, rtt_s + 0.2
    p = loss_rate
    rate = 1 / (rtt_s * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p))
    return rate / link_pps


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 2**63))
def test_a_single_sack_flow_under_random_loss_keeps_padhyes_rate(seed: int) -> None:
    """With random loss (1e-5 to 5%, Bernoulli, at the bottleneck) the bound is the
    smaller of the loss-free one and PFTK's, the RTT taken as the propagation plus half
    the buffer (a longer RTT, a lower bound)."""
    p = draw_path(seed)
    rng = random.Random(f"{seed}/loss")  # not draw_path's stream: its draws would pick these
    p.update(cc=rng.choice(LOSS_ALGORITHMS), profile=rng.choice(PROFILES),
             loss_rate=10 ** rng.uniform(*map(math.log10, LOSS_RANGE)))
    assume(not known_gap(p))
    text, buffer_packets, bdp_packets = scenario(**p)
    o = run_path(text, p["bw_bps"], p["rtt_ms"])
    link_pps = p["bw_bps"] / 8 / WIRE
    rtt_s = p["rtt_ms"] / 1e3 + buffer_packets / 2 / link_pps
    bound = 0.9 * min(expected_share(p["cc"], buffer_packets, bdp_packets, o.lost),
                      pftk_share(p["loss_rate"], rtt_s, link_pps))
    assert o.share >= bound, f"got {o.share:.4f} of the link, at least {bound:.4f} expected: {p}\n{text}"


#: The algorithms the property without SACK covers: those whose window grows by about
#: a segment a round at the path's capacity, so that an overflow loses a segment or
#: two (see the module docstring for the others).
NO_SACK_ALGORITHMS = ["reno", "newreno", "highspeed", "cubic", "vegas"]


def repairable_without_sack(p: dict) -> bool:
    """Whether the first slow-start overshoot's holes are surely repaired before
    SETTLE_S: without SACK the sender learns of one hole a round trip (RFC 6582's
    partial ACKs; a go-back-N after the timer finds no more), and an overshoot can
    leave up to half the path's window, (BDP + buffer)/2 segments, in holes. Also
    within HOST_QUEUE_PACKETS, as the access-queue property is."""
    window = window_packets(p)
    return window / 2 * p["rtt_ms"] / 1e3 <= SETTLE_S and window <= HOST_QUEUE_PACKETS


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 2**63))
def test_a_single_flow_without_sack_uses_the_link_as_physics_allows(seed: int) -> None:
    """The same bound without SACK (RFC 6582 NewReno, the `tcplab` profile), where the
    first overshoot can be repaired before SETTLE_S. Go-back-N after a timeout resends
    what the receiver holds, so the retransmission bound is not asserted."""
    p = draw_path(seed)
    # Its own stream: draw_path's first draw (the bandwidth) would otherwise pick the algorithm.
    p.update(cc=random.Random(f"{seed}/no-sack").choice(NO_SACK_ALGORITHMS), profile="tcplab", sack=False)
    assume(not known_gap(p) and repairable_without_sack(p))
    check_share(p, bounded_retransmissions=False)


#: Cases that failed before loss recovery was fixed (issue #28), kept as regressions:
#: the issue's own dumbbell, where CUBIC with SACK got 7.99 of 10 Mb/s after 37
#: timeouts, and random samples that timed out on lost retransmissions.
REGRESSIONS = [
    dict(bw_bps=10e6, rtt_ms=42.0, buffer_bdp=50 / 35.0, access_ratio=10.0, cc="cubic", profile="tcplab"),
    dict(bw_bps=10e6, rtt_ms=42.0, buffer_bdp=50 / 35.0, access_ratio=10.0, cc="bic", profile="tcplab"),
    dict(bw_bps=535.94e6, rtt_ms=3.4, buffer_bdp=0.32, access_ratio=18.0, cc="scalable", profile="linux"),
    dict(bw_bps=732.83e6, rtt_ms=8.0, buffer_bdp=0.46, access_ratio=4.8, cc="scalable", profile="linux"),
    dict(bw_bps=15.64e6, rtt_ms=9.5, buffer_bdp=0.95, access_ratio=15.9, cc="scalable", profile="tcplab"),
    dict(bw_bps=12.15e6, rtt_ms=4.1, buffer_bdp=0.41, access_ratio=218.5, cc="cubic", profile="linux"),
    # Open before RACK-TLP (module docstring): a 3-segment path, and decreases applied
    # to slow-start overshoots.
    dict(bw_bps=1e7, rtt_ms=1.0, buffer_bdp=1.0, access_ratio=1.0, cc="bic", profile="tcplab"),
    dict(bw_bps=42426217.0, rtt_ms=299.49, buffer_bdp=1.238, access_ratio=2.4025, cc="scalable", profile="tcplab"),
    dict(bw_bps=42426217.0, rtt_ms=299.49, buffer_bdp=1.238, access_ratio=2.4025, cc="scalable", profile="linux"),
]


@pytest.mark.parametrize("p", REGRESSIONS, ids=lambda p: f"{p['cc']}-{p['profile']}-{p['bw_bps'] / 1e6:.0f}M")
def test_shrunk_regressions(p: dict) -> None:
    check_share(p)


def test_a_go_back_n_does_not_reopen_the_window_in_one_burst() -> None:
    """Drawn by this sampler with SACK off (2026-11-28): after every timeout the
    cumulative ACK that ended the go-back-N, jumping over what the receiver held, opened
    Scalable's window to ssthresh at once — a line-rate burst into a 46-packet queue,
    the next timeout, the RTO backed off — and the flow kept 0.8% of the link. RFC
    3465's limit (two segments per ACK in slow start), which the Linux-derived
    algorithms had not applied in the `tcplab` profile, gives 95%. (Without SACK the
    go-back-N after the first slow-start overshoot resends far more than one window,
    so the retransmission bound of `check_share` is not asserted here.)"""
    check_share(dict(bw_bps=229229069.0, rtt_ms=2.0835, buffer_bdp=1.153, access_ratio=35.26, cc="scalable",
                     profile="tcplab", sack=False), bounded_retransmissions=False)


def test_reno_without_sack_repairs_a_windows_second_loss_without_the_timer() -> None:
    """Drawn by this sampler with SACK off (2026-11-28): Reno on a 7.6-segment path
    (12.6 Mb/s, 2.4 ms, 5-packet buffer) kept 26% of the link with 91 timeouts in 25 s.
    Its overflows often lose two segments of one window; `cc = "reno"` ran RFC 5681's
    own fast recovery, which ends at the first new ACK, so the partial ACK for the
    second hole was taken as the end and the hole waited 200 ms for the timer. The
    `tcplab` profile now runs RFC 6582 NewReno for Reno as for every other algorithm:
    the partial ACK resends the hole (97%, no timeout; the `ns2` profile, ns-2's Reno
    agent, gets there with one timeout)."""
    check_share(dict(bw_bps=12623150.5, rtt_ms=2.437, buffer_bdp=1.9212, access_ratio=16.015, cc="reno",
                     profile="tcplab", sack=False))


def test_vegas_in_the_ns2_profile_measures_every_ack() -> None:
    """Found by comparing the profiles on paths drawn by this sampler (2026-11-28):
    Vegas under the `ns2` profile held 49% of a 230 Mb/s, 14 ms path (a 124-packet
    buffer, no loss) where the other profiles filled it. The profile's once-per-RTT
    RTT timing (ns-2's `rtt_active_`, for the RTO) also fed Vegas, whose rounds then
    had fewer than three samples and fell back to Reno-like steps; ns-2's own Vegas
    times every segment (`v_sendtime_`). Stronger than `check_share`'s halving bound
    (which a Vegas that lost in slow start gets): its slow-start overshoot (130 drops
    at 0.1 s) leaves about 126 segments, and a segment a round while under α queued
    (70 a second) reaches the 271-segment BDP in about 2 s, so from 5 s on the link is
    full (the old engine: 0.49 of it)."""
    p = dict(bw_bps=229728905.2, rtt_ms=14.1762, buffer_bdp=0.45525, access_ratio=889.6, cc="vegas", profile="ns2")
    text, _, _ = scenario(**p)
    o = run_path(text, p["bw_bps"], p["rtt_ms"])
    assert o.timeouts == 0 and o.share >= 0.9, o


def test_bbr_in_the_linux_profile_fills_a_1gbps_path() -> None:
    """Was 0.83 of the link (module docstring): BtlBw forgot the path's rate in every
    ProbeRTT, and pacing counted headers against a payload rate."""
    check_share(dict(bw_bps=1e9, rtt_ms=10.0, buffer_bdp=1.0, access_ratio=1.0, cc="bbr", profile="linux"))


def test_a_recovery_on_a_long_fat_path_never_overflows_the_host_queue() -> None:
    """Was 32,079 drops at the sender's 1,000-packet access queue after the first loss
    (HOST_QUEUE_PACKETS): each recovery's end released a line-rate burst of a
    31,000-packet window. TCP Small Queues hold it in the socket, as Linux does."""
    p = dict(bw_bps=315472393.35, rtt_ms=291.72, buffer_bdp=3.0707, access_ratio=6.4235, cc="scalable",
             profile="linux")
    text, _, _ = scenario(**p)
    o = run_path(text, p["bw_bps"], p["rtt_ms"])
    assert o.late_access_drops == 0 and o.share >= 0.9, o
    assert run_path(text + "small_queues = false\n", p["bw_bps"], p["rtt_ms"]).late_access_drops > 0


#: Issue #28's dumbbell: 100 Mb/s / 1 ms access, 10 Mb/s / 20 ms bottleneck, a 50-packet
#: DropTail queue (about 1.4 BDP), one bulk flow for 30 s.
ISSUE_DUMBBELL = """
[simulation]
duration = "30s"
seed = 1
bin = "100ms"

[topology.dumbbell]
pairs = 1
access = { bandwidth = "100Mbps", delay = "1ms" }
bottleneck = { bandwidth = "10Mbps", delay = "20ms", queue = { type = "droptail", limit = "50 packets" } }

[[flow]]
from = "left0"
to = "right0"
app = { type = "bulk" }
transport = { type = "tcp", cc = "CC" }
"""


@pytest.mark.parametrize("cc", ["reno", "newreno", "highspeed", "vegas", "cubic", "bic", "scalable", "fast", "bbr"])
def test_what_a_user_who_writes_only_cc_gets_fills_the_issue_dumbbell(cc: str) -> None:
    """A scenario that says only `cc` runs the tcplab profile, SACK on: on issue #28's
    dumbbell every algorithm gets at least 9.0 of the 10 Mb/s (the payload rate is
    10 x 1,460 / 1,500 = 9.73; the β·(1 + buffer/BDP) bound of this module is above 1
    here). Without SACK BIC, FAST and BBR got 4.2-6.4 (docs/loss-recovery.md)."""
    text = ISSUE_DUMBBELL.replace("CC", cc)
    assert tcplab.load(text).engine["flows"][0]["transport"]["sack"] is True
    flow = tcplab.run(text).flows.iloc[0]
    assert flow.goodput_bps >= 9.0e6, (cc, flow.goodput_bps, flow.rto_count)


@pytest.mark.parametrize("cc", ["reno", "newreno", "highspeed", "vegas", "cubic", "bic", "scalable", "bbr"])
def test_the_issue_dumbbell_without_sack_is_filled_too(cc: str) -> None:
    """Issue #28's dumbbell with `sack = false` in the `tcplab` profile: at least 9.0 of
    the 10 Mb/s (the payload rate is 9.73). With NewReno's impatient timer BIC got 6.07
    (33 timeouts) and BBR 2.43 (20): their overflows lose a few dozen segments, which
    the timer by holes repairs one a round trip; Scalable 8.93 (a cascade of slow
    starts overshooting an ssthresh the first overshoot left above the path, capped
    since; docs/loss-recovery.md, "NewReno without SACK"). Not here, with the reason
    there: FAST (α = 100 segments of queue in a 50-packet buffer, 6.54)."""
    text = ISSUE_DUMBBELL.replace('cc = "CC"', f'cc = "{cc}", sack = false')
    flow = tcplab.run(text).flows.iloc[0]
    assert flow.goodput_bps >= 9.0e6, (cc, flow.goodput_bps, flow.rto_count)


JUMBO_PATH = """
[simulation]
duration = "10s"
seed = 1

[topology.dumbbell]
pairs = 1
access = { bandwidth = "10Gbps", delay = "0.5ms", mtu = 9000 }
bottleneck = { bandwidth = "1Gbps", delay = "20ms", mtu = 9000, queue = { type = "droptail", limit = "1000 packets" } }

[[flow]]
from = "left0"
to = "right0"
app = { type = "bulk" }
transport = { type = "tcp", profile = "PROFILE", cc = "reno" }
"""


@pytest.mark.parametrize("profile", ["linux", "tcplab"])
def test_jumbo_frames_grow_the_autotuned_window(profile: str) -> None:
    """MSS 8,948 B: ten segments are more than the first 65,535-byte window, and a first
    autotuning space of ten segments was never beaten, so the window stayed at 64 KB:
    2.7 of 10 Gb/s on the lfn study's path, 11 of 1,000 Mb/s here (found by the lfn
    study's templated report). One Reno flow on an idle 1 Gb/s, 42 ms path with a
    1-BDP queue has no reason to fall below half its BDP + buffer after a loss: at
    least 90% of the payload rate (1 Gb/s x 8,948 / 9,000) over the last 5 s."""
    flow = tcplab.run(JUMBO_PATH.replace("PROFILE", profile)).flows.iloc[0]
    assert flow.goodput_tail_bps >= 0.9 * 1e9 * 8948 / 9000, (profile, flow.goodput_tail_bps)
