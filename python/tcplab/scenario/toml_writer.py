"""Writes a scenario (the plain data a scenario file parses to) back as TOML.

Used to store the scenario exactly as run next to its results, so that ``tcplab run
DIR/scenario.toml`` repeats the run. The layout is the one people write by hand:
top-level values first, then one ``[table]`` per top-level table, then one
``[[array]]`` entry per element of a top-level array of tables; anything deeper is
an inline table or array. Reading the output with ``tomllib`` gives the input back.
"""

from __future__ import annotations

import json
import math
import re

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def dumps(doc: dict) -> str:
    """``doc`` as TOML text."""
    lines: list[str] = []
    tables = [(k, v) for k, v in doc.items() if isinstance(v, dict)]
    arrays = [(k, v) for k, v in doc.items() if _is_array_of_tables(v)]
    for key, value in doc.items():
        if not isinstance(value, dict) and not _is_array_of_tables(value):
            lines.append(f"{_key(key)} = {value_text(value)}")
    for key, table in tables:
        lines += ["", f"[{_key(key)}]"]
        lines += [f"{_key(k)} = {value_text(v)}" for k, v in table.items()]
    for key, array in arrays:
        for table in array:
            lines += ["", f"[[{_key(key)}]]"]
            lines += [f"{_key(k)} = {value_text(v)}" for k, v in table.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_array_of_tables(value: object) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(isinstance(x, dict) for x in value)


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


_PLAIN = re.compile(r'^[^"\\\x00-\x1f\x7f]*$')


def _string(text: str) -> str:
    if _PLAIN.match(text):
        return f'"{text}"'  # nothing to escape (the common case, and 10× cheaper)
    # JSON's escapes (\" \\ \n \t \uXXXX) are valid in TOML basic strings.
    return json.dumps(text, ensure_ascii=False)


def value_text(value: object) -> str:
    """One TOML value (inline tables and arrays for nested data)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {value_text(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")
