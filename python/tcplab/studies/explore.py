"""``tcplab reproduce STUDY --explore``: which readings of the paper's unstated
parameters reproduce each of its findings (#30 item 4).

A study declares what its paper leaves open as ``[[unstated]]`` entries: a name, what
it is, what the paper says, the values a careful reader could take, which one the
study uses by default and why (from the paper's own text or numbers), and the scenario
fields it sets, per scenario template (the templates differ in layout) or per sweep
(a sweep's name as the key: only that sweep)::

    [[unstated]]
    name = "access_gbps"
    what = "the senders' access links"
    paper = "not stated; the hosts had gigabit NICs"
    values = [1, 10]
    default = 10
    why = "..."
    set = { "single.toml" = { "link[0].bandwidth" = "{access_gbps}Gbps" } }

Exploring runs the study's quick subset once per *reading*, as extra sweep parameters
so that the sweeps' ordinary machinery runs them in parallel, resumably, on a Dask
cluster if asked; then checks each conclusion the exploration decides under every
reading and writes the map: conclusion × reading → grade, with the region where each
conclusion reproduces.

A study whose quick subset cannot decide the conclusions an unstated parameter bears on
(lfn: the loss rate acts over a 600-s transfer) declares what exploring runs instead:

- ``[sweep.explore]`` (the form of ``[sweep.quick]``): the runs of that sweep under
  each reading, also for a ``full_only`` sweep;
- ``explore = true`` on a conclusion those runs decide (default: the conclusions the
  quick subset decides, i.e. not ``full_only``);
- ``[explore] design = "one_at_a_time"``: the default reading and each unstated value
  varied alone, instead of every combination (``"grid"``), where the grid's runs
  would take too long; ``note`` says in the map what the readings run.

A reading applies to the scenario template, before the sweep's own parameters: a case
that sets a field itself keeps it (lfn's dedicated path stays loss-free whatever loss
rate the shared path is read to have).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from .checks import evaluate
from .grading import grade, study_factor
from .measures import measure

#: The grade marks of the map.
MAP_MARK = {"reproduced": "✓", "bound": "~", "fails": "✗", "not decided": "?", "input": "i"}
#: Beyond this many readings an exploration is refused: the grid multiplies the runs.
MAX_READINGS = 36


class ExploreError(ValueError):
    """A study without unstated parameters, or a malformed ``[[unstated]]`` entry."""


@dataclass
class Exploration:
    """The map an exploration found."""

    #: Every reading, the default first.
    readings: list[dict]
    #: conclusion text → the grade under each reading (in ``readings`` order).
    grades: dict[str, list[str]]
    unstated: list[dict]
    #: How the readings were drawn (``shape.EXPLORE_DESIGNS``) and what they run, in words.
    design: str = "grid"
    note: str = ""
    #: Unstated parameters whose readings changed no run's result (:func:`inert_parameters`).
    inert: list[str] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict:
        """What ``explore.json`` holds (the main report reads it back)."""
        return {"readings": self.readings, "grades": self.grades, "unstated": self.unstated, "design": self.design,
                "note": self.note, "inert": self.inert}


def unstated_parameters(study) -> list[dict]:
    """The study's ``[[unstated]]`` entries, checked (ExploreError naming the entry)."""
    entries = study.data.get("unstated", [])
    if not entries:
        raise ExploreError(f"study '{study.name}' declares no [[unstated]] parameters to explore")
    for i, u in enumerate(entries):
        for key in ("name", "values", "default", "set", "why"):
            if key not in u:
                raise ExploreError(f"{study.directory / 'study.toml'}: unstated[{i}].{key}: missing")
        if u["default"] not in u["values"]:
            raise ExploreError(f"{study.directory / 'study.toml'}: unstated[{i}].default: {u['default']!r} is not "
                               f"one of its values {u['values']}")
    return entries


def explore_settings(study) -> dict:
    """The study's ``[explore]`` table with its defaults (its shape is checked when the
    study loads: studies/shape.py)."""
    settings = study.data.get("explore", {})
    return {"design": settings.get("design", "grid"), "note": settings.get("note", "")}


def readings_of(unstated: list[dict], design: str = "grid") -> list[dict]:
    """The readings to run, the default first: every combination of the unstated
    values (``grid``), or each value varied alone around the default
    (``one_at_a_time``)."""
    default = {u["name"]: u["default"] for u in unstated}
    if design == "one_at_a_time":
        return [default] + [{**default, u["name"]: v} for u in unstated for v in u["values"] if v != u["default"]]
    names = [u["name"] for u in unstated]
    grid = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(u["values"] for u in unstated))]
    return [default] + [r for r in grid if r != default]


