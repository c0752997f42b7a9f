"""The scenario schema: reads a user's scenario (a dict from TOML/YAML/Python) and
produces the engine's configuration in SI base units.

Every engine item carries an ``origin`` (the dotted path in the user's scenario) so
errors the Rust engine finds name the field the user wrote. The full schema is
documented in docs/scenario.md; keep the two in step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import fields as F
from . import format
from .congestion import parse_cc
from .declared import UNIT_READERS_32, DeclaredTable, declared_keys, name_by_hand, read_declared
from .errors import ScenarioError, describe_value
from .fields import Table, join
from .topology import expand_topology
from .units import parse_amount, parse_duration_ns, parse_frame_bytes, parse_probability

# Every key list, choice and default below comes from the published format
# (crates/engine/src/format.rs, read through tcplab.scenario.format): change it there.
DEFAULT_SEED: int = format.default("Simulation", "seed")
#: Queue of a link direction when none is given: large enough that only a real
#: bottleneck (where you should set the queue explicitly) drops packets.
DEFAULT_QUEUE: dict = format.default("LinkProperties", "queue")
DEFAULT_LOSS: dict = format.default("LinkProperties", "loss")
ETHERNET_FRAMING_BYTES = 38  # preamble 8 + header 14 + FCS 4 + inter-frame gap 12

#: `sweep` belongs to `tcplab sweep`; the loader takes it off before a run is compiled.
TOP_LEVEL_KEYS = [k for k in format.keys(format.ROOT) if k != "sweep"]
LINK_PROPERTY_KEYS = format.keys("LinkProperties")
LOSS_PLACEMENTS = format.choices("LossAt")
QUEUE_TYPES = format.variants("Queue")
LOSS_TYPES = format.variants("Loss")
APP_TYPES = format.variants("App")
TRANSPORTS = format.choices("TransportName")
RECOVERIES = format.choices("Recovery")
TCP_KEYS = format.keys("TransportTable", "tcp")
#: The keys a `profile` sets that live in sub-tables (`delayed_ack`, `rto`), by their
#: flat name in the profile and where the schema keeps their default.
_NESTED_TCP_DEFAULTS = {"ack_every": ("DelayedAckTable", "every"), "delayed_ack_timeout": ("DelayedAckTable", "timeout"),
                        "rto_initial": ("Rto", "initial"), "rto_min": ("Rto", "min"), "rto_max": ("Rto", "max"),
                        "rto_floor": ("Rto", "floor")}
#: tcplab's TCP defaults (docs/scenario.md explains each choice): the "tcplab" profile.
TCP_DEFAULTS = {
    "max_window": None,
    "rto_tick": None,  # exact RTT arithmetic unless a profile (ns2) or `rto.tick` says otherwise
    **{k: v for k, v in format.defaults("TransportTable", "tcp").items() if k not in ("profile", "delayed_ack")},
    **{flat: format.default(table, key) for flat, (table, key) in _NESTED_TCP_DEFAULTS.items()},
}
SCTP_KEYS = format.keys("TransportTable", "sctp")
#: SCTP's defaults (RFC 9260's values; docs/scenario.md explains them).
SCTP_DEFAULTS = format.defaults("TransportTable", "sctp")
#: `profile = "..."` sets the group at once to what a reference stack does with its
#: defaults (the sources are cited in format.rs); keys the scenario writes still win.
TCP_PROFILES: dict[str, dict] = format.extension("TransportTable", "profile", "profiles", "tcp")


RED_MODES = format.choices("RedMode")


def _auto_or(parse):
    """A value parsed by ``parse``, or ``"auto"`` (→ None: the engine derives it as ns-2.35 does)."""

    def read(value: object, path: str):
        if value == "auto":
            return None
        return parse(value, path)

    return read


_DROPTAIL = DeclaredTable("Queue", "droptail")
#: RED's thresholds and weight may be "auto" (the engine derives them as ns-2.35
#: does), and `mode` becomes a flag. Its defaults where the scenario is silent are what
#: ns-2.35 runs (tcl/lib/ns-default.tcl): automatic min_th/max_th (thresh_ 0,
#: maxthresh_ 0) and w_q (q_weight_ -1) derived from the link, targetdelay_ 5 ms,
#: linterm_ 10, mean_pktsize_ 500, gentle_ and wait_ on. Packet mode is tcplab's default
#: (ns-2.35 defaults to bytes_ true, queue_in_bytes_ true; say mode = "byte" and a limit
#: in bytes for that): docs/scenario.md explains why.
_RED = DeclaredTable("Queue", "red", by_hand=("min_th", "max_th", "w_q", "mode"))


def parse_queue(value: object, path: str) -> dict:
    """A queue table: DropTail or RED."""
    kind = F.tagged(value, path, QUEUE_TYPES, '{ type = "droptail", limit = "100 packets" }')
    if kind == "droptail":
        return {"type": "droptail", **_DROPTAIL.read(Table(value, path, _DROPTAIL.keys))}
    t = Table(value, path, _RED.keys)
    declared = _RED.read(t)
    threshold = _auto_or(lambda v, p: parse_amount(v, p, integral=False))
    min_th = t.get("min_th", threshold, None)
    max_th = t.get("max_th", threshold, None)
    units = {a.unit for a in (min_th, max_th) if a is not None}
    if len(units) > 1:
        raise ScenarioError(join(path, "max_th"), f"min_th and max_th must use the same unit (min_th is in {min_th.unit}, max_th in {max_th.unit})")
    # Automatic thresholds count what the limit counts (ns-2's queue_in_bytes_ governs both).
    unit = units.pop() if units else declared["limit"]["unit"]
    return {
        "type": "red",
        **declared,
        "min_th": None if min_th is None else float(min_th.value),
        "max_th": None if max_th is None else float(max_th.value),
        "thresholds_unit": unit,
        "w_q": t.get("w_q", _auto_or(parse_probability), None),
        "byte_mode": t.get("mode", F.choice(RED_MODES), _RED.defaults["mode"]) == "byte",
    }


#: Each loss model; a list's packet numbers count from 1, which the schema's
#: unsigned integers do not say.
_LOSSES = {kind: DeclaredTable("Loss", kind, by_hand=("packets",)) for kind in LOSS_TYPES}


def parse_loss(value: object, path: str) -> dict:
    """A loss-model table."""
    kind = F.tagged(value, path, LOSS_TYPES, '{ type = "bernoulli", rate = 0.01 }')
    model = _LOSSES[kind]
    t = Table(value, path, model.keys)
    if kind == "list":
        return {"type": "list", "packets": t.get("packets", F.list_of(F.positive_integer))}
    return {"type": kind, **model.read(t)}


_FRAMING = name_by_hand("framing_bytes", "framing")


def _framing(value: object, path: str) -> int:
    if value == "ethernet":
        return ETHERNET_FRAMING_BYTES
    if value == "none":
        return 0
    if isinstance(value, str) and not any(c.isdigit() for c in value):
        raise ScenarioError(path, f'expected "ethernet", "none" or a size in bytes, got {value!r}')
    return parse_frame_bytes(value, path)


def _direction(t: Table, side: str, queue: tuple[dict, str], loss: tuple[dict, str], loss_at: str) -> dict:
    (q, q_origin), (loss_model, loss_origin) = queue, loss
    if t.has(side):
        d = Table(t.data[side], join(t.path, side), format.keys("Direction"))
        if d.has("queue"):
            q, q_origin = d.get("queue", parse_queue), join(d.path, "queue")
        if d.has("loss"):
            loss_model, loss_origin = d.get("loss", parse_loss), join(d.path, "loss")
        loss_at = d.get("loss_at", F.choice(LOSS_PLACEMENTS), loss_at)
    return {"queue": q, "loss": loss_model, "loss_placement": loss_at, "queue_origin": q_origin,
            "loss_origin": loss_origin}


#: A link's framing takes a name or a size; its queue, loss and placement are given
#: per direction (`forward`/`reverse` override the link's).
_LINK_PROPERTIES = DeclaredTable("LinkProperties", by_hand=("framing", "queue", "loss", "loss_at", "forward", "reverse"))
#: An explicit link's ends (its `count` is expanded before it is read).
_LINK_ENDS = DeclaredTable("Link", by_hand=(*LINK_PROPERTY_KEYS, "count"))


def parse_link_properties(value: object, path: str, extra_keys: tuple[str, ...] = ()) -> dict:
    """Bandwidth, delay, MTU, framing, cost, queue and loss of a link (both directions)."""
    t = Table(value, path, [*extra_keys, *LINK_PROPERTY_KEYS], "a link table")
    queue = (t.get("queue", parse_queue, None) or parse_queue(DEFAULT_QUEUE, ""), join(path, "queue"))
    loss = (t.get("loss", parse_loss, None) or parse_loss(DEFAULT_LOSS, ""), join(path, "loss"))
    loss_at = t.get("loss_at", F.choice(LOSS_PLACEMENTS), format.default("LinkProperties", "loss_at"))
    return {
        **_LINK_PROPERTIES.read(t),
        _FRAMING: t.get("framing", _framing, _framing(format.default("LinkProperties", "framing"), "")),
        "forward": _direction(t, "forward", queue, loss, loss_at),
        "reverse": _direction(t, "reverse", queue, loss, loss_at),
        "origin": path,
    }


def parse_link(value: object, path: str, tables: CompiledTables) -> dict:
    """An explicit ``[[link]]``."""
    return tables.compiled("link", value, path, lambda: _parse_link(value, path))


def _parse_link(value: object, path: str) -> dict:
    link = parse_link_properties(value, path, extra_keys=("from", "to"))
    return {**_LINK_ENDS.read(Table(value, path, _LINK_ENDS.keys)), **link}


SEGMENT_KEYS = format.keys("Segment")


def parse_segment(value: Any, path: str) -> tuple[dict, list[dict]]:
    """A ``[[segment]]``: a shared half-duplex medium (ns-2's make-lan). Becomes a router
    node named like the segment and one link per station marked with the segment."""
    t = Table(value, path, SEGMENT_KEYS, "a segment table")
    name = t.get("name", F.string)
    stations = t.get("stations", F.list_of(F.string))
    if len(stations) < 2:
        raise ScenarioError(join(path, "stations"), f"a shared segment needs at least two stations, got {len(stations)}")
    if len(set(stations)) != len(stations):
        raise ScenarioError(join(path, "stations"), "a station is listed twice")
    props = {k: v for k, v in value.items() if k not in ("name", "stations")}
    links = []
    for i, station in enumerate(stations):
        link = parse_link_properties(props, path)
        # The delivery side hands on what the segment carried: the loss acts once, on send.
        link["reverse"]["loss"] = {"type": "none"}
        links.append({"from": station, "to": name, **link, "segment": name, "origin": join(join(path, "stations"), i)})
    return {"name": name, "kind": "router", "origin": path}, links


_NODE = DeclaredTable("Node", by_hand=("count",))


def parse_node(value: object, path: str) -> dict:
    """An explicit ``[[node]]``."""
    return {**_NODE.read(Table(value, path, _NODE.keys)), "origin": path}


#: Each application; an on/off source's `distribution` becomes a flag.
_APPS = {kind: DeclaredTable("App", kind, by_hand=("distribution",)) for kind in APP_TYPES}
#: The engine's name of a kind the scenario spells otherwise.
_APP_ENGINE_TYPES = {"onoff": "on_off"}


def parse_app(value: object, path: str) -> dict:
    """A traffic source."""
    kind = F.tagged(value, path, APP_TYPES, '{ type = "cbr", rate = "6Mbps", packet_size = "1000B" }')
    app = _APPS[kind]
    t = Table(value, path, app.keys)
    engine = {"type": _APP_ENGINE_TYPES.get(kind, kind), **app.read(t)}
    if "distribution" in app.keys:
        distribution = t.get("distribution", F.choice(format.choices("OnOffDistribution")), app.defaults["distribution"])
        engine["exponential"] = distribution == "exponential"
    return engine


def _delayed_ack(defaults: dict):
    """true (every 2nd segment, 40 ms), false (every segment) or { every, timeout }."""

    def read(value: object, path: str) -> tuple[int, int]:
        timeout = parse_duration_ns(defaults["delayed_ack_timeout"], path)
        if isinstance(value, bool):
            return (2 if value else 1), timeout
        t = Table(value, path, format.keys("DelayedAckTable"), "true, false or a table { every = 2, timeout = \"40ms\" }")
        return t.get("every", F.count32, defaults["ack_every"]), t.get("timeout", parse_duration_ns, timeout)

    return read


def _tick_ns(value: object, path: str) -> int:
    """The RTT clock's tick: a duration above zero (the engine bounds it by half of rto.max)."""
    ns = parse_duration_ns(value, path)
    if ns <= 0:
        raise ScenarioError(path, f"the RTT clock's tick must be longer than 0, got {value!r}")
    return ns


def _rto(defaults: dict):
    def read(value: object, path: str) -> dict:
        t = Table(value, path, format.keys("Rto"))
        return {
            "initial_ns": t.get("initial", parse_duration_ns, parse_duration_ns(defaults["rto_initial"], "")),
            "min_ns": t.get("min", parse_duration_ns, parse_duration_ns(defaults["rto_min"], "")),
            "max_ns": t.get("max", parse_duration_ns, parse_duration_ns(defaults["rto_max"], "")),
            "fixed_ns": t.get("fixed", parse_duration_ns, None),
            "floor": t.get("floor", F.choice(format.choices("RtoFloor")), defaults["rto_floor"]),
            "tick_ns": t.get("tick", _tick_ns,
                             None if defaults["rto_tick"] is None else parse_duration_ns(defaults["rto_tick"], "")),
        }

    return read


#: TCP keys whose translation changes a name, a unit or a meaning (profiles, the SACK
#: rule of `recovery`, nested tables, older spellings); every other key of the table is
#: read as the schema declares it (tcplab.scenario.declared), so a new boolean,
#: choice, count or value with a unit needs no Python.
_TCP_BY_HAND = ("profile", "cc", "recovery", "delayed_ack", "rto", "sack_blocks", "reduction", "prr")
_TCP_AS_DECLARED = declared_keys("TransportTable", "tcp", by_hand=_TCP_BY_HAND, units=UNIT_READERS_32)
#: SCTP's, the same way.
_SCTP_AS_DECLARED = declared_keys("TransportTable", "sctp", by_hand=("cc", "rto", "delayed_sack"), units=UNIT_READERS_32)


def _tcp(t: Table) -> dict:
    profile = t.get("profile", F.choice(format.choices("Profile")), format.default("TransportTable", "profile", "tcp"))
    d = {**TCP_DEFAULTS, **TCP_PROFILES[profile]}
    every, timeout = t.get("delayed_ack", _delayed_ack(d), (d["ack_every"], parse_duration_ns(d["delayed_ack_timeout"], "")))
    preset = d.get("cc_preset")
    cc = t.get("cc", lambda v, path: parse_cc(v, path, preset), parse_cc(d["cc"], "", preset))
    return {
        "type": "tcp",
        "cc": cc,
        # Loss recovery is its own choice; when unwritten the engine picks it (SACK
        # recovery with SACK, Reno's with the Reno algorithm, else NewReno).
        "recovery": t.get("recovery", F.choice(RECOVERIES), _unwritten_recovery(d, cc, t)),
        "ack_every": every,
        "delayed_ack_ns": timeout,
        "rto": t.get("rto", _rto(d), _rto(d)({}, "")),
        "sack_blocks": t.get("sack_blocks", _sack_blocks, d["sack_blocks"]),
        "reduction": _reduction(t, d),
        **read_declared(t, _TCP_AS_DECLARED, d),
    }


def _unwritten_recovery(d: dict, cc: dict, t: Table) -> str | None:
    """The profile's loss recovery for `cc = "reno"` without SACK (`tcplab` and Linux's
    stacks repair partial ACKs, RFC 6582, whatever the algorithm); None leaves the
    engine's rule (Reno's own, as ns-2's Agent/TCP/Reno)."""
    sack = t.get("sack", F.boolean, d["sack"])
    if not sack and cc["algorithm"] == "reno":
        return d.get("reno_recovery")
    return None


def _reduction(t, d: dict) -> str:
    """`reduction`, or its older spelling `prr = true|false` (not both). Unwritten and
    without SACK, the profile's `reduction_without_sack` if it has one (the tcplab
    profile: RFC 6582's window inflation)."""
    if t.has("prr") and t.has("reduction"):
        raise ScenarioError(join(t.path, "prr"), 'give either prr or reduction, not both (prr = true is reduction = "prr")')
    if t.has("prr"):
        return "prr" if t.get("prr", F.boolean, False) else "pipe"
    unwritten = d["reduction"]
    if not t.get("sack", F.boolean, d["sack"]) and d.get("reduction_without_sack"):
        unwritten = d["reduction_without_sack"]
    return t.get("reduction", F.choice(format.choices("Reduction")), unwritten)


def _sack_blocks(value: object, path: str) -> int:
    """How many SACK blocks a receiver remembers: 1 to 4 (RFC 2018's option holds 4)."""
    n = F.positive_integer(value, path)
    if n > 4:
        raise ScenarioError(path, f"at most 4 SACK blocks fit in a TCP header, got {n}")
    return n


def _sctp(t: Table) -> dict:
    d = SCTP_DEFAULTS
    every, timeout = t.get("delayed_sack", _delayed_sack, _delayed_sack(d["delayed_sack"], ""))
    rto = t.get("rto", _sctp_rto, _sctp_rto({}, ""))
    return {
        "type": "sctp",
        "cc": t.get("cc", parse_cc, parse_cc(d["cc"], "")),
        "rto": rto,
        "sack_every": every,
        "sack_delay_ns": timeout,
        **read_declared(t, _SCTP_AS_DECLARED, d),
    }


def _delayed_sack(value: object, path: str) -> tuple[int, int]:
    """true (every 2nd packet, 200 ms), false (every packet) or { every, timeout }."""
    timeout = parse_duration_ns(format.default("DelayedSackTable", "timeout"), path)
    if isinstance(value, bool):
        return (format.default("DelayedSackTable", "every") if value else 1), timeout
    t = Table(value, path, format.keys("DelayedSackTable"), "true, false or a table { every = 2, timeout = \"200ms\" }")
    return (t.get("every", F.count32, format.default("DelayedSackTable", "every")),
            t.get("timeout", parse_duration_ns, timeout))


def _sctp_rto(value: object, path: str) -> dict:
    t = Table(value, path, format.keys("SctpRto"))
    read = {key: t.get(key, parse_duration_ns, parse_duration_ns(format.default("SctpRto", key), ""))
            for key in ("initial", "min", "max")}
    return {"initial_ns": read["initial"], "min_ns": read["min"], "max_ns": read["max"], "fixed_ns": None,
            "floor": "rto", "tick_ns": None}


#: Each transport's table: its keys and its reader.
_TRANSPORT_TABLES = {"tcp": (TCP_KEYS, _tcp), "sctp": (SCTP_KEYS, _sctp)}


def _transport(value: object, path: str) -> dict:
    """ "udp", "tcp", "sctp", or a table { type = "tcp", cc = "reno", ... } with the
    transport's options."""
    if isinstance(value, dict):
        kind = F.tagged(value, path, TRANSPORTS, '{ type = "tcp", cc = "reno" }')
        if kind == "udp":
            _refuse_other_transports_keys(value, path, kind, format.keys("TransportTable", "udp"))
            Table(value, path, format.keys("TransportTable", "udp"))
            return {"type": "udp"}
        keys, read = _TRANSPORT_TABLES[kind]
        _refuse_other_transports_keys(value, path, kind, keys)
        return read(Table(value, path, keys))
    kind = F.choice(TRANSPORTS)(value, path)
    if kind == "udp":
        return {"type": "udp"}
    keys, read = _TRANSPORT_TABLES[kind]
    return read(Table({}, path, keys))


def _refuse_other_transports_keys(value: dict, path: str, kind: str, keys: list[str]) -> None:
    """One clear message for an option of another transport (`streams` on a TCP
    flow, `sack` on an SCTP one) instead of an unknown-key suggestion."""
    for key in value:
        if key in keys:
            continue
        owners = [other for other, (other_keys, _) in _TRANSPORT_TABLES.items() if other != kind and key in other_keys]
        if owners:
            raise ScenarioError(join(path, key), f"{key} is an option of {' and '.join(owners)}, not of {kind}; "
                                f"this flow's transport is {kind}")


class CompiledTables:
    """Tables already compiled, by what they were compiled from, so that an equal
    table is compiled once. The N flows of a counted ``[[flow]]`` have equal transport
    tables, and the points of a sweep differ in a few keys of a few tables: compiling
    every table of every point again was most of what a sweep's planning spent per run
    (benchmarks/README.md, "Sweep overhead").

    A table's compilation depends on its content and on its path (which its
    ``origin`` and its errors name) and on nothing else. A table that fails is not
    kept, so its error is raised again, at its own path. Two uses: within one
    compilation (``shared=False``) each later equal table gets a copy of the result,
    so that a caller may change one flow of a compiled scenario without changing
    another; a sweep's planning (``shared=True``) keeps one across all its points,
    whose compiled scenarios it keeps to itself, and hands out the result itself."""

    def __init__(self, *, shared: bool, limit: int = 4096) -> None:
        self._known: dict[tuple[str, str, str], tuple[object, dict]] = {}
        self._shared = shared
        self._limit = limit

    def compiled(self, kind: str, value: object, path: str, compile_table: Callable[[], dict]) -> dict:
        """``compile_table()``, the compilation of ``value`` (a ``kind`` table at
        ``path``), or the result for an equal table compiled before."""
        # repr tells 1, 1.0 and true apart (which == does not); == guards the key.
        key = (kind, path, repr(value))
        known = self._known.get(key)
        if known is not None and known[0] == value:
            return known[1] if self._shared else _copy_tree(known[1])
        result = compile_table()
        if len(self._known) >= self._limit:
            self._known.clear()  # bounded: a sweep of a million distinct points
        self._known[key] = (value, result)
        return result


def _copy_tree(value):
    """``value`` with every dict and list copied (the other values are immutable)."""
    if isinstance(value, dict):
        return {k: _copy_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_tree(v) for v in value]
    return value


#: A flow's default name counts the flows; its transport and application are tables
#: of their own.
_FLOW = DeclaredTable("Flow", by_hand=("name", "transport", "app", "count"))


def parse_flow(value: object, path: str, index: int, tables: CompiledTables) -> dict:
    """A ``[[flow]]`` (the ``index``-th)."""
    return tables.compiled("flow", value, path, lambda: _parse_flow(value, path, index, tables))


def _parse_flow(value: object, path: str, index: int, tables: CompiledTables) -> dict:
    t = Table(value, path, _FLOW.keys)
    return {
        "name": t.get("name", F.string, f"flow{index}"),
        # A transport's compilation names no path: equal tables of any flows match.
        "transport": t.get("transport", lambda v, p: tables.compiled("transport", v, "", lambda: _transport(v, p))),
        "app": t.get("app", parse_app),
        **_FLOW.read(t),
        "origin": path,
    }


_SIMULATION = DeclaredTable("Simulation")


def parse_simulation(value: object, path: str = "simulation") -> dict:
    """The ``[simulation]`` table."""
    return _SIMULATION.read(Table(value, path, _SIMULATION.keys))


def _array_of_tables(raw: dict, key: str) -> list:
    value = raw.get(key, [])
    if isinstance(value, dict):
        value = [value]  # a single inline table is accepted as a one-item list
    if not isinstance(value, list):
        raise ScenarioError(key, f"expected a list of tables ([[{key}]]), got {describe_value(value)}")
    return value


def compile_scenario(raw: dict[str, Any], tables: CompiledTables | None = None) -> dict:
    """The engine configuration for a user's scenario dict; ``tables``: the tables a
    sweep's planning compiled so far (see :class:`CompiledTables`)."""
    if tables is None:
        tables = CompiledTables(shared=False)
    if not isinstance(raw, dict) or not raw:
        raise ScenarioError("", "empty scenario: expected at least [simulation], a topology or [[node]]/[[link]], and [[flow]]")
    top = Table(raw, "", TOP_LEVEL_KEYS, "a scenario")
    top.get("name", F.string, None)
    top.get("description", F.string, None)
    simulation = top.get("simulation", parse_simulation)
    nodes: list[dict] = []
    links: list[dict] = []
    if top.has("topology"):
        expand_topology(top.data["topology"], "topology", nodes, links, parse_link_properties)
    nodes += [parse_node(v, join("node", i)) for i, v in enumerate(_array_of_tables(raw, "node"))]
    links += [parse_link(v, join("link", i), tables) for i, v in enumerate(_array_of_tables(raw, "link"))]
    for i, v in enumerate(_array_of_tables(raw, "segment")):
        segment_node, segment_links = parse_segment(v, join("segment", i))
        nodes.append(segment_node)
        links += segment_links
    if not links:
        raise ScenarioError("link", "the scenario has no links: add [[link]] tables or a [topology.dumbbell]")
    flow_items = _array_of_tables(raw, "flow")
    if not flow_items:
        raise ScenarioError("flow", "the scenario has no traffic: add at least one [[flow]]")
    flows = [parse_flow(v, join("flow", i), i, tables) for i, v in enumerate(flow_items)]
    metrics = _METRICS.read(Table(raw.get("metrics", {}), "metrics", _METRICS.keys))
    return {"simulation": simulation, "nodes": nodes, "links": links, "flows": flows, **metrics,
            "routing": parse_routing(raw.get("routing", {}))}


_METRICS = DeclaredTable("Metrics")
_ROUTING = DeclaredTable("Routing")


def parse_routing(value: object, path: str = "routing") -> dict:
    """The ``[routing]`` table."""
    return _ROUTING.read(Table(value, path, _ROUTING.keys))
