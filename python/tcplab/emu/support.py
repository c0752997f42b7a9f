"""What of a scenario the Linux stack can honour, and how.

Each flow's transport settings become the kernel's: the congestion control by
``TCP_CONGESTION``, SACK / timestamps / window scaling / buffer sizes as sysctls of the
hosts' own namespaces, the initial window and minimum RTO as route attributes, the
MSS by ``TCP_MAXSEG``, a window limit by ``TCP_WINDOW_CLAMP``. A setting Linux cannot
take is refused, naming the field — but only where the scenario asks for something
other than what tcplab's default or its ``profile = "linux"`` give: those model a
generic stack and Linux, and the point of emulation is to run Linux's own
(docs/emulation.md lists what differs).
"""

from __future__ import annotations

import functools
from pathlib import Path

from ..scenario import load
from ..scenario.declared import SCENARIO_KEYS
from ..scenario.errors import ScenarioError
from ..scenario.units import amount_bytes

#: tcplab's algorithm name → the kernel's.
KERNEL_CC = {"reno": "reno", "newreno": "reno", "cubic": "cubic", "bbr": "bbr"}

#: The engine's TCP settings the kernel is told (by `kernel_tcp`: sysctls, route
#: attributes, socket options). Every other one is tcplab's model of some stack (ns-2's,
#: the RFCs'), which the kernel replaces by its own: only its defaults are accepted. A
#: new setting is therefore refused unless left at its default, with no list to update.
_KERNEL_SETS = frozenset({"type", "cc", "rto", "initial_window_segments", "receive_buffer", "mss_bytes", "sack",
                          "timestamps", "window_scaling", "max_window"})


#: Scenario keys of the engine's transport keys.
_FIELD = {**SCENARIO_KEYS, "ack_every": "delayed_ack", "delayed_ack_ns": "delayed_ack"}


class EmulationRefused(ScenarioError):
    """The scenario asks for something the emulator cannot provide (exit status 2)."""


def kernel_congestion_controls() -> list[str]:
    """The congestion controls this kernel offers."""
    path = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
    return path.read_text().split() if path.exists() else []


@functools.cache
def _tcp_defaults(algorithm: str, profile: str, sack: bool | None = None) -> dict:
    """The TCP transport configuration ``profile`` gives with ``algorithm`` (and
    ``sack``, unless the profile's own)."""
    transport = {"type": "tcp", "cc": algorithm, "profile": profile, **({} if sack is None else {"sack": sack})}
    scenario = load({"simulation": {"duration": "1s"}, "node": [{"name": "a"}, {"name": "b"}],
                     "link": [{"from": "a", "to": "b", "bandwidth": "1Mbps", "delay": "1ms"}],
                     "flow": [{"from": "a", "to": "b", "transport": transport, "app": {"type": "bulk"}}]})
    return scenario.engine["flows"][0]["transport"]


#: Parameters of the kernel's algorithms that tcplab's defaults do not share: the
#: kernel's values (module parameters, the same in every namespace).
LINUX_CC_PARAMETERS = {"cubic": {"linux_hystart": True}}


def _accepted(algorithm: str, *keys: str) -> list:
    """The values tcplab's default and its Linux profile give setting ``keys`` (and,
    for an algorithm's parameters, the kernel's own)."""
    values: list = []
    if keys[0] == "cc" and keys[-1] in LINUX_CC_PARAMETERS.get(algorithm, {}):
        values.append(LINUX_CC_PARAMETERS[algorithm][keys[-1]])
    for profile in ("tcplab", "linux"):
        for sack in (None, False):  # what the profile gives, and without SACK
            value: object = _tcp_defaults(algorithm, profile, sack)
            for k in keys:
                value = value.get(k) if isinstance(value, dict) else None
            values.append(value)
    return values


def _refuse(origin: str, field: str, message: str) -> EmulationRefused:
    return EmulationRefused(f"{origin}.{field}" if origin else field, message)


