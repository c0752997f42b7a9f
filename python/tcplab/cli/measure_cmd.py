"""The ``tcplab measure`` command (registered on the app of :mod:`tcplab.cli`): a
scenario's flows between real hosts, or a real path characterised and written as a
scenario (:mod:`tcplab.measure`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..scenario import ScenarioError
from .app import SetOpt, app, err_console, escape, fail, out_console, real_console
from .progress import ProgressBar


@app.command("measure")
def measure_command(
    scenario: Annotated[Path | None, typer.Argument(
        help="Scenario whose flows to run between the real hosts (not with --path).", show_default=False)] = None,
    hosts: Annotated[Path, typer.Option(
        "--hosts", metavar="FILE", help="Which machine each scenario host is: [host.NAME] with ssh = \"user@machine\" "
                                        "(or netns = \"name\") and address = \"the address peers reach it at\".")] = Path("hosts.toml"),
    path: Annotated[tuple[str, str] | None, typer.Option(
        "--path", metavar="A B", help="Measure the path from host A to host B (RTT, rate, MTU, loss, buffer) and write "
                                      "it as a scenario (--write).")] = None,
    write: Annotated[Path, typer.Option("--write", help="Where --path writes the measured path's scenario.")] = Path("path.toml"),
    set_: SetOpt = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Results directory (default: results/<name>-measured).")] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print summary.json (with --path: the measurements) to stdout.")] = False,
    interval: Annotated[str | None, typer.Option(
        "--interval", metavar="DURATION",
        help="Print every flow's goodput, retransmits, cwnd and RTT each DURATION while it runs (as iperf3 does; "
             "with --json, one JSON object per line).")] = None,
) -> None:
    """Run a scenario's flows between real hosts over SSH (congestion control, MSS, buffers, start/stop, the
    applications as the scenario says; the path as it is) and write the results as tcplab run does; or, with
    --path, measure a path and write it as a scenario."""
    from ..measure import MeasureError, characterise, hosts_used, measure, path_scenario, read_hosts
    from ..output import OutputError, check_output
    from ..scenario import load
    from ..scenario.toml_writer import dumps

    try:
        if path is not None:
            if scenario is not None:
                raise ScenarioError("--path", "measures a path, not a scenario's flows: give one or the other")
            spec = read_hosts(hosts, list(path))
            with _Spinner(f"measuring the path {path[0]} -> {path[1]} (about 20 s)"):
                found = characterise(spec, *path)
            text = dumps(path_scenario(found))
            write.write_text(text)
            if json_:
                out_console.file.write(json.dumps(found, indent=2) + "\n")
                return
            r = found["rtt_ms"]
            rate = f"{found['rate_bps'] / 1e6:.4g} Mb/s" if found["rate_bps"] else "not measured"
            buffer = f"{found['buffer_bytes'] / 1e3:,.1f} kB" if found["buffer_bytes"] is not None else "not measured"
            out_console.print(f"{escape(path[0])} -> {escape(path[1])}: rate {rate} (median of "
                              f"{len(found['train_rates_bps'])} packet trains); RTT min {r['min']:.3g} ms, median "
                              f"{r['p50']:.3g} ms, 95th percentile {r['p95']:.3g} ms; loss {found['loss_rate'] * 100:.2g}% "
                              f"of {r['probes']} probes; path MTU {found['mtu_bytes']} B"
                              f"{'' if found['mtu_confirmed'] else ' (not confirmed by an echo)'}; buffer about {buffer} "
                              f"(RTT under load {found['loaded_rtt_ms_p95'] or 0:.3g} ms at the 95th percentile)")
            out_console.print(f"Scenario of the path: [bold]{escape(str(write))}[/] (tcplab run / tcplab emu it)")
            return
        if scenario is None:
            raise ScenarioError("", "give a scenario to run between the hosts, or --path A B")
        loaded = load(scenario, set_ or [])
        spec = read_hosts(hosts, hosts_used(loaded.engine))
        target = out if out is not None else Path("results") / f"{loaded.name}-measured"
        check_output(target)
        interval_ns = None
        if interval is not None:
            from ..scenario.units import parse_duration_ns

            interval_ns = parse_duration_ns(interval, "--interval")
            if interval_ns <= 0:
                raise ScenarioError("--interval", f"expected a positive duration such as 1s, got {interval!r}")
        if interval_ns is not None:
            from ..intervals import IntervalReport

            report = IntervalReport(loaded.engine["flows"], as_json=json_)
            result = measure(loaded, spec, interval_ns=interval_ns, on_interval=report)
        else:
            with ProgressBar("measuring", ["{task.completed:.0f}/{task.total:.0f} s"],
                             lambda done, total: (done, total, {}), remaining=False) as progress:
                result = measure(loaded, spec, progress)
        for warning in result.summary["measurement"]["warnings"]:
            err_console.print(f"[yellow]warning:[/] {escape(warning)}")
        for error in result.summary["measurement"]["errors"]:
            err_console.print(f"[red]error:[/] {escape(error)}")
        written = result.save(target)
    except (ScenarioError, MeasureError, OutputError) as e:
        fail(str(e), 2)
    if json_:
        # After interval lines, the summary on one line: the stream stays one object per line.
        out_console.file.write(json.dumps(result.summary, allow_nan=False) + "\n" if interval is not None
                               else result.summary_json())
        return
    from .summary import print_summary

    print_summary(result, out_console)
    out_console.print(f"Results written to [bold]{escape(str(written))}[/]")
    if result.summary["measurement"]["errors"]:
        raise typer.Exit(1)


class _Spinner:
    """A status line while the path is probed."""

    def __init__(self, text: str) -> None:
        self.status = real_console(err_console).status(text)

    def __enter__(self):
        self.status.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.status.__exit__(*exc)
