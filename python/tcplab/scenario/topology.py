"""Topology shorthands that expand into nodes and links.

``[topology.dumbbell]``: ``pairs`` sender/receiver pairs. Sender i is ``left{i}``,
receiver i is ``right{i}``; they hang off ``router_left`` and ``router_right``,
which the ``bottleneck`` link joins. Access links take ``access``, overridden per side
by ``left_access`` / ``right_access`` (one table for all pairs, or a list with one
table per pair, each overriding only the keys it gives).

``[topology.fat_tree]``: a k-ary fat tree (Al-Fares, Loukissas and Vahdat, SIGCOMM
2008) of k pods. Pod p has edge switches ``edge{p}_{e}`` and aggregation switches
``agg{p}_{a}`` (e, a < k/2), every edge switch linked to every aggregation switch of
its pod; aggregation switch a of each pod links to core switches ``core{j}`` with
a·k/2 ≤ j < (a+1)·k/2; host ``host{i}`` (i < k³/4) hangs off edge switch
(i ÷ (k²/4), (i ÷ (k/2)) mod (k/2)). ``link`` is every link; ``host_link`` overrides its
keys on the host links. Equal-cost paths abound: ``[routing] multipath = "ecmp"``
spreads flows over them.
"""

from __future__ import annotations

from . import fields as F
from . import format
from .errors import ScenarioError
from .fields import Table, join

TOPOLOGIES = format.keys("Topology")


def expand_topology(value: object, path: str, nodes: list[dict], links: list[dict], parse_link_properties) -> None:
    """Appends the nodes and links of every shorthand in ``[topology]``; each link's
    properties are read by ``parse_link_properties(value, path)`` (the schema's link
    grammar, handed in: the schema imports this module, not the other way round)."""
    t = Table(value, path, TOPOLOGIES)
    if t.has("dumbbell"):
        _dumbbell(t.data["dumbbell"], join(path, "dumbbell"), nodes, links, parse_link_properties)
    if t.has("fat_tree"):
        _fat_tree(t.data["fat_tree"], join(path, "fat_tree"), nodes, links, parse_link_properties)


def _side_overrides(t: Table, key: str, pairs: int) -> list[tuple[dict, str] | None]:
    if not t.has(key):
        return [None] * pairs
    value, path = t.data[key], join(t.path, key)
    if isinstance(value, dict):
        return [(value, path)] * pairs
    if isinstance(value, list):
        if len(value) != pairs:
            raise ScenarioError(path, f"expected one table per pair ({pairs}), got {len(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise ScenarioError(join(path, i), "expected a link table")
        return [(item, join(path, i)) for i, item in enumerate(value)]
    raise ScenarioError(path, "expected a link table or a list of them (one per pair)")


def _dumbbell(value: object, path: str, nodes: list[dict], links: list[dict], parse_props) -> None:
    t = Table(value, path, format.keys("Dumbbell"))
    pairs = t.get("pairs", F.positive_integer)
    most = format.definition("Dumbbell")["properties"]["pairs"]["maximum"]
    if pairs > most:
        raise ScenarioError(join(path, "pairs"), f"at most {most} pairs, got {pairs}")
    access_raw = t.data.get("access")
    if access_raw is not None:
        parse_props(access_raw, join(path, "access"))  # report errors at the access table itself
    elif not (t.has("left_access") and t.has("right_access")):
        raise ScenarioError(join(path, "access"), "missing (required unless both left_access and right_access are given)")
    left = _side_overrides(t, "left_access", pairs)
    right = _side_overrides(t, "right_access", pairs)

    def access(override: tuple[dict, str] | None) -> dict:
        if override is None:
            return parse_props(access_raw, join(path, "access"))
        merged = {**(access_raw or {}), **override[0]}
        return parse_props(merged, override[1])

    nodes.append({"name": "router_left", "kind": "router", "origin": path})
    nodes.append({"name": "router_right", "kind": "router", "origin": path})
    links.append({"from": "router_left", "to": "router_right", **parse_props(t.get("bottleneck", lambda v, p: v), join(path, "bottleneck"))})
    for i in range(pairs):
        nodes.append({"name": f"left{i}", "kind": "host", "origin": path})
        nodes.append({"name": f"right{i}", "kind": "host", "origin": path})
        links.append({"from": f"left{i}", "to": "router_left", **access(left[i])})
        links.append({"from": "router_right", "to": f"right{i}", **access(right[i])})


def _fat_tree(value: object, path: str, nodes: list[dict], links: list[dict], parse_props) -> None:
    t = Table(value, path, format.keys("FatTree"))
    k = t.get("k", F.positive_integer)
    bounds = format.definition("FatTree")["properties"]["k"]
    if k % 2 or not bounds["minimum"] <= k <= bounds["maximum"]:
        raise ScenarioError(join(path, "k"), f"expected an even number from {bounds['minimum']} to "
                                             f"{bounds['maximum']}, got {k}")
    link_raw = t.data.get("link")
    if link_raw is None:
        raise ScenarioError(join(path, "link"), "missing (the properties of every link of the tree)")
    link = parse_props(link_raw, join(path, "link"))
    host_link = link
    if t.has("host_link"):
        override = t.data["host_link"]
        if not isinstance(override, dict):
            raise ScenarioError(join(path, "host_link"), "expected a link table")
        host_link = parse_props({**link_raw, **override}, join(path, "host_link"))
    half = k // 2

    def switch(name: str) -> None:
        nodes.append({"name": name, "kind": "router", "origin": path})

    for j in range(half * half):
        switch(f"core{j}")
    for p in range(k):
        for a in range(half):
            switch(f"agg{p}_{a}")
            links += [{"from": f"agg{p}_{a}", "to": f"core{a * half + j}", **link} for j in range(half)]
        for e in range(half):
            switch(f"edge{p}_{e}")
            links += [{"from": f"edge{p}_{e}", "to": f"agg{p}_{a}", **link} for a in range(half)]
    for i in range(k ** 3 // 4):
        nodes.append({"name": f"host{i}", "kind": "host", "origin": path})
        links.append({"from": f"host{i}", "to": f"edge{i // (half * half)}_{(i // half) % half}", **host_link})
