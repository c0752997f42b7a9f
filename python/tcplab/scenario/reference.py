"""docs/scenario-reference.md, generated from the published format: one table per
scenario table, each key with what it accepts, its default and its help text.

Regenerate with ``python -m tcplab.scenario.reference > docs/scenario-reference.md``;
tests/test_schema.py fails while the file differs from what this prints.
"""

from __future__ import annotations

import json
from typing import Any

from . import format

#: (heading, definition, variant) in reading order: the scenario's own tables first,
#: then the values tables hold.
SECTIONS: list[tuple[str, str, str | None]] = [
    ("Top level", format.ROOT, None),
    ("`[simulation]`", "Simulation", None),
    ("`[topology]`", "Topology", None),
    ("`[topology.dumbbell]`", "Dumbbell", None),
    ("`[topology.fat_tree]`", "FatTree", None),
    ("`[[node]]`", "Node", None),
    ("`[[link]]`", "Link", None),
    ("`forward` / `reverse` of a link", "Direction", None),
    ("`[[segment]]`", "Segment", None),
    ("`[[flow]]`", "Flow", None),
    ("`[metrics]`", "Metrics", None),
    ("`[routing]`", "Routing", None),
]


#: How the page names the tables a key may hold (its section headings).
TABLE_NAMES = {definition: title for title, definition, _ in SECTIONS} | {
    "LinkProperties": "link keys", "PartialLinkProperties": "link keys", "Queue": "`queue`",
    "Loss": "`loss`", "App": "`app`", "TransportTable": "`transport`", "DelayedAckTable": "`delayed_ack`",
    "Rto": "`rto`",
}


def _name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def accepts(node: dict[str, Any], many: bool = False) -> str:
    """What a key's value may be, in a few words (``many``: for the items of a list)."""
    if "$ref" in node:
        name = _name(node["$ref"])
        target = format.schema()["$defs"][name]
        if "x-tcplab-unit" in target:
            return target["x-tcplab-unit"] + ("s" if many else "")
        if name == "Each":
            return ""
        if name == "Cc":
            return "an algorithm's name or a table (`cc`)"
        if "oneOf" in target and all("const" in o for o in target["oneOf"]):
            return " or ".join(f'`"{o["const"]}"`' for o in target["oneOf"])
        if "enum" in target:
            return " or ".join(f'`"{v}"`' for v in target["enum"])
        if name in TABLE_NAMES:
            return f"{'tables' if many else 'a table'} ({TABLE_NAMES[name]})"
        return accepts(target, many)
    if "anyOf" in node:
        parts = [accepts(option, many) for option in node["anyOf"]]
        return " or ".join(p for p in parts if p)
    if "const" in node:
        return f'`"{node["const"]}"`'
    kind = node.get("type")
    if kind == "boolean":
        return "true or false"
    if kind == "integer":
        low, high = node.get("minimum"), node.get("maximum")
        noun = "whole numbers" if many else "a whole number"
        if high is not None:
            return f"{noun}, {low} to {high:,}"
        return f"{noun} ≥ {low}" if low is not None else noun
    if kind == "number":
        return "numbers" if many else "a number"
    if kind == "string":
        return "names" if many else "text"
    if kind == "array":
        return f"a list of {accepts(node.get('items', {}), many=True)}"
    if kind == "object":
        return "tables" if many else "a table"
    return "see below"


def _default(value: Any) -> str:
    if value == "" or value is None:
        return "—"
    return f"`{json.dumps(value, ensure_ascii=False)}`" if not isinstance(value, str) else f'`"{value}"`'


def table(definition: str, variant: str | None = None) -> str:
    """The Markdown table of one scenario table's keys."""
    node = format.table(definition, variant)
    required = set(node.get("required", []))
    rows = ["| key | accepts | default | meaning |", "|---|---|---|---|"]
    for key, prop in node.get("properties", {}).items():
        if key == format.TAG and variant is not None:
            continue
        default = "required" if key in required else _default(prop.get("default"))
        help_text = " ".join(prop.get("description", "").split()).replace("|", "\\|")
        rows.append(f"| `{key}` | {accepts(prop)} | {default} | {help_text} |")
    return "\n".join(rows)


