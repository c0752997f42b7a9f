"""The engine's rejection of a scenario restated at the scenario's own field: the
engine reports a type or range error at its place in the configuration it was given
(`flows[0].transport.mss_bytes`); the user wrote a scenario file, with its own keys
and origins (see :func:`scenario_error`)."""

from __future__ import annotations

import re

from . import _core
from .scenario import Scenario, ScenarioError
from .scenario.declared import SCENARIO_KEYS


def scenario_error(scenario: Scenario, error: _core.EngineConfigError) -> ScenarioError:
    """The engine's rejection of ``scenario`` as a :class:`ScenarioError` naming the
    scenario's file and field."""
    path, message = _name_the_field(scenario, *error.args)
    return ScenarioError(path, message, scenario.source)


#: A type or range error from the engine's reader: where in its configuration, and what.
_AT_PATH = re.compile(r"^not a valid engine configuration at ([^:]*): (.*)$")
_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")
_LIMITS = {"u8": 2**8 - 1, "u16": 2**16 - 1, "u32": 2**32 - 1, "u64": 2**64 - 1}


def _name_the_field(scenario: Scenario, path: str, message: str) -> tuple[str, str]:
    """A type or range error the engine reports at its place in the configuration
    (``flows[0].transport.mss_bytes``), restated at the scenario's field: the engine
    item's ``origin`` and the scenario's key for it (e.g. "topology.dumbbell.bottleneck:
    mtu: integer 10000000000, expected u32 (at most 4294967295)"). Other errors are
    returned as they are."""
    m = _AT_PATH.match(message)
    if not m:
        return path, message
    steps = [key if index == "" else int(index) for key, index in _STEP.findall(m.group(1))]
    node, origin = scenario.engine, None
    tail: list = []
    for step in steps:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            tail.append(step)
            break
        if isinstance(node, dict) and "origin" in node:
            origin, tail = node["origin"], []
        else:
            tail.append(step)
    detail = m.group(2).replace("invalid value: ", "").replace("`", "")
    for kind, limit in _LIMITS.items():
        if detail.endswith(f"expected {kind}"):
            detail += f" (at most {limit})"
    tail = [SCENARIO_KEYS.get(s, s) if isinstance(s, str) else s for s in tail]
    field = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in tail).lstrip(".")
    return (origin or path), (f"{field}: {detail}" if field else detail)
