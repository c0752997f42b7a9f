"""The DuckDB catalog of a sweep directory: views over its Parquet batches, and the
per-point summary (mean and 95% confidence interval over replications).

Views (docs/sweeps.md): ``runs`` (one row per run: parameters, point, rep, seed,
status, message, wall time, tcplab version, metrics), ``flows``, ``links`` and, when
series were kept, ``flow_series``, ``link_series`` and ``delay_hist`` (joined to
``runs`` by ``key``), and ``plan``: the keys of the runs the latest sweep command
planned, the only runs the views show.
"""

from __future__ import annotations

import math
from pathlib import Path

from .integrity import SweepIntegrityError, require_intact
from .stats import mean_ci
from .store import PLAN, TABLES


def connect(root: str | Path):
    """An in-memory DuckDB connection (nothing locked on disk) with the catalog's views
    over ``root``'s own batches, after checking them
    (:func:`tcplab.sweeps.integrity.require_intact`)."""
    import duckdb

    root = Path(root).resolve()
    require_intact(root)  # a damaged batch or a run stored twice is an error, never read
    con = duckdb.connect(":memory:")
    define_views(con, root)
    return con


class QueryRefused(ValueError):
    """A query that would do more than read the sweep (bad input: exit status 2)."""


#: Statement kinds ``tcplab query`` runs: reading only (SELECT, WITH, FROM, DESCRIBE,
#: SHOW, SUMMARIZE are all SELECT to DuckDB; EXPLAIN shows a plan).
READ_ONLY_STATEMENTS = ("SELECT", "EXPLAIN")


def connect_read_only(root: str | Path):
    """A connection for user SQL that can only read this sweep: every statement must be
    a SELECT (or EXPLAIN), checked before it runs, and the connection cannot touch any
    file outside the sweep's batches, attach databases or load extensions — settings
    locked so that the query cannot lift them (#35: COPY ... TO, read_csv of any file,
    ATTACH and INSTALL were open)."""
    root = Path(root).resolve()
    con = connect(root)
    batches = str(root / "batches").replace("'", "''")
    con.execute(f"SET allowed_directories = ['{batches}/']")
    con.execute("SET enable_external_access = false")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET lock_configuration = true")
    return con


def check_read_only(con, sql: str) -> None:
    """:class:`QueryRefused` unless ``sql`` holds a statement and every one only reads."""
    statements = con.extract_statements(sql)
    if not statements:
        raise QueryRefused("query: no SQL statement given (e.g. \"SELECT * FROM runs\")")
    for statement in statements:
        kind = str(statement.type).rsplit(".", 1)[-1]
        if kind not in READ_ONLY_STATEMENTS:
            raise QueryRefused(f"query: only reading statements run here (SELECT, WITH, DESCRIBE, SUMMARIZE, EXPLAIN); "
                               f"this one is {kind}. The Parquet files are in batches/ for other tools.")


def define_views(con, root: Path, catalog: Path | None = None) -> list[str]:
    """(Re)defines one view per table present in ``root``'s batches; returns their names.

    A directory with a plan (every sweep since #35's plan file) shows the runs its
    latest sweep command planned, and the plan itself as the table ``plan``: runs an
    earlier engine build or sweep definition left in the batches are not counted.

    The views name the batches by absolute path (DuckDB resolves a relative one against
    the reader's working directory, not the catalog's). So that a copied or moved
    ``catalog`` file cannot silently read the original directory's batches, each view
    stored in it checks that the database it is read from is that file and otherwise
    fails, saying what to do (#35)."""
    import duckdb

    defined = []
    conditions = []
    if (root / PLAN).exists():
        # Only the runs the latest sweep command planned (SweepStore.write_plan); the
        # plan is copied into the database, so that a read-only connection, which may
        # open nothing outside the batches, still has it.
        plan = str(root / PLAN).replace("'", "''")
        try:
            con.execute(f"CREATE OR REPLACE TABLE plan AS SELECT key FROM read_parquet('{plan}')")
        except duckdb.Error as e:
            raise SweepIntegrityError(f"{root / PLAN}: unreadable ({str(e).splitlines()[0]}); rerun the sweep command "
                                      f"on {root} to write it again") from None
        conditions.append("key IN (SELECT key FROM plan)")
    if catalog is not None:
        here = str(catalog).replace("'", "''")
        message = (f"this catalog.duckdb was made for {catalog} and reads that directory's batches; it has been "
                   "copied or moved: open the directory with tcplab query DIR or tcplab.open_sweep(DIR), or "
                   "rewrite its catalog by resuming the sweep there").replace("'", "''")
        conditions.append(f"CASE WHEN EXISTS (SELECT 1 FROM duckdb_databases() WHERE path = '{here}') "
                          f"THEN true ELSE error('{message}') END")
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    for name in TABLES:
        files = sorted(root.glob(f"batches/batch=*/{name}.parquet"))
        if not files:
            con.execute(f"DROP VIEW IF EXISTS {name}")
            continue
        pattern = str(root / "batches" / "batch=*" / f"{name}.parquet").replace("'", "''")
        con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet('{pattern}', "
                    f"hive_partitioning = true, union_by_name = true){where}")
        defined.append(name)
    return defined


def write_catalog(root: str | Path) -> Path:
    """Writes ``DIR/catalog.duckdb`` with the views (replacing an older one), after
    checking the batches."""
    import duckdb

    root = Path(root).resolve()
    path = root / "catalog.duckdb"
    tmp = root / ".tmp" / "catalog.duckdb"
    tmp.parent.mkdir(exist_ok=True)
    if tmp.exists():
        tmp.unlink()
    require_intact(root)
    con = duckdb.connect(str(tmp))
    define_views(con, root, catalog=path)
    con.close()
    tmp.replace(path)
    return path


def runs_frame(root: str | Path):
    """The ``runs`` view as a pandas DataFrame (empty if nothing ran yet)."""
    import pandas as pd

    con = connect(root)
    try:
        if "runs" not in {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}:
            return pd.DataFrame()
        return con.execute("SELECT * FROM runs ORDER BY point, rep").df()
    finally:
        con.close()


def point_summary(runs, parameters: list[str], metrics: list[str], level: float = 0.95, order: list[str] | None = None):
    """Per point: the parameter values, how many runs succeeded/failed, and for each
    metric its mean and the half-width of its ``level`` confidence interval (Student t
    over replications; NaN with one replication). Points come in ``order`` (point ids)
    when given."""
    import pandas as pd

    rows: list[dict] = []
    if runs.empty:
        return pd.DataFrame(rows)
    groups = dict(tuple(runs.groupby("point", sort=False)))
    ids = [p for p in order if p in groups] if order is not None else list(groups)
    for point in ids:
        group = groups[point]
        ok = group[group["status"] == "ok"]
        row = {p: group[p].iloc[0] for p in parameters if p in group}
        row.update({"point": point, "runs": len(ok), "failed": int((group["status"] != "ok").sum())})
        for m in metrics:
            # A metric a run does not have (None, NaN: e.g. an emulated run's timeouts)
            # is left out of the mean, not counted as zero.
            values = [float(v) for v in ok[m] if v is not None and v == v] if m in ok and len(ok) else []
            mean, half = mean_ci(values, level)
            row[m] = mean
            row[f"{m}_ci"] = half if half is not None else math.nan
        rows.append(row)
    return pd.DataFrame(rows)