def explored_sweeps(study) -> list[dict]:
    """The sweep declarations exploring runs: the quick subset's, and any
    ``full_only`` one that declares its own ``[sweep.explore]`` runs."""
    quick = study.sweeps(quick=True)
    extra = [d for d in study.sweeps(quick=False) if "explore" in d and d not in quick]
    return quick + extra


def explored_conclusions(study) -> list[dict]:
    """The conclusions the exploration decides (``explore``; by default those the
    quick subset decides)."""
    return [c for c in study.data.get("conclusion", []) if c.get("explore", not c.get("full_only"))]


def _explored_declaration(declaration: dict, unstated: list[dict], design: str = "grid") -> tuple[dict, list[str]]:
    """The sweep declaration exploring runs (its ``explore`` table, else its quick
    one) with the unstated parameters that apply to its scenario template put first
    among its parameters (so that the sweep's own settings win), and their names.
    ``one_at_a_time`` leaves out the points where more than one of them differs from
    its default."""
    table = dict(declaration.get("table", {}))
    table.update(declaration.get("explore", declaration.get("quick", {})))
    own = dict(table["parameters"])
    parameters = {}
    for u in unstated:
        # Keyed by the sweep's name (only that sweep) or by its scenario template.
        sets = u["set"].get(declaration["name"], u["set"].get(declaration["scenario"]))
        if sets:
            if u["name"] in own:
                raise ExploreError(f"unstated parameter {u['name']!r} is also a parameter of sweep "
                                   f"{declaration['name']!r}: give it another name")
            parameters[u["name"]] = {"values": list(u["values"]), "set": sets}
    added = list(parameters)
    table["parameters"] = {**parameters, **own}
    if design == "one_at_a_time" and len(added) > 1:
        defaults = {u["name"]: u["default"] for u in unstated}
        apart = " + ".join(f"({name} != {defaults[name]!r})" for name in added)
        table["exclude"] = [*table.get("exclude", []), f"{apart} > 1"]
    return {**declaration, "table": table, "quick": {}, "explore": {}}, added


def explore_study(study, out: Path, *, jobs: int | None, dask: str | None, runner) -> Exploration:
    """Runs the study's quick subset under every reading of its unstated parameters
    into ``out/sweeps`` and grades each conclusion it decides under each reading;
    writes ``out/explore.json`` and ``out/explore.md``."""
    from ..sweeps import point_summary, runs_frame
    from ..sweeps.spec import point_id
    from . import sweep_spec

    unstated = unstated_parameters(study)
    settings = explore_settings(study)
    readings = readings_of(unstated, settings["design"])
    if len(readings) > MAX_READINGS:
        raise ExploreError(f"study '{study.name}': {len(readings)} readings of its unstated parameters; at most "
                           f"{MAX_READINGS} are explored")
    summaries, applies, parameters = {}, {}, {}
    for declaration in explored_sweeps(study):
        explored, added = _explored_declaration(declaration, unstated, settings["design"])
        spec = dataclasses.replace(sweep_spec(study, explored, quick=True), seed_ignores=tuple(added))
        name = declaration["name"]
        outcome, _summary, _plots = runner(spec, out / "sweeps" / name, jobs, dask, f"{name} (explore)", "sim")
        runs = runs_frame(outcome.root)
        metrics = sorted({*spec.metrics, "goodput_bps"})
        summaries[name] = point_summary(runs, [p.name for p in spec.parameters], metrics,
                                        order=[point_id(p) for p in spec.points()])
        applies[name] = added
        parameters[name] = [p.name for p in spec.parameters]
    factor = study_factor(study.data)
    published = study.data.get("published", [])
    conclusions = explored_conclusions(study)
    grades: dict[str, list[str]] = {c["text"]: [] for c in conclusions}
    for reading in readings:
        at = {name: _at_reading(df, {k: reading[k] for k in applies[name]}) for name, df in summaries.items()}

        def measured(spec: dict, reading=reading) -> tuple[float | None, float | None]:
            here = {k: reading[k] for k in applies.get(spec["sweep"], [])}
            return measure({**spec, "where": {**spec.get("where", {}), **here}}, out)

        for c in conclusions:
            outcome = evaluate(c["check"], at, measured, published)
            grades[c["text"]].append(grade(c, outcome, factor).word)
    result = Exploration(readings, grades, unstated, settings["design"], settings["note"],
                         inert_parameters(unstated, summaries, applies, parameters))
    (out / "explore.json").write_text(json.dumps(result.to_json(), indent=1, default=str))
    (out / "explore.md").write_text("\n".join([f"# {study.title}: the unstated parameters explored", "",
                                               *map_markdown(result)]))
    return result


