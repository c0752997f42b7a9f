"""The advice written out: as text lines for the terminal, as ``advice.json`` for
programs, and as ``report.html`` (tables and a chart per question: each variant's
effect with its 95% interval) with the same charts as PNG files."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..charts import Chart, Line, Panel
from ..stack import describe
from . import Advice, QuestionAdvice
from .verdict import Assessment, Change, percent

#: What the objective is called, per objective measure.
OBJECTIVE_NAMES = {"goodput_bps": "your goodput", "fct_s": "your completion time"}


def _rate(bps: float) -> str:
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3g} {unit}"
    return f"{bps:.3g} b/s"


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:,.0f} ms" if ms >= 100 else f"{ms:.3g} ms"


def path_lines(advice: Advice) -> list[str]:
    """The path in a few lines: your flows, the bottleneck, RTT, BDP, queue, loss."""
    p = advice.path
    flows = "; ".join(f"{f['name']}: {describe(f, p.scenario.raw)}" for f in p.yours[:6]) + (" …" if len(p.yours) > 6 else "")
    bn = p.bottleneck
    limit = bn.queue.get("limit")
    queue = f"{bn.queue['type']} {limit['value']:,} {limit['unit']}" if limit else bn.queue["type"]
    lines = [
        f"Your flows: {flows}; {len(p.others)} other flow(s) share the network.",
        f"Bottleneck {bn.name}: {_rate(bn.bandwidth_bps)}, queue {queue}; round trip {_ms(p.rtt_s)} "
        f"({_ms(p.loaded_rtt_s)} with the queue full); BDP {p.bdp_bytes / 1e3:,.0f} kB "
        f"({p.bdp_packets:,.1f} packets of {bn.mtu_bytes} B)."
        + (f" Random loss {p.loss_rate:.2g}." if p.loss_rate > 0 else ""),
    ]
    return lines


def _cell(c: Change | None, points: bool = False) -> str:
    return "–" if c is None or math.isnan(c.relative) else percent(c, points)


def objective_change(a: Assessment, objective: str) -> Change | None:
    """The objective's change as the measure moved: for completion time the time
    itself (negative is faster), although the gain is kept as a saving."""
    if a.gain is None or objective != "fct_s":
        return a.gain
    return Change(a.gain.mean, a.gain.base, -a.gain.relative, a.gain.half_width)


def gain_text(a: Assessment, objective: str) -> str:
    """The objective's change in words: "goodput +12% [+8, +16]", "completion time -30% [-41, -19]"."""
    c = objective_change(a, objective)
    return f"{'goodput' if objective == 'goodput_bps' else 'completion time'} {_cell(c)}"


def _columns(advice: Advice) -> list[tuple[str, Callable[[Assessment], str]]]:
    """The table's columns: those that say something for this scenario (no "others"
    column without other flows, no fairness column with a single flow)."""
    columns: list[tuple[str, Callable[[Assessment], str]]] = [
        ("change", lambda a: a.variant.name), ("verdict", lambda a: a.verdict),
        (OBJECTIVE_NAMES[advice.objective], lambda a: _cell(objective_change(a, advice.objective)))]
    assessments = [a for q in advice.answers for a in q.assessments]
    if advice.path.others:
        columns.append(("others' goodput", lambda a: _cell(a.others)))
    if any(a.fairness is not None for a in assessments):
        columns.append(("fairness (Jain)", lambda a: _cell(a.fairness, True)))
    columns.append(("your delay", lambda a: _cell(a.delay)))
    return columns


#: Columns of text (left-aligned) at the start of the table: the change and the verdict.
TEXT_COLUMNS = 2


def headings(advice: Advice) -> list[str]:
    """The table headings for ``advice``."""
    return [name for name, _ in _columns(advice)]


def assessment_row(a: Assessment, advice: Advice) -> list[str]:
    """One variant as a table row (the columns of :func:`headings`)."""
    return [cell(a) for _, cell in _columns(advice)]


