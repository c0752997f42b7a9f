"""The ``tcplab sweep``, ``tcplab query`` and ``tcplab reproduce`` commands (registered on
the app of :mod:`tcplab.cli`)."""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Annotated

import click
import typer

from ..scenario import ScenarioError
from .app import app, err_console, escape, fail, out_console
from .progress import ProgressBar

BackendOpt = Annotated[str, typer.Option(
    "--backend", click_type=click.Choice(["sim", "emu", "measure"]), metavar="sim|emu|measure",
    help="sim: the simulator; emu: each run over the real Linux stack (needs root; real time, one run at a time); "
         "measure: each run between the real hosts of --hosts (docs/measure.md).")]
HostsOpt = Annotated[Path | None, typer.Option(
    "--hosts", metavar="FILE", help="For --backend measure: which machine is which host (docs/measure.md).")]
JobsOpt = Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Local worker processes (default: all cores).")]
DaskOpt = Annotated[str | None, typer.Option(
    "--dask", metavar="ADDRESS", help="Run on the Dask scheduler at ADDRESS (e.g. tcp://host:8786) instead of local workers.")]


def sweep_progress(label: str = "sweep") -> ProgressBar:
    """A sweep's bar: runs done / failed / remaining, those already stored, an ETA;
    left on the screen as the sweep's tally."""
    return ProgressBar(label, ["{task.completed}/{task.total} runs", "[red]{task.fields[failed]} failed[/]",
                               "{task.fields[remaining]} remaining", "({task.fields[skipped]} already stored)"],
                       lambda done, failed, total, skipped: (done, total, {"failed": failed, "remaining": total - done,
                                                                           "skipped": skipped}),
                       keep=True)


def print_point_summary(summary, spec) -> None:
    """Per point: parameters, runs, and each metric's mean ± 95% CI."""
    from rich.table import Table

    from ..sweeps.stats import mean_ci_text

    table = Table(title=f"Per point: mean ± 95% CI over {spec.replications} replication(s)", title_justify="left")
    names = [p.name for p in spec.parameters]
    for name in names:
        table.add_column(name)
    table.add_column("runs", justify="right")
    for m in spec.metrics:
        table.add_column("goodput Mb/s" if m == "goodput_bps" else m, justify="right")
    for _, row in summary.iterrows():
        cells = [escape(str(row[n])) for n in names]
        cells.append(f"{row['runs']}" + (f" ([red]{row['failed']} failed[/])" if row["failed"] else ""))
        for m in spec.metrics:
            cells.append(mean_ci_text(row[m], row[f"{m}_ci"], 1e-6 if m == "goodput_bps" else 1.0))
        table.add_row(*cells)
    out_console.print(table)


def _hosts_for(backend: str, hosts: Path | None, scenarios: list) -> dict | None:
    """The hosts of --hosts for ``--backend measure`` (every host the scenarios' flows
    use must be there), None for the other backends; ScenarioError otherwise."""
    if backend != "measure":
        if hosts is not None:
            raise ScenarioError("--hosts", "is for --backend measure")
        return None
    if hosts is None:
        raise ScenarioError("--hosts", "--backend measure needs --hosts FILE: which machine is which host (docs/measure.md)")
    from ..measure import hosts_used, read_hosts
    from ..scenario import load

    return read_hosts(hosts, sorted({name for s in scenarios for name in hosts_used(load(s).engine)}))


def _announce_long_sweep(spec, jobs: int | None, backend: str) -> None:
    """Says so before a sweep estimated to take longer than a long run's threshold
    (planning included: it validates every run first)."""
    from ..budget import duration_text, warn_after_s
    from ..sweeps.cost import sweep_wall_s

    runs, wall_s = sweep_wall_s(spec, jobs, backend)
    if wall_s > warn_after_s():
        err_console.print(f"[bold yellow]warning:[/] {escape(spec.scenario_source)}: {runs:,} runs, "
                          f"{duration_text(wall_s)} of wall time", highlight=False, soft_wrap=True)