def kernel_tcp(flow: dict) -> dict:
    """How the kernel runs a TCP flow of the engine configuration: ``kernel_cc``,
    per-host ``sysctls`` (``sender``/``receiver``), ``route`` attributes, socket
    options. Raises :class:`EmulationRefused` naming the first field it cannot honour."""
    t, origin = flow["transport"], flow["origin"] + ".transport"
    algorithm = t["cc"]["algorithm"]
    available = kernel_congestion_controls()
    kernel_cc = KERNEL_CC.get(algorithm)
    if kernel_cc is None or kernel_cc not in available:
        raise _refuse(origin, "cc", f"the kernel has no {algorithm!r}: its congestion controls are "
                      f"{', '.join(available) or 'unknown'} (tcplab's reno and newreno run as the kernel's reno)")
    for key, value in t["cc"].items():
        if value not in _accepted(algorithm, "cc", key):
            raise _refuse(origin, f"cc.{key}", f"the kernel's {kernel_cc} takes no {key!r} per connection; "
                          "remove it to run the kernel's own")
    for key in (k for k in t if k not in _KERNEL_SETS):
        if t.get(key) not in _accepted(algorithm, key):
            raise _refuse(origin, _FIELD.get(key, key),
                          "the emulator does not set this in the kernel, which runs its own; remove it "
                          "(or use profile = \"linux\")")
    rto = t["rto"]
    for key in ("initial_ns", "max_ns", "fixed_ns", "floor", "tick_ns"):
        if rto.get(key) not in _accepted(algorithm, "rto", key):
            raise _refuse(origin, f"rto.{key.removesuffix('_ns')}", "Linux sets only the minimum RTO (per route)")
    route = []
    if t["initial_window_segments"] != 10:  # Linux's TCP_INIT_CWND
        route += ["initcwnd", str(t["initial_window_segments"])]
    if rto["min_ns"] != 200_000_000:  # Linux's TCP_RTO_MIN
        route += ["rto_min", f"{rto['min_ns'] // 1_000_000}ms"]
    buffer = t["receive_buffer"]
    mss = t.get("mss_bytes") or 1460
    receive_bytes = amount_bytes(buffer, mss)
    common = {"net.ipv4.tcp_sack": int(t["sack"]), "net.ipv4.tcp_timestamps": int(t["timestamps"]),
              "net.ipv4.tcp_window_scaling": int(t["window_scaling"]),
              # No metrics carried from one connection to the next, and no slow start
              # after idle: each flow starts as the simulator's does.
              "net.ipv4.tcp_no_metrics_save": 1, "net.ipv4.tcp_slow_start_after_idle": 0}
    # Linux advertises about half of a receive buffer's memory (the rest is overhead):
    # the buffer's maximum is twice the window the scenario allows.
    receiver = {**common, "net.ipv4.tcp_rmem": f"4096 131072 {max(2 * receive_bytes, 131072)}"}
    sender = {**common, "net.ipv4.tcp_wmem": f"4096 65536 {max(4 * receive_bytes, 4 << 20)}"}
    max_window = t.get("max_window")
    clamp = None if max_window is None else amount_bytes(max_window, mss)
    return {"kernel_cc": kernel_cc, "mss_bytes": t.get("mss_bytes"), "window_clamp": clamp, "route": route,
            "sysctls": {"sender": sender, "receiver": receiver}}


def check(engine: dict) -> list[dict]:
    """Per flow, how the kernel runs it (``None`` for UDP); raises
    :class:`EmulationRefused` for what it cannot, and EngineConfigError-derived
    ScenarioErrors come from the engine's own checks (shared media, MTU changes)."""
    plans: list[dict] = []
    for f in engine["flows"]:
        kind = f["transport"]["type"]
        if kind == "sctp":
            raise _refuse(f["origin"], "transport", "this kernel has no SCTP (no module can be loaded)")
        if kind == "tcp":
            if f["app"]["type"] not in ("bulk", "file", "rate_limited"):
                raise _refuse(f["origin"], "app", "TCP carries bulk, file or rate_limited applications")
            plans.append(kernel_tcp(f))
        else:
            plans.append({})
    return plans
