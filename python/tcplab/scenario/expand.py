"""``count = N`` on ``[[node]]``, ``[[link]]``, ``[[flow]]`` and ``[[segment]]`` tables:
one table written, N made.

Inside a counted table, every string may hold ``{expression}`` placeholders evaluated
with ``i`` (the index, 0…N-1) and ``n`` (N) bound — ``from = "left{i}"``,
``start = "{i*100}ms"``, ``delay = "{1 + i % 3}ms"`` (see
:mod:`tcplab.scenario.expressions`) — and any value may be ``{ each = [...] }``, a list
of N values of which table ``i`` takes item ``i``. A ``name`` without a placeholder gets
the index appended (``name = "web"`` makes ``web0``, ``web1``, …).
"""

from __future__ import annotations

from .errors import ScenarioError
from .expressions import is_template, render
from .fields import join

#: The top-level lists whose tables may carry ``count``.
COUNTED_LISTS = ("node", "link", "flow", "segment")


def expand_counts(raw: dict) -> dict:
    """``raw`` with every counted table replaced by its N copies (in place, returned)."""
    for key in COUNTED_LISTS:
        items = raw.get(key)
        if not isinstance(items, list) or not any(isinstance(t, dict) and "count" in t for t in items):
            continue
        expanded: list = []
        for index, table in enumerate(items):
            if isinstance(table, dict) and "count" in table:
                expanded.extend(_expand_table(table, join(key, index)))
            else:
                expanded.append(table)
        raw[key] = expanded
    return raw


def _expand_table(table: dict, path: str) -> list:
    n = table["count"]
    if isinstance(n, bool) or not isinstance(n, int):
        raise ScenarioError(join(path, "count"), f"expected a whole number of tables to make, got {n!r}")
    if n < 1:
        raise ScenarioError(join(path, "count"), f"must be at least 1, got {n} (remove the table to have none)")
    template = {k: v for k, v in table.items() if k != "count"}
    if isinstance(template.get("name"), str) and not is_template(template["name"]):
        template["name"] += "{i}"
    return [_instantiate(template, {"i": i, "n": n}, path) for i in range(n)]


def _instantiate(value: object, names: dict, path: str) -> object:
    """A fresh copy of ``value`` for table ``names["i"]``: every dict and list is
    rebuilt (the other values a scenario holds are immutable), so the N tables share
    no container with the template or with each other."""
    if isinstance(value, str):
        return render(value, names, path) if is_template(value) else value
    if isinstance(value, dict):
        if len(value) == 1 and "each" in value:
            return _pick(value["each"], names, join(path, "each"))
        return {k: _instantiate(v, names, join(path, k)) if _may_change(v) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_instantiate(v, names, join(path, i)) if _may_change(v) else v for i, v in enumerate(value)]
    return value


def _may_change(value: object) -> bool:
    """Whether :func:`_instantiate` could return anything but ``value`` itself: a
    container (always copied) or a template. Other values are kept as they are
    without building the path an error there would name."""
    return isinstance(value, (dict, list)) or is_template(value)


def _pick(values: object, names: dict, path: str) -> object:
    if not isinstance(values, list) or len(values) != names["n"]:
        got = f"{len(values)} values" if isinstance(values, list) else repr(values)
        raise ScenarioError(path, f"expected a list of count = {names['n']} values (one per table), got {got}")
    return _instantiate(values[names["i"]], names, path)
