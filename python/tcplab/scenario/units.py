"""Parsing of quantities with units: "2ms", "10Mbps", "1.5KB", "50 packets".

Durations, rates and sizes carry their unit: a bare number (`delay = 10`) is an error
that says how to write it, since nothing tells 10 ms from 10 s or 10 Mbit/s from 10
bit/s. Zero needs no unit, and two places keep the convention every tool shares:
MTUs and MSSs are plain byte counts (`mtu = 9000`, as `ip link` writes it) and queue
limits plain packet counts (as in ns-2 and ns-3).
Decimal prefixes are powers of 1000 (1 KB = 1000 B, 1 Mbps = 10^6 bit/s); binary
prefixes (KiB, MiB, GiB) are powers of 1024. Everything returns integers in the
engine's units (ns, bit/s, bytes), rounded to the nearest unit.
"""

from __future__ import annotations

import math
import re
from collections import namedtuple

from .errors import ScenarioError, describe_value, suggest

_NUMBER_UNIT = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([^\d\s].*?)?\s*$")

DURATION_UNITS = {
    "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0,
    "min": 60.0, "h": 3600.0,
}
RATE_UNITS = {
    "bps": 1.0, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12,
    "b/s": 1.0, "kb/s": 1e3, "Kb/s": 1e3, "Mb/s": 1e6, "Gb/s": 1e9, "Tb/s": 1e12,
    "B/s": 8.0, "kB/s": 8e3, "KB/s": 8e3, "MB/s": 8e6, "GB/s": 8e9,
}
SIZE_UNITS = {
    "B": 1, "byte": 1, "bytes": 1,
    "KB": 1000, "kB": 1000, "MB": 1000**2, "GB": 1000**3,
    "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3,
}
PACKET_UNITS = {"packet", "packets", "pkt", "pkts", "p", "segment", "segments", "seg", "segs"}


def _split(value: object, path: str, what: str, example: str) -> tuple[float, str | None]:
    if isinstance(value, bool):
        raise ScenarioError(path, f"expected {what} like {example}, got {describe_value(value)}")
    if isinstance(value, (int, float)):
        number, unit = float(value), None
    elif isinstance(value, str):
        m = _NUMBER_UNIT.match(value)
        if not m:
            raise ScenarioError(path, f"expected {what} like {example}, got {value!r}")
        number, unit = float(m.group(1)), m.group(2)
    else:
        raise ScenarioError(path, f"expected {what} like {example}, got {describe_value(value)}")
    if not math.isfinite(number):
        raise ScenarioError(path, f"expected a finite {what}, got {value!r}")
    if number < 0:
        raise ScenarioError(path, f"must not be negative, got {value!r}")
    return number, unit


#: The engine counts time in ns, rates in bit/s and sizes in bytes as 64-bit unsigned
#: integers: a value beyond that is an input error, not an overflow.
_U64_MAX = 2**64 - 1


def _whole(x: float, path: str, value: object, what: str, unit: str) -> int:
    """``x`` rounded to an integer of the engine's 64-bit range, or a ScenarioError."""
    if not math.isfinite(x) or round(x) > _U64_MAX:
        raise ScenarioError(path, f"{what} {value!r} is too large: at most {_U64_MAX:.4g} {unit}")
    return round(x)


def _scale(unit: str, table: dict, path: str, what: str, value: object) -> float:
    if unit in table:
        return table[unit]
    known = ", ".join(table)
    raise ScenarioError(path, f"unknown {what} unit '{unit}' in {value!r}{suggest(unit, table)}; known units: {known}")


def _bare(value: object) -> str:
    """How a bare number was written, for the message that asks for its unit."""
    return str(value).strip() if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)


def parse_duration_ns(value: object, path: str) -> int:
    """A duration ("2ms", "1.5s", "100us", or 0) in ns."""
    number, unit = _split(value, path, "a duration", '"2ms"')
    if unit is None and number != 0:
        n = _bare(value)
        raise ScenarioError(path, f'a duration needs its unit: write "{n}ms" or "{n}s", not {value!r}')
    scale = 1.0 if unit is None else _scale(unit, DURATION_UNITS, path, "time", value)
    return _whole(number * scale * 1e9, path, value, "duration", "ns (584 years)")


