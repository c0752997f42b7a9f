"""Another simulator's answer on a study's own points (``<study>/ns2.json``, written
by ``tests/ns2/studies.py``), in the shape the checks read: a per-point summary per
sweep and the measured quantities of ``[[published]]``-style specs. The report grades
every conclusion it can on it, beside tcplab's grade, so a reader sees where tcplab
and ns-2 part and where both miss the paper (#30 item 1).

The file holds, per point, its sweep, its parameters and each replication's values::

    {"reference": "...", "points": [{"sweep": "table3", "point": {"variant": "reno", "rtt_ratio": 2},
      "runs": {"goodput_bps": [...], "jain": [...]}, "flows": {"f0": {"goodput_bps": [...]}},
      "links": {"b->c": {"queue_max_bytes": [...]}}}]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Reference:
    """A reference simulator's values on some of a study's points."""

    name: str
    points: list[dict]

    def summaries(self, on: dict | None = None) -> dict:
        """Sweep name → per-point summary (parameters and each run metric's mean), as
        :func:`tcplab.sweeps.point_summary` gives tcplab's. With ``on`` (tcplab's
        summaries), only the points tcplab ran: a quick run's checks read its coarser
        grid, and the reference's grade must come from the same points."""
        import pandas as pd

        rows: dict[str, list[dict]] = {}
        for p in self.points:
            if on is not None and not _ran(on.get(p["sweep"]), p["point"]):
                continue
            row = dict(p["point"])
            for metric, values in p["runs"].items():
                row[metric] = _mean(values)
                row[f"{metric}_ci"] = float("nan")
            rows.setdefault(p["sweep"], []).append(row)
        return {sweep: pd.DataFrame(r) for sweep, r in rows.items()}

    def covers(self, sweep: str) -> bool:
        """Whether the reference ran any point of ``sweep``."""
        return any(p["sweep"] == sweep for p in self.points)

    def measure(self, spec: dict) -> tuple[float | None, float | None]:
        """(mean, None) of a ``[[published]]``-style quantity at its point."""
        where = spec.get("where", {})
        for p in self.points:
            if p["sweep"] != spec.get("sweep") or any(p["point"].get(k) != v for k, v in where.items()):
                continue
            table, column = spec.get("table", "runs"), spec["column"]
            if table == "runs":
                values = p["runs"].get(column)
            elif table in ("flows", "links") and "id" in spec.get("row", {}):
                values = p.get(table, {}).get(spec["row"]["id"], {}).get(column)
            else:
                values = None
            if values:
                return _mean(values) * spec.get("scale", 1.0), None
        return None, None


def _ran(summary, point: dict) -> bool:
    """Whether tcplab's ``summary`` of a sweep has a row at ``point``'s parameters."""
    if summary is None or any(k not in summary.columns for k in point):
        return False
    rows = summary
    for k, v in point.items():
        rows = rows[rows[k] == v]
    return len(rows) > 0


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def load_reference(directory: Path) -> Reference | None:
    """The study's ns-2 reference, if it has one."""
    path = directory / "ns2.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return Reference(data.get("reference", "ns-2"), data.get("points", []))


def check_sweeps(check: dict) -> set[str]:
    """Every sweep a check reads (its own and those its quantities name)."""
    named = {check.get("sweep"), check.get("other")}
    for key in ("a", "b", "of", "first", "second"):
        part = check.get(key)
        if isinstance(part, dict):
            named.add(part.get("sweep"))
            named |= check_sweeps(part) if key in ("first", "second") else set()
    return {s for s in named if isinstance(s, str)}
