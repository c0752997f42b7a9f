"""The ``tcplab`` command: ``run`` and ``validate`` (``sweep``, ``query`` and ``reproduce``
live in :mod:`tcplab.cli_sweeps`, ``compare`` in :mod:`tcplab.cli_compare`, ``emu`` and
``crosscheck`` in :mod:`tcplab.cli_emu`).

Exit status: 0 on success, 2 for invalid input (scenario, overrides, output
directory), 1 for an internal error (a bug: please report it).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from . import __version__
from .budget import check_memory, duration_text, estimate, warn_after_s
from .intervals import IntervalReport
from .output import OutputError, _umask, check_output, record_written, replace_file
from .runner import InternalError, simulate
from .runner import validate as engine_validate
from .scenario import ScenarioError, load
from .scenario.errors import one_line
from .scenario.units import parse_duration_ns
from .series import StoredResultsError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from .budget import Estimate
    from .results import RunResult
    from .tables import BoxTable

app = typer.Typer(
    help="tcplab: end-to-end transport performance laboratory.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
def _piped_width() -> int:
    """Width for output that is not a terminal: $COLUMNS when set, else wide enough
    that tables keep one row per flow."""
    try:
        return max(int(os.environ.get("COLUMNS", "")), 40)
    except ValueError:
        return 160


def escape(text: str) -> str:
    """``text`` with anything rich would read as markup escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


