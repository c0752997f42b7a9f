"""A run's results as summary data and pandas DataFrames, and how they are saved.

Every metric is computed by the engine; this module only reshapes: it flattens the
summaries into tables, turns per-bin counts into rates, and writes summary.json,
Parquet time series and plots.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .output import write_directory


def _bin_widths(engine: dict) -> np.ndarray:
    starts = np.asarray(engine["bin_start_s"], dtype=float)
    ends = np.append(starts[1:], engine["duration_s"])
    return ends - starts


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
    engine: dict = field(repr=False)

    @classmethod
    def from_engine(cls, engine: dict, scenario_name: str, source: str, wall_time_s: float) -> "RunResult":
        """Wraps the engine's results with run metadata."""
        summary = {
            "tcplab_version": __version__,
            "scenario": scenario_name,
            "source": source,
            "seed": engine["seed"],
            "duration_s": engine["duration_s"],
            "bin_s": engine["bin_s"],
            "events": engine["events"],
            "wall_time_s": wall_time_s,
            "flows": engine["flows"],
            "links": engine["links"],
            "fairness": engine["fairness"],
        }
        return cls(summary=summary, engine=engine)

    @property
    def flows(self) -> pd.DataFrame:
        return pd.json_normalize(self.summary["flows"], sep="_")

    @property
    def links(self) -> pd.DataFrame:
        return pd.json_normalize(self.summary["links"], sep="_")

    @property
    def flow_series(self) -> pd.DataFrame:
        e = self.engine
        start, width = np.asarray(e["bin_start_s"]), _bin_widths(e)
        frames = []
        for s in e["flow_series"]:
            sent = np.asarray(s["sent_packets"], dtype=np.int64)
            dropped = np.asarray(s["dropped_packets"], dtype=np.int64)
            delivered = np.asarray(s["delivered_bytes"], dtype=np.int64)
            cum_sent = np.cumsum(sent)
            with np.errstate(invalid="ignore", divide="ignore"):
                cum_loss = np.where(cum_sent > 0, np.cumsum(dropped) / np.maximum(cum_sent, 1), np.nan)
            nan = np.full(len(start), np.nan)

            def series(key: str) -> np.ndarray:
                values = s.get(key)
                return nan if values is None else np.array([np.nan if v is None else v for v in values], dtype=float)

            columns = {
                "flow": s["id"],
                "time_s": start,
                "delivered_bytes": delivered,
                "goodput_bps": delivered * 8.0 / width,
                "sent_packets": sent,
                "dropped_packets": dropped,
                "cum_loss_rate": cum_loss,
                "cwnd_bytes": series("cwnd_bytes"),
                "ssthresh_bytes": series("ssthresh_bytes"),
                "srtt_ms": series("srtt_ms"),
            }
            # The congestion-control algorithm's own state (CUBIC's W_max, BBR's
            # bandwidth estimate, ...), one column per value: cc_<name>.
            for name, values in s.get("cc_state", []):
                columns[f"cc_{name}"] = np.array([np.nan if v is None else v for v in values], dtype=float)
            frames.append(pd.DataFrame(columns))
        return pd.concat(frames, ignore_index=True)

    @property
    def link_series(self) -> pd.DataFrame:
        e = self.engine
        start, width = np.asarray(e["bin_start_s"]), _bin_widths(e)
        frames = []
        for s, link in zip(e["link_series"], e["links"]):
            tx = np.asarray(s["tx_bytes"], dtype=np.int64)
            # Bandwidth 0: the instantaneous delivery side of a shared segment (no load of its own).
            bandwidth = link["bandwidth_bps"] or np.nan
            frames.append(pd.DataFrame({
                "link": s["id"],
                "time_s": start,
                "tx_bytes": tx,
                "throughput_bps": tx * 8.0 / width,
                "load": tx * 8.0 / width / bandwidth,
                "drops": np.asarray(s["drops"], dtype=np.int64),
                "queue_mean_packets": s["queue_mean_packets"],
                "queue_mean_bytes": s["queue_mean_bytes"],
                "queue_max_packets": np.asarray(s["queue_max_packets"], dtype=np.int64),
                "queue_max_bytes": np.asarray(s["queue_max_bytes"], dtype=np.int64),
            }))
        return pd.concat(frames, ignore_index=True)

    @property
    def delay_cdf(self) -> pd.DataFrame:
        frames = []
        for h in self.engine["delay_histograms"]:
            if not h["buckets"]:
                continue
            upper, counts = zip(*h["buckets"])
            counts = np.asarray(counts, dtype=float)
            frames.append(pd.DataFrame({"flow": h["id"], "delay_ms": upper, "cdf": np.cumsum(counts) / counts.sum()}))
        if not frames:
            return pd.DataFrame({"flow": pd.Series(dtype=str), "delay_ms": pd.Series(dtype=float), "cdf": pd.Series(dtype=float)})
        return pd.concat(frames, ignore_index=True)

    def summary_json(self) -> str:
        """summary.json's text."""
        return json.dumps(self.summary, indent=2, allow_nan=False) + "\n"

    def save(self, out: str | Path, plots: bool = True) -> Path:
        """Writes summary.json, the time series as Parquet and (optionally) PNG plots
        into ``out``, atomically (see :func:`tcplab.output.write_directory`)."""

        def fill(d: Path) -> None:
            (d / "summary.json").write_text(self.summary_json())
            self.flow_series.to_parquet(d / "flow_series.parquet", index=False)
            self.link_series.to_parquet(d / "link_series.parquet", index=False)
            self.delay_cdf.to_parquet(d / "delay_cdf.parquet", index=False)
            if plots:
                from .plots import write_plots

                write_plots(self, d)

        return write_directory(Path(out), fill)
