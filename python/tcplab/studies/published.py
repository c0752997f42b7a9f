"""A study's published numbers as tables (``[[published_table]]``): one row per number,
the columns shared, instead of one eight-line ``[[published]]`` entry each (jumbo's 128
numbers took 1,451 lines). Expanded when the study loads into the ``[[published]]``
entries the rest of :mod:`tcplab.studies` reads::

    [[published_table]]
    sweep = "table2"
    scale = 1e-06
    where = ["condition", "backbone"]   # columns that name the sweep point
    row = ["id"]                        # columns that name the results table's row
    columns = ["label", "value", "condition", "backbone", "table", "id", "column"]
    rows = [
      ["none, narrow: node 7 max Mb/s", 9.6, "none", "narrow", "flows", "node7", "throughput_max_bps"],
    ]

``label``, ``value`` and ``column`` are required columns; ``table`` (default ``runs``)
may be a column or a key of the table, as may ``scale``.
"""

from __future__ import annotations

from .shape import NUMBER, NUMBER_OR_TEXT, TEXT, TEXTS, after_key, list_of, table

#: The columns every published table has.
REQUIRED_COLUMNS = ("label", "value", "column")

PUBLISHED_TABLE = table({"sweep": TEXT, "table": TEXT, "scale": NUMBER, "where": TEXTS, "row": TEXTS,
                         "columns": TEXTS, "rows": list_of(list_of(NUMBER_OR_TEXT))},
                        required=("sweep", "columns", "rows"))


def expand(data: dict) -> tuple[list[dict], str | None]:
    """The study's ``[[published]]`` entries followed by its tables' rows as entries,
    and what is wrong with a table (``published_table[0].rows[3]: …``), or None."""
    entries = list(data.get("published", []))
    for i, t in enumerate(data.get("published_table", [])):
        where = f"published_table[{i}]"
        found = PUBLISHED_TABLE(t)
        if found is not None:
            return entries, f"{where}{after_key(found)}"
        columns = t["columns"]
        keys = (*t.get("where", []), *t.get("row", []))
        missing = [c for c in (*REQUIRED_COLUMNS, *keys) if c not in columns]
        if missing:
            return entries, f"{where}.columns: missing {', '.join(missing)} (needed by label/value/column, where and row)"
        for j, values in enumerate(t["rows"]):
            if len(values) != len(columns):
                return entries, f"{where}.rows[{j}]: {len(values)} values for {len(columns)} columns"
            cell = dict(zip(columns, values, strict=True))
            if not isinstance(cell["value"], (int, float)):
                return entries, f"{where}.rows[{j}]: value: expected a number, got {cell['value']!r}"
            entry: dict = {"label": cell["label"], "value": cell["value"], "sweep": t["sweep"],
                           "where": {k: cell[k] for k in t.get("where", [])}}
            table_name = cell.get("table", t.get("table"))
            if table_name is not None:
                entry["table"] = table_name
            if t.get("row"):
                entry["row"] = {k: cell[k] for k in t["row"]}
            entry["column"] = cell["column"]
            if "scale" in t or "scale" in cell:
                entry["scale"] = cell.get("scale", t.get("scale"))
            entries.append(entry)
    return entries, None
