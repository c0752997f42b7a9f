"""The fidelity options reach the engine as the reference stacks define them: the
`profile` presets against ns-2.35's tcl/lib/ns-default.tcl and Linux's constants, RED's
automatic configuration, loss placement and shared segments."""

from __future__ import annotations

import tomllib

import pytest
import tcplab
from conftest import TCP_BASE
from tcplab.scenario.errors import ScenarioError
from tcplab.scenario.schema import compile_scenario


def _tcp(extra: str) -> dict:
    raw = tomllib.loads(TCP_BASE.replace('cc = "newreno"', f'cc = "newreno", {extra}'))
    return compile_scenario(raw)["flows"][0]["transport"]


def test_ns2_profile_is_ns_default_tcl():
    t = _tcp('profile = "ns2"')
    # windowInit_ 2, window_ 20, TCPSink ACKs every packet, rtxcur_init_ 3.0, minrto_ 0.2,
    # maxrto_ 60, tcpTick_ 0.01, singledup_ 1, newreno_changes1_ 1, slowdown halves
    # window(), opencwnd counts ACKs, rtt_active_ times one segment per RTT,
    # delay_growth_ true; Sack1 resends every hole below a SACK, keeps pipe_ and clears
    # its scoreboard at a timeout.
    assert t["initial_window_segments"] == 2
    assert t["max_window"] == {"value": 20, "unit": "packets"}
    assert t["ack_every"] == 1 and not t["handshake"] and not t["timestamps"]
    assert t["rto"] == {"initial_ns": 3_000_000_000, "min_ns": 200_000_000, "max_ns": 60_000_000_000, "fixed_ns": None,
                        "floor": "rto", "tick_ns": 10_000_000}
    assert t["limited_transmit"] and t["newreno_timer"] == "impatient" and t["timeout_ssthresh"] == "cwnd"
    assert t["limited_transmit_after_timeout"]  # send_one() on duplicates, timeout or not
    assert t["cwnd_counting"] == "ns2" and t["rtt_sampling"] == "once_per_rtt" and t["delay_growth"]
    assert t["loss_detection"] == "holes" and t["reduction"] == "sack1_pipe" and t["sack_after_timeout"] == "forget"
    assert t["option_sizes"] == "ns2"  # headersize(): its sink's SACK blocks 8 bytes each
    # The suites of tests/ns2 run ns-2 with a 100 us tick, and say so:
    assert _tcp('profile = "ns2", rto = { tick = "100us" }')["rto"]["tick_ns"] == 100_000


def test_linux_profile_and_explicit_keys_win():
    t = _tcp('profile = "linux", initial_window = 4, newreno_timer = "impatient"')
    assert t["sack"] and t["timestamps"] and t["rto"]["max_ns"] == 120_000_000_000
    assert t["rto"]["floor"] == "variance" and t["reduction"] == "prr"  # tcp_rto_min bounds RTTVAR; RFC 6937
    assert t["timeout_ssthresh"] == "cwnd" and t["sack_after_timeout"] == "keep"
    assert t["initial_window_segments"] == 4 and t["newreno_timer"] == "impatient"


def _tcp_without_cc(extra: str) -> dict:
    raw = tomllib.loads(TCP_BASE.replace('cc = "newreno"', extra))
    return compile_scenario(raw)["flows"][0]["transport"]


def test_linux_profile_runs_the_kernels_recovery_and_default_module():
    # sysctl tcp_recovery = 1 (RACK), tcp_early_retrans = 3 (TLP); CUBIC with its HyStart
    # and beta 717/1024 by default; without SACK the kernel's partial-ACK repair
    # (NewReno) whatever the module.
    t = _tcp_without_cc('profile = "linux"')
    assert t["loss_detection"] == "rack" and t["tail_loss_probe"]
    assert t["cc"]["algorithm"] == "cubic" and t["cc"]["linux_hystart"] and t["cc"]["beta"] == 717 / 1024
    assert _tcp_without_cc('profile = "linux", cc = "reno", sack = false')["recovery"] == "newreno"
    assert _tcp_without_cc('profile = "linux", cc = "reno"')["recovery"] is None  # SACK recovery


def test_reno_without_sack_recovers_by_rfc_6582_except_in_the_ns2_profile():
    # RFC 5681's own fast recovery only where it is modelled: ns-2's Agent/TCP/Reno.
    assert _tcp_without_cc('cc = "reno", sack = false')["recovery"] == "newreno"
    assert _tcp_without_cc('profile = "ns2", cc = "reno", sack = false')["recovery"] is None  # the engine's Reno rule
    assert _tcp_without_cc('cc = "reno", sack = false, recovery = "reno"')["recovery"] == "reno"


