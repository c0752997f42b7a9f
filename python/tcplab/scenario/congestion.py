"""The ``cc`` key of a TCP transport: an algorithm name, or a table with the algorithm,
an optional named preset, and any of its parameters.

The algorithms, their parameters, defaults and presets come from the engine
(``_core.congestion_controls()``, built from each algorithm's Rust configuration), so
this module holds no list of its own: a parameter's type follows its default (a
number, a whole number, true/false), and an engine field ending in ``_ns`` is a
duration written without the suffix (``probe_rtt_duration = "200ms"``).
"""

from __future__ import annotations

import functools
import json

from . import fields as F
from .errors import ScenarioError, suggest
from .units import parse_duration_ns


@functools.cache
def catalogue() -> dict[str, dict]:
    """``{algorithm: {"defaults": {...}, "presets": {name: {...}}}}`` from the engine."""
    from .. import _core

    return json.loads(_core.congestion_controls())


def algorithms() -> list[str]:
    """The algorithm names scenario files may use."""
    return list(catalogue())


def _scenario_key(engine_field: str) -> str:
    return engine_field[:-3] if engine_field.endswith("_ns") else engine_field


def _parse_param(engine_field: str, default: object, value: object, path: str) -> object:
    if engine_field.endswith("_ns"):
        return parse_duration_ns(value, path)
    if isinstance(default, bool):
        return F.boolean(value, path)
    if isinstance(default, int):
        return F.integer(value, path)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ScenarioError(path, f"expected a number, got {value!r}")
    return float(value)


def _profile_params(name: str, profile_preset: str | None) -> dict:
    """The parameters of ``name``'s preset called ``profile_preset``, if it has one."""
    if profile_preset is None:
        return {}
    return dict(catalogue()[name]["presets"].get(profile_preset, {}))


def parse_cc(value: object, path: str, profile_preset: str | None = None) -> dict:
    """``"cubic"`` or ``{ algorithm = "cubic", preset = "linux-2.6.18", beta = 0.7 }``
    → the engine's ``{"algorithm": ..., every parameter}``. Ranges are checked by the
    engine, which names the parameter. ``profile_preset`` is the TCP profile's era
    (e.g. ``"linux-2.6.18"``): an algorithm that has a preset of that name starts from
    it unless the table names another."""
    names = algorithms()
    if isinstance(value, str):
        name = F.choice(names)(value, path)
        return {"algorithm": name, **catalogue()[name]["defaults"], **_profile_params(name, profile_preset)}
    if not isinstance(value, dict):
        raise ScenarioError(path, f'expected an algorithm name or a table like {{ algorithm = "cubic", beta = 0.7 }}, got {value!r}')
    if "algorithm" not in value:
        raise ScenarioError(F.join(path, "algorithm"), f"missing (required); expected one of: {', '.join(names)}")
    name = F.choice(names)(value["algorithm"], F.join(path, "algorithm"))
    entry = catalogue()[name]
    keys = {_scenario_key(k): k for k in entry["defaults"]}
    F.Table(value, path, ["algorithm", "preset", *keys])
    params = {**entry["defaults"], **_profile_params(name, profile_preset)}
    if "preset" in value:
        presets = list(entry["presets"])
        if not presets:
            raise ScenarioError(F.join(path, "preset"), f"{name} has no presets")
        preset = value["preset"]
        if not isinstance(preset, str) or preset not in presets:
            hint = suggest(preset, presets) if isinstance(preset, str) else ""
            raise ScenarioError(F.join(path, "preset"), f"unknown preset {preset!r}{hint}; {name} has: {', '.join(presets)}")
        params.update(entry["presets"][preset])
    for key, field in keys.items():
        if key in value:
            params[field] = _parse_param(field, entry["defaults"][field], value[key], F.join(path, key))
    return {"algorithm": name, **params}