def _tagged(title: str, definition: str) -> list[str]:
    lines = [f"## {title}", ""]
    for variant, option in zip(format.variants(definition), format.definition(definition)["oneOf"], strict=True):
        lines += [f'### `type = "{variant}"`', "", " ".join(option.get("description", "").split()), ""]
        if len(option.get("properties", {})) > 1:
            lines += [table(definition, variant), ""]
    return lines


def _link_properties() -> list[str]:
    return ["## Link keys", "",
            "Every `[[link]]`, the dumbbell's `access`, `left_access`, `right_access` and `bottleneck`, "
            "and (without `cost`, `forward` and `reverse`) every `[[segment]]` take these keys.", "",
            table("LinkProperties"), ""]


def _tcp() -> list[str]:
    profiles = format.extension("TransportTable", "profile", "profiles", "tcp")
    lines = ['## `transport = { type = "tcp", ... }`', "",
             '`transport = "tcp"` (or `"udp"`) takes every default.', "", table("TransportTable", "tcp"), "",
             "### `delayed_ack = { ... }`", "", table("DelayedAckTable"), "",
             "### `rto = { ... }`", "", table("Rto"), "",
             "### What each `profile` sets", "",
             "`delayed_ack` appears as `ack_every` and `delayed_ack_timeout`, `rto` as `rto_initial`, "
             "`rto_min`, `rto_max` and `rto_floor`.", "", "| profile | sets |", "|---|---|"]
    for name, values in profiles.items():
        sets = ", ".join(f"`{k} = {json.dumps(v)}`" for k, v in values.items()) or "nothing: the defaults above"
        lines.append(f"| `{name}` | {sets} |")
    return [*lines, ""]


def _sctp() -> list[str]:
    return ['## `transport = { type = "sctp", ... }`', "",
            '`transport = "sctp"` takes every default (RFC 9260\'s values).', "", table("TransportTable", "sctp"), "",
            "### `delayed_sack = { ... }`", "", table("DelayedSackTable"), "",
            "### SCTP's `rto = { ... }`", "", table("SctpRto"), ""]


def _congestion_control() -> list[str]:
    lines = ["## `cc = { algorithm = ..., ... }`", "",
             "Each algorithm's parameters with their defaults (docs/scenario.md, \"Congestion control\", "
             "explains them and the presets).", "", "| algorithm | presets | parameters (default) |", "|---|---|---|"]
    for option in format.definition("Cc")["anyOf"][1]["oneOf"]:
        properties = option["properties"]
        name = properties["algorithm"]["const"]
        presets = ", ".join(f"`{p}`" for p in properties.get("preset", {}).get("enum", [])) or "—"
        parameters = ", ".join(f"`{k}` ({_default(p.get('default')).strip('`')})" for k, p in properties.items()
                               if k not in ("algorithm", "preset"))
        lines.append(f"| `{name}` | {presets} | {parameters or '—'} |")
    return [*lines, ""]


def markdown() -> str:
    """The whole reference page."""
    lines = ["# Scenario reference", "",
             "<!-- Generated by `python -m tcplab.scenario.reference` from the format the engine publishes "
             "(`tcplab schema`); do not edit by hand. -->", "",
             "Every key of a scenario file: what it accepts, its default and what it means. "
             "docs/scenario.md explains them with examples; `tcplab schema` prints the same as a JSON Schema. "
             "The units (duration, rate, size, amount, probability, segments) are described under "
             "\"Units\" in docs/scenario.md. In `[[node]]`, `[[link]]`, `[[segment]]` and `[[flow]]` tables "
             "with `count`, any key may also be `{ each = [...] }` (one value per copy).", ""]
    for title, definition, variant in SECTIONS:
        lines += [f"## {title}", "", table(definition, variant), ""]
        if definition == "Dumbbell":
            lines += _link_properties()
    lines += _tagged("`queue = { ... }`", "Queue")
    lines += _tagged("`loss = { ... }`", "Loss")
    lines += _tagged("`app = { ... }`", "App")
    lines += _tcp()
    lines += _sctp()
    lines += _congestion_control()
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