def test_linux_2_6_18_profile_is_that_kernel():
    t = _tcp_without_cc('profile = "linux-2.6.18"')
    # BIC was the default module until 2.6.19; tcp_bic's initial_ssthresh was 100 then.
    assert t["cc"]["algorithm"] == "bic" and t["cc"]["initial_ssthresh"] == 100
    assert t["loss_detection"] == "fack" and not t["tail_loss_probe"] and t["reduction"] == "rate_halving"
    assert t["rto"]["initial_ns"] == 3_000_000_000 and t["initial_window_segments"] == 3
    # sysctl_tcp_abc = 0: one tcp_cong_avoid call per ACK, whatever it covers.
    assert t["cwnd_counting"] == "acks"
    # Each algorithm's 2.6.18 preset, unless the table names another.
    cubic = _tcp_without_cc('profile = "linux-2.6.18", cc = "cubic"')["cc"]
    assert cubic["initial_ssthresh"] == 100 and cubic["beta"] == 819 / 1024
    chosen = _tcp_without_cc('profile = "linux-2.6.18", cc = { algorithm = "cubic", preset = "linux-2.6.22" }')["cc"]
    assert chosen["initial_ssthresh"] == 0


def test_default_profile_follows_the_rfcs():
    t = _tcp("sack = false")
    # RFC 6582 section 4's timer chosen per recovery: slow but steady for a few holes.
    assert t["limited_transmit"] and t["newreno_timer"] == "by_holes" and t["timeout_ssthresh"] == "flight_size"
    assert t["cwnd_counting"] == "bytes" and t["rtt_sampling"] == "every_ack" and not t["delay_growth"]


def test_red_defaults_are_ns235_automatic_configuration():
    raw = tomllib.loads(TCP_BASE.replace('{ type = "droptail", limit = "50 packets" }', '{ type = "red", limit = "50 packets" }'))
    q = next(link["forward"]["queue"] for link in compile_scenario(raw)["links"] if link["forward"]["queue"]["type"] == "red")
    assert q["min_th"] is None and q["max_th"] is None and q["w_q"] is None
    assert q["target_delay_ns"] == 5_000_000 and q["mean_packet_bytes"] == 500 and q["max_p"] == 0.1
    assert q["thresholds_unit"] == "packets" and not q["byte_mode"] and q["gentle"] and q["wait"]


def test_shared_segment_runs_and_shares_its_rate(write_scenario):
    # Two saturated UDP stations on a 10 Mbps segment: 5 Mbps each, 10 Mbps in all
    # (packets of 1000 B = 972 B payload + 28 B headers).
    path = write_scenario("""
[simulation]
duration = "4s"
[[node]]
name = "a"
[[node]]
name = "b"
[[segment]]
name = "lan"
stations = ["a", "b"]
bandwidth = "10Mbps"
delay = "0ms"
[[flow]]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "20Mbps", packet_size = "972B" }
[[flow]]
from = "b"
to = "a"
transport = "udp"
app = { type = "cbr", rate = "20Mbps", packet_size = "972B" }
""")
    r = tcplab.run(path)
    goodputs = [f["goodput_bps"] for f in r.summary["flows"]]
    for g in goodputs:
        assert abs(g / (5e6 * 972 / 1000) - 1) < 0.01, goodputs


def _run_tcp(extra: str, mtu: int | None) -> tuple[object, str]:
    text = TCP_BASE.replace('cc = "newreno"', f'cc = "newreno", handshake = false, {extra}')
    if mtu is not None:
        text = text.replace('delay = "2ms" }', f'delay = "2ms", mtu = {mtu} }}')
        text = text.replace('limit = "50 packets" } }', f'limit = "50 packets" }}, mtu = {mtu} }}')
    return tcplab.run(tcplab.load(text)), text


def test_option_sizes_put_ns2s_1510_byte_tcp_linux_packets_on_the_wire():
    """ns-2.35's TCP/Linux with timestamps_ true sends 1,460 bytes of payload in
    1,510-byte packets (headersize(): 40 + ts_option_size_ 10, read off its queue
    traces); RFC 7323's 12 option bytes come out of a 1,460-byte MSS instead (1,448 of
    payload, 1,500 on the wire)."""
    ns2, _ = _run_tcp('timestamps = true, option_sizes = "ns2", mss = "1460B"', mtu=1510)
    rfc, _ = _run_tcp('timestamps = true, mss = "1460B"', mtu=None)
    for result, size in ((ns2, 1510), (rfc, 1500)):
        neck = result.links.set_index("id").loc["router_left->router_right"]
        assert neck["tx_packets"] > 1000
        assert neck["tx_bytes"] == size * neck["tx_packets"]
        assert neck["fragmented_packets"] == 0


def test_option_sizes_beyond_the_mss_must_fit_the_first_link():
    """ns-2's options lie beyond the MSS, so a 1,460-byte MSS with them needs links of
    1,510 bytes: on the default 1,500 the engine names the key and the limit."""
    with pytest.raises(ScenarioError) as e:
        _run_tcp('timestamps = true, option_sizes = "ns2", mss = "1460B"', mtu=None)
    assert "flow[0].transport.mss" in str(e.value) and "at most MTU − 50 = 1450 B" in str(e.value), e.value
