"""A study's report, in Markdown (PNG figures beside it) and in self-contained HTML
(the figures as interactive charts): the setup with every choice the paper leaves
open, the published numbers side by side with tcplab's, the paper's figures redrawn,
and its conclusions as a checklist."""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..charts import Chart
from ..report import CHARTS_HELP, CHARTS_PLACE, page
from .checks import Comparison, Outcome, evaluate
from .grading import Grade, grade, study_factor, summary_line, tally
from .measures import measure
from .prose import render, unmet_claims
from .reference import check_sweeps, load_reference


@dataclass
class Checked:
    """One conclusion as this run decided it."""

    text: str
    outcome: Outcome
    grade: Grade
    #: The same check on ns-2's runs of the same points (:mod:`.reference`), where the
    #: study has them: its grade and value.
    ns2: tuple[Grade, Outcome] | None = None


@dataclass
class Report:
    """The written report and what it found."""

    markdown_path: Path
    html_path: Path
    conclusions: list[Checked]
    comparisons: list[Comparison] = field(default_factory=list)

    def markdown_checklist(self) -> str:
        """The conclusions checklist as Markdown lines (also printed by the CLI)."""
        lines = [f"- [{_MARK[c.grade.word]}] {c.grade.word}: {c.text} — {c.outcome.detail}" for c in self.conclusions]
        return "\n".join([summary_line([c.grade for c in self.conclusions]), *lines])

    def grades(self) -> dict[str, str]:
        """Conclusion text → its grade (:data:`tcplab.studies.grading.GRADES`)."""
        return {c.text: c.grade.word for c in self.conclusions}


#: Checklist marks: reproduced, bound only, fails, not decided, input (not counted).
_MARK = {"reproduced": "x", "bound": "~", "fails": " ", "not decided": "?", "input": "i"}
#: HTML class of each grade.
_CLASS = {"reproduced": "holds", "bound": "bound", "fails": "fails", "not decided": "undecided", "input": "input"}


