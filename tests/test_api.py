"""The Python API, checked against analytic expectations."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import pytest
import tcplab
from conftest import BASE, SCENARIOS
from hypothesis import given, settings
from hypothesis import strategies as st


def test_run_accepts_a_path_toml_text_and_a_dict():
    by_path = tcplab.run(str(SCENARIOS / "default.toml"))
    by_text = tcplab.run((SCENARIOS / "default.toml").read_text())
    import tomllib

    by_dict = tcplab.run(tomllib.loads((SCENARIOS / "default.toml").read_text()))
    assert by_path.summary["flows"] == by_text.summary["flows"] == by_dict.summary["flows"]
    assert list(by_path.flows["id"]) == ["flow0", "flow1"]
    assert {"time_s", "goodput_bps", "cum_loss_rate"} <= set(by_path.flow_series.columns)
    assert {"queue_mean_packets", "queue_max_bytes", "load"} <= set(by_path.link_series.columns)


def test_yaml_scenarios_load_like_toml(tmp_path):
    import tomllib

    import yaml

    data = tomllib.loads((SCENARIOS / "default.toml").read_text())
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    assert tcplab.run(str(path)).summary["flows"] == tcplab.run(data).summary["flows"]


def test_underloaded_cbr_goodput_equals_its_rate_and_nothing_is_lost():
    r = tcplab.run(BASE, overrides=["flow[0].app.rate=4Mbps"])
    f = r.summary["flows"][0]
    assert f["packets_dropped"] == 0
    # Goodput counts delivered payload over the active time; the last ~14 ms of
    # packets are still in flight at the end of the 2 s run.
    assert abs(f["goodput_bps"] - 4e6) / 4e6 < 0.01
    # Delay: 2 ms + 10 ms + 2 ms propagation + serialization of 1028 B at 100, 10, 100 Mbps.
    expected = 14 + 1028 * 8 * (1 / 100e6 + 1 / 10e6 + 1 / 100e6) * 1e3
    assert f["delay_ms"]["min"] == pytest.approx(expected, abs=1e-9)
    assert f["delay_ms"]["max"] == pytest.approx(expected, abs=1e-9)


def test_conservation_and_drop_split_with_red_and_random_loss():
    text = BASE.replace(
        '{ type = "droptail", limit = "50 packets" }',
        '{ type = "red", limit = "60 packets", min_th = 5, max_th = 15, w_q = 0.01 }, loss = { type = "bernoulli", rate = "2%" }',
    ).replace('rate = "6Mbps"', 'rate = "14Mbps"')
    r = tcplab.run(text)
    f = r.summary["flows"][0]
    assert f["packets_sent"] == f["packets_delivered"] + f["packets_dropped"] + f["packets_in_flight"]
    assert f["drops"]["red"] > 0 and f["drops"]["random"] > 0
    neck = next(l for l in r.summary["links"] if l["id"] == "router_left->router_right")
    # 14.4 Mbps offered (with headers) into 10 Mbps: ~30% must be dropped. That exceeds
    # max_p = 0.1, so gentle RED settles with its average between max_th and 2 max_th,
    # and never lets the queue reach the 60-packet hard limit.
    assert 15 < neck["queue_mean_packets"] < 30
    assert neck["drops"]["queue"] == 0
    # Random loss is applied after RED: about 2% of what the link transmitted.
    assert abs(neck["drops"]["random"] / neck["tx_packets"] - 0.02) < 0.006


def test_jain_index_matches_its_definition_over_the_flows_goodputs():
    r = tcplab.run(SCENARIOS / "default.toml")
    x = [f["goodput_bps"] for f in r.summary["flows"]]
    assert r.summary["fairness"]["jain"] == pytest.approx(sum(x) ** 2 / (len(x) * sum(v * v for v in x)))


def test_fairness_over_a_chosen_subset():
    text = BASE.replace("pairs = 2", "pairs = 2") + """
[[flow]]
name = "small"
from = "left1"
to = "right1"
transport = "udp"
app = { type = "cbr", rate = "1Mbps", packet_size = "1000B" }

