"""A sweep's cost outside the engine, per run (issue #31, item 4).

Runs the LAN study's RTO sweep on the switched star (`tcplab reproduce lan`'s
`rto_star`: 40 fixed RTOs x 4 delays, one run each, ~10 ms of engine time per run) on
one local worker, in full and on its first `--small` RTO values, and prints one JSON line.

The cost counted is CPU time, of this process (planning, storing, the catalog) and of
its workers (loading a run, the results' conversion, handing them back), less the
engine's own time (each run's `engine_s`: the engine's wall time in its worker, which
on an idle core is its CPU time). Counting CPU rather than the sweep's wall time keeps
work that the parent does beside a busy worker from looking free. The difference of
the two sweeps, divided by the difference of their run counts, is the cost of one more
run; what the small sweep costs beyond its runs is the fixed cost of a sweep (imports,
the worker pool, the catalog).

usage: python benchmarks/sweep_overhead.py [--small 4] [--values 40] [--repeats 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path


def _cpu_s() -> float:
    """CPU seconds of this process and of its finished children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _lan_rto_sweep():
    from tcplab.studies import load_study, sweep_spec

    study = load_study("lan")
    declaration = next(d for d in study.sweeps(False, "sim") if d["name"] == "rto_star")
    return sweep_spec(study, declaration, quick=False)


def _subset(spec, values: int):
    """``spec`` with only the first ``values`` values of its first parameter (the RTO)."""
    first, *rest = spec.parameters
    return dataclasses.replace(spec, parameters=(dataclasses.replace(first, values=first.values[:values]), *rest))


def _one(spec, directory: Path) -> dict:
    """One sweep into ``directory``: runs, CPU seconds, wall seconds, engine seconds."""
    import duckdb
    from tcplab.sweeps.orchestrate import run_sweep

    cpu, wall = _cpu_s(), time.perf_counter()
    outcome = run_sweep(spec, directory, jobs=1)
    cpu, wall = _cpu_s() - cpu, time.perf_counter() - wall
    (engine_s,) = duckdb.connect().execute(
        f"select sum(engine_s) from read_parquet('{directory}/batches/*/runs.parquet')").fetchone()
    return {"runs": outcome.ran, "cpu_s": cpu, "wall_s": wall, "engine_s": engine_s}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", type=int, default=4, help="RTO values of the small sweep (of 40; x 4 delays)")
    ap.add_argument("--values", type=int, default=40, help="RTO values of the full sweep (the study's 40)")
    ap.add_argument("--repeats", type=int, default=5, help="pairs of sweeps; the medians are printed")
    args = ap.parse_args()
    full = _subset(_lan_rto_sweep(), args.values)
    per_run, fixed, share = [], [], []
    with tempfile.TemporaryDirectory(prefix="tcplab-sweep-overhead-") as tmp:
        _one(_subset(full, 4), Path(tmp) / "warm-up")  # imports, caches
        for rep in range(args.repeats):
            big = _one(full, Path(tmp) / f"full-{rep}")
            little = _one(_subset(full, args.small), Path(tmp) / f"small-{rep}")
            outside_big = big["cpu_s"] - big["engine_s"]
            outside_little = little["cpu_s"] - little["engine_s"]
            marginal = (outside_big - outside_little) / (big["runs"] - little["runs"])
            engine_per_run = big["engine_s"] / big["runs"]
            per_run.append(marginal)
            fixed.append(outside_little - marginal * little["runs"])
            share.append(marginal / engine_per_run)
            print(f"sweep overhead {rep + 1}/{args.repeats}: {marginal * 1e3:.2f} ms per run outside the engine, "
                  f"engine {engine_per_run * 1e3:.2f} ms per run ({marginal / engine_per_run:.0%})", flush=True)
    print(json.dumps({
        "runs": big["runs"], "small_runs": little["runs"],
        "engine_ms_per_run": 1e3 * big["engine_s"] / big["runs"],
        "outside_ms_per_run": 1e3 * statistics.median(per_run),
        "outside_share": statistics.median(share),
        "fixed_s": statistics.median(fixed),
        "full_sweep_wall_s": big["wall_s"], "full_sweep_cpu_s": big["cpu_s"],
    }))


if __name__ == "__main__":
    main()