def _num(value: object, ci: float | None = None) -> str:
    if value is None:
        return "–"
    if isinstance(value, list):
        return "–".join(_num(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        return "–"
    text = f"{value:.4g}" if isinstance(value, (int, float)) else str(value)
    if ci is not None and not math.isnan(ci) and ci > 0:
        text += f" ± {ci:.2g}"
    return text


def build_report(study, out: Path, summaries: dict, specs: dict, outcomes: dict, *, quick: bool,
                 exploration=None) -> Report:
    """Evaluates the study's checks and published numbers and writes both reports."""
    from ..plots import draw
    from .figures import study_chart

    data = study.data
    figures: list[tuple[str, Path, Chart | None]] = []  # (title, PNG, chart drawn interactively in the HTML or None)
    for i, fig in enumerate(data.get("figure", [])):
        if quick and "quick_title" in fig:  # a quick run draws other sizes than the paper's title says
            fig = {**fig, "title": fig["quick_title"]}
        chart = study_chart(fig, summaries, specs, data.get("published", []), i,
                            [c["check"] for c in data.get("conclusion", [])])
        if chart is None:
            continue
        (out / "figures").mkdir(parents=True, exist_ok=True)
        path = out / "figures" / f"{chart.name}.png"
        draw(chart, path, dpi=110)
        figures.append((fig["title"], path, chart))
    for i, fig in enumerate(data.get("series_figure", [])):
        from .series_figures import draw_series_figure

        drawn = draw_series_figure(fig, out, i)
        if drawn is not None:
            figures.append((fig["title"], drawn, None))
    # A figure an earlier run of this directory drew and this one did not (the study
    # changed, a sweep did not run) would sit beside the report as if it belonged to it.
    drawn_now = {path for _, path, _ in figures}
    for stale in sorted((out / "figures").glob("fig[0-9][0-9]_*.png")) if (out / "figures").is_dir() else []:
        if stale not in drawn_now:
            stale.unlink()

    reference = load_reference(study.directory)
    comparisons: list[Comparison] = []
    for item in data.get("published", []):
        value, ci = measure(item, out)
        theirs = reference.measure(item)[0] if reference else None
        comparisons.append(Comparison(item["label"], item["value"], value, ci, reference=theirs))
    conclusions = []
    # A quick run says beside each check how the recorded full run decided it, so a
    # "does not hold" reads as the study's finding, not as the quick run's failure.
    recorded = {c["text"]: c["full_run"] for c in data.get("conclusion", []) if quick and c.get("full_run")}
    factor = study_factor(data)
    for c in data.get("conclusion", []):
        if quick and c.get("full_only"):
            continue
        outcome = evaluate(c["check"], summaries, lambda spec: measure(spec, out), data.get("published", []))
        conclusions.append(Checked(c["text"], outcome, grade(c, outcome, factor),
                                   _on_reference(c, reference, factor, data.get("published", []), summaries)))
        comparisons.extend(outcome.comparisons)

    md = _markdown(study, specs, outcomes, figures, comparisons, conclusions, quick, out, recorded)
    page_html = _html(study, specs, outcomes, figures, comparisons, conclusions, quick, recorded, out)
    if exploration is not None:
        from .explore import map_html, map_markdown

        md += "\n" + "\n".join(map_markdown(exploration)) + "\n"
        page_html = page_html.replace("<h2>Figures</h2>", map_html(exploration) + "<h2>Figures</h2>", 1)
    md_path = out / "report.md"
    md_path.write_text(md)
    html_path = out / "report.html"
    html_path.write_text(page_html)
    return Report(md_path, html_path, conclusions, comparisons)


#: How a backend's runs are named in the report: column heading, title, where they are.
_BACKEND_WORDS = {
    "emu": ("Linux (emulated) Mb/s", "simulator vs the Linux stack", "Linux", "-emu",
            "the emulated runs' self-calibration is in their summaries (docs/emulation.md)"),
    "measure": ("real hosts (measured) Mb/s", "simulator vs real hosts", "hosts", "-measured",
                "the measured runs' hosts, kernels and warnings are in their summaries (docs/measure.md)"),
}


def build_backend_report(study, out: Path, summaries: dict, specs: dict, outcomes: dict, *, quick: bool,
                         backend: str = "emu") -> Report:
    """``reproduce --backend emu|measure``: each of the study's sweeps for that backend
    in the simulator and over the Linux stack (emulated, or between real hosts), point
    by point, with the paper's number where the sweep names the published sweep it
    repeats (``paper = "<sweep>"``)."""
    column, title, short, suffix, where = _BACKEND_WORDS[backend]
    data = study.data
    rows: list[list[str]] = []
    for declaration in study.sweeps(quick, backend):
        name = declaration["name"]
        sim, emu = summaries.get(name), summaries.get(name + suffix)
        if sim is None or emu is None or sim.empty:
            continue
        parameters = [p.name for p in specs[name].parameters]
        published = [item for item in data.get("published", []) if item.get("sweep") == declaration.get("paper")]
        scale = declaration.get("scale", 1e-6)
        for (_, a), (_, b) in zip(sim.iterrows(), emu.iterrows(), strict=False):
            point = {p: a[p] for p in parameters}
            paper = next((item["value"] for item in published
                          if all(point.get(k) == v for k, v in item.get("where", {}).items())), None)
            mean_a, mean_b = a.get("goodput_bps"), b.get("goodput_bps")
            ratio = (mean_b / mean_a) if mean_a and mean_b and not math.isnan(mean_a) and not math.isnan(mean_b) else None
            rows.append([name, ", ".join(f"{k} = {v}" for k, v in point.items()), _num(paper),
                         _num(None if mean_a is None else mean_a * scale, a.get("goodput_bps_ci")),
                         _num(None if mean_b is None else mean_b * scale, b.get("goodput_bps_ci")),
                         "–" if ratio is None else f"{ratio:.2f}",
                         _num(a.get("retransmits")), _num(b.get("retransmits"))])
    headings = ["sweep", "point", "paper Mb/s", "simulator Mb/s", column, f"{short} / simulator",
                "retransmits sim", f"retransmits {short}"]
    notes = [d.get(f"{backend}_note", "") for d in study.sweeps(quick, backend)]
    md = [f"# {study.title}: {title}", "", f"Paper: {data.get('paper', '')}", "",
          *[n.replace("\n", " ") for n in notes if n], "",
          "| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    differences = [t for d in study.sweeps(quick, backend) for t in d.get(f"{backend}_differences", [])]
    if differences:
        md += ["", f"## Where {short} differs from the simulator, and why", ""] + [f"- {t}" for t in differences]
    md += ["", "## Runs", "", "| sweep | runs | failed | wall time |", "|---|---|---|---|"]
    md += [f"| {n} | {o.total} | {o.failed} | {o.wall_s:.1f} s |" for n, o in outcomes.items()]
    md += ["", f"Each backend's runs are in `sweeps/<name>/` and `sweeps/<name>{suffix}/`; {where}.", ""]
    md_path = out / "report.md"
    md_path.write_text("\n".join(md))
    e = html.escape
    body = [f"<h1>{e(study.title)}: {e(title)}</h1>", f"<p>Paper: {e(data.get('paper', ''))}</p>",
            *[f"<p class='note'>{e(n)}</p>" for n in notes if n], "<table><tr>",
            *[f"<th>{e(h)}</th>" for h in headings], "</tr>"]
    body += ["<tr>" + "".join(f"<td{' class=num' if i > 1 else ''}>{e(c)}</td>" for i, c in enumerate(r)) + "</tr>"
             for r in rows]
    body.append("</table>")
    if differences:
        body += [f"<h2>Where {e(short)} differs from the simulator, and why</h2><ul>", *[f"<li>{e(t)}</li>" for t in differences],
                 "</ul>"]
    html_path = out / "report.html"
    html_path.write_text(page(study.title, "\n".join(body), [], style=_CSS))
    return Report(md_path, html_path, [], [])


def _differences(study, out: Path, quick: bool = False) -> list[str]:
    """The study's explanations with this run's numbers filled in (:mod:`.prose`). Left
    out, with a sentence saying how many and why: in a quick run those marked
    ``full_only`` (they read quantities the quick subset measures over shorter runs, or
    claim what only the full run shows), and in any run those reading a quantity this
    run did not measure — an explanation states what its numbers show, and beside "n/a"
    it would state it of data the run does not have."""
    quantities = study.data.get("quantity", {})
    texts = []
    entries = study.data.get("difference", [])
    shown = [d for d in entries if not (quick and isinstance(d, dict) and d.get("full_only"))]
    full_only = len(entries) - len(shown)
    unmeasured, needed = 0, set[str]()
    for d in shown:
        text, missing = render(d if isinstance(d, str) else d.get("text", ""), quantities, out)
        unmet, missing_too = unmet_claims(d.get("holds", []) if isinstance(d, dict) else [], quantities, out)
        if missing or missing_too:
            unmeasured += 1
            needed.update(quantities[name]["sweep"] for name in missing + missing_too)
            continue
        if unmet:
            text = f"NOT BORNE OUT BY THIS RUN ({'; '.join(unmet)}), though the explanation says: {text}"
        texts.append(text)
    if full_only:
        texts.append(f"{_explanations_count(full_only)} the full run's durations or transfer sizes and {_are(full_only)} "
                     "left out of this quick report.")
    if unmeasured:
        texts.append(f"{_explanations_count(unmeasured)} points of {', '.join(sorted(needed))} this run did not run and "
                     f"{_are(unmeasured)} left out.")
    return texts


def _explanations_count(n: int) -> str:
    """"1 more explanation needs" / "3 more explanations need"."""
    return f"{n} more explanation needs" if n == 1 else f"{n} more explanations need"


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def _recorded_note(text: str, recorded: dict) -> str:
    """" (full run, as recorded: reproduced)" for a quick report, or nothing."""
    return f" (full run, as recorded: {recorded[text]})" if text in recorded else ""


def _quick_tally(conclusions: list[Checked], recorded: dict) -> str:
    """How this quick run graded its checks against the recorded full run."""
    n = len(conclusions)
    ours = sum(1 for c in conclusions if c.grade.word == "reproduced")
    full = sum(1 for c in conclusions if recorded.get(c.text) == "reproduced")
    agree = sum(1 for c in conclusions if recorded.get(c.text) == c.grade.word)
    return (f"This quick run decides only the {n} checks whose sweeps it ran: {ours} reproduced here; the recorded "
            f"full run reproduced {full} of the same {n}, and agrees with this run on {agree}.")


def _measured(comparisons: list[Comparison], quick: bool) -> tuple[list[Comparison], int]:
    """The rows of the published-numbers table and how many a quick run leaves out
    (those it has no value for: it did not run their points)."""
    if not quick:
        return comparisons, 0
    shown = [c for c in comparisons if c.tcplab is not None]
    return shown, len(comparisons) - len(shown)


def _ratio(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.2f}"


def _reason(g: Grade) -> str:
    """" (why this grade)" where the verdict alone does not say it."""
    return "" if g.word in ("fails", "not decided") else f" ({g.reason})"


def _on_reference(conclusion: dict, reference, factor: float, published: list[dict],
                  summaries: dict) -> tuple[Grade, Outcome] | None:
    """The conclusion's check graded on the reference's runs of the points tcplab ran
    (``summaries``), if it ran every sweep the check reads."""
    sweeps = check_sweeps(conclusion["check"])
    if reference is None or not sweeps or not all(reference.covers(s) for s in sweeps):
        return None
    outcome = evaluate(conclusion["check"], reference.summaries(on=summaries), reference.measure, published)
    return grade(conclusion, outcome, factor), outcome


def _ns2_note(c: Checked) -> str:
    """" ns-2 on the same points: …" where the study has ns-2's runs of them."""
    if c.ns2 is None:
        return ""
    g, o = c.ns2
    value = o.value if not isinstance(o.value, list) else (o.value[0] if len(o.value) == 1 else None)
    # One number says it; per-group rules (an optimum per delay) need ns-2's own words.
    shown = f", {value:.3g}" if isinstance(value, (int, float)) else f" ({o.detail.rstrip('.')})"
    return f" ns-2 on the same points: {g.word}{shown}."


def _reference_line(conclusions: list[Checked]) -> str:
    """How ns-2 grades the conclusions it covers, or nothing."""
    pairs = [(c.grade, c.ns2[0]) for c in conclusions if c.ns2 is not None]
    if not pairs:
        return ""
    theirs, ours = tally([t for _, t in pairs]), tally([o for o, _ in pairs])
    return (f"ns-2 on the same points (tests/ns2/studies.py) covers {len(pairs)} of them: {theirs['reproduced']} "
            f"reproduced, {theirs['bound']} only as a bound, {theirs['fails']} fail, {theirs['not decided']} not "
            f"decided; tcplab on those {len(pairs)}: {ours['reproduced']} reproduced, {ours['bound']} bound, "
            f"{ours['fails']} fail.")


def _markdown(study, specs, outcomes, figures, comparisons, conclusions, quick, out, recorded) -> str:
    d = study.data
    lines = [f"# {study.title}", "", f"Paper: {d.get('paper', '')}", "", d.get("question", "").replace("\n", " "), ""]
    if quick:
        lines += ["**Quick subset.** " + d.get("quick_note", "").replace("\n", " "), ""]
    lines += ["## Setup: what the paper leaves open and what tcplab chose", "",
              "| item | paper | tcplab | why |", "|---|---|---|---|"]
    for s in d.get("setup", []):
        lines.append(f"| {s['item']} | {s['paper']} | {s['tcplab']} | {s['why']} |")
    lines += ["", "## Runs", "", "| sweep | points × replications | runs | failed | wall time |", "|---|---|---|---|---|"]
    for name, spec in specs.items():
        o = outcomes[name]
        lines.append(f"| {name} | {len(spec.points())} × {spec.replications} | {o.total} ({o.skipped} stored before) | "
                     f"{o.failed} | {o.wall_s:.1f} s |")
    shown, left_out = _measured(comparisons, quick)
    lines += ["", "## Published numbers side by side", ""]
    if left_out:
        lines += [f"{left_out} published numbers at points this quick run did not run are left out.", ""]
    with_ns2 = any(c.reference is not None for c in comparisons)
    lines += ["| quantity | paper | tcplab | tcplab / paper |" + (" ns-2 | ns-2 / paper |" if with_ns2 else ""),
              "|---|---|---|---|" + ("---|---|" if with_ns2 else "")]
    for c in shown:
        extra = f" {_num(c.reference)} | {_ratio(c.reference_ratio)} |" if with_ns2 else ""
        lines.append(f"| {c.label} | {_num(c.published)} | {_num(c.tcplab, c.ci)} | {_ratio(c.ratio)} |{extra}")
    lines += ["", "## Conclusions", "", f"**{summary_line([c.grade for c in conclusions])}** {_GRADES_HELP}", ""]
    if _reference_line(conclusions):
        lines += [_reference_line(conclusions), ""]
    if recorded:
        lines += [_quick_tally(conclusions, recorded), ""]
    for c in conclusions:
        lines.append(f"- [{_MARK[c.grade.word]}] **{c.grade.word}**{_recorded_note(c.text, recorded)}: {c.text} — "
                     f"{c.outcome.detail}{_reason(c.grade)}.{_ns2_note(c)}")
    diffs = _differences(study, out, quick)
    if diffs:
        lines += ["", "## Where tcplab differs from the paper, and why", ""]
        lines += [f"- {t}" for t in diffs]
    lines += ["", "## Figures", ""]
    for title, path, _chart in figures:
        lines += [f"### {title}", "", f"![{title}]({path.relative_to(out)})", ""]
    lines += ["## Data", "", "Each sweep's runs are in `sweeps/<name>/` (Parquet and `catalog.duckdb`); e.g. "
              f"`tcplab query {out}/sweeps/{next(iter(specs), 'NAME')} \"SELECT * FROM runs\"`.", ""]
    return "\n".join(lines)


_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}.holds{color:#146c2e;font-weight:600}
.fails{color:#b3261e;font-weight:600}.undecided{color:#8a6d00;font-weight:600}.bound{color:#6a4c93;font-weight:600}
.input{color:#666;font-weight:600}figure{margin:1.5em 0}img{max-width:100%;border:1px solid #eee}
.note{background:#fff8e1;padding:.6em 1em;border-left:4px solid #f0b400}"""


_GRADES_HELP = ("*Reproduced*: tcplab's value is where the paper's is (within the check's band around it, at "
                "its position or rank, or within the study's stated factor); *bound*: the check holds one-sided "
                "only; *input*: an input of the setup measured back, not counted.")


def _html(study, specs, outcomes, figures, comparisons, conclusions, quick, recorded, out: Path) -> str:
    d = study.data
    e = html.escape
    parts = [f"<h1>{e(study.title)}</h1>", f"<p>Paper: {e(d.get('paper', ''))}</p>", f"<p>{e(d.get('question', ''))}</p>"]
    if quick:
        parts.append(f"<p class='note'><b>Quick subset.</b> {e(d.get('quick_note', ''))}</p>")
    parts.append("<h2>Conclusions</h2>")
    parts.append(f"<p><b>{e(summary_line([c.grade for c in conclusions]))}</b> "
                 f"<small>{e(_GRADES_HELP.replace('*', ''))}</small></p>")
    if _reference_line(conclusions):
        parts.append(f"<p>{e(_reference_line(conclusions))}</p>")
    if recorded:
        parts.append(f"<p class='note'>{e(_quick_tally(conclusions, recorded))}</p>")
    parts.append("<ul>")
    for c in conclusions:
        parts.append(f"<li><span class='{_CLASS[c.grade.word]}'>{e(c.grade.word)}</span>"
                     f"{e(_recorded_note(c.text, recorded))}: {e(c.text)}"
                     f"<br><small>{e(c.outcome.detail)}{e(_reason(c.grade))}.{e(_ns2_note(c))}</small></li>")
    shown, left_out = _measured(comparisons, quick)
    parts.append("</ul><h2>Published numbers side by side</h2>")
    if left_out:
        parts.append(f"<p>{left_out} published numbers at points this quick run did not run are left out.</p>")
    with_ns2 = any(c.reference is not None for c in comparisons)
    parts.append("<table><tr><th>quantity</th><th>paper</th><th>tcplab</th><th>tcplab / paper</th>"
                 + ("<th>ns-2</th><th>ns-2 / paper</th>" if with_ns2 else "") + "</tr>")
    for c in shown:
        extra = (f"<td class='num'>{e(_num(c.reference))}</td><td class='num'>{_ratio(c.reference_ratio)}</td>"
                 if with_ns2 else "")
        parts.append(f"<tr><td>{e(c.label)}</td><td class='num'>{e(_num(c.published))}</td>"
                     f"<td class='num'>{e(_num(c.tcplab, c.ci))}</td><td class='num'>{_ratio(c.ratio)}</td>{extra}</tr>")
    parts.append("</table>")
    diffs = _differences(study, out, quick)
    if diffs:
        parts.append("<h2>Where tcplab differs from the paper, and why</h2><ul>")
        parts += [f"<li>{e(t)}</li>" for t in diffs]
        parts.append("</ul>")
    parts.append("<h2>Figures</h2>")
    parts += [CHARTS_HELP, CHARTS_PLACE]
    for title, path, chart in figures:
        if chart is None:  # drawn by matplotlib only: embedded as an image
            data = base64.b64encode(path.read_bytes()).decode()
            parts.append(f"<figure><img alt='{e(title)}' src='data:image/png;base64,{data}'><figcaption>{e(title)}</figcaption></figure>")
    parts.append("<h2>Setup: what the paper leaves open and what tcplab chose</h2><table><tr><th>item</th><th>paper</th><th>tcplab</th><th>why</th></tr>")
    for s in d.get("setup", []):
        parts.append(f"<tr><td>{e(s['item'])}</td><td>{e(s['paper'])}</td><td>{e(s['tcplab'])}</td><td>{e(s['why'])}</td></tr>")
    parts.append("</table><h2>Runs</h2><table><tr><th>sweep</th><th>points × replications</th><th>runs</th><th>failed</th><th>wall time</th></tr>")
    for name, spec in specs.items():
        o = outcomes[name]
        parts.append(f"<tr><td>{e(name)}</td><td class='num'>{len(spec.points())} × {spec.replications}</td>"
                     f"<td class='num'>{o.total}</td><td class='num'>{o.failed}</td><td class='num'>{o.wall_s:.1f} s</td></tr>")
    parts.append("</table>")
    return page(study.title, "\n".join(parts), [chart for _, _, chart in figures if chart is not None], style=_CSS)
