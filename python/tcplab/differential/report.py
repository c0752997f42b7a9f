"""The report of a differential campaign: ``REPORT.md`` and ``report.html`` in the
campaign's directory, plus ``goodput.png`` (every flow, tcplab against the reference).

Misses are explained by hand in ``explanations.toml`` beside the report: a sample's
own text (``[sample name] mechanism = "…"``) and, for a mechanism several samples
share, its class (``class = "bbr-v1"``, described once under ``[mechanisms.bbr-v1]``
with a ``title`` and a ``text``). The report prints each miss with its own text and
its class's title, each class once with the misses it explains, or says that a miss
has no explanation yet.
"""

from __future__ import annotations

import html
import math
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .metrics import Comparison, flow_target, mean_of, targets
from .space import PHASE_JITTER_S

EXPLANATIONS = "explanations.toml"


@dataclass
class Explanations:
    """What ``explanations.toml`` says: per sample its own text and the class of its
    mechanism; per class a title and the text it shares."""

    own: dict[str, str] = field(default_factory=dict)
    classes: dict[str, str] = field(default_factory=dict)
    mechanisms: dict[str, tuple[str, str]] = field(default_factory=dict)

    def of(self, name: str) -> str:
        """The sample's explanation as a miss line shows it."""
        own, kind = self.own.get(name, ""), self.classes.get(name)
        shared = self.reference(kind) if kind else ""
        return " ".join(x for x in (own, shared) if x) or "*not explained yet*"

    def reference(self, kind: str, title: str | None = None) -> str:
        """How a miss line names its class (``title``: the title as rendered)."""
        return f"Mechanism: {self.mechanisms[kind][0] if title is None else title} (below)."


def progress_line(done: int, total: int, c: Comparison) -> str:
    """One line per finished sample, for long campaigns."""
    head = f"[{done}/{total}] {c.name}"
    if c.status != "compared":
        return f"{head}: {c.status} ({c.reason})"
    marks = ", ".join(f"{k} {'ok' if v else 'MISS'}" for k, v in c.verdicts().items())
    return f"{head}: worst flow {c.worst_flow_error():+.1%}, retx ×{c.retransmit_factor():.2f}; {marks} ({c.wall_s:.0f} s)"


def _pct(x: float | None) -> str:
    return "-" if x is None or math.isinf(x) else f"{100 * x:+.1f}%"


def _mb(x: float) -> str:
    return f"{x / 1e6:.3g}"


def _num(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.3g}"


def summary(outcomes: list[Comparison], space: str) -> list[tuple[str, int, int, float, bool]]:
    """Per target: (wording, met, compared, required share, whether the share is met)."""
    compared = [c for c in outcomes if c.status == "compared"]
    rows = []
    for key, share, wording in targets(space):
        met = sum(c.verdicts()[key] for c in compared)
        rows.append((wording, met, len(compared), share, bool(compared) and met >= share * len(compared)))
    return rows


def self_agreement(outcomes: list[Comparison], space: str, reference: str) -> str | None:
    """The reference against itself, on the samples it ran more than once on the same
    seed: how often one run meets the per-class goodput target against the mean of
    the others, and how tcplab fares where the reference does and does not agree
    with itself. None when no sample has repeated runs."""
    key, tolerance, share = flow_target(space)
    repeated = [c for c in outcomes if c.status == "compared" and len(c.reference_runs) > 1]
    if not repeated:
        return None
    errors = [c.reference_self_errors() for c in repeated]
    runs = sum(len(e) for e in errors)
    within = sum(x <= tolerance for e in errors for x in e)
    steady = [c for c, e in zip(repeated, errors, strict=True) if all(x <= tolerance for x in e)]
    unsteady = [c for c in repeated if c not in steady]
    counts = sorted({len(c.reference_runs) for c in repeated})
    times = " or ".join(str(n) for n in counts)
    return (f"The reference against itself: {len(repeated)} samples ran {reference} {times} times on the same seed. "
            f"One run's every flow class lies within ±{tolerance:.0%} of the mean of the other runs in {within} of "
            f"{runs} runs ({within / runs:.0%}), against the {share:.0%} required of tcplab: what a model that behaved "
            f"exactly like one more run of {reference} could expect. On the {len(steady)} of these samples where every "
            f"run agrees with the others so, tcplab meets the target in {sum(c.verdicts()[key] for c in steady)}; on "
            f"the other {len(unsteady)}, in {sum(c.verdicts()[key] for c in unsteady)}. A yardstick, not a tolerance: "
            "the targets above are unchanged.")


