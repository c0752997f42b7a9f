"""The engine's rejection of a scenario restated at the scenario's own field: the
engine reports a type or range error by its position in the JSON text it was given;
the user wrote a scenario file (see :func:`scenario_error`)."""

from __future__ import annotations

import json
import re

from . import _core
from .scenario import Scenario, ScenarioError


def scenario_error(scenario: Scenario, error: _core.EngineConfigError) -> ScenarioError:
    """The engine's rejection of ``scenario`` as a :class:`ScenarioError` naming the
    scenario's file and field."""
    path, message = _name_the_field(scenario, *error.args)
    return ScenarioError(path, message, scenario.source)


#: Engine keys (SI units in the name) and the scenario keys they come from.
SCENARIO_KEYS = {"mtu_bytes": "mtu", "bandwidth_bps": "bandwidth", "delay_ns": "delay", "framing_bytes": "framing",
                  "rate_bps": "rate", "payload_bytes": "packet_size", "size_bytes": "size", "duration_ns": "duration",
                  "bin_ns": "bin", "start_ns": "start", "stop_ns": "stop", "mss_bytes": "mss", "on_ns": "on", "off_ns": "off",
                  "initial_window_segments": "initial_window", "mean_packet_bytes": "mean_packet_size"}

#: A JSON type error from the engine's reader: what was wrong, and where in the text.
_AT_COLUMN = re.compile(r"^(?:not a valid engine configuration: )?(.*) at line 1 column (\d+)$")
_LIMITS = {"u8": 2**8 - 1, "u16": 2**16 - 1, "u32": 2**32 - 1, "u64": 2**64 - 1}


def _name_the_field(scenario: Scenario, path: str, message: str) -> tuple[str, str]:
    """A type or range error the engine reports by its position in the JSON text,
    restated at the scenario's field: the engine item's ``origin`` and the scenario's
    key for it (e.g. "topology.dumbbell.bottleneck: mtu: integer 10000000000, expected
    u32 (at most 4294967295)"). Other errors are returned as they are."""
    m = _AT_COLUMN.match(message)
    if not m:
        return path, message
    steps = _json_path_at(scenario.engine_json(), int(m.group(2)) - 1)
    node, origin = scenario.engine, None
    tail: list = []
    for step in steps:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and "origin" in node:
            origin, tail = node["origin"], []
        else:
            tail.append(step)
    detail = m.group(1).replace("invalid value: ", "").replace("`", "")
    for kind, limit in _LIMITS.items():
        if detail.endswith(f"expected {kind}"):
            detail += f" (at most {limit})"
    tail = [SCENARIO_KEYS.get(s, s) if isinstance(s, str) else s for s in tail]
    field = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in tail).lstrip(".")
    return (origin or path), (f"{field}: {detail}" if field else detail)


def _json_path_at(text: str, offset: int) -> list[str | int]:
    """The keys and indices leading to the value at character ``offset`` of the JSON
    ``text`` (as ``json.dumps`` writes it)."""
    stack: list[list] = []  # per open container: [key or index, expecting a key]
    i = 0
    while i < min(offset, len(text)):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if stack and stack[-1][1]:
                stack[-1][0], stack[-1][1] = json.loads(text[i:j + 1]), False
            i = j
        elif c == "{":
            stack.append([None, True])
        elif c == "[":
            stack.append([0, False])
        elif c in "}]":
            stack.pop()
        elif c == "," and stack:
            if isinstance(stack[-1][0], int) and not stack[-1][1]:
                stack[-1][0] += 1
            else:
                stack[-1][1] = True
        i += 1
    return [frame[0] for frame in stack if frame[0] is not None]
