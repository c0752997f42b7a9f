"""The scenario schema: reads a user's scenario (a dict from TOML/YAML/Python) and
produces the engine's configuration in SI base units.

Every engine item carries an ``origin`` (the dotted path in the user's scenario) so
errors the Rust engine finds name the field the user wrote. The full schema is
documented in docs/scenario.md; keep the two in step.
"""

from __future__ import annotations

from typing import Any

from . import fields as F
from .errors import ScenarioError
from .fields import Table, join
from .topology import expand_topology
from .units import (
    parse_amount,
    parse_duration_ns,
    parse_probability,
    parse_rate_bps,
    parse_size_bytes,
)

DEFAULT_SEED = 1
DEFAULT_BIN = "50ms"
DEFAULT_MTU = 1500
#: Queue of a link direction when none is given: large enough that only a real
#: bottleneck (where you should set the queue explicitly) drops packets.
DEFAULT_QUEUE = {"type": "droptail", "limit": "1000 packets"}
ETHERNET_FRAMING_BYTES = 38  # preamble 8 + header 14 + FCS 4 + inter-frame gap 12

TOP_LEVEL_KEYS = ["name", "description", "simulation", "topology", "node", "link", "flow", "metrics"]
LINK_PROPERTY_KEYS = ["bandwidth", "delay", "mtu", "framing", "cost", "queue", "loss", "forward", "reverse"]
QUEUE_TYPES = ["droptail", "red"]
LOSS_TYPES = ["none", "bernoulli", "gilbert_elliott", "every_nth"]
APP_TYPES = ["cbr", "poisson", "onoff", "bulk", "file", "rate_limited"]
TRANSPORTS = ["udp", "tcp"]
CONGESTION_CONTROLS = ["reno", "newreno"]
TCP_KEYS = ["type", "cc", "sack", "mss", "initial_window", "handshake", "delayed_ack", "receive_buffer",
            "max_window", "timestamps", "window_scaling", "rto", "pacing", "send_jitter"]
# tcplab's TCP defaults (docs/scenario.md explains each choice).
TCP_DEFAULTS = {"cc": "newreno", "sack": False, "initial_window": 10, "handshake": True, "ack_every": 2,
                "delayed_ack_timeout": "40ms", "receive_buffer": "64MiB", "timestamps": False,
                "window_scaling": True, "rto_initial": "1s", "rto_min": "200ms", "rto_max": "60s", "pacing": False}

