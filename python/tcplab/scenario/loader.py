"""Loading scenarios from files, TOML text or dicts, with command-line overrides."""

from __future__ import annotations

import copy
import json
import os
import tomllib
from collections import namedtuple
from typing import TYPE_CHECKING

from .errors import ScenarioError
from .schema import compile_scenario

if TYPE_CHECKING:
    from typing import Any

# os.path rather than pathlib, and no dataclasses or typing at run time: each would
# add tens of milliseconds to every `tcplab` start on a small machine.
ScenarioSource = str | os.PathLike | dict


class Scenario(namedtuple("Scenario", "source raw engine")):
    """A scenario ready for the engine: where it came from (``source``), what the
    user wrote after overrides (``raw``) and the engine configuration compiled from it
    (``engine``). Immutable and picklable."""

    __slots__ = ()

    @property
    def name(self) -> str:
        """A short name: the scenario's ``name`` key, or the file's stem."""
        if isinstance(self.raw.get("name"), str):
            return self.raw["name"]
        if self.source in ("<text>", "<dict>"):
            return "scenario"
        return os.path.splitext(os.path.basename(self.source))[0]

    def engine_json(self) -> str:
        """The engine configuration as JSON (the engine's input format)."""
        return json.dumps(self.engine)


def _parse_text(text: str, source: str, fmt: str) -> dict:
    if not text.strip():
        raise ScenarioError("", "the scenario is empty: expected at least [simulation], a topology or links, and [[flow]]", source)
    if fmt == "yaml":
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ScenarioError("", f"malformed YAML: {e}", source) from None
        if not isinstance(data, dict):
            raise ScenarioError("", "expected a mapping at the top of the YAML file", source)
        return data
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"malformed TOML: {e}", source) from None


def read_raw(source: ScenarioSource) -> tuple[dict, str]:
    """The user's scenario as a dict, and a name for error messages."""
    if isinstance(source, dict):
        return copy.deepcopy(source), "<dict>"
    looks_like_path = isinstance(source, os.PathLike) or ("\n" not in source and "=" not in source)
    if looks_like_path:
        path = os.fspath(source)
        if not os.path.exists(path):
            raise ScenarioError("", "no such file", path)
        if os.path.isdir(path):
            raise ScenarioError("", "is a directory, expected a scenario file (.toml or .yaml)", path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise ScenarioError("", f"cannot read: {e}", path) from None
        fmt = "yaml" if os.path.splitext(path)[1].lower() in (".yaml", ".yml") else "toml"
        return _parse_text(text, path, fmt), path
    return _parse_text(source, "<text>", "toml"), "<text>"


def _override_value(text: str) -> Any:
    """A --set value: parsed as TOML if it is a TOML value (42, 0.5, true, [..], {..}),
    otherwise kept as a string (so 50Mbps needs no quotes)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _override_steps(key: str) -> list[str | int]:
    steps: list[str | int] = []
    for part in key.replace("]", "").replace("[", ".").split("."):
        if part == "":
            raise ScenarioError(key, "empty segment in the field path (expected e.g. flow[0].app.rate)", "--set")
        steps.append(int(part) if part.isdigit() else part)
    return steps


def apply_override(raw: dict, assignment: str) -> None:
    """Applies one ``KEY=VALUE`` (KEY a dotted path such as ``flow[0].app.rate`` or
    ``topology.dumbbell.bottleneck.bandwidth``) to the scenario dict in place."""
    if "=" not in assignment:
        raise ScenarioError(assignment, "expected KEY=VALUE, e.g. topology.dumbbell.bottleneck.bandwidth=50Mbps", "--set")
    key, _, text = assignment.partition("=")
    key = key.strip()
    steps = _override_steps(key)
    node: Any = raw
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        where = key if last else ".".join(str(s) for s in steps[: i + 1])
        if isinstance(step, int):
            if not isinstance(node, list):
                raise ScenarioError(where, "is not a list, cannot index it", "--set")
            if step >= len(node):
                raise ScenarioError(where, f"index {step} out of range (the list has {len(node)} items)", "--set")
        elif not isinstance(node, dict):
            raise ScenarioError(where, "is not a table, cannot set a key in it", "--set")
        if last:
            node[step] = _override_value(text.strip())
        else:
            if isinstance(step, str) and step not in node:
                node[step] = {}
            node = node[step]


def load(source: ScenarioSource, overrides: list[str] | tuple[str, ...] = (), seed: int | None = None) -> Scenario:
    """Reads, overrides, validates (syntax and units) and compiles a scenario.

    The engine checks the rest (references, reachability, ranges) when it is built.
    """
    raw, name = read_raw(source)
    for assignment in overrides:
        apply_override(raw, assignment)
    if seed is not None:
        raw.setdefault("simulation", {})
        if isinstance(raw["simulation"], dict):
            raw["simulation"]["seed"] = seed
    try:
        engine = compile_scenario(raw)
    except ScenarioError as e:
        raise e.with_source(name) from None
    return Scenario(source=name, raw=raw, engine=engine)