def run_and_report(spec, out: Path, jobs: int | None, dask: str | None, label: str = "sweep", backend: str = "sim",
                   hosts: dict | None = None):
    """Runs ``spec`` into ``out`` on ``backend`` (between ``hosts`` for "measure") with
    a progress bar; prints the per-point summary and where plots went. Returns the
    outcome and the summary."""
    from ..sweeps import SweepInputError, finish, run_sweep

    _announce_long_sweep(spec, jobs, backend)
    progress = sweep_progress(label)
    try:
        outcome = run_sweep(spec, out, jobs=jobs, dask_address=dask, progress=progress, backend=backend, hosts=hosts)
    except SweepInputError as e:
        fail(str(e), 2)
    finally:
        progress.close()
    for d in outcome.quarantined:
        err_console.print(f"[yellow]warning:[/] {escape(str(d.batch))}: damaged ({escape(d.problem)}); moved aside, "
                          "its runs were run again")
    if outcome.outside_plan:
        err_console.print(f"[yellow]note:[/] {escape(str(outcome.root))}: {outcome.outside_plan:,} stored run(s) are not part "
                          "of this sweep (another engine build, or other replications or values): kept in batches/, "
                          "left out of the summary and the views", highlight=False, soft_wrap=True)
    summary, plots = finish(spec, outcome.root)
    return outcome, summary, plots


@app.command()
def sweep(
    file: Annotated[Path, typer.Argument(help="A scenario with a \\[sweep] table, or a sweep file (scenario = \"...\").", show_default=False)],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Sweep directory (default: results/<name>-sweep). Rerunning resumes it.")] = None,
    jobs: JobsOpt = None,
    dask: DaskOpt = None,
    backend: BackendOpt = "sim",
    hosts: HostsOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Plan a sweep of more than 1,000,000 runs (held in memory while planned).")] = False,
) -> None:
    """Run every point × replication of a sweep in parallel; resumable (runs already in
    the directory are not run again). Exit status 1 if some runs failed."""
    from ..sweeps import read_sweep
    from ..sweeps.spec import MAX_RUNS

    try:
        spec = read_sweep(file, max_runs=None if yes else MAX_RUNS)
        host_specs = _hosts_for(backend, hosts, [spec.scenario])
    except ScenarioError as e:
        fail(str(e), 2)
    target = out if out is not None else Path("results") / f"{file.stem}-sweep"
    outcome, summary, plots = run_and_report(spec, target, jobs, dask, backend=backend, hosts=host_specs)
    if not summary.empty:
        print_point_summary(summary, spec)
    out_console.print(f"{outcome.total} runs: {outcome.skipped} already stored, {outcome.ran} run now "
                      f"({outcome.failed} failed) in {outcome.wall_s:.1f} s. Catalog: [bold]{escape(str(outcome.root / 'catalog.duckdb'))}[/]")
    for p in plots:
        out_console.print(f"{'Report' if p.suffix == '.html' else 'Plot'}: {escape(str(p))}")
    if outcome.failed:
        err_console.print(f"[yellow]{outcome.failed} run(s) failed; their messages: "
                          f"tcplab query {escape(str(outcome.root))} \"SELECT point, rep, message FROM runs WHERE status = 'failed'\"[/]")
        raise typer.Exit(1)


#: Characters of one value ``tcplab query`` shows in a table.
MAX_QUERY_CELL = 2000