def recommendation_lines(answer: QuestionAdvice, objective: str) -> list[str]:
    """What to do for one question, in words, with the one-line changes."""
    r = answer.recommended
    if r is None:
        mixed = [a for a in answer.assessments if a.verdict.startswith("helps you")]
        lines = ["Keep what you have: nothing tried helps with a clear effect without hurting the other flows."]
        if mixed:
            m = mixed[0]
            lines.append(f"{m.variant.name} would help you ({gain_text(m, objective)}) but "
                         + "; ".join(m.side_effects) + ".")
        return lines
    lines = [f"Recommended: {r.variant.name} ({gain_text(r, objective)}"
             + (f"; {'; '.join(r.side_effects)}" if r.side_effects else "") + ").",
             f"  In the scenario: {r.variant.scenario_change}",
             f"  On a real host ({r.variant.owner}): {r.variant.host_change}"]
    return lines


def combined_lines(advice: Advice) -> list[str]:
    """The questions' recommendations made together, in words (none if fewer than two)."""
    c = advice.combined
    if c is None:
        return []
    lines = [f"Together, {c.variant.name}: {gain_text(c, advice.objective)}, {c.verdict}"
             + (f" ({'; '.join(c.side_effects)})" if c.side_effects else "") + "."]
    if c.verdict == "helps":
        lines.append(f"  In the scenario: {c.variant.scenario_change}")
    return lines


def overall_text(advice: Advice) -> str:
    """The one-line verdict over every question."""
    best = advice.best
    if best is None:
        return "Overall: keep what you have (nothing tried helps clearly without hurting the other flows)."
    return f"Overall: {best.variant.name} ({gain_text(best, advice.objective)})."


def to_json(advice: Advice) -> dict:
    """``advice`` as plain data (``advice.json``)."""
    p = advice.path

    def change(c: Change | None) -> dict | None:
        if c is None:
            return None
        return {"mean": _num(c.mean), "current": _num(c.base), "relative": _num(c.relative),
                "ci95": None if c.half_width is None else [_num(c.low), _num(c.high)]}

    def assessment(a: Assessment) -> dict:
        return {"name": a.variant.name, "question": a.variant.question, "verdict": a.verdict, "runs": a.runs,
                "gain": change(a.gain), "others_goodput": change(a.others), "jain": change(a.fairness),
                "delay": change(a.delay), "loss_rate": change(a.loss), "side_effects": list(a.side_effects),
                "set": [[k, v] for k, v in a.variant.overrides], "scenario_change": a.variant.scenario_change,
                "host_change": a.variant.host_change, "owner": a.variant.owner}

    best = advice.best
    return {
        "scenario": p.scenario.source,
        "flows": [f["name"] for f in p.yours],
        "objective": advice.objective,
        "replications": advice.replications,
        "path": {"bottleneck": p.bottleneck.name, "bandwidth_bps": p.bottleneck.bandwidth_bps, "rtt_s": p.rtt_s,
                 "loaded_rtt_s": p.loaded_rtt_s, "bdp_bytes": p.bdp_bytes, "loss_rate": p.loss_rate},
        "questions": [{"question": a.question, "title": a.title,
                       "recommended": a.recommended.variant.name if a.recommended else None,
                       "variants": [assessment(x) for x in a.assessments],
                       "rules_of_thumb": [{"study": r.study, "text": r.text(p)} for r in a.rules]}
                      for a in advice.answers],
        "combined": assessment(advice.combined) if advice.combined is not None else None,
        "recommended": best.variant.name if best else None,
        "verification": advice.verification,
        "notes": advice.notes,
    }


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def question_chart(advice: Advice, answer: QuestionAdvice) -> Chart:
    """Each variant's change in the objective (and in the others' goodput, where there
    are others) in percent, with 95% intervals as error bars."""
    items = [a for a in answer.assessments if a.gain is not None]
    names = [a.variant.name for a in items]
    x = np.arange(len(items), dtype=float)

    def line(label: str, changes: list[Change | None], shift: float = 0.0) -> Line:
        y = np.array([c.relative * 100 if c else np.nan for c in changes])
        err = np.array([c.half_width * 100 if c and c.half_width is not None else 0.0 for c in changes])
        return Line(label, x + shift, y, err=err, markers=True, joined=False)

    lines = [line(OBJECTIVE_NAMES[advice.objective], [objective_change(a, advice.objective) for a in items])]
    if advice.path.others:
        # Beside, not on top of, your flows' point: both intervals stay readable.
        lines.append(line("others' goodput", [a.others for a in items], 0.15))
    caption = (f"change from the scenario as it is, mean of {advice.replications} runs; bars: 95% confidence interval"
               if advice.replications > 1 else "change from the scenario as it is, one run each (no interval)")
    return Chart(f"advice_{answer.question}", answer.title, "change tried", [Panel("change (%)", lines=lines)],
                 xcategories=names, caption=caption)


