"""``tcplab run``, ``report`` and ``validate``: one scenario through the simulator."""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..budget import check_memory, duration_text, estimate, warn_after_s
from ..capture import DEFAULT_SNAPLEN
from ..intervals import IntervalReport
from ..output import OutputError, StoredResultsError, check_output, current_umask, record_written, replace_file
from ..runner import InternalError, simulate
from ..runner import validate as engine_validate
from ..scenario import ScenarioError, load
from ..scenario.units import parse_duration_ns
from .app import ScenarioArg, SetOpt, app, err_console, escape, exit_without_teardown, fail, out_console, print_or_discard
from .progress import ProgressBar
from .summary import print_summary

if TYPE_CHECKING:

    from ..budget import Estimate


def _simulation_progress(enabled: bool = True) -> ProgressBar:
    """The run's bar (simulated time, events), once it has taken half a second."""
    return ProgressBar("simulating", ["{task.fields[sim]:.2f}/{task.fields[end]:.2f} s", "{task.fields[events]:,} events"],
                       lambda now_ns, total_ns, events: (now_ns, total_ns, {"sim": now_ns / 1e9, "end": total_ns / 1e9,
                                                                            "events": events}),
                       delay_s=0.5, enabled=enabled)



def _import_output_modules(summary_table: bool, report: bool) -> None:
    """Imports what printing and writing the results needs (numpy, pyarrow, and rich
    for the summary table, the report module for report.html); run in a thread while
    the engine runs, which releases the GIL, so the imports take the second core
    instead of wall time after the run. (They still slow the engine a little: B1's
    0.14 s becomes about 0.17 s.) Nothing the command will not use is imported."""
    import pyarrow.csv  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from .. import results  # noqa: F401
    from ..provenance import engine_build

    engine_build()  # hashes the engine's library once (~10 ms); the provenance reads it

    if summary_table:
        import rich.console  # noqa: F401
        import rich.markup  # noqa: F401

        from .. import tables  # noqa: F401
    if report:
        import numpy.ma  # noqa: F401  (numpy loads it on the charts' first np.unique: ~14 ms)

        from .. import report as report_module  # noqa: F401


def _announce_long_run(loaded, yes: bool) -> Estimate:
    """Says so before a run estimated to take longer than the threshold (and asks,
    on a terminal, unless --yes); refuses one that cannot fit in memory. Returns the
    estimate."""
    cost = estimate(loaded)
    check_memory(loaded, cost)
    if cost.wall_s <= warn_after_s():
        return cost
    err_console.print(f"[bold yellow]warning:[/] {escape(loaded.source)}: about {cost.events:,.0f} events and "
                      f"{cost.series_cells:,} series cells: {duration_text(cost.wall_s)} of wall time", highlight=False, soft_wrap=True)
    if sys.stdin.isatty() and sys.stderr.isatty() and not yes and not typer.confirm("Start it?", default=False, err=True):
        fail("not started (run it with --yes to skip this question)", 2)
    return cost