class _LazyConsole:
    """A rich Console made on first use: importing rich costs 40 ms that a run would
    otherwise spend before its engine starts (the import happens on the second thread
    while the engine runs, see :func:`_import_output_modules`)."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    def _get(self) -> Console:
        if self._console is None:
            from rich.console import Console

            if self._stderr:
                self._console = Console(stderr=True)
            else:
                self._console = Console() if sys.stdout.isatty() else Console(width=_piped_width())
                # rich ends the process (status 1) when the reader of standard output
                # has gone; tcplab carries on and still writes its files.
                self._console.on_broken_pipe = _discard_stdout  # type: ignore[method-assign]
        return self._console

    def __getattr__(self, name: str):
        return getattr(self._get(), name)


# Typed as what they stand for: every use goes through attribute access.
out_console: Console = _LazyConsole(stderr=False)  # type: ignore[assignment]
err_console: Console = _LazyConsole(stderr=True)  # type: ignore[assignment]


def real_console(console: Console) -> Console:
    """The Console itself, for rich APIs that take one (a progress bar)."""
    return console._get() if isinstance(console, _LazyConsole) else console

ScenarioArg = Annotated[Path, typer.Argument(help="Scenario file (.toml or .yaml).", show_default=False)]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="KEY=VALUE",
                 help="Override a scenario field: its dotted path = a value (e.g. flow[0].app.rate = 2Mbps). Repeatable."),
]


def _fail(message: str, status: int) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {escape(one_line(message))}", highlight=False, soft_wrap=True)
    raise typer.Exit(status)


class _LazyProgress:
    """A progress bar that appears only once a run has taken more than half a second."""

    def __init__(self, enabled: bool = True) -> None:
        self.started = time.perf_counter()
        self.enabled = enabled
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, now_ns: int, total_ns: int, events: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.started < 0.5 or now_ns >= total_ns:
                return
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("simulating"), BarColumn(), TextColumn("{task.fields[sim]:.2f}/{task.fields[end]:.2f} s"),
                TextColumn("{task.fields[events]:,} events"), TimeRemainingColumn(), console=real_console(err_console), transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("run", total=total_ns, sim=0.0, end=total_ns / 1e9, events=0)
        if self.task is not None:
            self.bar.update(self.task, completed=now_ns, sim=now_ns / 1e9, events=events)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _mbps(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e6:.3f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _percent(fraction: float | None) -> str:
    """A fraction as a percentage, or "-" where it was not observable (a measured path's drops)."""
    return "-" if fraction is None else f"{100 * fraction:.2f}"


def _count(value: int | None) -> str:
    """A count, or "-" where the run has none (e.g. an emulated run's timeouts)."""
    return "-" if value is None else f"{value:,}"


#: Beyond this many flows (or busy link directions) the summary shows a distribution
#: and the extremes instead of one row each; flows.csv / links.csv have every row.
COMPACT_ROWS = 40
#: Rows shown at each end (lowest, highest goodput) of a compact flow table.
COMPACT_EXTREMES = 5


def _flow_table(title: str, flows: list[dict], width: int) -> list[BoxTable]:
    from .tables import Column, fitted_tables

    columns = [Column("flow", numeric=False), Column("path", numeric=False), Column("transport", numeric=False),
               Column("goodput Mb/s"), Column("rx max Mb/s"), Column("sent pkts"), Column("lost pkts"), Column("loss %"),
               Column("delay mean ms"), Column("p99 ms"), Column("jitter ms")]
    rows = []
    for f in flows:
        d = f["delay_ms"]
        rows.append([escape(f["id"]), escape(f"{f['src']}→{f['dst']}"), escape(f.get("label", f["transport"])),
                     _mbps(f["goodput_bps"]),
                     _mbps(f["throughput_max_bps"]), _count(f["packets_sent"]), _count(f["packets_dropped"]),
                     _percent(f["loss_rate"]), _ms(d["mean"]), _ms(d["p99"]), _ms(f['jitter_ms'])])
    return fitted_tables(title, columns, rows, width)


def _distribution_table(flows: list[dict], width: int) -> list[BoxTable]:
    """One row per metric, its spread over the flows (percentiles of the per-flow values)."""
    import numpy as np

    from .tables import Column, fitted_tables

    metrics = [
        ("goodput Mb/s", [f["goodput_bps"] / 1e6 for f in flows]),
        ("loss %", [100 * f["loss_rate"] for f in flows]),
        ("delay mean ms", [f["delay_ms"]["mean"] for f in flows]),
        ("delay p99 ms", [f["delay_ms"]["p99"] for f in flows]),
        ("jitter ms", [f["jitter_ms"] for f in flows]),
        ("retransmits", [f.get("retransmits") for f in flows]),
        ("completion s", [f.get("fct_s") for f in flows]),
    ]
    columns = [Column("metric", numeric=False), *(Column(h) for h in ["flows", "min", "p10", "median", "mean", "p90", "max"])]
    rows = []
    for name, values in metrics:
        v = np.array([x for x in values if x is not None], dtype=float)
        if v.size == 0:
            continue
        p10, p50, p90 = np.percentile(v, [10, 50, 90])
        digits = 1 if name == "retransmits" else 3  # a count: its percentiles need one decimal
        rows.append([name, f"{v.size:,}", *(f"{x:,.{digits}f}" for x in (v.min(), p10, p50, v.mean(), p90, v.max()))])
    return fitted_tables(f"Flows: distribution over {len(flows):,} flows", columns, rows, width)


def print_summary(result: RunResult, console: Console) -> None:
    """The human-readable summary: flows, busy links, fairness. Beyond
    :data:`COMPACT_ROWS` flows it shows their distribution and the extremes."""
    s = result.summary
    if s.get("backend") == "measure":
        hosts = ", ".join(f"{name} ({h['reached_by']})" for name, h in s["measurement"]["hosts"].items())
        console.print(f"[bold]{escape(s['scenario'])}[/]: {s['duration_s']:g} s measured between real hosts: {escape(hosts)}")
    else:
        console.print(f"[bold]{escape(s['scenario'])}[/]: {s['duration_s']:g} s simulated, seed {s['seed']}, "
                      f"{s['events']:,} events in {s['wall_time_s']:.2f} s wall time")
    description = (s.get("scenario_as_run") or {}).get("description")
    if isinstance(description, str) and description.strip():
        console.print(escape(" ".join(description.split())))  # what the scenario shows, in its own words
    flows = s["flows"]
    compact = len(flows) > COMPACT_ROWS
    width = console.width
    if compact:
        console.print(*_distribution_table(flows, width))
        ranked = sorted(flows, key=lambda f: f["goodput_bps"])
        k = COMPACT_EXTREMES
        console.print(*_flow_table(f"Flows: the {k} lowest and {k} highest goodputs", ranked[:k] + ranked[-k:], width))
    else:
        console.print(*_flow_table("Flows", flows, width))
    from .tables import Column, fitted_tables

    tcp = [f for f in flows if f.get("retransmits") is not None]
    if tcp and not compact:
        columns = [Column("flow", numeric=False), *(Column(h) for h in ["retransmits", "fast retx", "timeouts", "mean SRTT ms", "completion s"])]
        rows = [[escape(f["id"]), _count(f["retransmits"]), _count(f["fast_retransmits"]), _count(f["rto_count"]),
                 _ms(f["srtt_ms"]), "-" if f["fct_s"] is None else f"{f['fct_s']:.3f}"] for f in tcp]
        console.print(*fitted_tables("Reliable transport", columns, rows, width))
    # None for a measurement between real hosts (its links are not observable).
    busy = [link for link in s["links"] if link["tx_packets"] > 0 or sum(link["drops"].values()) > 0]
    shown = busy if len(busy) <= COMPACT_ROWS else sorted(busy, key=lambda link: link["utilization"], reverse=True)[:COMPACT_EXTREMES * 2]
    title = "Link directions with traffic" if shown is busy else f"The {len(shown)} busiest of {len(busy):,} link directions with traffic"
    columns = [Column("link", numeric=False),
               *(Column(h) for h in ["Mb/s", "util %", "tx pkts", "drops q/red/rand", "queue max pkts", "queue mean pkts"])]
    rows = []
    for link in shown:
        dr = link["drops"]
        rows.append([escape(link["id"]), f"{link['bandwidth_bps'] / 1e6:g}", f"{100 * link['utilization']:.1f}", f"{link['tx_packets']:,}",
                     f"{dr['queue']}/{dr['red']}/{dr['random']}", f"{link['queue_max_packets']:,}", f"{link['queue_mean_packets']:.2f}"])
    if busy:
        console.print(*fitted_tables(title, columns, rows, width))
    jain = s["fairness"]["jain"]
    console.print(f"Jain's fairness index over {len(s['fairness']['flows']):,} flow(s): "
                  + ("-" if jain is None else f"[bold]{jain:.4f}[/]"))
    if compact or shown is not busy:
        console.print("Every flow and link direction: flows.csv and links.csv in the results directory.")


def _import_output_modules(summary_table: bool, report: bool) -> None:
    """Imports what printing and writing the results needs (numpy, pyarrow, and rich
    for the summary table, the report module for report.html); run in a thread while
    the engine runs, which releases the GIL, so the imports take the second core
    instead of wall time after the run. (They still slow the engine a little: B1's
    0.14 s becomes about 0.17 s.) Nothing the command will not use is imported."""
    import pyarrow.csv  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from . import results  # noqa: F401

    if summary_table:
        import rich.console  # noqa: F401
        import rich.markup  # noqa: F401

        from . import tables  # noqa: F401
    if report:
        from . import report as report_module  # noqa: F401


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
        _fail("not started (run it with --yes to skip this question)", 2)
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
                                         help="Bytes kept of each captured packet (SCTP packets are kept whole).")] = 80,
) -> None:
    """Run a scenario: print a summary and write summary.json, CSV tables, Parquet time series and report.html."""
    progress = _LazyProgress()
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
        progress = _LazyProgress(enabled=interval_ns is None)
        report = IntervalReport(loaded.engine["flows"], as_json=json_) if interval_ns is not None else None
        if pcap:
            # Captures are written while the run goes on, next to where the results
            # will be (a stale temporary if killed: the next run removes it).
            target.parent.mkdir(parents=True, exist_ok=True)
            pcap_dir = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-{os.getpid()}-pcap", dir=target.parent))
            os.chmod(pcap_dir, 0o777 & ~_umask())  # as the rest of the results
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
        from .results import RunResult

        result = RunResult.from_engine(engine, loaded, wall)
        if pcap_dir is not None:
            _write_pcap_hosts(loaded, pcap_dir)
        if not json_:
            # As soon as the simulation ends; the files follow, whoever reads the table.
            _print_or_discard(lambda: print_summary(result, out_console))
        written = result.save(target, plots=plots or plot_format is not None, report=html_report,
                              throughput="goodput" if goodput_plot else "received",
                              extra={"pcap": pcap_dir} if pcap_dir is not None else None, plot_format=plot_format or "png")
    except (ScenarioError, OutputError) as e:
        progress.close()
        _fail(str(e), 2)
    except InternalError as e:
        progress.close()
        _fail(str(e), 1)
    except BaseException:
        progress.close()  # an interrupt: take the bar off the terminal first
        raise
    finally:
        if pcap_dir is not None:
            shutil.rmtree(pcap_dir, ignore_errors=True)  # moved into the results, or abandoned
    if json_ and interval_ns is not None:
        _print_or_discard(lambda: sys.stdout.write(json.dumps(result.summary, allow_nan=False) + "\n"))  # the stream's last line
    elif json_:
        _print_or_discard(lambda: sys.stdout.write(result.summary_json()))
    else:
        _print_or_discard(lambda: out_console.print(f"Results written to [bold]{escape(str(written))}[/]"))
        if pcap_dir is not None:
            captures = Path(written) / "pcap"
            _print_or_discard(lambda: out_console.print(
                f"Captures in [bold]{escape(str(captures))}[/]; node names for their addresses: "
                f"tshark -H {escape(str(captures / 'hosts'))} -N n -r FILE"))
    _exit_without_teardown()