[metrics]
fairness_flows = ["small"]
"""
    r = tcplab.run(text)
    assert r.summary["fairness"] == {"jain": 1.0, "flows": ["small"]}


def test_on_off_source_sends_its_duty_cycle():
    text = BASE.replace('{ type = "cbr", rate = "6Mbps", packet_size = "1000B" }',
                        '{ type = "onoff", rate = "4Mbps", packet_size = "1000B", on = "100ms", off = "300ms", distribution = "constant" }')
    f = tcplab.run(text).summary["flows"][0]
    # 2 s = 5 periods of 100 ms on: 0.5 s at 4 Mbps = 250 packets of 1000 B.
    assert f["packets_sent"] == 250


def test_jumbo_frames_work_and_fragment_at_a_standard_mtu():
    text = BASE.replace('access = { bandwidth = "100Mbps", delay = "2ms" }',
                        'access = { bandwidth = "100Mbps", delay = "2ms", mtu = 9180 }').replace('packet_size = "1000B"', 'packet_size = "9152B"')
    f = tcplab.run(text).summary["flows"][0]
    # 9180 B datagrams over the 1500 B bottleneck: ceil(9160 / 1480) = 7 fragments each.
    assert f["fragments"] == 7 * f["packets_sent"]


def test_progress_callback_sees_simulated_time_advance():
    seen = []
    tcplab.run(BASE, progress=lambda now, total, events: seen.append((now, total, events)))
    assert seen[-1][0] == seen[-1][1] == 2_000_000_000
    assert all(a[0] < b[0] and a[2] <= b[2] for a, b in zip(seen, seen[1:]))


def test_the_flows_of_a_counted_table_do_not_share_what_they_compiled_to():
    """A counted table's equal transport tables are compiled once, and each flow still
    gets its own: changing one flow of a loaded scenario (a caller testing the
    engine's checks does) changes neither its siblings nor the next load."""
    text = (SCENARIOS / "linux-tcp.toml").read_text()
    first = tcplab.load(text, ["flow[0].count=3"]).engine["flows"]
    assert first[0]["transport"] == first[1]["transport"] == first[2]["transport"]
    first[0]["transport"]["sack"] = "yes"
    first[0]["transport"]["rto"]["min_ns"] = -1
    assert first[1]["transport"]["sack"] != "yes" and first[1]["transport"]["rto"]["min_ns"] != -1
    again = tcplab.load(text, ["flow[0].count=3"]).engine["flows"]
    assert all(f["transport"] == first[1]["transport"] for f in again)


def test_scenarios_are_picklable_for_parallel_sweeps():
    s = tcplab.load(BASE)
    assert pickle.loads(pickle.dumps(s)).engine == s.engine


def test_bad_input_raises_scenario_error_with_path():
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(BASE.replace('"10Mbps"', '"0Mbps"'))
    assert e.value.path == "topology.dumbbell.bottleneck.bandwidth"
    assert e.value.source == "<text>"


def test_bare_numbers_are_read_only_where_their_unit_cannot_be_mistaken():
    """0, an MTU, an MSS and a queue limit may be written bare; a bare duration, rate
    or size may not (10 could be 10 ms or 10 s). The bare forms mean what their unit
    forms mean: the same engine input."""
    bare = BASE.replace('delay = "2ms"', "delay = 0").replace(
        'queue = { type = "droptail", limit = "50 packets" }', 'queue = { type = "droptail", limit = 50 }, mtu = 9000')
    spelled = BASE.replace('delay = "2ms"', 'delay = "0s"').replace(
        'queue = { type = "droptail", limit = "50 packets" }',
        'queue = { type = "droptail", limit = "50 packets" }, mtu = "9000B"')
    assert bare != BASE and "mtu = 9000" in bare
    assert tcplab.load(bare).engine_json() == tcplab.load(spelled).engine_json()
    for key, bad in (("simulation.duration", 2), ("flow[0].app.rate", 6e6), ("flow[0].app.packet_size", 1000)):
        with pytest.raises(tcplab.ScenarioError, match="needs its unit"):
            tcplab.load(BASE, overrides=[(key, bad)])


def test_gilbert_elliott_loss_is_bursty():
    text = BASE.replace('queue = {', 'loss = { type = "gilbert_elliott", p_good_to_bad = 0.01, p_bad_to_good = 0.2 }, queue = {')
    r = tcplab.run(text, overrides=["simulation.duration=20s"])
    f = r.summary["flows"][0]
    expected = 0.01 / 0.21
    n = f["packets_delivered"] + f["packets_dropped"]
    # Bursts (mean 5 packets) inflate the variance of the loss count by ~(1+p_gg-p_bg)/(p_gb+p_bg)... keep it simple:
    # allow 20% relative error on ~14,600 packets, i.e. many standard deviations for this burst length.
    assert abs(f["packets_dropped"] / n - expected) / expected < 0.2
    assert not math.isnan(f["loss_rate"])


def test_summary_only_results_match_the_full_ones():
    """`simulate(..., series=False)` (the benchmarks' lean path) leaves out the per-bin
    series and histograms but reports the very same summaries."""
    from tcplab.runner import simulate
    from tcplab.scenario import load

    full, _ = simulate(load(str(SCENARIOS / "default.toml")))
    lean, _ = simulate(load(str(SCENARIOS / "default.toml")), series=False)
    assert full["series"].flow["delivered_bytes"].size and full["series"].link["tx_bytes"].size
    assert "series" not in lean
    for key in ("flows", "links", "fairness", "events"):
        assert lean[key] == full[key]


def test_numpy_scalars_are_read_as_the_numbers_they_hold():
    """A scenario built with numpy (a sweep in a notebook) gives the same run as the
    same numbers typed by hand."""
    import numpy as np

    limit = "topology.dumbbell.bottleneck.queue.limit"
    plain = tcplab.run(SCENARIOS / "default.toml", overrides=[(limit, 30), ("simulation.duration", "1.5s")], seed=4)
    numpy = tcplab.run(SCENARIOS / "default.toml", overrides=[(limit, np.int64(30)), ("simulation.duration", "1.5s")],
                       seed=np.int64(4))
    assert numpy.summary["flows"] == plain.summary["flows"]


def _rejected_with(path: Path, place: tuple, value: object) -> tuple[str, str]:
    """The engine's message, and the user's, when ``value`` is put at ``place`` of the
    engine configuration of the scenario at ``path`` (past the front end's checks)."""
    from tcplab import _core
    from tcplab.engine_errors import scenario_error

    scenario = tcplab.load(path)
    table = scenario.engine
    for step in place[:-1]:
        table = table[step]
    table[place[-1]] = value
    with pytest.raises(_core.EngineConfigError) as caught:
        _core.Simulation(scenario.engine_json())
    return caught.value.args[1], str(scenario_error(scenario, caught.value))


def test_the_engine_names_where_in_its_configuration_a_value_is_wrong():
    """#34 item 1: a value of the wrong type or range is reported by the engine at its
    place in the configuration, and the front end restates it at the scenario's item
    and key without re-reading the JSON text. Inside a tagged table (a transport, an
    application: serde reads it whole before choosing the variant, and reports its end)
    the engine names the member holding the value serde quotes, wherever it stands."""
    for place, value, engine_says, user_sees in (
            (("links", 1, "mtu_bytes"), 10**10, "at links[1].mtu_bytes: ",
             "topology.dumbbell.access: mtu: integer 10000000000, expected u32 (at most 4294967295)"),
            (("simulation", "duration_ns"), -1, "at simulation.duration_ns: ", "simulation.duration: integer -1, expected u64"),
            (("flows", 0, "transport", "mss_bytes"), -5, "at flows[0].transport.mss_bytes: ",
             "flow[0]: transport.mss: integer -5, expected u32"),
            (("flows", 0, "transport", "sack"), "yes", "at flows[0].transport.sack: ",
             'flow[0]: transport.sack: invalid type: string "yes", expected a boolean'),
            (("flows", 0, "transport", "initial_window_segments"), 7.5, "at flows[0].transport.initial_window_segments: ",
             "flow[0]: transport.initial_window: invalid type: floating point 7.5, expected u32")):
        engine_message, user_message = _rejected_with(SCENARIOS / "linux-tcp.toml", place, value)
        assert engine_says in engine_message
        assert user_sees in user_message


#: Scenarios that between them have every tagged table kind: TCP, SCTP and UDP
#: transports; bulk, file, CBR and Poisson sources; DropTail and RED; no loss and
#: Bernoulli loss.
TAGGED_SCENARIOS = ("linux-tcp", "jumbo-base", "sctp/sctp", "lfn/path")


def _tagged_scenario(name: str) -> Path:
    """A bundled example by name, or a study's scenario template as ``study/name``."""
    if "/" in name:
        return Path(tcplab.__file__).parent / "studies" / f"{name}.toml"
    return SCENARIOS / f"{name}.toml"


def _tagged_members() -> list[tuple[str, tuple]]:
    """Every plain member of the tagged tables (transport, application, queue, loss
    model) of a scenario that has each kind: (scenario, place in the engine's
    configuration)."""
    found = []
    for name in TAGGED_SCENARIOS:
        engine = tcplab.load(_tagged_scenario(name)).engine
        tables = [("flows", i, kind) for i, f in enumerate(engine["flows"]) for kind in ("transport", "app")]
        tables += [("links", i, side, "queue") for i, _ in enumerate(engine["links"]) for side in ("forward", "reverse")]
        tables += [("links", i, side, "loss") for i, _ in enumerate(engine["links"]) for side in ("forward", "reverse")]
        seen = set()
        for place in tables:
            table = engine
            for step in place:
                table = table[step]
            for key, value in table.items():
                if key != "type" and not isinstance(value, (dict, list)) and (table["type"], key) not in seen:
                    seen.add((table["type"], key))
                    found.append((name, (*place, key)))
    return found


TAGGED_MEMBERS = _tagged_members()


@settings(max_examples=60, deadline=None)
@given(member=st.sampled_from(TAGGED_MEMBERS), word=st.text("qxz", min_size=3, max_size=8))
def test_any_bad_member_of_a_tagged_table_is_named(member, word):
    """Across every plain member of every tagged table kind: a value of the wrong type
    there (a word no field takes) is reported at that member's own key, wherever it
    stands in its table — not at the table's last key, where serde stops."""
    from tcplab.scenario.declared import SCENARIO_KEYS

    name, place = member
    engine_message, user_message = _rejected_with(_tagged_scenario(name), place, word)
    engine_place = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in place).lstrip(".")
    assert f"at {engine_place}: " in engine_message
    assert f".{SCENARIO_KEYS.get(place[-1], place[-1])}: " in user_message


def test_every_flow_says_what_ran():
    """summary.json, flows.csv and the tables name the algorithm, the profile and SACK
    (or the SCTP streams), not only "tcp" (issue #32, item 5)."""
    text = BASE + """
[[flow]]
from = "left1"
to = "right1"
app = { type = "bulk" }
transport = { type = "tcp", cc = "cubic", profile = "linux" }

[[flow]]
count = 2
name = "r{i}"
from = "left0"
to = "right0"
app = { type = "bulk" }
transport = { type = "tcp", cc = "reno", sack = true }

[[flow]]
from = "left1"
to = "right1"
app = { type = "bulk" }
transport = { type = "sctp", streams = 2 }
"""
    r = tcplab.run(text.replace('duration = "2s"', 'duration = "0.2s"'))
    assert list(r.flows.label) == ["udp", "cubic (linux, SACK)", "reno (tcplab, SACK)", "reno (tcplab, SACK)",
                                   "sctp (2 streams)"]
    assert list(r.flows.columns[:5]) == ["id", "src", "dst", "transport", "label"]