@app.command()
def query(
    directory: Annotated[Path, typer.Argument(help="A sweep directory.", show_default=False)],
    sql: Annotated[str, typer.Argument(help="SQL over the views runs, flows, links, flow_series, link_series (reading only).", show_default=False)],
    csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
) -> None:
    """Run SQL against a sweep's catalog."""
    import duckdb

    from ..sweeps.catalog import QueryRefused, check_read_only, connect_read_only
    from ..sweeps.integrity import SweepIntegrityError

    if not (directory / "sweep.json").exists():
        fail(f"{directory}: not a sweep directory (no sweep.json)", 2)
    try:
        con = connect_read_only(directory)
    except SweepIntegrityError as e:
        fail(str(e), 2)
    try:
        check_read_only(con, sql)
        df = con.execute(sql).df()
    except QueryRefused as e:
        fail(str(e), 2)
    except duckdb.Error as e:
        # One line: DuckDB's message without its multi-line pointer into the SQL.
        message = " ".join(str(e).split("\nLINE ")[0].split())
        fail(f"query: {message}", 2)
    except MemoryError:
        fail("query: the result does not fit in memory; select fewer rows or columns (LIMIT, an aggregate)", 2)
    finally:
        con.close()
    if csv:
        try:
            df.to_csv(out_console.file, index=False)  # in chunks, not as one string
        except MemoryError:
            fail("query: the result is too large to write as CSV in this memory; select fewer rows or "
                 "shorter values (LIMIT, left(value, n))", 2)
        return
    import pandas as pd

    from ..sweeps.stats import mean_ci_text
    from ..tables import Column, fitted_tables

    # Every value whole: a result wider than the terminal continues in further tables,
    # each led by the first column (as `tcplab run`'s tables do). Only a value longer
    # than a screenful is cut, saying so: --csv prints it whole.
    def cell(value: object) -> str:
        text = mean_ci_text(value) if isinstance(value, float) else str(value)
        if len(text) > MAX_QUERY_CELL:
            text = f"{text[:MAX_QUERY_CELL]} … ({len(text):,} characters; --csv prints it whole)"
        return escape(text)

    columns = [Column(escape(str(c)), numeric=pd.api.types.is_numeric_dtype(df[c])) for c in df.columns]
    rows = [[cell(v) for v in row] for row in df.itertuples(index=False)]
    out_console.print(*fitted_tables(f"{len(df):,} rows", columns, rows, out_console.width))


@app.command()
def reproduce(
    study: Annotated[str | None, typer.Argument(help="A study name (see --list).", show_default=False)] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the studies.")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="The quick subset (documented per study).")] = False,
    jobs: JobsOpt = None,
    dask: DaskOpt = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output directory (default: results/reproduce-<study>[-quick]).")] = None,
    export: Annotated[Path | None, typer.Option(
        "--export", help="Write the study's files (scenarios, sweeps, published data) to DIR instead of running.")] = None,
    backend: BackendOpt = "sim",
    hosts: HostsOpt = None,
    explore: Annotated[bool, typer.Option(
        "--explore", help="Also run the quick subset under every reading of the paper's unstated parameters "
                          "and map where each conclusion reproduces (in the report).")] = False,
) -> None:
    """Reproduce a published study: run its sweeps and write a report (Markdown and HTML)
    with the published numbers side by side and its conclusions checked."""
    from ..studies import StudyError, available, export_study, load_study, reproduce_study

    if list_ or study is None:
        for s in available():
            out_console.print(f"[bold]{s.name}[/]: {s.title}")
        return
    try:
        loaded = load_study(study)
        if export is not None:
            written = export_study(loaded, export)
            out_console.print(f"Wrote {len(written)} files to {escape(str(export))}")
            return
    except (StudyError, ScenarioError) as e:
        fail(str(e), 2)
    from ..studies import BACKEND_SUFFIX

    suffix = BACKEND_SUFFIX.get(backend, "") + ("-quick" if quick else "")
    target = out if out is not None else Path("results") / f"reproduce-{study}{suffix}"
    started = time.perf_counter()
    try:
        declared = loaded.sweeps(quick, backend)
        templates = sorted({loaded.directory / d["scenario"] for d in declared if "scenario" in d})
        host_specs = _hosts_for(backend, hosts, templates)
        runner = functools.partial(_run_on, hosts=host_specs)
        if explore and backend != "sim":
            raise StudyError("--explore runs in the simulator only (--backend sim)")
        report = reproduce_study(loaded, target, quick=quick, jobs=jobs, dask=dask, runner=runner, backend=backend,
                                 explore=explore)
    except (StudyError, ScenarioError) as e:
        fail(str(e), 2)
    out_console.print(report.markdown_checklist(), markup=False, highlight=False)
    out_console.print(f"Report: [bold]{escape(str(report.markdown_path))}[/] and [bold]{escape(str(report.html_path))}[/] "
                      f"({time.perf_counter() - started:.0f} s)")


def _run_on(spec, out: Path, jobs, dask, label: str, backend: str, *, hosts: dict | None):
    """:func:`run_and_report` for a study's sweeps: the measure backend's runs get the
    hosts, the simulator's none."""
    return run_and_report(spec, out, jobs, dask, label, backend, hosts=hosts if backend == "measure" else None)
