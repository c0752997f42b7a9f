"""`[topology.fat_tree]` and `[routing] multipath = "ecmp"`, against the structure
Al-Fares, Loukissas and Vahdat (SIGCOMM 2008) give a k-ary fat tree: k³/4 hosts, 5k²/4
switches of k ports each, (k/2)² equal-cost paths between hosts of different pods.
The engine's route choice is tested hop by hop in crates/engine/src/net/routing.rs.
"""

from __future__ import annotations

from collections import Counter

import pytest
import tcplab
from conftest import run_cli

LINK = {"bandwidth": "1Gbps", "delay": "10us", "queue": {"type": "droptail", "limit": "100 packets"}}


def fat_tree(k: int, flows: list[dict], multipath: str = "ecmp", **tree) -> dict:
    return {"simulation": {"duration": "200ms", "seed": 3},
            "topology": {"fat_tree": {"k": k, "link": LINK, **tree}},
            "routing": {"multipath": multipath}, "flow": flows}


def udp(name: str, src: int, dst: int) -> dict:
    return {"name": name, "from": f"host{src}", "to": f"host{dst}", "transport": {"type": "udp"},
            "app": {"type": "cbr", "rate": "1Mbps", "packet_size": "1000B"}}


@pytest.mark.parametrize("k", [2, 4, 6, 8])
def test_a_fat_tree_has_the_papers_hosts_switches_and_ports(k: int):
    engine = tcplab.load(fat_tree(k, [udp("f", 0, 1)])).engine
    kinds = Counter(n["kind"] for n in engine["nodes"])
    assert kinds == {"host": k**3 // 4, "router": 5 * k * k // 4}
    assert len(engine["links"]) == 3 * k**3 // 4
    degree = Counter(end for link in engine["links"] for end in (link["from"], link["to"]))
    for node in engine["nodes"]:
        assert degree[node["name"]] == (1 if node["kind"] == "host" else k), node["name"]
    # Each edge switch serves k/2 hosts of its own pod.
    for link in engine["links"]:
        if link["from"].startswith("host"):
            i = int(link["from"][4:])
            assert link["to"] == f"edge{i // (k * k // 4)}_{(i // (k // 2)) % (k // 2)}"


def test_host_links_take_their_overrides():
    engine = tcplab.load(fat_tree(4, [udp("f", 0, 1)], host_link={"bandwidth": "100Mbps"})).engine
    rates = {link["from"].startswith("host"): link["bandwidth_bps"] for link in engine["links"]}
    assert rates == {True: 100e6, False: 1e9}


def core_packets(multipath: str, flows: int, seed: int = 3) -> dict[str, int]:
    """Packets each core switch forwards for `flows` UDP flows from pod 0 to pod 3 of a
    k = 4 tree (host 0 to host 15: four equal-cost paths, one per core switch)."""
    doc = fat_tree(4, [udp(f"f{i}", 0, 15) for i in range(flows)], multipath)
    doc["simulation"]["seed"] = seed
    result = tcplab.run(tcplab.load(doc))
    into_core = Counter()
    for link in result.summary["links"]:
        src, dst = link["id"].split("->")
        if dst.startswith("core"):
            into_core[dst] += link["tx_packets"]
    return dict(into_core)


def test_first_puts_every_flow_of_a_pair_on_one_core_switch():
    used = {c: n for c, n in core_packets("first", 40).items() if n}
    assert list(used) == ["core0"]


def test_ecmp_spreads_flows_over_every_core_switch():
    """40 flows of equal rate over 4 paths: each core switch carries some, none more
    than a binomial(40, 1/4) allows at 4 standard deviations."""
    used = core_packets("ecmp", 40)
    per_flow = 25  # 1 Mb/s of 1,000-byte datagrams: one per 8 ms, sent at 0, 8, ..., 192 ms
    assert sum(used.values()) == 40 * per_flow, used
    flows_on = {c: n / per_flow for c, n in used.items()}
    assert all(n == int(n) for n in flows_on.values()) and len(flows_on) == 4, flows_on
    assert all(10 - 4 * 2.74 <= n <= 10 + 4 * 2.74 for n in flows_on.values()), flows_on


def test_ecmp_is_deterministic_and_salted_by_the_seed():
    assert core_packets("ecmp", 12) == core_packets("ecmp", 12)
    placements = {tuple(sorted(core_packets("ecmp", 12, seed).items())) for seed in range(1, 6)}
    assert len(placements) > 1


@pytest.mark.parametrize(("change", "field", "expected"), [
    ({"k": 5}, "topology.fat_tree.k", "even number from 2 to 64"),
    ({"k": 66}, "topology.fat_tree.k", "even number from 2 to 64"),
    ({"link": None}, "topology.fat_tree.link", "missing"),
])
def test_bad_fat_trees_are_one_clear_error(tmp_path, change, field, expected):
    from tcplab.scenario import toml_writer

    tree = {"k": 4, "link": LINK, **change}
    doc = fat_tree(4, [udp("f", 0, 1)])
    doc["topology"]["fat_tree"] = {k: v for k, v in tree.items() if v is not None}
    path = tmp_path / "bad.toml"
    path.write_text(toml_writer.dumps(doc))
    proc = run_cli("run", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert field in proc.stderr and expected in proc.stderr, proc.stderr


def test_an_unknown_multipath_names_the_choices(tmp_path):
    from tcplab.scenario import toml_writer

    path = tmp_path / "bad.toml"
    path.write_text(toml_writer.dumps(fat_tree(4, [udp("f", 0, 1)], multipath="random")))
    proc = run_cli("run", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "routing.multipath" in proc.stderr and "ecmp" in proc.stderr, proc.stderr