def inert_parameters(unstated: list[dict], summaries: dict, applies: dict, parameters: dict) -> list[str]:
    """The unstated parameters whose readings gave every point of every sweep they apply
    to the same results: the fields they set changed nothing the simulation does (the
    lan study's window in its RTO sweep once set the receive buffer under a window the
    ``ns2`` profile caps at 20 segments, and its three readings ran one simulation).
    Such a parameter cannot decide any conclusion, and the map says so."""
    inert = []
    for u in unstated:
        name = u["name"]
        sweeps = [s for s, added in applies.items() if name in added]
        if sweeps and not any(_moves_results(summaries[s], name, parameters[s]) for s in sweeps):
            inert.append(name)
    return inert


def _moves_results(summary, name: str, parameters: list[str]) -> bool:
    """Whether some point's results in ``summary`` differ between values of ``name``
    with every other parameter held."""
    results = [c for c in summary.columns if c not in parameters and c not in ("point", "runs", "failed")]
    others = [p for p in parameters if p != name]
    groups = summary.groupby(others, dropna=False) if others else [(None, summary)]
    return any(len(group[results].drop_duplicates()) > 1 for _, group in groups)


def _at_reading(df, reading: dict):
    for name, value in reading.items():
        df = df[df[name] == value]
    return df.drop(columns=list(reading))


def noise_readings(data: dict) -> list[int]:
    """Indices of the readings that differ from the default only in an unstated
    parameter declared ``physical = false``: one that changes nothing the conclusions
    depend on but the realization of the random numbers (lfn's cross-traffic model
    moves which packets the per-packet loss draws hit). Their columns show the noise
    of one realization."""
    noise_names = {u["name"] for u in data["unstated"] if u.get("physical") is False}
    default = data["readings"][0]
    return [i for i, r in enumerate(data["readings"]) if i > 0
            and {k for k in r if r[k] != default[k]} <= noise_names]


def reproduced_counts(data: dict) -> list[int]:
    """Per reading, how many conclusions it reproduces."""
    return [sum(1 for row in data["grades"].values() if row[i] == "reproduced") for i in range(len(data["readings"]))]


def verdicts(data: dict) -> tuple[str, bool, str]:
    """The map's two sentences and whether the first names a reading that beats the
    default: which reading reproduces the most (readings that only change the noise
    excluded), and how many grades the noise readings move."""
    readings, grades = data["readings"], data["grades"]
    counts = reproduced_counts(data)
    noise = noise_readings(data)
    candidates = [i for i in range(len(readings)) if i not in noise]
    best = max(candidates, key=lambda i: (counts[i], i == 0))
    beats = counts[best] > counts[0]
    if beats:
        said = (f"The reading {reading_label(readings[best])} reproduces {counts[best]} of these {len(grades)} "
                f"conclusions, the default {counts[0]}.")
    else:
        said = f"No explored reading reproduces more of these {len(grades)} conclusions than the default ({counts[0]})."
    if not noise:
        return said, beats, ""
    moved = [sum(1 for row in grades.values() if row[i] != row[0]) for i in noise]
    if beats and counts[best] - counts[0] <= max(moved):
        said = said.removesuffix(".") + ", a difference within the noise of one realization (below)."
    names = "; ".join(reading_label({k: v for k, v in readings[i].items() if v != readings[0][k]}) for i in noise)
    return said, beats, (f"The noise of one realization: {names} changes nothing these conclusions depend on, yet moves "
                  f"{', '.join(map(str, moved))} of the {len(grades)} grades from the default's. Grades that differ "
                  "between readings by no more than that are not told apart by one replication.")


def _what_runs(data: dict) -> str:
    """The map's sentence on what each reading ran and how the readings were drawn."""
    drawn = ("the default reading and each unstated value varied alone" if data.get("design") == "one_at_a_time"
             else "every combination of the unstated values")
    runs = data.get("note") or "Each reading runs the quick subset (the conclusions it decides)."
    return f"{runs} The readings are {drawn}."


def reading_label(reading: dict) -> str:
    """"access_gbps = 1, queue = 50"."""
    return ", ".join(f"{k} = {v}" for k, v in reading.items())


