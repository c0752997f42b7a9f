"""``tcplab emu`` (a scenario over the real Linux stack, :mod:`tcplab.emu`) and
``tcplab crosscheck`` (the same scenario in both backends, side by side)."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..output import OutputError, check_output
from ..scenario import ScenarioError, load
from .app import (
    SetOpt,
    app,
    err_console,
    escape,
    exit_without_teardown,
    fail,
    out_console,
)
from .progress import ProgressBar
from .summary import print_summary

if TYPE_CHECKING:
    from ..differential.campaign import RepeatFn
    from ..differential.metrics import Comparison
    from ..differential.space import Sample

OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Results directory (default: results/<scenario name>-emu).")]


def cleanup_leftovers() -> int:
    """Kills emulated hosts whose tcplab emu is gone (their namespaces and devices go
    with them); the number killed."""
    killed = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"tcplab.emu.host" not in argv:
            continue
        parent = int(argv[argv.index(b"tcplab.emu.host") + 1])
        try:
            os.kill(parent, 0)
            alive = b"tcplab" in Path(f"/proc/{parent}/cmdline").read_bytes()
        except (OSError, ProcessLookupError):
            alive = False
        if not alive:
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.kill(int(entry), signal.SIGKILL)
                killed += 1
    return killed


def _emulate(loaded, what: str, force: bool = False):
    # Here, not at the top: tcplab.emu loads numpy and pyarrow, which every other
    # command would then load before it starts (`tcplab run`: before its engine).
    from ..emu import emulate
    from ..emu.timekeeping import describe as describe_timekeeping

    progress = ProgressBar(what, ["{task.percentage:>3.0f}%"], lambda fraction: (fraction, 1.0, {}))
    try:
        result = emulate(loaded, progress, force=force)
    finally:
        progress.close()
    said = describe_timekeeping(result.summary["emulation"]["timekeeping"])
    if said is not None:
        err_console.print(f"warning: {escape(said)}")
    return result


@app.command("emu")
def emu_command(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (.toml or .yaml).", show_default=False)] = None,
    out: OutOpt = None,
    set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option("--seed", metavar="N", help="Override simulation.seed.", min=0)] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print summary.json to stdout instead of tables.")] = False,
    cleanup: Annotated[bool, typer.Option("--cleanup", help="Remove what an interrupted emulated run left behind, and exit.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Run even if the scenario offers more packets/s than this machine's "
                                        "emulator sustains (the results say so).")] = False,
    measure_capacity: Annotated[bool, typer.Option("--measure-capacity", help="Measure (again) and store how many packets/s "
                                                   "the emulator sustains here, at MTU 1,500 and 9,000, and exit.")] = False,
) -> None:
    """Run a scenario over the real Linux TCP/IP stack (needs root): each host a network namespace, every link
    emulated in real time by the simulator's own link models. Same results as `tcplab run`."""
    from ..emu import EmuError, require_root

    try:
        require_root()
        if cleanup:
            out_console.print(f"removed {cleanup_leftovers()} leftover emulated host(s)")
            return
        if measure_capacity:
            from ..emu import run as emu_run

            measured = emu_run.measure_capacity()
            for mtu, pps in measured["packets_per_s"].items():
                out_console.print(f"MTU {mtu}: {pps:,.0f} packets/s ({pps * int(mtu) * 8 / 1e9:.2f} Gb/s)")
            return
        if scenario is None:
            raise ScenarioError("SCENARIO", "give a scenario file (or --cleanup)")
        loaded = load(scenario, set_ or [], seed)
        target = out if out is not None else Path("results") / f"{loaded.name}-emu"
        check_output(target)
        result = _emulate(loaded, "emulating", force)
        if not json_:
            print_summary(result, out_console)
        written = result.save(target)
    except (ScenarioError, OutputError, EmuError) as e:
        fail(str(e), 2)
    if json_:
        print(result.summary_json(), end="")
    else:
        out_console.print(f"Results written to [bold]{escape(str(written))}[/]")
    if result.summary["emulation"]["timekeeping"]["verdict"] == "unreliable":
        # Written (nothing is lost) but not to be taken as the real stack's answer.
        exit_without_teardown(1)
    exit_without_teardown()


