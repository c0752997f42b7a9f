"""Keys the engine takes as the schema declares them: one reader per kind of value,
chosen from the key's schema node, and the engine field it fills.

A boolean, a string, one word of a choice, a whole number, a probability, a list of
names, or a value with a unit goes to the engine unchanged but for the unit: in SI
base units, under the key plus the unit's suffix (``delay`` -> ``delay_ns``) or under
the name the schema gives in ``x-tcplab-engine`` (``packet_size`` -> ``payload_bytes``).
Such a key needs no Python when it is added to crates/engine/src/format.rs. Keys whose
translation changes a meaning (profiles, RED's automatic settings, nested tables) are
read by hand in :mod:`tcplab.scenario.schema` and named as they are declared here.

Every engine field so named is recorded in :data:`SCENARIO_KEYS`, from which an error
the engine reports at its own field is restated at the user's key
(:mod:`tcplab.engine_errors`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import fields as F
from . import format
from .errors import ScenarioError
from .fields import Table
from .units import parse_amount, parse_duration_ns, parse_frame_bytes, parse_probability, parse_rate_bps, parse_size_bytes

Reader = Callable[[object, str], Any]

#: Engine field -> the scenario key it comes from, for every key translated by name.
SCENARIO_KEYS: dict[str, str] = {}


def name_by_hand(engine: str, key: str) -> str:
    """Records that a hand-written rule puts ``key`` into engine field ``engine`` (so
    that the engine's errors name the key) and returns ``engine``."""
    known = SCENARIO_KEYS.setdefault(engine, key)
    if known != key:
        raise TypeError(f"engine field {engine!r} comes from both {known!r} and {key!r}: name one of them in x-tcplab-engine")
    return engine


def amount(value: object, path: str) -> dict:
    """A count of packets or bytes, as the engine takes it: ``{"value", "unit"}``."""
    parsed = parse_amount(value, path)
    return {"value": int(parsed.value), "unit": parsed.unit}


def segments(value: object, path: str) -> int:
    """A whole number of segments: 10 or "10 segments"."""
    parsed = parse_amount(value, path)
    if parsed.unit != "packets":
        raise ScenarioError(path, f'expected a number of segments, e.g. 10 or "10 segments", got {value!r}')
    return F.at_most_u32(int(parsed.value), path)


def bytes32(parse: Reader) -> Reader:
    """``parse`` (a size reader) bounded to what the engine keeps in 32 bits."""
    return lambda value, path: F.at_most_u32(parse(value, path), path)


#: How a value of each unit type is read, and the suffix its engine field carries (the
#: engine's configuration is in SI base units, named by them).
UNIT_READERS: dict[str, tuple[Reader, str]] = {
    "Duration": (parse_duration_ns, "_ns"),
    "Rate": (parse_rate_bps, "_bps"),
    "Bytes": (parse_frame_bytes, "_bytes"),
    "Size": (parse_size_bytes, "_bytes"),
    "Segments": (segments, "_segments"),
    "Amount": (amount, ""),
    "Probability": (parse_probability, ""),
}
#: The same for a transport's options, whose byte counts the engine keeps in 32 bits.
UNIT_READERS_32: dict[str, tuple[Reader, str]] = {
    **UNIT_READERS,
    "Bytes": (bytes32(parse_frame_bytes), "_bytes"),
    "Size": (bytes32(parse_size_bytes), "_bytes"),
}


def _value_node(node: dict) -> dict:
    """The key's own schema node: a key that a ``count`` expansion may vary is declared
    as "this, or an `each` list", and is one value by the time it is read."""
    alternatives = [a for a in node.get("anyOf", []) if a.get("$ref") != "#/$defs/Each"]
    return {**node, **alternatives[0]} if len(alternatives) == 1 else node


def _reader(node: dict, units: dict[str, tuple[Reader, str]]) -> tuple[Reader, str] | None:
    """The reader of a value of ``node``'s kind and its engine field's suffix, or None."""
    kind, number_format, minimum = node.get("type"), node.get("format"), node.get("minimum")
    if kind == "boolean":
        return F.boolean, ""
    if kind == "string" and "const" not in node:
        return F.string, ""
    if kind == "integer" and number_format == "uint32" and minimum == 1:
        return F.count32, ""
    if kind == "integer" and number_format == "uint64" and minimum in (0, 1):
        return (F.positive_integer if minimum == 1 else F.integer), ""
    if kind == "array" and node.get("items") == {"type": "string"}:
        return F.list_of(F.string), ""
    if "$ref" in node:
        definition = node["$ref"].rsplit("/", 1)[-1]
        if definition in units:
            return units[definition]
        if format.is_choice(definition):
            return F.choice(format.choices(definition)), ""
    return None


def declared_keys(table: str, variant: str | None = None, *, by_hand: Iterable[str] = (),
                  units: dict[str, tuple[Reader, str]] = UNIT_READERS) -> dict[str, tuple[str, Reader]]:
    """Every key of the table but ``by_hand`` (and the tag): its engine field and its
    reader. Raises TypeError, at import, for a key of a kind no reader here takes: it
    needs a hand-written rule, to be listed in ``by_hand``."""
    skipped = {*by_hand, format.TAG}
    declared = {}
    for key, node in format.table(table, variant)["properties"].items():
        if key in skipped:
            continue
        node = _value_node(node)
        found = _reader(node, units)
        if found is None:
            raise TypeError(f"the {variant or table} key {key!r} ({node}) needs a hand-written rule in tcplab.scenario.schema")
        reader, suffix = found
        declared[key] = (name_by_hand(node.get("x-tcplab-engine") or key + suffix, key), reader)
    return declared


def read_declared(t: Table, declared: dict[str, tuple[str, Reader]], defaults: dict, required: Iterable[str] = ()) -> dict:
    """Every key of ``declared`` read from ``t``, under its engine name. A key in
    ``required`` must be written; any other unwritten key takes ``defaults`` (as a user
    would write it: parsed like a written one), or None where there is none."""
    engine = {}
    written = t.data
    for key, (name, read) in declared.items():
        if key in written or key in required:
            engine[name] = t.get(key, read)
            continue
        default = defaults.get(key)
        engine[name] = None if default is None else _read_default(read, default)
    return engine


#: Defaults already read, by reader and default: most keys of most tables are left
#: unwritten, and reading their defaults again for every table was a third of
#: compiling a scenario of counted tables.
_DEFAULTS_READ: dict[tuple[Reader, str], object] = {}


def _read_default(read: Reader, default: object) -> object:
    """``read(default)``, kept when the value is immutable (a number, a string, a
    boolean): a table (an amount) or a list is made anew for each table."""
    key = (read, repr(default))
    if key in _DEFAULTS_READ:
        return _DEFAULTS_READ[key]
    value = read(default, "")
    if isinstance(value, (bool, int, float, str)):
        _DEFAULTS_READ[key] = value
    return value


class DeclaredTable:
    """One table (or one variant of a tagged table) read from the schema: its keys,
    those read as declared, its defaults and the keys it requires."""

    def __init__(self, table: str, variant: str | None = None, *, by_hand: Iterable[str] = (),
                 units: dict[str, tuple[Reader, str]] = UNIT_READERS) -> None:
        self.keys = format.keys(table, variant)
        self.declared = declared_keys(table, variant, by_hand=by_hand, units=units)
        self.defaults = format.defaults(table, variant)
        self.required = [k for k in format.table(table, variant).get("required", []) if k in self.declared]

    def read(self, t: Table) -> dict:
        """The keys read as declared, under their engine names."""
        return read_declared(t, self.declared, self.defaults, self.required)