# ns-2 RED defaults (ns-2.35 tcl/lib/ns-default.tcl), used where the scenario is silent.
RED_DEFAULTS = {"min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.002, "mean_packet_size": 500, "gentle": True, "wait": True}


def _limit(value: object, path: str) -> dict:
    amount = parse_amount(value, path)
    return {"value": int(amount.value), "unit": amount.unit}


def parse_queue(value: object, path: str) -> dict:
    """A queue table: DropTail or RED."""
    kind = F.tagged(value, path, QUEUE_TYPES, '{ type = "droptail", limit = "100 packets" }')
    if kind == "droptail":
        t = Table(value, path, ["type", "limit"])
        return {"type": "droptail", "limit": t.get("limit", _limit)}
    t = Table(value, path, ["type", "limit", "min_th", "max_th", "max_p", "w_q", "mean_packet_size", "gentle", "wait"])
    min_th = t.get("min_th", lambda v, p: parse_amount(v, p, integral=False), parse_amount(RED_DEFAULTS["min_th"], ""))
    max_th = t.get("max_th", lambda v, p: parse_amount(v, p, integral=False), parse_amount(RED_DEFAULTS["max_th"], ""))
    if min_th.unit != max_th.unit:
        raise ScenarioError(join(path, "max_th"), f"min_th and max_th must use the same unit (min_th is in {min_th.unit}, max_th in {max_th.unit})")
    return {
        "type": "red",
        "limit": t.get("limit", _limit),
        "min_th": float(min_th.value),
        "max_th": float(max_th.value),
        "thresholds_unit": min_th.unit,
        "max_p": t.get("max_p", parse_probability, RED_DEFAULTS["max_p"]),
        "w_q": t.get("w_q", parse_probability, RED_DEFAULTS["w_q"]),
        "mean_packet_bytes": t.get("mean_packet_size", parse_size_bytes, RED_DEFAULTS["mean_packet_size"]),
        "gentle": t.get("gentle", F.boolean, RED_DEFAULTS["gentle"]),
        "wait": t.get("wait", F.boolean, RED_DEFAULTS["wait"]),
    }


def parse_loss(value: object, path: str) -> dict:
    """A loss-model table."""
    kind = F.tagged(value, path, LOSS_TYPES, '{ type = "bernoulli", rate = 0.01 }')
    if kind == "none":
        Table(value, path, ["type"])
        return {"type": "none"}
    if kind == "bernoulli":
        t = Table(value, path, ["type", "rate"])
        return {"type": "bernoulli", "rate": t.get("rate", parse_probability)}
    if kind == "gilbert_elliott":
        t = Table(value, path, ["type", "p_good_to_bad", "p_bad_to_good", "loss_good", "loss_bad"])
        return {
            "type": "gilbert_elliott",
            "p_good_to_bad": t.get("p_good_to_bad", parse_probability),
            "p_bad_to_good": t.get("p_bad_to_good", parse_probability),
            "loss_good": t.get("loss_good", parse_probability, 0.0),
            "loss_bad": t.get("loss_bad", parse_probability, 1.0),
        }
    t = Table(value, path, ["type", "n", "offset"])
    return {"type": "every_nth", "n": t.get("n", F.positive_integer), "offset": t.get("offset", F.integer, 0)}


def _framing(value: object, path: str) -> int:
    if value == "ethernet":
        return ETHERNET_FRAMING_BYTES
    if value == "none":
        return 0
    if isinstance(value, str) and not any(c.isdigit() for c in value):
        raise ScenarioError(path, f'expected "ethernet", "none" or a size in bytes, got {value!r}')
    return parse_size_bytes(value, path)


def _direction(t: Table, side: str, queue: tuple[dict, str], loss: tuple[dict, str]) -> dict:
    (q, q_origin), (l, l_origin) = queue, loss
    if t.has(side):
        d = Table(t.data[side], join(t.path, side), ["queue", "loss"])
        if d.has("queue"):
            q, q_origin = d.get("queue", parse_queue), join(d.path, "queue")
        if d.has("loss"):
            l, l_origin = d.get("loss", parse_loss), join(d.path, "loss")
    return {"queue": q, "loss": l, "queue_origin": q_origin, "loss_origin": l_origin}


def parse_link_properties(value: object, path: str, extra_keys: tuple[str, ...] = ()) -> dict:
    """Bandwidth, delay, MTU, framing, cost, queue and loss of a link (both directions)."""
    t = Table(value, path, [*extra_keys, *LINK_PROPERTY_KEYS], "a link table")
    queue = (t.get("queue", parse_queue, None) or parse_queue(DEFAULT_QUEUE, ""), join(path, "queue"))
    loss = (t.get("loss", parse_loss, None) or {"type": "none"}, join(path, "loss"))
    return {
        "bandwidth_bps": t.get("bandwidth", parse_rate_bps),
        "delay_ns": t.get("delay", parse_duration_ns),
        "mtu_bytes": t.get("mtu", parse_size_bytes, DEFAULT_MTU),
        "framing_bytes": t.get("framing", _framing, 0),
        "cost": t.get("cost", F.positive_integer, 1),
        "forward": _direction(t, "forward", queue, loss),
        "reverse": _direction(t, "reverse", queue, loss),
        "origin": path,
    }


def parse_link(value: object, path: str) -> dict:
    """An explicit ``[[link]]``."""
    link = parse_link_properties(value, path, extra_keys=("from", "to"))
    t = Table(value, path, ["from", "to", *LINK_PROPERTY_KEYS])
    return {"from": t.get("from", F.string), "to": t.get("to", F.string), **link}


def parse_node(value: object, path: str) -> dict:
    """An explicit ``[[node]]``."""
    t = Table(value, path, ["name", "kind"])
    return {"name": t.get("name", F.string), "kind": t.get("kind", F.choice(["host", "router"]), "host"), "origin": path}


def parse_app(value: object, path: str) -> dict:
    """A traffic source."""
    kind = F.tagged(value, path, APP_TYPES, '{ type = "cbr", rate = "6Mbps", packet_size = "1000B" }')
    if kind in ("cbr", "poisson"):
        t = Table(value, path, ["type", "rate", "packet_size"])
        return {"type": kind, "rate_bps": t.get("rate", parse_rate_bps), "payload_bytes": t.get("packet_size", parse_size_bytes)}
    if kind == "bulk":
        Table(value, path, ["type"])
        return {"type": "bulk"}
    if kind == "file":
        t = Table(value, path, ["type", "size"])
        return {"type": "file", "size_bytes": t.get("size", parse_size_bytes)}
    if kind == "rate_limited":
        t = Table(value, path, ["type", "rate", "size"])
        return {"type": "rate_limited", "rate_bps": t.get("rate", parse_rate_bps), "size_bytes": t.get("size", parse_size_bytes, None)}
    t = Table(value, path, ["type", "rate", "packet_size", "on", "off", "distribution"])
    return {
        "type": "on_off",
        "rate_bps": t.get("rate", parse_rate_bps),
        "payload_bytes": t.get("packet_size", parse_size_bytes),
        "on_ns": t.get("on", parse_duration_ns),
        "off_ns": t.get("off", parse_duration_ns),
        "exponential": t.get("distribution", F.choice(["exponential", "constant"]), "exponential") == "exponential",
    }


def _amount(value: object, path: str) -> dict:
    amount = parse_amount(value, path)
    return {"value": int(amount.value), "unit": amount.unit}


def _delayed_ack(value: object, path: str) -> tuple[int, int]:
    """true (every 2nd segment, 40 ms), false (every segment) or { every, timeout }."""
    timeout = parse_duration_ns(TCP_DEFAULTS["delayed_ack_timeout"], path)
    if isinstance(value, bool):
        return (2 if value else 1), timeout
    t = Table(value, path, ["every", "timeout"], "true, false or a table { every = 2, timeout = \"40ms\" }")
    return t.get("every", F.positive_integer, 2), t.get("timeout", parse_duration_ns, timeout)


def _rto(value: object, path: str) -> dict:
    t = Table(value, path, ["initial", "min", "max", "fixed"])
    return {
        "initial_ns": t.get("initial", parse_duration_ns, parse_duration_ns(TCP_DEFAULTS["rto_initial"], "")),
        "min_ns": t.get("min", parse_duration_ns, parse_duration_ns(TCP_DEFAULTS["rto_min"], "")),
        "max_ns": t.get("max", parse_duration_ns, parse_duration_ns(TCP_DEFAULTS["rto_max"], "")),
        "fixed_ns": t.get("fixed", parse_duration_ns, None),
    }


def _tcp(t: Table) -> dict:
    every, timeout = t.get("delayed_ack", _delayed_ack, (TCP_DEFAULTS["ack_every"], parse_duration_ns(TCP_DEFAULTS["delayed_ack_timeout"], "")))
    return {
        "type": "tcp",
        "cc": t.get("cc", F.choice(CONGESTION_CONTROLS), TCP_DEFAULTS["cc"]),
        "sack": t.get("sack", F.boolean, TCP_DEFAULTS["sack"]),
        "mss_bytes": t.get("mss", parse_size_bytes, None),
        "initial_window_segments": t.get("initial_window", _segments, TCP_DEFAULTS["initial_window"]),
        "handshake": t.get("handshake", F.boolean, TCP_DEFAULTS["handshake"]),
        "ack_every": every,
        "delayed_ack_ns": timeout,
        "receive_buffer": t.get("receive_buffer", _amount, _amount(TCP_DEFAULTS["receive_buffer"], "")),
        "max_window": t.get("max_window", _amount, None),
        "timestamps": t.get("timestamps", F.boolean, TCP_DEFAULTS["timestamps"]),
        "window_scaling": t.get("window_scaling", F.boolean, TCP_DEFAULTS["window_scaling"]),
        "rto": t.get("rto", _rto, _rto({}, "")),
        "pacing": t.get("pacing", F.boolean, TCP_DEFAULTS["pacing"]),
        "send_jitter_ns": t.get("send_jitter", parse_duration_ns, 0),
    }


def _segments(value: object, path: str) -> int:
    """A whole number of segments: 10 or "10 segments"."""
    amount = parse_amount(value, path)
    if amount.unit != "packets":
        raise ScenarioError(path, f'expected a number of segments, e.g. 10 or "10 segments", got {value!r}')
    return int(amount.value)


def _transport(value: object, path: str) -> dict:
    """ "udp", "tcp", or a table { type = "tcp", cc = "reno", ... } with TCP options."""
    if isinstance(value, dict):
        kind = F.tagged(value, path, TRANSPORTS, '{ type = "tcp", cc = "reno" }')
        if kind == "udp":
            Table(value, path, ["type"])
            return {"type": "udp"}
        return _tcp(Table(value, path, TCP_KEYS))
    kind = F.choice(TRANSPORTS)(value, path)
    return {"type": "udp"} if kind == "udp" else _tcp(Table({}, path, TCP_KEYS))


def parse_flow(value: object, path: str, index: int) -> dict:
    """A ``[[flow]]``."""
    t = Table(value, path, ["name", "from", "to", "transport", "app", "start", "stop", "path"])
    stop = t.get("stop", parse_duration_ns, None)
    return {
        "name": t.get("name", F.string, f"flow{index}"),
        "from": t.get("from", F.string),
        "to": t.get("to", F.string),
        "transport": t.get("transport", _transport),
        "app": t.get("app", parse_app),
        "start_ns": t.get("start", parse_duration_ns, 0),
        "stop_ns": stop,
        "path": t.get("path", F.list_of(F.string), None),
        "origin": path,
    }


def parse_simulation(value: object, path: str = "simulation") -> dict:
    """The ``[simulation]`` table."""
    t = Table(value, path, ["duration", "seed", "bin"])
    return {
        "duration_ns": t.get("duration", parse_duration_ns),
        "seed": t.get("seed", F.integer, DEFAULT_SEED),
        "bin_ns": t.get("bin", parse_duration_ns, parse_duration_ns(DEFAULT_BIN, "")),
    }


def _array_of_tables(raw: dict, key: str) -> list:
    value = raw.get(key, [])
    if isinstance(value, dict):
        value = [value]  # a single inline table is accepted as a one-item list
    if not isinstance(value, list):
        raise ScenarioError(key, f"expected a list of tables ([[{key}]]), got {type(value).__name__}")
    return value


def compile_scenario(raw: dict[str, Any]) -> dict:
    """The engine configuration for a user's scenario dict."""
    if not isinstance(raw, dict) or not raw:
        raise ScenarioError("", "empty scenario: expected at least [simulation], a topology or [[node]]/[[link]], and [[flow]]")
    top = Table(raw, "", TOP_LEVEL_KEYS, "a scenario")
    top.get("name", F.string, None)
    top.get("description", F.string, None)
    simulation = top.get("simulation", parse_simulation)
    nodes: list[dict] = []
    links: list[dict] = []
    if top.has("topology"):
        expand_topology(top.data["topology"], "topology", nodes, links)
    nodes += [parse_node(v, join("node", i)) for i, v in enumerate(_array_of_tables(raw, "node"))]
    links += [parse_link(v, join("link", i)) for i, v in enumerate(_array_of_tables(raw, "link"))]
    if not links:
        raise ScenarioError("link", "the scenario has no links: add [[link]] tables or a [topology.dumbbell]")
    flow_items = _array_of_tables(raw, "flow")
    if not flow_items:
        raise ScenarioError("flow", "the scenario has no traffic: add at least one [[flow]]")
    flows = [parse_flow(v, join("flow", i), i) for i, v in enumerate(flow_items)]
    fairness = None
    if top.has("metrics"):
        m = Table(raw["metrics"], "metrics", ["fairness_flows"])
        fairness = m.get("fairness_flows", F.list_of(F.string), None)
    return {"simulation": simulation, "nodes": nodes, "links": links, "flows": flows, "fairness_flows": fairness}