@app.command()
def run(
    scenario: ScenarioArg,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Results directory (default: results/<scenario name>). Replaced atomically.")] = None,
    set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option("--seed", metavar="N", help="Override simulation.seed.", min=0)] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print summary.json to stdout instead of tables.")] = False,
    html_report: Annotated[bool, typer.Option(
        "--report/--no-report", help="Write report.html: tables and interactive charts, one file that works offline.")] = True,
    plots: Annotated[bool, typer.Option(
        "--plots/--no-plots", help="Also draw every chart as a plot file (PNG unless --plot-format says otherwise).")] = False,
    plot_format: Annotated[str | None, typer.Option(
        "--plot-format", help="Plot files as png (1,600 × 900 pixels), svg or pdf; implies --plots.")] = None,
    goodput_plot: Annotated[bool, typer.Option(
        "--goodput-plot", help="Plot goodput (in-order payload handed to the application) instead of received throughput.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Start a run estimated to take long without asking.")] = False,
    interval: Annotated[str | None, typer.Option(
        "--interval", metavar="DURATION",
        help="Print every flow's goodput, retransmits, cwnd and RTT each DURATION of simulated time while running "
             "(as iperf3 does; with --json, one JSON object per line).")] = None,
    pcap: Annotated[list[str] | None, typer.Option(
        "--pcap", metavar="all|FLOW|LINK",
        help="Write libpcap captures into OUT/pcap: every link direction (all), a link direction (e.g. a->b), or a "
             "flow (its sender's link, both directions). Repeatable.")] = None,
    snaplen: Annotated[int, typer.Option("--snaplen", metavar="BYTES", min=40, max=65535,
                                         help="Bytes kept of each captured packet (SCTP packets are kept whole).")] = DEFAULT_SNAPLEN,
) -> None:
    """Run a scenario: print a summary and write summary.json, CSV tables, Parquet time series and report.html."""
    progress = _simulation_progress()
    pcap_dir: Path | None = None
    try:
        _check_plot_format(plot_format)
        interval_ns = parse_duration_ns(interval, "--interval") if interval is not None else None
        if interval_ns is not None and interval_ns <= 0:
            raise ScenarioError("--interval", f"expected a positive duration such as 1s, got {interval!r}")
        loaded = load(scenario, set_ or [], seed)
        target = out if out is not None else Path("results") / loaded.name
        check_output(target)  # refuse an unusable --out before a long run, not after
        cost = _announce_long_run(loaded, yes)
        # Interval lines are the progress report: no bar drawn over them.
        progress = _simulation_progress(enabled=interval_ns is None)
        report = IntervalReport(loaded.engine["flows"], as_json=json_) if interval_ns is not None else None
        if pcap:
            # Captures are written while the run goes on, next to where the results
            # will be (a stale temporary if killed: the next run removes it).
            target.parent.mkdir(parents=True, exist_ok=True)
            pcap_dir = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-{os.getpid()}-pcap", dir=target.parent))
            os.chmod(pcap_dir, 0o777 & ~current_umask())  # as the rest of the results
        import threading

        threading.Thread(target=_import_output_modules, args=(not json_, html_report), daemon=True,
                         name="tcplab-imports").start()
        # The run loop takes the GIL between engine steps: the importing thread must
        # hand it over at once, not after the default 5 ms.
        switch = sys.getswitchinterval()
        sys.setswitchinterval(1e-4)
        try:
            engine, wall = simulate(loaded, progress, cost=cost, interval_ns=interval_ns, on_interval=report,
                                    pcap=(pcap, pcap_dir, snaplen) if pcap and pcap_dir is not None else None)
        except OSError as e:
            raise OutputError(f"--pcap: cannot write the capture ({e})") from None
        finally:
            sys.setswitchinterval(switch)
        progress.close()
        from ..results import RunResult

        result = RunResult.from_engine(engine, loaded, wall)
        if pcap_dir is not None:
            _write_pcap_hosts(loaded, pcap_dir)
        if not json_:
            # As soon as the simulation ends; the files follow, whoever reads the table.
            print_or_discard(lambda: print_summary(result, out_console))
        written = result.save(target, plots=plots or plot_format is not None, report=html_report,
                              throughput="goodput" if goodput_plot else "received",
                              extra={"pcap": pcap_dir} if pcap_dir is not None else None, plot_format=plot_format or "png")
    except (ScenarioError, OutputError) as e:
        progress.close()
        fail(str(e), 2)
    except InternalError as e:
        progress.close()
        fail(str(e), 1)
    except BaseException:
        progress.close()  # an interrupt: take the bar off the terminal first
        raise
    finally:
        if pcap_dir is not None:
            shutil.rmtree(pcap_dir, ignore_errors=True)  # moved into the results, or abandoned
    if json_ and interval_ns is not None:
        print_or_discard(lambda: sys.stdout.write(json.dumps(result.summary, allow_nan=False) + "\n"))  # the stream's last line
    elif json_:
        print_or_discard(lambda: sys.stdout.write(result.summary_json()))
    else:
        print_or_discard(lambda: out_console.print(f"Results written to [bold]{escape(str(written))}[/]"))
        if pcap_dir is not None:
            captures = Path(written) / "pcap"
            print_or_discard(lambda: out_console.print(
                f"Captures in [bold]{escape(str(captures))}[/]; node names for their addresses: "
                f"tshark -H {escape(str(captures / 'hosts'))} -N n -r FILE"))
    exit_without_teardown()


