"""How many packets per second the emulator sustains on this machine, and whether a
scenario asks for more.

The capacity is measured end to end with tcplab's own pieces — a UDP generator
blasting datagrams of a full MTU through one 40 Gb/s emulated link to a receiver —
at MTUs 1,500 and 9,000, and stored per machine (hostname and core count) in
``$XDG_CACHE_HOME/tcplab/emu-capacity.json``; the first emulated run on a machine
measures it. Whichever of the generator, the stack or the forwarder limits it, the
figure is what an emulated run can carry.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from ..scenario import load

#: The MTUs measured.
MTUS = (1500, 9000)
#: A scenario may offer at most this fraction of the measured capacity.
HEADROOM = 0.8


def _store() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "tcplab" / "emu-capacity.json"


def _machine() -> str:
    return f"{socket.gethostname()}/{os.cpu_count()} cores"


def calibration_scenario(mtu: int):
    return load({
        "name": f"capacity-{mtu}",
        "simulation": {"duration": "3s", "bin": "100ms"},
        "node": [{"name": "a"}, {"name": "b"}],
        "link": [{"from": "a", "to": "b", "bandwidth": "40Gbps", "delay": "1ms", "mtu": f"{mtu}B",
                  "queue": {"type": "droptail", "limit": "10000 packets"}}],
        "flow": [{"from": "a", "to": "b", "transport": "udp",
                  "app": {"type": "cbr", "rate": "20Gbps", "packet_size": f"{mtu - 28}B"}}],
    })


def record(rates: dict[str, float]) -> dict:
    """Stores ``rates`` (MTU → packets/s) measured now as this machine's capacity and
    returns the record: ``{"machine", "measured_at", "packets_per_s"}``."""
    result = {"machine": _machine(), "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "packets_per_s": rates}
    path = _store()
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = json.loads(path.read_text()) if path.exists() else {}
    stored[_machine()] = result
    path.write_text(json.dumps(stored, indent=2) + "\n")
    return result


def stored() -> dict | None:
    """This machine's stored capacity, if measured."""
    path = _store()
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text()).get(_machine())
    except (OSError, ValueError):
        return None


def packets_per_s(mtu: int, capacity: dict) -> float:
    """The capacity at ``mtu``: the measured figure of the nearest MTU measured."""
    nearest = min(MTUS, key=lambda m: abs(m - mtu))
    return capacity["packets_per_s"][str(nearest)]


def offered_packets_per_s(engine: dict, routes: list) -> list[float]:
    """Per flow, an upper bound of the packets per second it makes the forwarder carry:
    the smallest rate on its route (a UDP flow at most its application's rate) in
    full-MTU packets, plus one ACK per two data packets for TCP."""
    links = engine["links"]
    offered = []
    for f, (forward, _) in zip(engine["flows"], routes, strict=True):
        rate = min(links[c // 2]["bandwidth_bps"] for c in forward)
        mtu = links[forward[0] // 2]["mtu_bytes"]
        app = f["app"]
        if app.get("rate_bps"):
            payload = app.get("payload_bytes", mtu - 40)
            rate = min(rate, app["rate_bps"] * (payload + 28) / payload)
            size = min(payload + 28, mtu)
        else:
            size = mtu
        data = rate / (8 * size)
        offered.append(data * (1.5 if f["transport"]["type"] == "tcp" else 1.0))
    return offered
