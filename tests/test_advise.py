"""``tcplab advise``: the path it reasons about (hand-computed), the changes it tries,
its statistics (Welch's interval against table values), its verdicts, determinism
across worker counts, the command line, and — on each study's own setting — whether
it recommends what that study concluded.

The study checks run small versions here (short runs, few replications); ``make
advise-studies`` runs them at the studies' own durations with more replications
(``TCPLAB_ADVISE_FULL=1``). Where tcplab's model does not reproduce a study's finding
(docs/studies.md says which and why), the check is a strict xfail naming the gap.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
import pytest
import tcplab
from conftest import NO_SACK_COLLAPSE, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from tcplab.advise import advise
from tcplab.advise.evidence import CURRENT, start_offsets
from tcplab.advise.knobs import Variant, variants
from tcplab.advise.path import AdviceInputError, summarise
from tcplab.advise.verdict import HELPS, HELPS_AT_OTHERS_EXPENSE, HURTS, UNCLEAR, assess
from tcplab.runner import validate
from tcplab.scenario.loader import read_raw
from tcplab.sweeps.stats import difference_ci

STUDIES = Path(tcplab.__file__).parent / "studies"
FULL = os.environ.get("TCPLAB_ADVISE_FULL") == "1"

DUMBBELL = """
[simulation]
duration = "20s"
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
transport = { type = "tcp", cc = "reno" }
"""


@pytest.fixture
def dumbbell(tmp_path: Path) -> Path:
    path = tmp_path / "dumbbell.toml"
    path.write_text(DUMBBELL)
    return path


def _advise(source: Path | str, out: Path, sets: list[str], **kw):
    raw, _ = read_raw(source)
    return advise(tcplab.load(source, sets), raw, out, base_overrides=tuple(sets), jobs=kw.pop("jobs", 2), **kw)


# ------------------------------------------------------------------------- the path


def test_path_of_the_dumbbell_by_hand(dumbbell: Path) -> None:
    p = summarise(tcplab.load(dumbbell))
    assert p.bottleneck.name == "router_left->router_right"
    assert p.rtt_s == pytest.approx(2 * (0.001 + 0.020 + 0.001))  # 44 ms
    assert p.bdp_bytes == pytest.approx(10e6 * 0.044 / 8)  # 55,000 B
    # Full queue: 50 packets x 1,500 B at 10 Mb/s = 60 ms more.
    assert p.loaded_rtt_s == pytest.approx(0.044 + 50 * 1500 * 8 / 10e6)
    assert p.loss_rate == 0 and p.random_elements == [] and not p.finite


def test_bottleneck_is_where_flows_converge_not_the_first_slow_link() -> None:
    """Ten clients on 10 Mb/s links to one 10 Mb/s server link: the server link is
    the bottleneck (a tenth of it per flow), though every link has the same rate."""
    p = summarise(tcplab.load(STUDIES / "lan" / "lan-star.toml"))
    assert p.bottleneck.name == "switch->server"
    assert len(p.yours) == 10 and not p.others


def test_unknown_flow_and_nothing_to_advise_are_input_errors(dumbbell: Path) -> None:
    with pytest.raises(AdviceInputError, match="no flow of that name"):
        summarise(tcplab.load(dumbbell), ["flow9"])
    with pytest.raises(AdviceInputError, match="no TCP or SCTP flow"):
        summarise(tcplab.load(Path(__file__).parent.parent / "scenarios" / "default.toml"))


# ------------------------------------------------------------------ what is tried


def test_candidates_sit_at_the_paths_scale(dumbbell: Path) -> None:
    tried, notes = variants(summarise(tcplab.load(dumbbell)), ["cc", "buffer", "rto"])
    names = [v.name for v in tried]
    # The current algorithm is not tried again.
    assert "reno" not in names and {"cubic", "bbr", "highspeed"} <= set(names)
    # Queues at 0.25-4 BDP of 36.7 packets: 9, 18, 37, 73, 147 (50 is the current).
    assert [n for n in names if n.startswith("queue")] == [
        "queue 0.25×BDP (9 packets)", "queue 0.5×BDP (18 packets)", "queue 1×BDP (37 packets)",
        "queue 2×BDP (73 packets)", "queue 4×BDP (147 packets)"]
    # Fixed RTOs at 0.75-3 loaded RTTs of 104 ms, in 5 ms steps below 0.1 s and 25 ms above.
    assert [n for n in names if n.startswith("fixed")] == [
        "fixed RTO 80ms", "fixed RTO 100ms", "fixed RTO 125ms", "fixed RTO 150ms", "fixed RTO 200ms", "fixed RTO 300ms"]
    # The current floor (the profile's 200 ms) is not tried again.
    assert [n for n in names if n.startswith("RTO floor")] == ["RTO floor 1000ms", "RTO floor 50ms", "RTO floor 20ms"]
    assert notes == []


def test_every_variant_loads_and_changes_what_it_says(dumbbell: Path) -> None:
    scenario = tcplab.load(dumbbell)
    tried, _ = variants(summarise(scenario), ["cc", "buffer", "mtu", "rto", "transport"])
    for v in tried:
        changed = tcplab.load(dumbbell, list(v.overrides))
        assert changed.engine != scenario.engine, v.name
    jumbo = next(v for v in tried if v.question == "mtu")
    mtus = [link["mtu_bytes"] for link in tcplab.load(dumbbell, list(jumbo.overrides)).engine["links"]]
    assert mtus == [9000] * 3
    sctp = next(v for v in tried if v.name == "SCTP, 2 streams")
    assert tcplab.load(dumbbell, list(sctp.overrides)).engine["flows"][0]["transport"]["streams"] == 2


def test_sack_is_offered_only_to_flows_without_it(dumbbell: Path) -> None:
    tried, notes = variants(summarise(tcplab.load(dumbbell)), ["recovery"])
    assert tried == [] and notes == ["recovery: every TCP flow uses SACK already"]
    p = summarise(tcplab.load(dumbbell, ["flow[0].transport.sack=false"]))
    (sack,), _ = variants(p, ["recovery"])
    assert sack.name == "SACK on" and sack.overrides == (("flow[0].transport.sack", True),)
    assert tcplab.load(dumbbell, ["flow[0].transport.sack=false", *[f"{k}=true" for k, _ in sack.overrides]]) \
        .engine["flows"][0]["transport"]["sack"] is True


def test_sack_recommended_where_its_absence_collapses_the_flow(tmp_path: Path) -> None:
    a = _advise(NO_SACK_COLLAPSE, tmp_path / "a", ["simulation.duration=10s"], questions=["recovery"], replications=2)
    best = a.answers[0].recommended
    assert best is not None and best.variant.name == "SACK on"
    # About 1 Mb/s of 44 without SACK (the collapse), most of the link with it.
    assert best.verdict == HELPS and best.gain is not None and best.gain.relative > 10, best


def test_a_change_of_transport_is_not_combined_with_settings_it_would_undo() -> None:
    from types import SimpleNamespace

    from tcplab.advise import _compatible

    def pick(name: str, *keys: str):
        return SimpleNamespace(variant=Variant("q", name, tuple((k, 1) for k in keys), "", "", ""))

    cc, sctp, mtu = pick("vegas", "flow[0].transport.cc"), pick("SCTP", "flow[0].transport"), pick("jumbo", "link[0].mtu")
    assert [p.variant.name for p in _compatible([cc, sctp, mtu])] == ["vegas", "jumbo"]
    assert [p.variant.name for p in _compatible([sctp, mtu])] == ["SCTP", "jumbo"]


def test_deterministic_multi_flow_scenarios_replicate_by_start_offsets() -> None:
    p = summarise(tcplab.load(STUDIES / "lan" / "lan-star.toml"))
    cases = start_offsets(p, 4)
    assert cases is not None and cases == start_offsets(p, 4)  # the same draw every time
    assert all(v == "0ns" for v in cases["t0"].values())  # the first trial is the scenario as written
    offsets = [int(v[:-2]) for t in ("t1", "t2", "t3") for v in cases[t].values()]
    assert all(0 <= o < p.rtt_s * 1e9 for o in offsets) and len(set(offsets)) > 20


# ------------------------------------------------------------------- statistics


def test_welch_interval_against_table_values() -> None:
    """a = 1, 2, 3; b = 4..7: difference -3.5, standard error √(1/3 + 5/12) = 0.866,
    Welch df 4.959; t(0.975) between the table's 2.571 (df 5) and 2.776 (df 4),
    interpolated in 1/df: 2.577; half-width 2.232."""
    diff, half = difference_ci([1, 2, 3], [4, 5, 6, 7])
    assert diff == -3.5
    assert half == pytest.approx(2.232, abs=0.005)
    assert difference_ci([1.0], [2.0, 3.0])[1] is None


def _runs(rows: dict[str, tuple[list[float], list[float]]]) -> pd.DataFrame:
    out = []
    for variant, (mine, theirs) in rows.items():
        for i, (g, o) in enumerate(zip(mine, theirs, strict=True)):
            out.append({"variant": variant, "replicate": f"r{i}", "goodput_bps": g, "fct_s": math.nan,
                        "others_goodput_bps": o, "jain": math.nan, "delay_ms": 10.0, "loss_rate": 0.01,
                        "retransmits": 1.0})
    return pd.DataFrame(out)


def test_verdicts_on_constructed_runs() -> None:
    runs = _runs({
        CURRENT: ([10, 10.2, 9.8], [20, 20.4, 19.6]),
        "faster": ([12, 12.2, 11.8], [20, 20.2, 19.8]),      # +20%, others unchanged
        "greedy": ([15, 15.2, 14.8], [14, 14.2, 13.8]),      # +50%, others -30%
        "worse": ([8, 8.2, 7.8], [20, 20.4, 19.6]),          # -20%
        "noise": ([10.1, 9.7, 10.3], [20, 20.4, 19.6]),      # within the spread
    })
    tried = [Variant("cc", n, (), "", "", "") for n in ("faster", "greedy", "worse", "noise")]
    verdicts = {a.variant.name: a.verdict for a in assess(runs, tried, "goodput_bps")}
    assert verdicts == {"faster": HELPS, "greedy": HELPS_AT_OTHERS_EXPENSE, "worse": HURTS, "noise": UNCLEAR}


# ------------------------------------------------------------------ end to end


def test_same_advice_on_one_worker_and_on_two(dumbbell: Path, tmp_path: Path) -> None:
    from tcplab.advise.render import to_json

    one = to_json(_advise(dumbbell, tmp_path / "one", [], questions=["cc"], replications=2, jobs=1))
    two = to_json(_advise(dumbbell, tmp_path / "two", [], questions=["cc"], replications=2, jobs=2))
    assert one == two


def test_command_line_writes_advice_report_and_plots(dumbbell: Path, tmp_path: Path) -> None:
    out = tmp_path / "advice"
    result = run_cli("advise", str(dumbbell), "-q", "cc", "-q", "rto", "-n", "2", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "Which congestion control?" in result.stdout and "Overall:" in result.stdout
    data = json.loads((out / "advice.json").read_text())
    assert [q["question"] for q in data["questions"]] == ["cc", "rto"]
    assert all(v["runs"] == 2 for q in data["questions"] for v in q["variants"])
    assert (out / "report.html").stat().st_size > 10_000
    assert (out / "plots" / "advice_cc.png").exists()
    # Run again: every run is reused from the directory — (the scenario as it is, 7
    # other algorithms, 6 fixed RTOs, 3 floors) x 2 replications.
    again = run_cli("advise", str(dumbbell), "-q", "cc", "-q", "rto", "-n", "2", "-o", str(out))
    assert again.returncode == 0 and f"({(1 + 7 + 6 + 3) * 2} already stored)" in again.stderr
    assert json.loads((out / "advice.json").read_text()) == data


@pytest.mark.parametrize("args, message", [
    (["--flow", "nosuch"], "no flow of that name"),
    (["--question", "colour"], "colour"),
    (["--set", "flow[0].transport.cc=nosuch"], "nosuch"),
])
def test_bad_input_is_one_error_and_status_2(dumbbell: Path, tmp_path: Path, args: list[str], message: str) -> None:
    result = run_cli("advise", str(dumbbell), "-o", str(tmp_path / "o"), *args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) <= 6


# --------------------------------------------------------------- the studies' own settings


def _scaled(short: str, full: str) -> str:
    return full if FULL else short


def test_highspeed_100ms_recommends_a_high_speed_algorithm(tmp_path: Path) -> None:
    """highspeed study, Table 2 at 100 ms (1 Gb/s, loss 1e-6): HighSpeed, Scalable,
    BIC and CUBIC all beat Reno (330-500 vs 89 Mb/s)."""
    a = _advise(STUDIES / "highspeed" / "single.toml", tmp_path / "a",
                ["link[1].delay=49.95ms", f"simulation.duration={_scaled('20s', '60s')}"],
                questions=["cc"], replications=5 if FULL else 3)
    answer = a.answers[0]
    verdicts = {x.variant.name: x.verdict for x in answer.assessments}
    assert all(verdicts[n] == HELPS for n in ("highspeed", "scalable", "bic", "cubic")), verdicts
    assert answer.recommended is not None and answer.recommended.variant.name in ("highspeed", "scalable", "bic", "cubic", "fast", "bbr")
    assert any(r.study == "highspeed" for r in answer.rules)


def test_lfn_recommends_a_high_speed_algorithm_over_reno(tmp_path: Path) -> None:
    """lfn study: Reno over a long fat network keeps a few percent of it; FAST (with
    the other fixes) about 15x more. The study's path (10 Gb/s, 180 ms, loss 1e-7,
    120 s) with TCPLAB_ADVISE_FULL=1. In CI scaled to 300 Mb/s with loss 1.1e-4 and
    the cross traffic to 6 Mb/s (2% of the link, as 200 Mb/s of 10 Gb/s): the loss
    grows with the square of the rate, which keeps Reno's Mathis bound
    (MSS/RTT · 1.22/√p) the same 2.5% of the link, and its sawtooth (W/2 = 58 round
    trips, 10 s) short enough for 60 s to show it. The sender's interface stays at
    10 Gb/s and the trans-Pacific queue scales with the rate (62.5 MB → 1.875 MB, 50 ms
    either way): its 1-GB host queue stands for Linux's socket back-pressure, which
    only holds while the interface is faster than the path. (At 300 Mb/s it made the
    interface the bottleneck: Linux's slow start, which opens cwnd to ssthresh on the
    cumulative ACK that ends a go-back-N, then queued seconds of data there.)"""
    scaled = [] if FULL else ["link[*].bandwidth=300Mbps", "link[0].bandwidth=10Gbps", "flow[1].app.rate=6Mbps",
                              'link[1].forward={ loss = { type = "bernoulli", rate = 1.1e-4 } }',
                              'link[1].queue={ type = "droptail", limit = "1875kB" }']
    a = _advise(STUDIES / "lfn" / "path.toml", tmp_path / "a", [*scaled, f"simulation.duration={_scaled('60s', '120s')}"],
                flows=["transfer"], questions=["cc"], replications=5)
    answer = a.answers[0]
    verdicts = {x.variant.name: x.verdict for x in answer.assessments}
    assert verdicts["fast"] == HELPS, verdicts
    assert answer.recommended is not None and answer.recommended.variant.name not in ("vegas", "reno")


def test_lan_too_short_a_fixed_rto_hurts(tmp_path: Path) -> None:
    """lan study: a fixed RTO well below the loaded round trip (0.025 s there) causes
    excessive retransmissions. At 10 ms one-way delay the shortest fixed RTO tried
    (0.75 loaded RTT, 45 ms) loses goodput, and nothing recommended contradicts the
    study (a recommendation, if any, is a fixed RTO of 0.05-0.15 s)."""
    a = _advise(STUDIES / "lan" / "lan-star.toml", tmp_path / "a", ["link[*].delay=5ms"], questions=["rto"],
                replications=4)
    answer = a.answers[0]
    shortest = min((x for x in answer.assessments if x.variant.name.startswith("fixed")),
                   key=lambda x: float(x.variant.name.split()[-1][:-2]))
    assert shortest.verdict == HURTS
    if answer.recommended is not None:
        name = answer.recommended.variant.name
        assert name.startswith("fixed RTO") and 50 <= float(name.split()[-1][:-2]) <= 150


@pytest.mark.xfail(strict=True, reason="tcplab's lan model shows the best fixed RTO at x1.002-1.005 of the default "
                   "algorithm (studies report, #30): below the advisor's 2% threshold, so it recommends nothing; "
                   "ns-2.35 on the same star gives x1.001-1.004 (tests/ns2/study_lan.py, studies/lan/ns2.json)")
def test_lan_recommends_a_fixed_rto_near_the_optimum(tmp_path: Path) -> None:
    a = _advise(STUDIES / "lan" / "lan-star.toml", tmp_path / "a", ["link[*].delay=5ms"], questions=["rto"],
                replications=4)
    assert a.answers[0].recommended is not None
    assert a.answers[0].recommended.variant.name in ("fixed RTO 75ms", "fixed RTO 90ms", "fixed RTO 125ms")


def test_jumbo_not_recommended_on_the_narrow_backbone(tmp_path: Path) -> None:
    """jumbo study: jumbo frames pay off only with enough available bandwidth. On the
    narrow (50 Mb/s) backbone the advisor does not recommend them for node 7."""
    a = _advise(STUDIES / "jumbo" / "jumbo.toml", tmp_path / "a", ["link[from=s7].mtu=1500", "link[to=r7].mtu=1500"],
                flows=["node7"], questions=["mtu"], replications=5 if FULL else 3)
    assert a.answers[0].recommended is None
    assert any(r.study == "jumbo" for r in a.answers[0].rules)


@pytest.mark.xfail(strict=True, reason="the jumbo study found competing TCP losing 7.3x on the broad backbone; "
                   "tcplab's model has node 8 and the others lose about 1% there (studies report, #30; ns-2.35 on "
                   "the same reading: node 8 x1.09 less, tests/ns2/study_jumbo.py), so the advisor sees no harm and "
                   "recommends jumbo frames")
def test_jumbo_on_the_broad_backbone_is_flagged_as_at_the_others_expense(tmp_path: Path) -> None:
    a = _advise(STUDIES / "jumbo" / "jumbo.toml", tmp_path / "a",
                ["link[0:3].bandwidth=155Mbps", "link[from=s7].mtu=1500", "link[to=r7].mtu=1500"],
                flows=["node7"], questions=["mtu"], replications=3)
    assert a.answers[0].assessments[0].verdict == HELPS_AT_OTHERS_EXPENSE


@pytest.mark.xfail(strict=True, reason="the sctp study found SCTP finishing up to 50% sooner under 1-5% loss; "
                   "tcplab's SCTP with RFC 9260's RTO.min of 1 s is slower than Linux TCP there (it reproduces only "
                   "with RTO.min 200 ms, a diagnostic of the sctp study)")
def test_sctp_recommended_under_loss(tmp_path: Path) -> None:
    a = _advise(STUDIES / "sctp" / "tcp.toml", tmp_path / "a",
                ["link[1].delay=0ms", "flow[0].app.size=10MB",
                 'link[1].forward={ loss = { type = "bernoulli", rate = 0.05 }, loss_at = "before_queue" }'],
                questions=["transport"], replications=3)
    assert a.answers[0].recommended is not None


# --------------------------------------------------------------- across random paths



@settings(max_examples=40, deadline=None)
@given(bottleneck_mbps=st.floats(0.5, 10_000), delay_ms=st.floats(0.05, 150), access=st.floats(1.5, 1000),
       queue=st.integers(1, 5000), unit=st.sampled_from(["packets", "bytes"]), pairs=st.integers(1, 3),
       cc=st.sampled_from(["reno", "cubic", "bbr", "vegas"]), profile=st.sampled_from(["tcplab", "linux", "ns2"]),
       mss=st.one_of(st.none(), st.integers(536, 1460)), loss=st.sampled_from([0.0, 1e-4, 0.02]),
       sctp=st.booleans())
def test_every_change_tried_is_a_valid_scenario(bottleneck_mbps, delay_ms, access, queue, unit, pairs, cc, profile,
                                                mss, loss, sctp) -> None:
    """On random dumbbells: the path is the one the formulas give, and every change
    the advisor would try loads and passes the engine's own checks (a bad candidate
    would be a failed run the user cannot do anything about). Access links at least
    1.5x the bottleneck: with equal rates the queue builds at the sender's own link,
    which the advisor then rightly names the bottleneck."""
    limit = f"{queue} packets" if unit == "packets" else f"{queue * 1500}B"
    tcp = f'type = "tcp", profile = "{profile}", cc = "{cc}"' + (f', mss = "{mss}B"' if mss else "")
    if sctp:
        tcp = 'type = "sctp", streams = 2'

    text = f"""
