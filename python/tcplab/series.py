"""A run's time series as numpy columns, and the tables built from them.

The engine hands series over as long-format binary columns (one buffer per metric,
entity-major rows: see ``crates/engine/src/series_tables.rs``). This module wraps
those buffers without copying them and derives the published tables — rates from
per-bin counts, cumulative loss, delay CDFs — with whole-array operations, in chunks
of at most :data:`CHUNK_ROWS` rows so that writing a large run never holds a second
copy of its series.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from . import arrow
from .output import StoredResultsError

#: numpy dtype of each engine column type (counts come in the narrowest unsigned type
#: that holds them; tables widen them to int64 chunk by chunk).
_DTYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f32": np.float32,
           "f64": np.float64}

#: Rows per Parquet row group / per chunk of derived columns when writing: ~10 MB of
#: transient columns (measured: larger chunks add their own size to the peak).
CHUNK_ROWS = 1 << 16



def read_stored_table(path) -> pa.Table:
    """The Parquet table at ``path`` of a saved results directory, or
    :class:`StoredResultsError` naming it."""
    from pathlib import Path

    import pyarrow.parquet as pq

    from .output import changed_since_written
    from .scenario.errors import one_line

    path = Path(path)
    if (problem := changed_since_written(path.parent, path.name)) is not None:
        raise StoredResultsError(f"{path}: {problem}")
    try:
        return pq.read_table(path)
    except (OSError, pa.ArrowException) as e:
        raise StoredResultsError(f"{path}: not readable as the Parquet file tcplab wrote ({one_line(str(e))})") from None


def _columns(raw: list) -> dict[str, np.ndarray]:
    out = {}
    for name, dtype, buffer in raw:
        values = np.frombuffer(buffer, dtype=_DTYPES[dtype])
        # 64-bit counts are far below 2**63: int64, without a copy.
        out[name] = values.view(np.int64) if dtype == "u64" else values
    return out


def _widened(columns: dict[str, np.ndarray], rows: slice) -> dict[str, np.ndarray]:
    """Rows ``rows`` of every column, counts as int64 (the published type)."""
    return {k: v[rows].astype(np.int64) if v.dtype.kind == "u" else v[rows] for k, v in columns.items()}


@dataclass
class Series:
    """Per-bin series of every flow and link direction, and per-flow delay buckets."""

    bin_start_s: np.ndarray
    duration_s: float
    flow_ids: list[str]
    link_ids: list[str]
    link_bandwidth_bps: np.ndarray
    flow: dict[str, np.ndarray]
    link: dict[str, np.ndarray]
    delay: dict[str, np.ndarray]

    @classmethod
    def from_engine(cls, summary: dict, tables: dict) -> Series:
        """Wraps the engine's columns (``Simulation.finish``) for the run in ``summary``."""
        return cls(
            bin_start_s=np.asarray(summary["bin_start_s"], dtype=float),
            duration_s=summary["duration_s"],
            flow_ids=[f["id"] for f in summary["flows"]],
            link_ids=[link["id"] for link in summary["links"]],
            link_bandwidth_bps=np.asarray([link["bandwidth_bps"] for link in summary["links"]], dtype=float),
            flow=_columns(tables["flow"]),
            link=_columns(tables["link"]),
            delay=_columns(tables["delay"]),
        )

    @classmethod
    def from_directory(cls, summary: dict, directory) -> Series:
        """The series a run saved as Parquet in ``directory`` (its summary.json is
        ``summary``), in the engine's layout. The delay buckets' packet counts are
        recovered from the stored CDF and each flow's delivered packets."""
        import pyarrow.compute as pc

        flows, links = summary["flows"], summary["links"]
        flow = read_stored_table(directory / "flow_series.parquet")
        link = read_stored_table(directory / "link_series.parquet")
        # The bins are those of any one entity.
        if flows:
            bin_start_s = flow.filter(pc.equal(flow["flow"], flows[0]["id"]))["time_s"].to_numpy()
        elif links:
            bin_start_s = link.filter(pc.equal(link["link"], links[0]["id"]))["time_s"].to_numpy()
        else:
            bin_start_s = np.arange(0.0, summary["duration_s"], summary["bin_s"])
        cdf = read_stored_table(directory / "delay_cdf.parquet")
        index_of = {f["id"]: i for i, f in enumerate(flows)}
        flow_index = np.array([index_of[f] for f in cdf["flow"].to_pylist()], dtype=np.int64)
        fraction = cdf["cdf"].to_numpy()
        starts = np.r_[True, flow_index[1:] != flow_index[:-1]] if len(flow_index) else np.array([], dtype=bool)
        step = np.where(starts, fraction, np.diff(fraction, prepend=0.0))
        delivered = np.array([f["packets_delivered"] for f in flows], dtype=float)
        packets = np.rint(step * delivered[flow_index]) if len(flow_index) else np.array([])

        def numeric(table: pa.Table, skip: str) -> dict[str, np.ndarray]:
            return {name: table[name].to_numpy() for name in table.column_names if name != skip}

        return cls(
            bin_start_s=np.asarray(bin_start_s, dtype=float),
            duration_s=summary["duration_s"],
            flow_ids=[f["id"] for f in flows],
            link_ids=[link["id"] for link in links],
            link_bandwidth_bps=np.asarray([link["bandwidth_bps"] for link in links], dtype=float),
            flow=numeric(flow, "flow"),
            link=numeric(link, "link"),
            delay={"flow_index": flow_index, "delay_ms": cdf["delay_ms"].to_numpy(), "packets": packets},
        )

    @property
    def bins(self) -> int:
        return len(self.bin_start_s)

    @property
    def bin_width_s(self) -> np.ndarray:
        ends = np.append(self.bin_start_s[1:], self.duration_s)
        return ends - self.bin_start_s

    # Tables. Each builder takes a contiguous block of rows, ``_Rows``: whole entities,
    # or part of one entity's bins, so that writers can go in chunks of bounded size
    # however long the run.

    def flow_table(self, first: int = 0, last: int | None = None) -> pa.Table:
        """``flow_series``: per flow and bin, delivered bytes and goodput (in-order
        payload handed to the application), received bytes and throughput (IP bytes,
        headers included, arriving at the receiving host), sent and dropped
        packets, cumulative loss rate, and cwnd, ssthresh, SRTT and the algorithm's own
        variables (``cc_<name>``) at the end of the bin (NaN where there are none)."""
        last = len(self.flow_ids) if last is None else last
        return self._flow_rows(_Rows(first, last, 0, self.bins))

    def _flow_rows(self, r: _Rows) -> pa.Table:
        n, b = r.last - r.first, r.bin_last - r.bin_first
        col = _widened(self.flow, r.rows(self.bins))
        sent = col["sent_packets"].reshape(n, b)
        dropped = col["dropped_packets"].reshape(n, b)
        # Loss is cumulative from the flow's first bin: a part of one flow starts from
        # the totals of the bins before it.
        before = r.entity_rows_before(self.bins)
        cum_sent = np.cumsum(sent, axis=1) + int(self.flow["sent_packets"][before].sum(dtype=np.int64))
        cum_dropped = np.cumsum(dropped, axis=1) + int(self.flow["dropped_packets"][before].sum(dtype=np.int64))
        with np.errstate(invalid="ignore", divide="ignore"):
            cum_loss = np.where(cum_sent > 0, cum_dropped / np.maximum(cum_sent, 1), np.nan)
        width = np.tile(self.bin_width_s[r.bin_first:r.bin_last], n)
        columns = {
            "flow": _ids(self.flow_ids, r),
            "time_s": np.tile(self.bin_start_s[r.bin_first:r.bin_last], n),
            "delivered_bytes": col["delivered_bytes"],
            "goodput_bps": col["delivered_bytes"] * 8.0 / width,
            "received_bytes": col["received_bytes"],
            "throughput_bps": col["received_bytes"] * 8.0 / width,
            "sent_packets": col["sent_packets"],
            "dropped_packets": col["dropped_packets"],
            "cum_loss_rate": cum_loss.reshape(-1),
        }
        columns.update((k, v) for k, v in col.items() if k not in columns)
        return _table(columns)

    def link_table(self, first: int = 0, last: int | None = None) -> pa.Table:
        """``link_series``: per link direction and bin, bytes sent, throughput, load
        (throughput / bandwidth; NaN on a shared segment's delivery side, which has no
        rate of its own), drops, queue mean and max in packets and bytes."""
        last = len(self.link_ids) if last is None else last
        return self._link_rows(_Rows(first, last, 0, self.bins))

    def _link_rows(self, r: _Rows) -> pa.Table:
        n = r.last - r.first
        col = _widened(self.link, r.rows(self.bins))
        throughput = col["tx_bytes"] * 8.0 / np.tile(self.bin_width_s[r.bin_first:r.bin_last], n)
        bandwidth = self.link_bandwidth_bps[r.first:r.last]
        with np.errstate(invalid="ignore", divide="ignore"):
            bandwidth = np.where(bandwidth > 0, bandwidth, np.nan)
        return _table({
            "link": _ids(self.link_ids, r),
            "time_s": np.tile(self.bin_start_s[r.bin_first:r.bin_last], n),
            "tx_bytes": col["tx_bytes"],
            "throughput_bps": throughput,
            "load": throughput / np.repeat(bandwidth, r.bin_last - r.bin_first),
            "drops": col["drops"],
            "queue_mean_packets": col["queue_mean_packets"],
            "queue_mean_bytes": col["queue_mean_bytes"],
            "queue_max_packets": col["queue_max_packets"],
            "queue_max_bytes": col["queue_max_bytes"],
        })

    def delay_cdf_table(self) -> pa.Table:
        """``delay_cdf``: per flow, the one-way delay distribution (bucket upper bound
        in ms, cumulative fraction of packets)."""
        index = self.delay["flow_index"].astype(np.intp)
        packets = self.delay["packets"].astype(float)
        per_flow = np.bincount(index, weights=packets, minlength=len(self.flow_ids))
        # Rows are grouped by flow, in flow order: a row's packets within its flow are
        # the running total less every earlier flow's packets.
        earlier = np.cumsum(per_flow) - per_flow
        with np.errstate(invalid="ignore", divide="ignore"):
            cdf = (np.cumsum(packets) - earlier[index]) / per_flow[index]
        return _table({"flow": arrow.dictionary(index, self.flow_ids), "delay_ms": self.delay["delay_ms"], "cdf": cdf})

    def chunks(self, table: str) -> Iterator[pa.Table]:
        """``flow_table`` or ``link_table`` in pieces of at most :data:`CHUNK_ROWS` rows
        (whole entities where they fit, else slices of one entity's bins)."""
        count = len(self.flow_ids if table == "flow" else self.link_ids)
        build = self._flow_rows if table == "flow" else self._link_rows
        bins = self.bins
        if bins <= CHUNK_ROWS:
            step = CHUNK_ROWS // max(bins, 1)
            for first in range(0, count, step):
                yield build(_Rows(first, min(first + step, count), 0, bins))
            return
        for entity in range(count):
            for b in range(0, bins, CHUNK_ROWS):
                yield build(_Rows(entity, entity + 1, b, min(b + CHUNK_ROWS, bins)))


@dataclass(frozen=True)
class _Rows:
    """Entities [first, last), bins [bin_first, bin_last) of each: contiguous rows of
    the entity-major columns, so either all bins or a single entity."""

    first: int
    last: int
    bin_first: int
    bin_last: int

    def rows(self, bins: int) -> slice:
        return slice(self.first * bins + self.bin_first, (self.last - 1) * bins + self.bin_last)

    def entity_rows_before(self, bins: int) -> slice:
        """The rows of the same entity before these (empty unless a part of one)."""
        return slice(self.first * bins, self.first * bins + self.bin_first)


def _ids(ids: list[str], rows: _Rows) -> pa.DictionaryArray:
    """The entity id of each of ``rows``: dictionary-encoded, 4 bytes a row instead of
    a string."""
    indices = np.repeat(np.arange(rows.last - rows.first, dtype=np.int32), rows.bin_last - rows.bin_first)
    return arrow.dictionary(indices, ids[rows.first:rows.last])


def _table(columns: dict) -> pa.Table:
    """numpy columns (and ready Arrow arrays) as a table (see :mod:`tcplab.arrow`)."""
    return pa.Table.from_arrays([v if isinstance(v, pa.Array) else arrow.numeric(v) for v in columns.values()],
                                names=list(columns))

