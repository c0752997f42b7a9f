"""One run of a sweep, as a worker executes it: scenario + overrides + seed in, rows of
the catalog's tables out. The same function runs in a local worker process and as a
Dask task, so both give identical results.
"""

from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run (picklable, self-contained: workers on
    other machines need no files)."""

    key: str
    point_id: str
    replication: int
    seed: int
    scenario: dict
    overrides: tuple[str, ...]
    series: bool
    time_limit_s: float | None


class TimeLimitExceeded(Exception):
    """A run took longer (wall clock) than the sweep's ``time_limit``."""


def execute(task: RunTask) -> dict:
    """Runs ``task``; returns ``{"run": {...}, "flows": [...], "links": [...]}`` (plus
    ``flow_series``/``link_series`` columns when series are kept). Never raises for
    a failing run: the failure is the result (``run.status`` = "failed", ``message``)."""
    from ..runner import simulate
    from ..scenario import ScenarioError, load

    started = time.perf_counter()
    run = {"key": task.key, "point": task.point_id, "rep": task.replication, "seed": task.seed}
    try:
        scenario = load(task.scenario, list(task.overrides), task.seed)
        deadline = None if task.time_limit_s is None else started + task.time_limit_s

        def check_deadline(_now: int, _total: int, _events: int) -> None:
            if deadline is not None and time.perf_counter() > deadline:
                raise TimeLimitExceeded(f"stopped after the time limit of {task.time_limit_s:g} s wall time")

        engine, engine_wall = simulate(scenario, check_deadline if deadline else None, series=task.series)
    except (ScenarioError, TimeLimitExceeded) as e:
        return {"run": {**run, "status": "failed", "message": str(e), "wall_s": time.perf_counter() - started}}
    except Exception as e:  # an internal error in one run must not stop the sweep
        detail = traceback.format_exception_only(type(e), e)[-1].strip()
        return {"run": {**run, "status": "failed", "message": f"internal error: {detail}", "wall_s": time.perf_counter() - started}}
    result = {
        "run": {**run, "status": "ok", "message": None, "engine_s": engine_wall, **run_metrics(engine)},
        "flows": [{"key": task.key, **_flatten(f)} for f in engine["flows"]],
        "links": [{"key": task.key, **_flatten(l)} for l in engine["links"]],
    }
    if task.series:
        result["flow_series"], result["link_series"] = _series(task.key, engine)
        result["delay_hist"] = _delay_histograms(task.key, engine)
    result["run"]["wall_s"] = time.perf_counter() - started
    return result


def run_metrics(engine: dict) -> dict:
    """The per-run metrics of the catalog's ``runs`` view (docs/sweeps.md)."""
    flows = engine["flows"]
    tcp = [f for f in flows if f.get("retransmits") is not None]
    sent = sum(f["packets_sent"] for f in flows)
    dropped = sum(f["packets_dropped"] for f in flows)
    srtts = [f["srtt_ms"] for f in tcp if f.get("srtt_ms") is not None]
    delays = [f["delay_ms"]["mean"] for f in flows if f["delay_ms"]["mean"] is not None]
    return {
        "goodput_bps": float(sum(f["goodput_bps"] for f in flows)),
        "jain": engine["fairness"]["jain"],
        "drops": sum(sum(l["drops"].values()) for l in engine["links"]),
        "retransmits": sum(f["retransmits"] for f in tcp),
        "timeouts": sum(f["rto_count"] for f in tcp),
        "loss_rate": dropped / sent if sent else math.nan,
        "srtt_ms": sum(srtts) / len(srtts) if srtts else None,
        "delay_ms_mean": sum(delays) / len(delays) if delays else None,
        "events": engine["events"],
    }


def _flatten(record: dict, prefix: str = "") -> dict:
    out: dict = {}
    for k, v in record.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}_"))
        else:
            out[prefix + k] = v
    return out


def _series(key: str, engine: dict) -> tuple[dict, dict]:
    """Per-bin series as columns (lists), the shape the catalog stores."""
    starts = engine["bin_start_s"]
    widths = [b - a for a, b in zip(starts, [*starts[1:], engine["duration_s"]])]
    flow_cols: dict = {k: [] for k in ("key", "flow", "time_s", "goodput_bps", "delivered_bytes", "sent_packets",
                                       "dropped_packets", "cwnd_bytes", "srtt_ms")}
    for s in engine["flow_series"]:
        n = len(starts)
        flow_cols["key"] += [key] * n
        flow_cols["flow"] += [s["id"]] * n
        flow_cols["time_s"] += starts
        flow_cols["delivered_bytes"] += s["delivered_bytes"]
        flow_cols["goodput_bps"] += [b * 8.0 / w for b, w in zip(s["delivered_bytes"], widths)]
        flow_cols["sent_packets"] += s["sent_packets"]
        flow_cols["dropped_packets"] += s["dropped_packets"]
        flow_cols["cwnd_bytes"] += s.get("cwnd_bytes") or [None] * n
        flow_cols["srtt_ms"] += s.get("srtt_ms") or [None] * n
    link_cols: dict = {k: [] for k in ("key", "link", "time_s", "throughput_bps", "drops", "queue_mean_packets",
                                       "queue_max_packets", "queue_max_bytes")}
    for s in engine["link_series"]:
        n = len(starts)
        link_cols["key"] += [key] * n
        link_cols["link"] += [s["id"]] * n
        link_cols["time_s"] += starts
        link_cols["throughput_bps"] += [b * 8.0 / w for b, w in zip(s["tx_bytes"], widths)]
        link_cols["drops"] += s["drops"]
        link_cols["queue_mean_packets"] += s["queue_mean_packets"]
        link_cols["queue_max_packets"] += s["queue_max_packets"]
        link_cols["queue_max_bytes"] += s["queue_max_bytes"]
    return flow_cols, link_cols


def _delay_histograms(key: str, engine: dict) -> dict:
    """Per flow, the one-way delay histogram: bucket upper bound (ms) and packet count."""
    cols: dict = {"key": [], "flow": [], "delay_ms": [], "packets": []}
    for h in engine["delay_histograms"]:
        for upper, count in h["buckets"]:
            cols["key"].append(key)
            cols["flow"].append(h["id"])
            cols["delay_ms"].append(upper)
            cols["packets"].append(count)
    return cols