def write_report(advice: Advice, out: Path) -> list[Path]:
    """Writes ``advice.json``, one PNG per question under ``plots/`` and
    ``report.html`` into ``out``; returns the paths."""
    from ..plots import draw
    from ..report import CHARTS_HELP, CHARTS_PLACE, page, table

    written = []
    (out / "advice.json").write_text(json.dumps(to_json(advice), indent=2, allow_nan=False), encoding="utf-8")
    written.append(out / "advice.json")
    charts = [question_chart(advice, a) for a in advice.answers if a.assessments]
    (out / "plots").mkdir(exist_ok=True)
    for chart in charts:
        draw(chart, out / "plots" / f"{chart.name}.png", dpi=110)
        written.append(out / "plots" / f"{chart.name}.png")
    e = html.escape
    parts = [f"<h1>What would help: {e(advice.path.scenario.name)}</h1>",
             *(f"<p>{e(line)}</p>" for line in path_lines(advice))]
    parts.append(f"<p><b>{e(overall_text(advice))}</b></p>")
    for a in advice.answers:
        parts.append(f"<h2>{e(a.title)}</h2>")
        if a.assessments:
            parts.append(table(headings(advice), [assessment_row(x, advice) for x in a.assessments], TEXT_COLUMNS))
        parts.extend(f"<p>{e(line)}</p>" for line in recommendation_lines(a, advice.objective) if a.assessments)
        for r in a.rules:
            parts.append(f"<p class='run'>Rule of thumb ({e(r.study)} study, not this path's simulation): {e(r.text(advice.path))}</p>")
    if advice.combined is not None:
        parts.append("<h2>The recommendations together</h2>")
        parts.append(table(headings(advice), [assessment_row(advice.combined, advice)], TEXT_COLUMNS))
        parts.extend(f"<p>{e(line)}</p>" for line in combined_lines(advice))
    if advice.verification and advice.verification.get("verified"):
        v = advice.verification
        parts.append(f"<h2>Verified on the real hosts</h2><p>{e(v['verified'])}: predicted {v['predicted'] * 100:+.0f}%, "
                     f"measured {'–' if v['measured'] is None else format(v['measured'] * 100, '+.0f') + '%'} "
                     f"over {v['runs']} runs each: {e(v['verdict'])}.</p>")
    if advice.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in advice.notes) + "</ul>")
    parts.append(f"<p class='run'>{advice.replications} run(s) per change; intervals are Welch's 95% intervals of the "
                 "difference from the scenario as it is. The runs are a sweep directory: tcplab query "
                 f"{e(str(out))} \"SELECT variant, rep, goodput_bps FROM runs\".</p>")
    parts += ["<h2>Charts</h2>", CHARTS_HELP, CHARTS_PLACE]
    (out / "report.html").write_text(page(f"Advice: {advice.path.scenario.name}", "".join(parts), charts), encoding="utf-8")
    written.append(out / "report.html")
    return written
