"""tcplab's value of one published number: a column of one row of a catalog table
(``runs``, ``flows`` or ``links``) at one point of a sweep, averaged over the
replications (mean and 95% confidence interval).

A study's ``[[published]]`` entry names it as data::

    { label = "...", value = 35.2, sweep = "table2", where = { backbone = "narrow" },
      table = "flows", row = { id = "node7" }, column = "goodput_bps", scale = 1e-6 }
"""

from __future__ import annotations

from pathlib import Path

from ..sweeps.catalog import connect
from ..sweeps.stats import mean_ci


class MeasureError(ValueError):
    """A study's quantity names something the sweep's catalog does not hold."""


def measure(item: dict, out: Path) -> tuple[float | None, float | None]:
    """(mean, CI half-width) of the entry's quantity over its point's replications."""
    root = out / "sweeps" / item["sweep"]
    if not (root / "sweep.json").exists():
        return None, None
    table, column = item.get("table", "runs"), item["column"]
    where, params = ["r.status = 'ok'"], []
    for name, value in item.get("where", {}).items():
        where.append(f'r."{name}" = ?')
        params.append(value)
    if table == "runs":
        sql = f'SELECT r."{column}" AS v FROM runs r WHERE {" AND ".join(where)}'
    else:
        for name, value in item.get("row", {}).items():
            where.append(f't."{name}" = ?')
            params.append(value)
        sql = f'SELECT t."{column}" AS v FROM {table} t JOIN runs r USING (key) WHERE {" AND ".join(where)}'
    import duckdb

    con = connect(root)
    try:
        values = [row[0] for row in con.execute(sql, params).fetchall() if row[0] is not None]
    except duckdb.Error as e:
        # A column or row the catalog does not have, or a value of the wrong type: the
        # study file's entry is wrong, not the runs.
        reason = str(e).splitlines()[0].split(": ", 1)[-1]
        raise MeasureError(f"{table}.{column} of sweep {item['sweep']!r} (where {item.get('where', {})}, row "
                           f"{item.get('row', {})}) cannot be read: {reason}") from None
    finally:
        con.close()
    if not values:
        return None, None
    scale = item.get("scale", 1.0)
    mean, half = mean_ci([float(v) * scale for v in values])
    return mean, half