def _explanations(out: Path) -> Explanations:
    path = out / EXPLANATIONS
    if not path.exists():
        return Explanations()
    data = tomllib.loads(path.read_text())
    mechanisms = {kind: (m["title"], m["text"]) for kind, m in data.pop("mechanisms", {}).items()}
    found = Explanations(mechanisms=mechanisms)
    for name, entry in data.items():
        if entry.get("mechanism"):
            found.own[name] = entry["mechanism"]
        if "class" in entry:
            if entry["class"] not in mechanisms:
                raise ValueError(f"{path}: [{name}] class {entry['class']!r} is not under [mechanisms]")
            found.classes[name] = entry["class"]
    return found


def _classes_used(misses: list[tuple[Comparison, str, str]], explanations: Explanations) -> dict[str, list[str]]:
    """Each mechanism class the misses name, in order of first use, with its misses."""
    used: dict[str, list[str]] = {}
    for c, _, _ in misses:
        if (kind := explanations.classes.get(c.name)) is not None:
            used.setdefault(kind, []).append(c.name)
    return used


def _noise_note(c: Comparison) -> str:
    """Says which missed classes lie within two standard errors of the seed means."""
    noisy = [f"class {j} ({_pct(e)}, noise ±{100 * n:.0f}%)" for j, (e, n) in enumerate(zip(c.flow_errors(), c.seed_noise(), strict=True))
             if e is not None and n is not None and abs(e) > 0.1 and abs(e) <= n]
    return (" Within two standard errors of the seed means: " + ", ".join(noisy) + ".") if noisy else ""


def _spread_note(c: Comparison) -> str:
    """Says which missed classes lie within the reference's own run-to-run range."""
    assert c.ours is not None
    inside = [f"class {j} ({_mb(r[0])}-{_mb(r[1])} Mb/s over {len(c.reference_runs)} runs, tcplab {_mb(ours)})"
              for j, (e, r, ours) in enumerate(zip(c.flow_errors(), c.reference_range(), c.class_goodput(c.ours),
                                                  strict=True))
              if e is not None and r is not None and abs(e) > 0.1 and r[0] <= ours <= r[1]]
    return (" Within the reference's own run-to-run range: " + ", ".join(inside) + ".") if inside else ""


def _rows(outcomes: list[Comparison], reference: str) -> tuple[list[str], list[list[str]]]:
    head = ["scenario", "seeds", "goodput tcplab / " + reference + " Mb/s (per flow class)", "class errors", "aggregate",
            "retx tcplab / " + reference, "SRTT ms", "cwnd period s", "Jain", "targets"]
    rows = []
    for c in outcomes:
        if c.status != "compared" or c.ours is None or c.theirs is None:
            rows.append([c.name, str(len(c.seeds)), f"{c.status}: {c.reason}", "", "", "", "", "", "", ""])
            continue
        o, t = c.ours, c.theirs
        sizes = [len(k) for k in c.flow_classes()]
        goodput = "; ".join(f"{_mb(a)}/{_mb(b)}" + (f" (×{n})" if n > 1 else "")
                            for a, b, n in zip(c.class_goodput(o), c.class_goodput(t), sizes, strict=True))
        periods = [(a, b) for k, a, b in zip(o.kinds, o.period_s, t.period_s, strict=True) if k == "tcp"]
        period = "; ".join(f"{_num(a)}/{_num(b)}" for a, b in periods[:2])
        rows.append([
            c.name, _seeds_cell(c), goodput,
            "; ".join(_pct(e) for e in c.flow_errors()), _pct(c.aggregate_error()),
            f"{o.bulk_retransmits:.0f}/{t.bulk_retransmits:.0f}",
            f"{_num(mean_of(o.srtt_ms))}/{_num(mean_of(t.srtt_ms))}", period,
            f"{_num(o.jain)}/{_num(t.jain)}", ", ".join(f"{k} {'ok' if v else 'MISS'}" for k, v in c.verdicts().items()),
        ])
    return head, rows


def _seeds_cell(c: Comparison) -> str:
    """How many runs each side of a compared sample has: its seeds, or tcplab's phase
    replicas against the kernel's repeated runs of a sample without random loss."""
    assert c.ours is not None
    ours = len(c.ours.seed_goodput_bps)
    cell = f"{ours} replicas" if ours > len(c.seeds) else str(len(c.seeds))
    return cell + (f", {len(c.reference_runs)} runs" if c.reference_runs else "")


def _misses(outcomes: list[Comparison], explanations: Explanations) -> list[tuple[Comparison, str, str]]:
    """(comparison, targets missed, explanation) for every miss, worst first."""
    misses = [c for c in outcomes if c.status == "compared" and not all(c.verdicts().values())]
    out = []
    for c in sorted(misses, key=lambda c: -abs(c.worst_flow_error())):
        missed = ", ".join(k for k, v in c.verdicts().items() if not v)
        note = _noise_note(c) + _spread_note(c)
        out.append((c, missed, explanations.of(c.name) + note))
    return out