def parse_rate_bps(value: object, path: str) -> int:
    """A bit rate ("100Mbps", "1Gbps", "64kbps", or 0) in bit/s."""
    number, unit = _split(value, path, "a bit rate", '"100Mbps"')
    if unit is None and number != 0:
        n = _bare(value)
        raise ScenarioError(path, f'a bit rate needs its unit: write "{n}Mbps" or "{n}kbps" ("{n}bps" for bit/s), not {value!r}')
    scale = 1.0 if unit is None else _scale(unit, RATE_UNITS, path, "rate", value)
    return _whole(number * scale, path, value, "rate", "bit/s")


def parse_size_bytes(value: object, path: str, *, bare_is_bytes: bool = False) -> int:
    """A size in bytes ("1500B", "1.5KB", "9KiB", or 0). ``bare_is_bytes``: a plain
    number is a byte count (MTU, MSS, framing: written that way by every tool)."""
    number, unit = _split(value, path, "a size", '"1500B"')
    if unit is None and number != 0 and not bare_is_bytes:
        n = _bare(value)
        raise ScenarioError(path, f'a size needs its unit: write "{n}B", "{n}KB" or "{n}MB", not {value!r}')
    if unit is not None and unit.lower() in PACKET_UNITS:
        raise ScenarioError(path, f"expected a size in bytes here, got {value!r}")
    scale = 1 if unit is None else _scale(unit, SIZE_UNITS, path, "size", value)
    result = _whole(number * scale, path, value, "size", "bytes")
    if result != number * scale and unit in (None, "B", "byte", "bytes"):
        raise ScenarioError(path, f"expected a whole number of bytes, got {value!r}")
    return result


def parse_frame_bytes(value: object, path: str) -> int:
    """An MTU, MSS or framing overhead: a size whose bare number is a byte count."""
    return parse_size_bytes(value, path, bare_is_bytes=True)


class Amount(namedtuple("Amount", "value unit")):
    """A count of packets or of bytes (queue limits, RED thresholds): ``value`` and
    ``unit``, which is "packets" or "bytes". Immutable."""

    __slots__ = ()


def amount_bytes(amount: dict, packet_bytes: float) -> float:
    """A compiled amount (``{"value": ..., "unit": "packets" | "bytes"}``, as queue
    limits and buffers reach the engine) in bytes, a packet counting ``packet_bytes``."""
    return amount["value"] * (packet_bytes if amount["unit"] == "packets" else 1)


def parse_amount(value: object, path: str, *, integral: bool = True) -> Amount:
    """ "100 packets", "20 segments", "150KB" or a plain number of packets (segments)."""
    number, unit = _split(value, path, "a packet count or size", '"100 packets" or "150KB"')
    if unit is None or unit.lower() in PACKET_UNITS:
        _whole(number, path, value, "packet count", "packets")
        if integral and number != int(number):
            raise ScenarioError(path, f"expected a whole number of packets, got {value!r}")
        return Amount(number, "packets")
    if unit in SIZE_UNITS:
        return Amount(_whole(number * SIZE_UNITS[unit], path, value, "size", "bytes"), "bytes")
    choices = [*SIZE_UNITS, "packets"]
    raise ScenarioError(path, f"unknown unit '{unit}' in {value!r}{suggest(unit, choices)}; expected packets or a byte unit ({', '.join(SIZE_UNITS)})")


def parse_probability(value: object, path: str) -> float:
    """A probability: 0.05 or "5%"."""
    if isinstance(value, str) and value.strip().endswith("%"):
        number, _ = _split(value.strip()[:-1], path, "a probability", '0.05 or "5%"')
        number /= 100
    else:
        number, unit = _split(value, path, "a probability", '0.05 or "5%"')
        if unit is not None:
            raise ScenarioError(path, f"expected a probability like 0.05 or \"5%\", got {value!r}")
    if number > 1:
        raise ScenarioError(path, f"expected a probability between 0 and 1, got {value!r}")
    return number
