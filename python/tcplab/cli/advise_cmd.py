"""The ``tcplab advise`` command (registered on the app of :mod:`tcplab.cli`): what
would help on a scenario's path (:mod:`tcplab.advise`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..scenario import ScenarioError
from .app import ScenarioArg, SetOpt, app, err_console, escape, fail, out_console, real_console
from .sweep_cmd import DaskOpt, JobsOpt, sweep_progress

QuestionOpt = Annotated[list[str] | None, typer.Option(
    "--question", "-q", metavar="cc|recovery|buffer|mtu|rto|transport|all",
    help="What to ask about (repeatable; default all): congestion control, SACK, the bottleneck queue and socket "
         "buffers, jumbo frames, the retransmission timer, TCP or SCTP.")]


@app.command()
def advise(
    scenario: ScenarioArg,
    question: QuestionOpt = None,
    flow: Annotated[list[str] | None, typer.Option(
        "--flow", "-f", metavar="NAME", help="A flow the advice is for (repeatable; default: every TCP and SCTP flow). "
                                             "The others are the competing traffic whose loss counts against a change.")] = None,
    runs: Annotated[int, typer.Option("--runs", "-n", min=1, max=100, help="Runs per change (replications).")] = 5,
    duration: Annotated[str | None, typer.Option(
        "--duration", metavar="DURATION", help="Simulate this long instead of the scenario's duration (e.g. 20s).")] = None,
    set_: SetOpt = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Directory for the runs, advice.json, plots and report.html (default: results/<name>-advice). "
                            "Rerunning reuses the runs already there.")] = None,
    jobs: JobsOpt = None,
    dask: DaskOpt = None,
    json_: Annotated[bool, typer.Option("--json", help="Print advice.json to stdout instead of tables.")] = False,
    verify: Annotated[bool, typer.Option(
        "--verify", help="Then run the recommended change and the scenario as it is on the real hosts of --hosts "
                         "(tcplab measure) and say whether the predicted gain appeared.")] = False,
    hosts: Annotated[Path | None, typer.Option("--hosts", metavar="FILE", help="The hosts file for --verify.")] = None,
    verify_runs: Annotated[int, typer.Option("--verify-runs", min=2, max=50,
                                             help="Measurements of each setting for --verify.")] = 3,
) -> None:
    """What would help on this path: try each change (congestion control, buffers, jumbo frames, RTO, SCTP) as
    replicated runs, compare with the scenario as it is (95% intervals), weigh the side effects on the other
    flows, and print a ranked recommendation with the one-line change to the scenario and to a real host."""
    import json

    from ..advise import QUESTIONS, AdviceInputError
    from ..advise import advise as run_advice
    from ..advise.render import TEXT_COLUMNS, assessment_row, combined_lines, headings, overall_text, path_lines, recommendation_lines, to_json, write_report
    from ..scenario import load
    from ..scenario.loader import read_raw
    from ..sweeps import SweepInputError

    for q in question or []:
        if q not in (*QUESTIONS, "all"):
            from ..scenario.errors import suggest

            fail(f"--question {q}: expected one of {', '.join(QUESTIONS)} or all{suggest(q, [*QUESTIONS, 'all'])}", 2)
    sets = list(set_ or [])
    if duration is not None:
        sets.append(f"simulation.duration={duration}")
    if verify and hosts is None:
        fail("--verify: needs --hosts FILE (which machine is which host; docs/measure.md)", 2)
    progress = sweep_progress("advise")
    try:
        loaded = load(scenario, sets)
        if verify:
            from ..measure import hosts_used, read_hosts

            assert hosts is not None
            host_specs = read_hosts(hosts, hosts_used(loaded.engine))
        raw, _ = read_raw(scenario)
        target = out if out is not None else Path("results") / f"{loaded.name}-advice"
        advice = run_advice(loaded, raw, target, questions=question, flows=flow, replications=runs,
                            base_overrides=tuple(sets), jobs=jobs, dask_address=dask, progress=progress)
    except (ScenarioError, AdviceInputError, SweepInputError) as e:
        progress.close()
        fail(str(e), 2)
    progress.close()
    if verify:
        _verify(scenario, sets, advice, host_specs, verify_runs)
    written = write_report(advice, target)
    if json_:
        out_console.file.write(json.dumps(to_json(advice), indent=2, allow_nan=False) + "\n")
        return
    from rich.table import Table

    for line in path_lines(advice):
        out_console.print(escape(line))
    for answer in advice.answers:
        out_console.rule(f"[bold]{escape(answer.title)}[/]", align="left")
        if answer.assessments:
            table = Table(show_edge=False, pad_edge=False)
            for i, h in enumerate(headings(advice)):
                table.add_column(escape(h), justify="left" if i < TEXT_COLUMNS else "right")
            for a in answer.assessments:
                table.add_row(*(escape(c) for c in assessment_row(a, advice)))
            out_console.print(table)
            for line in recommendation_lines(answer, advice.objective):
                out_console.print(escape(line), highlight=False)
        for rule in answer.rules:
            out_console.print(f"[dim]Rule of thumb ({escape(rule.study)} study, not this path's simulation): "
                              f"{escape(rule.text(advice.path))}[/]")
    for line in combined_lines(advice):
        out_console.print(escape(line), highlight=False)
    for note in advice.notes:
        out_console.print(f"[yellow]note:[/] {escape(note)}")
    out_console.print(f"[bold]{escape(overall_text(advice))}[/]")
    out_console.print("Report: " + ", ".join(f"[bold]{escape(str(p))}[/]" for p in written if p.suffix in (".html", ".json")))


def _verify(scenario: Path, sets: list[str], advice, hosts, runs: int) -> None:
    """--verify: the recommendation and the scenario as it is, measured on the hosts;
    the outcome printed and kept in ``advice.verification`` (advice.json)."""
    from ..advise.verdict import percent
    from ..advise.verify import pick, verify
    from ..measure import MeasureError, measure

    chosen, why = pick([a.recommended for a in advice.answers if a.recommended is not None])
    if why:
        out_console.print(f"[yellow]verify:[/] {escape(why)}")
    if chosen is None:
        out_console.print("verify: no recommendation to check on the hosts")
        advice.verification = {"verified": None, "why": why or "no recommendation"}
        return
    status = real_console(err_console).status("verifying on the hosts")
    try:
        with status:
            result = verify(scenario, sets, [f["name"] for f in advice.path.yours], chosen, hosts, runs, measure,
                            progress=status.update)
    except (MeasureError, ScenarioError) as e:
        fail(f"--verify: {e}", 2)
    measured = "-" if result.measured is None else percent(result.measured)
    out_console.print(f"[bold]Verified on the hosts[/] ({runs} runs each): {escape(chosen.variant.name)}: predicted "
                      f"{escape(percent(result.predicted))}, measured {escape(measured)}: {escape(result.verdict)}.")
    advice.verification = {"verified": chosen.variant.name, "why_not_the_best": why, "runs": runs,
                           "predicted": result.predicted.relative, "measured": None if result.measured is None
                           else result.measured.relative, "measured_ci95": None if result.measured is None or
                           result.measured.half_width is None else [result.measured.low, result.measured.high],
                           "current_goodput_bps": result.current_bps, "changed_goodput_bps": result.changed_bps,
                           "verdict": result.verdict}
