"""Runs the advisor's variants — the scenario as it is and each change — as one sweep
(replicated, in parallel on local cores or a Dask cluster, resumable), and reads back
per run what the advice is judged on: your flows' goodput or completion time, the
other flows' goodput, fairness, your packets' delay and loss.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..sweeps.spec import Parameter, SweepSpec
from .knobs import Variant
from .path import PathSummary

if TYPE_CHECKING:
    import pandas as pd

#: The point of the sweep that changes nothing.
CURRENT = "current"

@dataclass(frozen=True)
class Evidence:
    """Every run's measures (a DataFrame: ``variant``, ``replicate`` and the columns of
    :func:`_measures`) and the runs that failed (variant name → message)."""

    runs: pd.DataFrame
    failures: dict[str, str]


def start_offsets(path: PathSummary, trials: int) -> dict[str, dict[str, str]] | None:
    """For a scenario with nothing random in it and more than one flow, ``trials``
    cases that each start every flow a different fraction of a round trip later
    (a fixed pseudo-random draw per trial and flow, the same for every variant).
    Replications with other seeds would all be the same run, and a difference found
    once — perhaps a phase effect of one exact timing between flows — would look
    certain. None where seeds already make replications differ, or for a lone flow
    (whose result does not depend on when it starts)."""
    flows = path.scenario.engine["flows"]
    if path.random_elements or len(flows) < 2 or trials < 2:
        return None
    rtt_ns = max(round(path.rtt_s * 1e9), 1)
    cases = {}
    for t in range(trials):
        draw = random.Random(f"tcplab-advise-{t}")
        cases[f"t{t}"] = {f"{f['origin']}.start": f"{f['start_ns'] + (draw.randrange(rtt_ns) if t else 0)}ns"
                          for f in flows}
    return cases


def sweep_spec(path: PathSummary, raw: dict, variants: list[Variant], replications: int,
               base_overrides: tuple[str, ...]) -> SweepSpec:
    """The sweep that runs the scenario as it is and every variant ``replications``
    times: a parameter ``variant`` whose cases are the variants' overrides, and where
    seeds alone would repeat one run, a parameter ``trial`` of :func:`start_offsets`
    in place of the replications."""
    cases = {CURRENT: {}, **{v.name: dict(v.overrides) for v in variants}}
    parameters = [Parameter("variant", tuple(cases), cases=cases)]
    offsets = start_offsets(path, replications)
    if offsets is not None:
        parameters.append(Parameter("trial", tuple(offsets), cases=offsets))
        replications = 1
    return SweepSpec(scenario=raw, scenario_source=path.scenario.source, parameters=tuple(parameters),
                     replications=replications, metrics=("goodput_bps",), base_overrides=base_overrides)


def gather(spec: SweepSpec, root: Path, path: PathSummary, *, jobs: int | None = None,
           dask_address: str | None = None, progress: Callable[[int, int, int, int], None] | None = None) -> Evidence:
    """Runs ``spec`` into ``root`` (runs already there are reused) and reads back the
    measures of every successful run."""
    from ..sweeps import run_sweep

    run_sweep(spec, root, jobs=jobs, dask_address=dask_address, progress=progress)
    return read(root, path)


def read(root: Path, path: PathSummary) -> Evidence:
    """The measures of every run stored in ``root``."""
    import pandas as pd

    from ..sweeps.catalog import connect

    con = connect(root)
    try:
        trial = "trial" if "trial" in con.execute("SELECT * FROM runs LIMIT 0").df().columns else "NULL AS trial"
        runs = con.execute(f"SELECT key, variant, rep, {trial}, status, message, jain FROM runs ORDER BY variant, rep").df()
        flows = con.execute("SELECT * FROM flows").df() if (runs["status"] == "ok").any() else pd.DataFrame()
    finally:
        con.close()
    failures = {str(r.variant): str(r.message) for r in runs.itertuples() if r.status != "ok"}
    ok = runs[runs["status"] == "ok"]
    yours = {f["name"] for f in path.yours}
    rows = []
    for run in ok.itertuples():
        mine = flows[(flows["key"] == run.key) & flows["id"].isin(yours)]
        theirs = flows[(flows["key"] == run.key) & ~flows["id"].isin(yours)]
        replicate = run.trial if isinstance(run.trial, str) else f"r{run.rep}"
        rows.append({"variant": run.variant, "replicate": replicate, **_measures(mine, theirs, run.jain)})
    return Evidence(runs=pd.DataFrame(rows), failures=failures)


def _measures(mine, theirs, jain) -> dict:
    """One run's measures: your flows' goodput summed (``goodput_bps``), when the last
    of them completed (``fct_s``, NaN if one did not), the other flows' goodput summed
    (NaN without others), Jain's index over the fairness flows, your packets' mean
    one-way delay, your loss rate and retransmissions."""
    nan = float("nan")
    sent = float(mine["packets_sent"].sum())
    delivered = mine["packets_delivered"].astype(float)
    delays = mine["delay_ms_mean"].astype(float)
    weight = delivered[delays.notna()]
    fct = mine["fct_s"].astype(float)
    retransmits = mine["retransmits"].dropna()
    return {
        "goodput_bps": float(mine["goodput_bps"].sum()),
        "fct_s": float(fct.max()) if len(fct) and fct.notna().all() else nan,
        "others_goodput_bps": float(theirs["goodput_bps"].sum()) if len(theirs) else nan,
        "jain": float(jain) if jain is not None and jain == jain else nan,
        "delay_ms": float((delays.dropna() * weight).sum() / weight.sum()) if weight.sum() > 0 else nan,
        "loss_rate": float(mine["packets_dropped"].sum()) / sent if sent else nan,
        "retransmits": float(retransmits.sum()) if len(retransmits) else nan,
    }