def _write_pcap_hosts(loaded, pcap_dir: Path) -> None:
    """A hosts file (`address name` per line) beside the captures, with the addresses
    the engine gives the nodes in them, which tshark -H maps back to the names."""
    from .. import _core

    lines = [f"{_core.pcap_node_address(i)}\t{node['name']}" for i, node in enumerate(loaded.engine["nodes"])]
    (pcap_dir / "hosts").write_text("\n".join(lines) + "\n")


def _check_plot_format(plot_format: str | None) -> None:
    if plot_format is not None and plot_format not in ("png", "svg", "pdf"):
        raise ScenarioError("--plot-format", f"expected png, svg or pdf, got {plot_format!r}")


@app.command("report")
def report_command(
    results: Annotated[Path, typer.Argument(help="A results directory written by tcplab run.", show_default=False)],
    plots: Annotated[bool, typer.Option("--plots", help="Also draw every chart as a plot file in the directory.")] = False,
    plot_format: Annotated[str | None, typer.Option(
        "--plot-format", help="Plot files as png (1,600 × 900 pixels), svg or pdf; implies --plots.")] = None,
    goodput_plot: Annotated[bool, typer.Option("--goodput-plot", help="Show goodput first instead of received throughput.")] = False,
) -> None:
    """(Re)write a results directory's report.html, and on request its plot files, from the data the run saved."""
    from ..compare import load_runs
    from ..report import write_report

    try:
        _check_plot_format(plot_format)
        (result,) = load_runs([results])
        throughput = "goodput" if goodput_plot else "received"
        written = [replace_file(results / "report.html", lambda tmp: write_report(result, tmp, throughput))]
        if plots or plot_format is not None:
            from ..charts import run_charts
            from ..plots import FORMATS, draw

            fmt = plot_format or "png"
            assert fmt in FORMATS
            for chart in run_charts(result.summary, result._series(), throughput):
                if chart.name not in ("goodput", "received"):
                    written.append(replace_file(results / f"{chart.name}.{fmt}", functools.partial(draw, chart)))
        record_written(results, [p.name for p in written])  # the next run there may replace them
    except (ScenarioError, OutputError, StoredResultsError) as e:
        fail(str(e), 2)
    out_console.print(f"Wrote {len(written)} file(s) into [bold]{escape(str(results))}[/]: "
                      + ", ".join(escape(p.name) for p in written))


@app.command()
def validate(scenario: ScenarioArg, set_: SetOpt = None) -> None:
    """Check a scenario completely (syntax, units, references, routes) without running it."""
    try:
        loaded = load(scenario, set_ or [])
        engine_validate(loaded)
    except ScenarioError as e:
        fail(str(e), 2)
    config = loaded.engine
    cost = estimate(loaded)
    out_console.print(f"{escape(loaded.source)}: valid ({len(config['nodes'])} nodes, {len(config['links'])} links, "
                      f"{len(config['flows'])} flows, {config['simulation']['duration_ns'] / 1e9:g} s); estimated {cost.events:,.0f} events, "
                      f"{duration_text(cost.wall_s)}, {cost.memory_bytes / 1e6:,.0f} MB",
                      soft_wrap=True)  # one line, however long the path: scripts read it