def _header(outcomes: list[Comparison], space: str, seed: int, reference: str, command: str) -> tuple[str, str, str]:
    """(title, provenance sentence, counts sentence)."""
    title = f"tcplab vs {reference}: {len(outcomes)} sampled scenarios (space {space}, seed {seed})"
    provenance = (f"Written by {command} (docs/differential.md). Each scenario's directory holds its scenario file "
                  "(scenario.toml), both backends' runs and comparison.json; tcplab's figures are the first of each "
                  f"pair, errors are tcplab relative to {reference}.")
    counts = (f"{sum(c.status == 'compared' for c in outcomes)} compared, {sum(c.status == 'excluded' for c in outcomes)} "
              f"excluded by rule, {sum(c.status == 'failed' for c in outcomes)} failed." + _seed_note(outcomes))
    return title, provenance, counts


def _seed_note(outcomes: list[Comparison]) -> str:
    """How many seeds the compared samples ran, and which with several are still less
    precise than the targets need (docs/differential.md, "Seeds")."""
    compared = [c for c in outcomes if c.status == "compared" and c.ours is not None and c.theirs is not None]
    sizes = Counter(len(c.seeds) for c in compared)
    if set(sizes) <= {1}:
        return ""
    runs = ", ".join(f"{n} seed{'s' if n > 1 else ''}: {k}" for n, k in sorted(sizes.items()))
    imprecise = [c.name for c in compared if len(c.seeds) > 1 and not c.precise_enough()]
    note = (f" Samples by seeds run ({runs}): draws of the random loss, or, without it and against a deterministic "
            f"reference, phase replicas with flows starting up to {PHASE_JITTER_S * 1e3:g} ms later (docs/differential.md, \"Seeds\").")
    if imprecise:
        note += (f" Still spread more than half a target's tolerance at their last seed: {len(imprecise)} "
                 f"({', '.join(imprecise)}).")
    return note


def markdown(outcomes: list[Comparison], space: str, seed: int, reference: str, explanations: Explanations,
             command: str) -> str:
    title, provenance, counts = _header(outcomes, space, seed, reference, command)
    provenance = provenance.replace(command, f"`{command}`").replace("scenario.toml", "`scenario.toml`")
    lines = [f"# {title.replace(space, f'`{space}`', 1)}", "", provenance.replace("comparison.json", "`comparison.json`"), "",
             "## Summary", "", counts, "", "| target | met | share | required | |", "|---|---|---|---|---|"]
    for wording, met, n, share, ok in summary(outcomes, space):
        lines.append(f"| {wording} | {met} of {n} | {met / max(n, 1):.0%} | {share:.0%} | {'met' if ok else 'NOT MET'} |")
    if (itself := self_agreement(outcomes, space, reference)) is not None:
        lines += ["", itself]
    excluded = [c for c in outcomes if c.status != "compared"]
    if excluded:
        lines += ["", "## Excluded or failed", ""]
        lines += [f"- `{c.name}` ({c.description}): {c.status}: {c.reason}" for c in excluded]
    misses = _misses(outcomes, explanations)
    lines += ["", f"## Misses ({len(misses)}), worst first", ""]
    for c, missed, why in misses:
        lines.append(f"- **`{c.name}`** — {c.description}. Missed: {missed} (worst flow {_pct(c.worst_flow_error())}, "
                     f"retransmissions ×{c.retransmit_factor():.2f}). {why}")
    used = _classes_used(misses, explanations)
    if used:
        lines += ["", "## Mechanisms"]
        for kind, names in used.items():
            title, text = explanations.mechanisms[kind]
            lines += ["", f"### {title}", "", text, "", "Misses it explains: " + ", ".join(f"`{n}`" for n in names) + "."]
    head, rows = _rows(outcomes, reference)
    lines += ["", "## Every scenario", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "![goodput of every flow](goodput.png)", ""]
    return "\n".join(lines)


def _linked(why: str, name: str, explanations: Explanations) -> str:
    """A miss's escaped explanation with its class's title linked to the class's
    section."""
    if (kind := explanations.classes.get(name)) is None:
        return why
    title = html.escape(explanations.mechanisms[kind][0])
    link = f'<a href="#mechanism-{html.escape(kind)}">{title}</a>'
    return why.replace(explanations.reference(kind, title), explanations.reference(kind, link))