def _write_pcap_hosts(loaded, pcap_dir: Path) -> None:
    """A hosts file (`address name` per line) beside the captures, with the addresses
    the engine gives the nodes in them, which tshark -H maps back to the names."""
    from . import _core

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
    from .report import write_report
    from .results import RunResult

    try:
        _check_plot_format(plot_format)
        try:
            result = RunResult.from_directory(results)
        except (OSError, ValueError) as e:
            raise OutputError(f"{results}: not a tcplab results directory ({e})") from None
        throughput = "goodput" if goodput_plot else "received"
        written = [replace_file(results / "report.html", lambda tmp: write_report(result, tmp, throughput))]
        if plots or plot_format is not None:
            from .charts import run_charts
            from .plots import FORMATS, draw

            fmt = plot_format or "png"
            assert fmt in FORMATS
            for chart in run_charts(result.summary, result._series(), throughput):
                if chart.name not in ("goodput", "received"):
                    written.append(replace_file(results / f"{chart.name}.{fmt}", functools.partial(draw, chart)))
        record_written(results, [p.name for p in written])  # the next run there may replace them
    except (ScenarioError, OutputError, StoredResultsError) as e:
        _fail(str(e), 2)
    out_console.print(f"Wrote {len(written)} file(s) into [bold]{escape(str(results))}[/]: "
                      + ", ".join(escape(p.name) for p in written))


