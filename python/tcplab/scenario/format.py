"""The scenario format as the engine publishes it: key lists, choices and defaults.

The format is written once, as Rust types (``crates/engine/src/format.rs``), whose JSON
Schema ``_core.scenario_schema()`` returns and ``tcplab schema`` prints. The parser in
:mod:`tcplab.scenario.schema` takes every key list, choice and default it checks
against from here rather than keeping lists of its own, so the published schema, the
parser and docs/scenario.md (checked by tests/test_schema.py) cannot drift apart.

Definitions are named as in the schema's ``$defs`` (``"Flow"``, ``"Queue"``, ``"Rto"``;
``"Scenario"`` is the root). A *tagged* definition is a ``oneOf`` of tables told apart
by a constant key (``type``): its variants are that key's values.
"""

from __future__ import annotations

import functools
import json
from typing import Any

ROOT = "Scenario"
TAG = "type"


@functools.cache
def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of scenario files."""
    from .. import _core

    return json.loads(_core.scenario_schema())


def definition(name: str) -> dict[str, Any]:
    """The schema of one definition, with a ``$ref`` standing alone followed."""
    found = schema() if name == ROOT else schema()["$defs"][name]
    return _resolve(found)


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node and "properties" not in node:
        node = schema()["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def table(name: str, variant: str | None = None) -> dict[str, Any]:
    """The schema of a table: a definition, or one variant of a tagged definition."""
    node = definition(name)
    if variant is None:
        return node
    for table in node.get("oneOf", []):
        if table.get("properties", {}).get(TAG, {}).get("const") == variant:
            return table
    raise KeyError(f"{name} has no variant {variant!r}")


def keys(name: str, variant: str | None = None) -> list[str]:
    """The keys a table takes, in the schema's order (for a tagged definition, those of
    ``variant``, its tag included)."""
    return list(table(name, variant).get("properties", {}))


def variants(name: str) -> list[str]:
    """The values of the tag (``type``) of a tagged definition, in the schema's order."""
    return [table["properties"][TAG]["const"] for table in definition(name)["oneOf"]]


def is_choice(name: str) -> bool:
    """Whether a definition is a string choice (an ``enum``, or a ``oneOf`` of
    documented constants)."""
    node = definition(name)
    return "enum" in node or ("oneOf" in node and all("const" in option for option in node["oneOf"]))


def choices(name: str) -> list[str]:
    """The words a string-choice definition allows (an ``enum``, or a ``oneOf`` of
    documented constants)."""
    node = definition(name)
    if "enum" in node:
        return list(node["enum"])
    return [option["const"] for option in node["oneOf"]]


def default(name: str, key: str, variant: str | None = None) -> Any:
    """The value a key takes when a table leaves it out, written as a user would write it.
    Raises KeyError for a key with no default (required, or derived from other keys)."""
    return table(name, variant)["properties"][key]["default"]


def defaults(name: str, variant: str | None = None) -> dict[str, Any]:
    """Every key of a table that has a default, with it."""
    properties = table(name, variant).get("properties", {})
    return {key: p["default"] for key, p in properties.items() if "default" in p}


def extension(name: str, key: str, field: str, variant: str | None = None) -> Any:
    """A tcplab extension (``x-tcplab-...``) attached to one key of a table."""
    return table(name, variant)["properties"][key][f"x-tcplab-{field}"]


def all_keys() -> dict[str, list[str]]:
    """Every table's keys, by definition name (tagged definitions as ``Name.variant``)."""
    found: dict[str, list[str]] = {ROOT: keys(ROOT)}
    for name, node in schema()["$defs"].items():
        if "properties" in node:
            found[name] = keys(name)
        for table in node.get("oneOf", []):
            tag = table.get("properties", {}).get(TAG, {}).get("const")
            if tag is not None:
                found[f"{name}.{tag}"] = list(table["properties"])
    return found
