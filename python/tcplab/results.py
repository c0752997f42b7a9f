"""A run's results as summary data and pandas DataFrames, and how they are saved.

Every metric is computed by the engine; this module only reshapes: it flattens the
summaries into tables, turns per-bin counts into rates, and writes summary.json,
CSV tables, Parquet time series, the HTML report and (on request) plot files.
pandas is imported only when a DataFrame is asked for: saving needs Arrow alone.
"""

from __future__ import annotations

import functools
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__
from .output import write_directory
from .provenance import provenance
from .scenario import toml_writer
from .series import Series, StoredResultsError, read_stored_table
from .stack import describe, with_label

if TYPE_CHECKING:
    import pandas as pd

    from .scenario import Scenario


def _plain_strings(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary-encoded id columns as plain strings."""
    return table.cast(pa.schema([pa.field(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type)
                                 for f in table.schema]))


#: Per-flow fields that are not table columns: a transport's own figures (SCTP's
#: chunk histogram and per-stream table) and the per-stream delivered bytes stay in
#: summary.json; streams.csv has them as rows.
NOT_COLUMNS = frozenset({"transport_details", "delivered_bytes_by_stream"})


def _flattened(records: list[dict]) -> dict[str, list]:
    """Summary records (flows or links) as table columns, nested fields flattened with
    "_" (``delay_ms`` → ``delay_ms_mean``…). Column by column: every record has the
    same fields, so this is pandas.json_normalize without its per-record cost (40×
    faster on 10,000 flows)."""
    columns: dict[str, list] = {}
    for key, value in (records[0].items() if records else ()):
        if key in NOT_COLUMNS:
            continue
        if isinstance(value, dict):
            for sub in value:
                columns[f"{key}_{sub}"] = [(r[key] or {}).get(sub) for r in records]
        else:
            columns[key] = [r[key] for r in records]
    return columns


def _write_csv(columns: dict[str, list], path: Path) -> None:
    """Table ``columns`` as CSV through Arrow's writer (6× faster than pandas' on
    40,000 rows), quoting only fields that need it."""
    import pyarrow.csv as pcsv

    from .arrow import table

    pcsv.write_csv(table(columns), path, pcsv.WriteOptions(quoting_style="needed"))


class _ParquetWriter:
    """Writes tables to one Parquet file as successive row groups. Entity ids are
    dictionary-encoded in memory; on disk they are plain strings (Parquet's own
    dictionary encoding), so readers see the same schema whatever the chunking.

    The Arrow schema is not stored with the file: without it readers take the ids as
    the strings Parquet holds instead of restoring Arrow's dictionary type, and no
    column has a type Parquet's own logical types do not carry. (Casting the ids to
    strings first would do the same at the price of importing pyarrow.compute, 40 ms
    of every run.)"""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer: pq.ParquetWriter | None = None

    def write(self, table: pa.Table) -> None:
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, table.schema, store_schema=False)
        self.writer.write_table(table)

    def __enter__(self) -> _ParquetWriter:
        return self

    def __exit__(self, *exc) -> None:
        if self.writer is not None:
            self.writer.close()


@dataclass
class RunResult:
    """Everything one run produced.

    ``summary`` is the content of summary.json (see docs/results.md); the DataFrames
    hold the same data in tabular form:

    * ``flows`` — one row per flow (nested fields flattened with ``_``).
    * ``links`` — one row per link direction.
    * ``flow_series`` — per flow and bin: delivered bytes, goodput, sent and dropped
      packets, cumulative loss rate, and for TCP the cwnd, ssthresh and SRTT at the
      end of the bin (NaN for UDP).
    * ``link_series`` — per link direction and bin: bytes sent, throughput, drops,
      queue mean/max in packets and bytes.
    * ``delay_cdf`` — per flow, the one-way delay distribution (bucket upper bound, CDF).
    """

    summary: dict
    series: Series | None = field(default=None, repr=False)
    #: The results directory this was read from (:meth:`from_directory`), whose
    #: Parquet files hold the series when ``series`` is None.
    directory: Path | None = None

    @classmethod
    def from_directory(cls, directory: str | Path) -> RunResult:
        """The results a run saved in ``directory`` (summary.json; the series are read
        from its Parquet files when asked for)."""
        from .output import changed_since_written, not_a_run

        path = Path(directory)
        if (problem := not_a_run(path)) is not None:
            raise StoredResultsError(f"{path}: {problem}")
        if (problem := changed_since_written(path, "summary.json")) is not None:
            raise StoredResultsError(f"{path / 'summary.json'}: {problem}")
        summary = json.loads((path / "summary.json").read_text())
        if not isinstance(summary, dict) or "flows" not in summary:
            raise ValueError("summary.json holds no run summary")
        return cls(summary=summary, directory=path)

    @classmethod
    def from_engine(cls, engine: dict, scenario: Scenario, wall_time_s: float) -> RunResult:
        """Wraps the engine's results (:func:`tcplab.runner.simulate`) for ``scenario``
        with the scenario as run and the run's provenance."""
        labels = {f["name"]: describe(f, scenario.raw) for f in scenario.engine["flows"]}
        flows = [with_label(f, labels.get(f["id"], f["transport"])) for f in engine["flows"]]
        summary = {
            "tcplab_version": __version__,
            "scenario": scenario.name,
            "scenario_as_run": scenario.as_run(),
            "provenance": provenance(scenario.source, scenario.overrides),
            "seed": engine["seed"],
            "duration_s": engine["duration_s"],
            "bin_s": engine["bin_s"],
            "events": engine["events"],
            "wall_time_s": wall_time_s,
            "flows": flows,
            "links": engine["links"],
            "fairness": engine["fairness"],
        }
        return cls(summary=summary, series=engine.get("series"))

    def _series(self) -> Series:
        if self.series is None and self.directory is not None:
            self.series = Series.from_directory(self.summary, self.directory)
        if self.series is None:
            raise ValueError("this run kept no time series (run it with series=True)")
        return self.series

    # Flattened once: save() and the caller usually both want them, and 40,000 link
    # directions take a quarter of a second.
    @functools.cached_property
    def _flow_columns(self) -> dict[str, list]:
        return _flattened(self.summary["flows"])

    @functools.cached_property
    def _link_columns(self) -> dict[str, list]:
        return _flattened(self.summary["links"])

    @functools.cached_property
    def _stream_columns(self) -> dict[str, list]:
        """One row per stream of every flow whose transport has streams (SCTP)."""
        rows = [{"flow": f["id"], **{k: v for k, v in s.items() if k != "delay_ms"},
                 **{f"delay_ms_{k}": v for k, v in s["delay_ms"].items()}}
                for f in self.summary["flows"]
                for s in (f.get("transport_details") or {}).get("streams", [])]
        return {k: [r[k] for r in rows] for k in (rows[0] if rows else ())}

    @property
    def streams(self) -> pd.DataFrame:
        """Per-stream figures of multistreaming transports (SCTP): delivered bytes and
        messages, message delay (written by the sending application → delivered to the
        receiving one) min/mean/p50/p95/p99/max in ms, and the messages and time spent
        complete but waiting behind a gap in their stream. Empty without such flows."""
        import pandas as pd

        return pd.DataFrame(self._stream_columns)

    @property
    def flows(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self._flow_columns)

    @property
    def links(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self._link_columns)

    def _stored(self, name: str) -> pd.DataFrame | None:
        """A series table read back from the directory this result was loaded from."""
        if self.directory is not None:
            return read_stored_table(self.directory / f"{name}.parquet").to_pandas()
        return None

    @property
    def flow_series(self) -> pd.DataFrame:
        stored = self._stored("flow_series")
        return stored if stored is not None else _plain_strings(self._series().flow_table()).to_pandas()

    @property
    def link_series(self) -> pd.DataFrame:
        stored = self._stored("link_series")
        return stored if stored is not None else _plain_strings(self._series().link_table()).to_pandas()

    @property
    def delay_cdf(self) -> pd.DataFrame:
        stored = self._stored("delay_cdf")
        return stored if stored is not None else _plain_strings(self._series().delay_cdf_table()).to_pandas()

    def _repr_html_(self) -> str:
        """A compact view for notebooks: the run in one line and its flows (the first
        40) with goodput, received throughput, loss and delay."""
        import html

        import pandas as pd

        s = self.summary
        head = (f"<p><b>{html.escape(str(s['scenario']))}</b>: {s['duration_s']:g} s simulated, seed {s['seed']}, "
                f"{len(s['flows']):,} flows, {s['events']:,} events</p>")
        flows = pd.DataFrame({
            "flow": [f["id"] for f in s["flows"]],
            "transport": [f.get("label", f["transport"]) for f in s["flows"]],
            "goodput Mb/s": [f["goodput_bps"] / 1e6 for f in s["flows"]],
            "throughput Mb/s": [f["throughput_bps"] / 1e6 for f in s["flows"]],
            "loss %": [100 * f["loss_rate"] for f in s["flows"]],
            "delay mean ms": [f["delay_ms"]["mean"] for f in s["flows"]],
        })
        more = f"<p>… and {len(flows) - 40:,} more flows</p>" if len(flows) > 40 else ""
        return head + flows.head(40).to_html(index=False, float_format=lambda x: f"{x:.3f}") + more

    def summary_json(self) -> str:
        """summary.json's text."""
        # Indented for reading by eye; a large run's in one line (the indenting encoder
        # is pure Python: ~6 s for 10,000 flows, against 0.3 s).
        large = len(self.summary["flows"]) + len(self.summary["links"]) > 1000
        return json.dumps(self.summary, indent=None if large else 2, allow_nan=False) + "\n"

    def save(self, out: str | Path, plots: bool = False, throughput: str = "received",
             extra: dict[str, Path] | None = None, plot_format: str = "png", report: bool = True) -> Path:
        """Writes summary.json, flows.csv, links.csv (and streams.csv when a flow has
        streams), the time series as Parquet, the
        HTML report (``report``) and plot files (``plots``, as ``plot_format``: png at
        print resolution, svg or pdf) into ``out``, atomically (see
        :func:`tcplab.output.write_directory`). ``throughput`` chooses what the
        throughput chart shows first: ``"received"`` (IP bytes arriving at the
        receiving host) or ``"goodput"`` (in-order payload handed to the
        application). ``extra`` maps names to directories moved into the results
        (e.g. packet captures written during the run)."""
        if throughput not in ("received", "goodput"):
            raise ValueError(f"throughput: expected 'received' or 'goodput', got {throughput!r}")

        def fill(d: Path) -> None:
            (d / "summary.json").write_text(self.summary_json())
            for name, directory in (extra or {}).items():
                shutil.move(str(directory), d / name)
            if "scenario_as_run" in self.summary:
                (d / "scenario.toml").write_text(toml_writer.dumps(self.summary["scenario_as_run"]))
            _write_csv(self._flow_columns, d / "flows.csv")
            _write_csv(self._link_columns, d / "links.csv")
            if self._stream_columns:
                _write_csv(self._stream_columns, d / "streams.csv")
            series = self._series()
            for name in ("flow", "link"):
                with _ParquetWriter(d / f"{name}_series.parquet") as writer:
                    for chunk in series.chunks(name):
                        writer.write(chunk)
            with _ParquetWriter(d / "delay_cdf.parquet") as writer:
                writer.write(series.delay_cdf_table())
            if report:
                from .report import write_report

                write_report(self, d / "report.html", throughput=throughput)
            if plots:
                from .plots import write_plots

                write_plots(self, d, throughput=throughput, fmt=plot_format)

        return write_directory(Path(out), fill, "run")