@app.command()
def validate(scenario: ScenarioArg, set_: SetOpt = None) -> None:
    """Check a scenario completely (syntax, units, references, routes) without running it."""
    try:
        loaded = load(scenario, set_ or [])
        engine_validate(loaded)
    except ScenarioError as e:
        _fail(str(e), 2)
    config = loaded.engine
    cost = estimate(loaded)
    out_console.print(f"{escape(loaded.source)}: valid ({len(config['nodes'])} nodes, {len(config['links'])} links, "
                      f"{len(config['flows'])} flows, {config['simulation']['duration_ns'] / 1e9:g} s); estimated {cost.events:,.0f} events, "
                      f"{duration_text(cost.wall_s)}, {cost.memory_bytes / 1e6:,.0f} MB")


def _version(value: bool) -> None:
    if value:
        out_console.print(f"tcplab {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """tcplab: end-to-end transport performance laboratory."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: unwinds everything (a results directory being
    written is removed, the old one kept) and ends the command with 128 + signal.
    Not an Exception, so no handler on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, _frame) -> None:
    raise Interrupted(signum)


#: Set by :func:`main`: a command started from the shell may end with ``os._exit`` once
#: its output is flushed and its files are closed (not when tcplab is used as a library).
_STARTED_AS_COMMAND = False


def _discard_stdout() -> None:
    """The reader of standard output has gone (`tcplab run … | head`): what is left to
    print goes nowhere, and the command carries on (its files are still written)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _print_or_discard(write) -> None:
    """Calls ``write`` (which prints to standard output), tolerating a closed pipe."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()


def _exit_without_teardown(status: int = 0) -> None:
    """Ends a finished command at once, with exit ``status``: the interpreter's
    teardown (freeing numpy's, pyarrow's and every module's objects) takes about 40 ms
    of a 0.4 s run and does nothing the user needs. Everything tcplab wrote is closed
    by now."""
    if _STARTED_AS_COMMAND:
        _print_or_discard(lambda: None)
        sys.stderr.flush()
        os._exit(status)
    if status:
        raise SystemExit(status)


def main() -> None:
    """Entry point of the ``tcplab`` command."""
    global _STARTED_AS_COMMAND
    _STARTED_AS_COMMAND = True
    # tcplab does no large linear algebra; OpenBLAS's threads, started when numpy is
    # imported (during the run, on a second thread), would only take cores from the
    # engine.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from . import cli_advise, cli_compare, cli_emu, cli_examples, cli_measure, cli_schema, cli_sweeps  # noqa: F401  (register advise, compare, emu, crosscheck, examples, measure, schema; sweep, query, reproduce)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupt)
    try:
        app()
    except Interrupted as e:
        name = signal.Signals(e.signum).name
        err_console.print(f"[bold red]interrupted[/] by {name}: stopped (a results directory is only ever replaced whole)", highlight=False, soft_wrap=True)
        sys.exit(128 + e.signum)
    except Exception as e:  # a bug in tcplab (usage errors never get here): one line, the traceback in a file
        _report_internal_error(e)
        sys.exit(1)


def _report_internal_error(error: Exception) -> None:
    import tempfile
    import traceback

    with tempfile.NamedTemporaryFile("w", prefix="tcplab-internal-error-", suffix=".txt", delete=False) as f:
        traceback.print_exception(error, file=f)
    err_console.print(f"[bold red]internal error:[/] {escape(type(error).__name__)}: {escape(str(error)[:200])} "
                      f"(a bug in tcplab; please report it with {escape(f.name)})", highlight=False, soft_wrap=True)


if __name__ == "__main__":
    main()