def map_markdown(result: Exploration | dict) -> list[str]:
    """The map as Markdown lines: the unstated parameters (paper, values, default and
    why), the conclusion × reading table, and per conclusion the readings where it
    reproduces."""
    data = result.to_json() if isinstance(result, Exploration) else result
    readings, grades = data["readings"], data["grades"]
    lines = ["## The unstated parameters, explored", "",
             "| parameter | what | paper | readings explored | default | why the default |", "|---|---|---|---|---|---|"]
    for u in data["unstated"]:
        lines.append(f"| {u['name']} | {u.get('what', '')} | {u.get('paper', '')} | "
                     f"{', '.join(str(v) for v in u['values'])} | {u['default']} | {u['why']} |")
    lines += ["", _what_runs(data) + " Reading 1 is the default. "
                  "Readings: " + "; ".join(f"**{i + 1}** {reading_label(r)}" for i, r in enumerate(readings)) + ". "
                  f"Marks: {', '.join(f'{m} {w}' for w, m in MAP_MARK.items())}.", "",
              "| conclusion | " + " | ".join(str(i + 1) for i in range(len(readings))) + " |",
              "|---|" + "---|" * len(readings)]
    for text, row in grades.items():
        lines.append(f"| {text} | " + " | ".join(MAP_MARK[g] for g in row) + " |")
    lines += ["| **reproduced** | " + " | ".join(f"**{c}**" for c in reproduced_counts(data)) + " |", ""]
    best, beats, noise = verdicts(data)
    lines.append(f"**{best}**" if beats else best)
    if noise:
        lines += ["", noise]
    if data.get("inert"):
        lines += ["", f"**{inert_sentence(data)}**"]
    lines += ["", "Where each conclusion reproduces:", ""]
    for text, row in grades.items():
        where = [reading_label(readings[i]) for i, g in enumerate(row) if g == "reproduced"]
        said = ("under every reading" if len(where) == len(readings) else
                "under no reading" if not where else "only under " + "; ".join(where))
        lines.append(f"- {text}: {said}")
    return lines


def map_html(result: Exploration | dict) -> str:
    """The map as an HTML section for the study's report."""
    import html

    e = html.escape
    data = result.to_json() if isinstance(result, Exploration) else result
    readings, grades = data["readings"], data["grades"]
    parts = ["<h2>The unstated parameters, explored</h2><table><tr><th>parameter</th><th>what</th><th>paper</th>"
             "<th>readings explored</th><th>default</th><th>why the default</th></tr>"]
    for u in data["unstated"]:
        parts.append(f"<tr><td>{e(u['name'])}</td><td>{e(u.get('what', ''))}</td><td>{e(u.get('paper', ''))}</td>"
                     f"<td>{e(', '.join(str(v) for v in u['values']))}</td><td>{e(str(u['default']))}</td>"
                     f"<td>{e(u['why'])}</td></tr>")
    parts.append(f"</table><p>{e(_what_runs(data))} Reading 1 is the default. "
                 + "; ".join(f"<b>{i + 1}</b> {e(reading_label(r))}" for i, r in enumerate(readings)) + ".</p>")
    parts.append("<table><tr><th>conclusion</th>" + "".join(
        f"<th title='{e(reading_label(r))}'>{i + 1}{' (default)' if i == 0 else ''}</th>" for i, r in enumerate(readings))
        + "</tr>")
    cls = {"reproduced": "holds", "bound": "bound", "fails": "fails", "not decided": "undecided", "input": "input"}
    for text, row in grades.items():
        parts.append(f"<tr><td>{e(text)}</td>" + "".join(f"<td class='{cls[g]}' title='{e(g)}'>{MAP_MARK[g]}</td>"
                                                         for g in row) + "</tr>")
    parts.append("<tr><th>reproduced</th>" + "".join(f"<th>{c}</th>" for c in reproduced_counts(data)) + "</tr></table>")
    best, beats, noise = verdicts(data)
    if beats:
        parts.append(f"<p class='note'><b>{e(best)}</b></p>")
    if noise:
        parts.append(f"<p class='note'>{e(noise)}</p>")
    if data.get("inert"):
        parts.append(f"<p class='note'><b>{e(inert_sentence(data))}</b></p>")
    return "".join(parts)


def inert_sentence(data: dict) -> str:
    """The map's warning about unstated parameters whose readings changed no result."""
    names = ", ".join(data["inert"])
    return (f"No effect: the readings of {names} changed no run's result, so the map cannot say what they decide; "
            "the scenario fields they set are overridden or unused (a fault of the study's declaration).")