def _html(outcomes: list[Comparison], space: str, seed: int, reference: str, explanations: Explanations,
          command: str) -> str:
    e = html.escape
    title, provenance, counts = _header(outcomes, space, seed, reference, command)
    parts = [f"<h1>{e(title)}</h1>", f"<p>{e(provenance)}</p>", "<h2>Summary</h2>", f"<p>{e(counts)}</p>",
             "<table><tr><th>target</th><th>met</th><th>share</th><th>required</th><th></th></tr>"]
    for wording, met, n, share, ok in summary(outcomes, space):
        parts.append(f"<tr><td>{e(wording)}</td><td>{met} of {n}</td><td>{met / max(n, 1):.0%}</td><td>{share:.0%}</td>"
                     f"<td class={'ok' if ok else 'miss'}>{'met' if ok else 'NOT MET'}</td></tr>")
    parts.append("</table>")
    if (itself := self_agreement(outcomes, space, reference)) is not None:
        parts.append(f"<p>{e(itself)}</p>")
    excluded = [c for c in outcomes if c.status != "compared"]
    if excluded:
        parts += ["<h2>Excluded or failed</h2><ul>"]
        parts += [f"<li><code>{e(c.name)}</code> ({e(c.description)}): {e(c.status)}: {e(c.reason)}</li>" for c in excluded]
        parts.append("</ul>")
    misses = _misses(outcomes, explanations)
    parts.append(f"<h2>Misses ({len(misses)}), worst first</h2><ul>")
    for c, missed, why in misses:
        parts.append(f'<li><a href="{e(c.name)}/scenario.toml"><code>{e(c.name)}</code></a> — {e(c.description)}. '
                     f"Missed: <b>{e(missed)}</b> (worst flow {_pct(c.worst_flow_error())}, retransmissions "
                     f"×{c.retransmit_factor():.2f}). {_linked(e(why), c.name, explanations)}</li>")
    parts.append("</ul>")
    used = _classes_used(misses, explanations)
    if used:
        parts.append("<h2>Mechanisms</h2>")
        for kind, names in used.items():
            title, text = explanations.mechanisms[kind]
            parts += [f'<h3 id="mechanism-{e(kind)}">{e(title)}</h3><p>{e(text)}</p>',
                      "<p>Misses it explains: " + ", ".join(f"<code>{e(n)}</code>" for n in names) + ".</p>"]
    parts.append('<img src="goodput.png" alt="goodput of every flow class" style="max-width:600px">')
    head, rows = _rows(outcomes, reference)
    descriptions = {c.name: c.description for c in outcomes}
    parts += ["<h2>Every scenario</h2>",
              "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        name = r[0]
        cells = [f'<a href="{e(name)}/scenario.toml" title="{e(descriptions.get(name, ""))}">{e(name)}</a>']
        cells += [e(x) for x in r[1:]]
        cls = ' class="miss"' if "MISS" in r[-1] else ""
        parts.append(f"<tr{cls}>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
    parts.append("</table>")
    return ("<!doctype html><meta charset=utf-8><title>" + e(title) + "</title>"
            "<style>body{font:14px/1.45 sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin:1em 0}"
            "td,th{border:1px solid #ccc;padding:3px 6px;font-size:12px;vertical-align:top}tr.miss{background:#fde8e8}"
            "td.miss{color:#b00;font-weight:bold}td.ok{color:#070}li{margin:.4em 0}code{font-size:13px}</style>"
            + "".join(parts))


def plot(outcomes: list[Comparison], path: Path, reference: str) -> None:
    """Every flow class's mean goodput, tcplab against the reference, log-log, with
    the ±10% band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, ys, ok = [], [], []
    for c in outcomes:
        if c.status != "compared" or c.ours is None or c.theirs is None:
            continue
        good = all(c.verdicts().values())
        for a, b in zip(c.class_goodput(c.ours), c.class_goodput(c.theirs), strict=True):
            if a > 0 and b > 0:
                xs.append(b / 1e6)
                ys.append(a / 1e6)
                ok.append(good)
    fig, ax = plt.subplots(figsize=(5.5, 5))
    if xs:
        lo, hi = min(xs + ys) / 1.5, max(xs + ys) * 1.5
        ax.plot([lo, hi], [lo, hi], color="gray", lw=0.8)
        ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="gray", alpha=0.15, label="±10%")
        ax.scatter([x for x, g in zip(xs, ok, strict=True) if g], [y for y, g in zip(ys, ok, strict=True) if g],
                   s=14, label="scenario meets the targets")
        ax.scatter([x for x, g in zip(xs, ok, strict=True) if not g], [y for y, g in zip(ys, ok, strict=True) if not g],
                   s=14, color="tab:red", label="scenario misses a target")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
    ax.set_xlabel(f"{reference}: mean goodput of a flow class, Mb/s")
    ax.set_ylabel("tcplab: mean goodput of a flow class, Mb/s")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(out: Path, outcomes: list[Comparison], space: str, seed: int, reference: str, command: str) -> Path:
    """Writes REPORT.md, report.html and goodput.png into ``out``; returns REPORT.md."""
    explanations = _explanations(out)
    text = markdown(outcomes, space, seed, reference, explanations, command)
    plot(outcomes, out / "goodput.png", reference)
    (out / "REPORT.md").write_text(text)
    (out / "report.html").write_text(_html(outcomes, space, seed, reference, explanations, command))
    return out / "REPORT.md"
