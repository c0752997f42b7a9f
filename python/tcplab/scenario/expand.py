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

from collections.abc import Callable

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
    make = _maker(template, path)
    assert make is not None  # a table is always made anew
    return [make({"i": i, "n": n}) for i in range(n)]


#: Makes one copy of a value from the names of its table (``i``, ``n``).
Maker = Callable[[dict], object]


def _maker(value: object, path: str) -> Maker | None:
    """How each of the N tables gets its copy of ``value``, worked out once for all of
    them (what is a template, where the paths of errors lie): every dict and list is
    made anew, so the tables share no container with the template or each other; a
    template is rendered; ``{ each = [...] }`` picks table ``i``'s item. None for a
    value kept as it is (the other values a scenario holds are immutable)."""
    if isinstance(value, str):
        return (lambda names: render(value, names, path)) if is_template(value) else None
    if isinstance(value, dict):
        if len(value) == 1 and "each" in value:
            each, where = value["each"], join(path, "each")
            return lambda names: _pick(each, names, where)
        keyed = [(k, m) for k, v in value.items() if (m := _maker(v, join(path, k))) is not None]

        def make_dict(names: dict) -> dict:
            made = dict(value)  # in the template's key order
            for k, m in keyed:
                made[k] = m(names)
            return made

        return make_dict
    if isinstance(value, list):
        indexed = [(i, m) for i, v in enumerate(value) if (m := _maker(v, join(path, i))) is not None]

        def make_list(names: dict) -> list:
            made = list(value)
            for i, m in indexed:
                made[i] = m(names)
            return made

        return make_list
    return None


def _pick(values: object, names: dict, path: str) -> object:
    if not isinstance(values, list) or len(values) != names["n"]:
        got = f"{len(values)} values" if isinstance(values, list) else repr(values)
        raise ScenarioError(path, f"expected a list of count = {names['n']} values (one per table), got {got}")
    chosen = values[names["i"]]
    make = _maker(chosen, path)
    return chosen if make is None else make(names)