[simulation]
duration = "5s"
[topology.dumbbell]
pairs = {pairs}
access = {{ bandwidth = "{bottleneck_mbps * access:.6g}Mbps", delay = "0.5ms" }}
[topology.dumbbell.bottleneck]
bandwidth = "{bottleneck_mbps:.6g}Mbps"
delay = "{delay_ms:.6g}ms"
queue = {{ type = "droptail", limit = "{limit}" }}
loss = {{ type = "bernoulli", rate = {loss} }}
[[flow]]
count = {pairs}
from = "left{{i}}"
to = "right{{i}}"
app = {{ type = "bulk" }}
transport = {{ {tcp} }}
"""
    scenario = tcplab.load(text)
    p = summarise(scenario)
    assert p.bottleneck.name == "router_left->router_right"
    assert p.rtt_s == pytest.approx(2 * (0.0005 * 2 + float(f"{delay_ms:.6g}") / 1000))
    assert p.bdp_bytes == pytest.approx(float(f"{bottleneck_mbps:.6g}") * 1e6 * p.rtt_s / 8)
    tried, _ = variants(p, ["cc", "recovery", "buffer", "mtu", "rto", "transport"])
    assert sctp or cc not in [v.name for v in tried]
    for v in tried:
        validate(tcplab.load(text, list(v.overrides)))


def test_verify_needs_a_hosts_file(dumbbell: Path, tmp_path: Path) -> None:
    result = run_cli("advise", str(dumbbell), "-q", "cc", "--verify", "-o", str(tmp_path / "o"))
    assert result.returncode == 2 and "--hosts" in result.stderr


def test_only_socket_settings_are_verifiable(dumbbell: Path) -> None:
    from tcplab.advise.verdict import Assessment, Change
    from tcplab.advise.verify import pick, verifiable

    tried, _ = variants(summarise(tcplab.load(dumbbell)), ["cc", "buffer", "mtu", "rto", "transport"])

    def judged(v: Variant, gain: float) -> Assessment:
        return Assessment(v, Change(1 + gain, 1, gain, 0.01), None, None, None, None, 3, HELPS, ())

    by_question = {q: [v for v in tried if v.question == q] for q in ("cc", "buffer", "mtu", "rto", "transport")}
    assert all(verifiable(judged(v, 0.1)) for v in by_question["cc"])
    assert [verifiable(judged(v, 0.1)) for v in by_question["buffer"]] == [v.name.startswith("socket") for v in by_question["buffer"]]
    assert not any(verifiable(judged(v, 0.1)) for q in ("mtu", "rto", "transport") for v in by_question[q])
    best, why = pick([judged(by_question["mtu"][0], 0.5), judged(by_question["cc"][0], 0.1)])
    assert best is not None and best.variant.question == "cc" and "jumbo" in (why or "")


def test_the_recommendations_are_also_run_together(dumbbell: Path, tmp_path: Path) -> None:
    """Separate gains need not add up: the questions' recommendations are also run at
    once, as one more change judged against the scenario as it is (sharing its runs)."""
    # Reno without SACK on this path: Vegas, and a socket buffer that keeps the queue
    # from overflowing, each gain a few percent (docs/advise.md).
    a = _advise(dumbbell, tmp_path / "a", ["flow[0].transport.sack=false"], questions=["cc", "buffer"], replications=2)
    picks = [q.recommended for q in a.answers if q.recommended is not None]
    assert len(picks) == 2, [q.assessments[0].verdict for q in a.answers]
    c = a.combined
    assert c is not None and c.runs == 2
    assert c.variant.overrides == tuple(o for p in picks for o in p.variant.overrides)
    assert c.variant.name == " + ".join(p.variant.name for p in picks)
    assert c.gain is not None and c.gain.base == picks[0].gain.base  # the same runs of the scenario as it is