@app.command("crosscheck")
def crosscheck_command(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (.toml or .yaml); or use --sample.",
                                                    show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory for both runs, the table and the plot "
                                             "(default: results/<scenario name>-crosscheck, or "
                                             "results/crosscheck-sample-s<seed>).")] = None,
    set_: SetOpt = None,
    seed: Annotated[int | None, typer.Option("--seed", metavar="N", help="Override simulation.seed; with --sample, the sample's "
                                             "seed (default 1).", min=0)] = None,
    force: Annotated[bool, typer.Option("--force", help="Emulate even beyond this machine's measured capacity.")] = False,
    sample: Annotated[int | None, typer.Option("--sample", help="Instead of a scenario: draw N scenarios from the "
                                               "differential space (docs/differential.md), run each in both backends "
                                               "and write REPORT.md and report.html (resumes where it stopped).",
                                               min=1)] = None,
    rescore: Annotated[bool, typer.Option("--rescore", help="With --sample: run only the simulator again, "
                                          "against the kernel runs stored in --out (after an engine change; "
                                          "needs no root).")] = False,
    kernel_runs: Annotated[int | None, typer.Option("--runs", metavar="K", min=2,
                                                    help="With --sample: run the kernel until every sample without "
                                                    "random loss has K runs (stored runs are kept), compare with "
                                                    "their mean and report its run-to-run range.")] = None,
    only: Annotated[str | None, typer.Option("--only", metavar="I,J,...", help="With --runs: only these "
                                             "sample indices get the extra runs.")] = None,
) -> None:
    """Run a scenario in the simulator and over the Linux stack (needs root) and print them side by side;
    or, with --sample N, N scenarios drawn at random, with a report of where the two agree."""
    from ..emu import EmuError, require_root
    from ..emu import crosscheck as cc
    from ..output import write_directory
    from ..results import RunResult
    from ..runner import simulate

    if sample is not None:
        if scenario is not None or set_ or force:
            fail("crosscheck: --sample draws its own scenarios (give no SCENARIO, --set or --force)", 2)
        if kernel_runs is not None and rescore:
            fail("crosscheck: --runs runs the kernel again, --rescore only the simulator (give one of them)", 2)
        if only is not None and kernel_runs is None:
            fail("crosscheck: --only goes with --runs", 2)
        _crosscheck_sample(sample, 1 if seed is None else seed, out, rescore, kernel_runs, _indices(only))
        return
    if rescore or kernel_runs is not None or only is not None:
        fail("crosscheck: --rescore, --runs and --only go with --sample", 2)
    if scenario is None:
        fail("crosscheck: give a scenario file, or --sample N", 2)
    try:
        require_root()
        loaded = load(scenario, set_ or [], seed)
        target = out if out is not None else Path("results") / f"{loaded.name}-crosscheck"
        check_output(target)
        engine, wall = simulate(loaded)
        sim = RunResult.from_engine(engine, loaded, wall)
        emu = _emulate(loaded, "emulating", force)
        table = cc.rows(sim, emu)

        def fill(d: Path) -> None:
            sim.save(d / "sim")
            emu.save(d / "emu")
            (d / "crosscheck.md").write_text(cc.markdown(table))
            cc.plot_cwnd(sim, emu, d / "cwnd.png")

        written = write_directory(target, fill, "crosscheck")
    except (ScenarioError, OutputError, EmuError) as e:
        fail(str(e), 2)
    from ..tables import Column, fitted_tables

    columns = [Column("flow / link", numeric=False), Column("metric", numeric=False), Column("sim"), Column("emu"),
               Column("emu vs sim")]
    cells = [[escape(r.entity), r.metric, cc._cell(r.sim), cc._cell(r.emu),
              "-" if r.difference is None else f"{r.difference:+.1f}%"] for r in table]
    for t in fitted_tables(f"{loaded.name}: simulator vs Linux", columns, cells, out_console.width):
        out_console.print(t)
    out_console.print(f"Both runs, crosscheck.md and cwnd.png written to [bold]{escape(str(written))}[/]")
    exit_without_teardown()


def _indices(text: str | None) -> set[int] | None:
    """``--only 2,5,7`` as a set of sample indices."""
    if text is None:
        return None
    try:
        return {int(part) for part in text.split(",") if part.strip()}
    except ValueError:
        fail(f"crosscheck: --only: expected sample indices separated by commas (e.g. 2,5,7), got {text!r}", 2)
        raise  # unreachable: fail exits


def _crosscheck_sample(count: int, seed: int, out: Path | None, rescore: bool, kernel_runs: int | None = None,
                       only: set[int] | None = None) -> None:
    """``tcplab crosscheck --sample N``: a kernel differential campaign (with
    ``rescore``, the simulator's side again against the stored kernel runs; with
    ``kernel_runs``, the kernel run again on the samples ``only`` names, or all)."""
    from ..differential import campaign, kernel
    from ..differential.space import draw_many
    from ..emu import EmuError, require_root

    target = out if out is not None else Path("results") / f"crosscheck-sample-s{seed}"
    command = f"tcplab crosscheck --sample {count} --seed {seed} --out {target}"
    if kernel_runs is not None:
        command += f" --runs {kernel_runs}" + ("" if only is None else f" --only {','.join(map(str, sorted(only)))}")
    if rescore:
        command += " --rescore"
        missing = [s.name for s in draw_many("kernel", seed, count) if not (target / s.name / campaign.OUTCOME).exists()]
        if missing:
            fail(f"crosscheck: --rescore: {target} holds no kernel runs of {', '.join(missing[:5])}"
                  f"{' …' if len(missing) > 5 else ''} (run the campaign in full first)", 2)
    try:
        if not rescore:
            require_root()
        campaign.run("kernel", seed, count, target, kernel.compare, "Linux", command,
                     progress=lambda line: out_console.print(escape(line), highlight=False),
                     simulate=kernel.simulate if rescore else None,
                     reference_ran=kernel.kernel_ran if rescore else None,
                     repeat=None if kernel_runs is None else _repeat(kernel_runs, only))
    except campaign.StaleReference as e:
        fail(f"crosscheck: {e}", 2)
    except (OutputError, EmuError, OSError) as e:
        fail(str(e), 2)
    out_console.print(f"Report written to [bold]{escape(str(target / 'REPORT.md'))}[/] and report.html")
    exit_without_teardown()


def _repeat(runs: int, only: set[int] | None) -> RepeatFn:
    """The campaign's ``repeat``: the kernel's extra runs on the samples ``only`` names."""
    from ..differential import kernel

    def repeat(outcome: Comparison, sample: Sample, directory: Path) -> Comparison:
        if only is not None and sample.index not in only:
            return outcome
        return kernel.repeat_runs(outcome, sample, directory, runs)

    return repeat
