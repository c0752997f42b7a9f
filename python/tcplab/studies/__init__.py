"""Published studies as data: ``tcplab reproduce STUDY``.

A study is a directory in this package (``studies/<name>/``) holding ``study.toml``
— the question, every setup choice the paper leaves open, its sweeps (each pointing to
a scenario template in the same directory), the paper's published numbers, the figures
to redraw and the conclusions to check — and the scenario templates. No study has code
of its own: :mod:`.checks` has the generic rules, :mod:`.report` writes the report.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..scenario import ScenarioError
from ..scenario.errors import suggest
from ..scenario.loader import read_raw
from .published import expand as published_entries
from .shape import study_problem

STUDIES_DIR = Path(__file__).parent


class StudyError(ValueError):
    """An unknown study or a malformed study file (exit status 2)."""


@dataclass(frozen=True)
class Study:
    """One study's data (``study.toml``) and where its files are."""

    name: str
    title: str
    directory: Path
    data: dict

    def sweeps(self, quick: bool, backend: str = "sim") -> list[dict]:
        """The sweep declarations to run (``--quick`` leaves out ``full_only`` ones). With
        ``backend = "emu"`` only those declared ``emu = true``, with ``"measure"`` those
        declared ``measure = true`` (each run in the simulator and on that backend, side
        by side); the simulator-only reproduction leaves both out."""
        def runs_on(s: dict) -> str:
            return "emu" if s.get("emu") else "measure" if s.get("measure") else "sim"

        wanted = [s for s in self.data.get("sweep", []) if runs_on(s) == backend]
        return [s for s in wanted if not (quick and s.get("full_only"))]


def available() -> list[Study]:
    """Every study shipped with tcplab."""
    return [load_study(p.parent.name) for p in sorted(STUDIES_DIR.glob("*/study.toml"))]


def load_study(name: str) -> Study:
    """The study called ``name`` (or the study directory at path ``name``)."""
    directory = STUDIES_DIR / name
    if not (directory / "study.toml").exists() and (Path(name) / "study.toml").exists():
        directory = Path(name)
    path = directory / "study.toml"
    if not path.exists():
        names = [p.parent.name for p in sorted(STUDIES_DIR.glob("*/study.toml"))]
        raise StudyError(f"unknown study '{name}'{suggest(name, names)}; studies: {', '.join(names)}")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{path}: malformed TOML: {e}") from None
    except RecursionError:
        raise StudyError(f"{path}: a value is nested too deeply to read") from None
    except UnicodeDecodeError as e:
        raise StudyError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    found = study_problem(data)
    if found is None:
        # The published tables become [[published]] entries, checked as those are.
        data["published"], found = published_entries(data)
        data.pop("published_table", None)
        found = found or study_problem({"published": data["published"]})
    if found is not None:
        raise StudyError(f"{path}: {found}")
    _check_names(data, str(path))
    _check_conclusions(data, str(path))
    study = Study(name=data.get("name", directory.name), title=data.get("title", directory.name), directory=directory,
                  data=data)
    _check_sweeps(study, str(path))
    return study


def _check_sweeps(study: Study, source: str) -> None:
    """StudyError naming the sweep if one of its declarations (full, quick or explore)
    is not a sweep tcplab can run: found when the study is loaded, before any of them
    runs."""
    names = [d["name"] for d in study.data.get("sweep", [])]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise StudyError(f"{source}: sweep: two sweeps are called {twice[0]!r}")
    for i, declaration in enumerate(study.data.get("sweep", [])):
        for quick, subset in ((False, "quick"), (True, "quick"), (True, "explore")):
            try:
                sweep_spec(study, declaration, quick, subset)
            except StudyError as e:
                raise StudyError(f"{source}: sweep[{i}] ({declaration['name']}): {e}") from None


#: What a study's entries may name as a table; columns and parameters must be plain
#: identifiers. Both go into SQL (measures.py, series_figures.py), so a study file is
#: checked when it is loaded, not trusted (#35: a published-value entry read the size
#: of /etc/passwd into a "published value").
_TABLES = ("runs", "flows", "links")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_conclusions(data: dict, source: str) -> None:
    """StudyError naming the conclusion if its check has an unknown kind or names a
    sweep the study does not declare: found when the study is loaded, before any run."""
    from .checks import check_problem
    from .grading import paper_value

    sweeps = {s["name"] for s in data.get("sweep", []) if isinstance(s, dict) and isinstance(s.get("name"), str)}
    grading = data.get("grading", {})
    factor = grading.get("factor", 1.5) if isinstance(grading, dict) else None
    if not isinstance(factor, (int, float)) or factor <= 1:
        raise StudyError(f"{source}: grading.factor: expected a number above 1, got {factor!r}")
    from .prose import problems

    for found in problems(data, sweeps):
        raise StudyError(f"{source}: {found}")
    for i, c in enumerate(data.get("conclusion", [])):
        problem = check_problem(c.get("check") if isinstance(c, dict) else None, sweeps)
        if problem is not None:
            raise StudyError(f"{source}: conclusion[{i}].check.{problem}")
        # A two-sided band counts as reproducing the paper: it must contain the paper's value.
        low, high, paper = c["check"].get("min"), c["check"].get("max"), paper_value(c)
        if low is not None and high is not None and paper is not None and not low <= paper <= high:
            raise StudyError(f"{source}: conclusion[{i}].check: the paper's value {paper:g} is outside its band "
                             f"{low:g} … {high:g}")
    # Published values and figures name their sweep too: a typo there would leave a
    # number silently unmeasured.
    for section in ("published", "figure", "series_figure"):
        for i, item in enumerate(data.get(section, [])):
            named = [("sweep", item.get("sweep"))] if isinstance(item, dict) else []
            named += [(f"others[{j}].sweep", o.get("sweep")) for j, o in enumerate(item.get("others", []))
                      if isinstance(o, dict)] if isinstance(item, dict) else []
            for field, sweep in named:
                if sweep is not None and sweep not in sweeps:
                    raise StudyError(f"{source}: {section}[{i}].{field}: the study declares no sweep {sweep!r}"
                                     f"{suggest(str(sweep), sorted(sweeps))}")


def _check_names(node: object, source: str, where: str = "") -> None:
    """StudyError naming the entry if a table, column, row or parameter name in the
    study data is not one tcplab reads."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            _check_names(item, source, f"{where}[{i}]")
        return
    if not isinstance(node, dict):
        return
    names_a_table = isinstance(node.get("table"), str) and ("column" in node or "row" in node)
    if names_a_table and node["table"] not in _TABLES:
        raise StudyError(f"{source}: {where}.table: expected one of {', '.join(_TABLES)}, got {node['table']!r}")
    names = [("column", node["column"])] if isinstance(node.get("column"), str) else []
    names += [(f"{part}.{k}", k) for part in ("where", "row") if isinstance(node.get(part), dict) for k in node[part]]
    if isinstance(node.get("by"), str) and "kind" in node:
        names.append(("by", node["by"]))
    for field, name in names:
        if not _IDENTIFIER.fullmatch(name):
            raise StudyError(f"{source}: {where}.{field}: {name!r} is not a column or parameter name "
                             "(letters, digits and _)")
    for key, value in node.items():
        if isinstance(value, (dict, list)):
            _check_names(value, source, f"{where}.{key}" if where else key)


def export_study(study: Study, target: Path) -> list[Path]:
    """Copies the study's files into ``target`` so a user can change and rerun them
    (``tcplab reproduce target``)."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for f in sorted(study.directory.iterdir()):
        if f.is_file() and (f.suffix in (".toml", ".md") or f.name == "ns2.json"):
            shutil.copy2(f, target / f.name)
            written.append(target / f.name)
    return written


def sweep_spec(study: Study, declaration: dict, quick: bool, subset: str = "quick"):
    """The :class:`~tcplab.sweeps.spec.SweepSpec` of one of the study's sweeps: its
    table, or with ``quick`` its ``subset`` table (``quick`` or ``explore``) over it."""
    from ..sweeps.spec import sweep_from_table

    table = dict(declaration.get("table", {}))
    if quick and subset in declaration:
        table.update(declaration[subset])
    scenario_path = study.directory / declaration["scenario"]
    try:
        scenario, source = read_raw(scenario_path)
        return sweep_from_table(table, scenario, source)
    except ScenarioError as e:
        if e.path.startswith("sweep."):
            # The sweep's table lives in study.toml, under this declaration.
            where = subset if quick and subset in declaration else "table"
            raise StudyError(f"{where}.{e.path.removeprefix('sweep.')}: {e.message}") from None
        raise StudyError(str(e)) from None


#: Where a backend's runs of a sweep go: ``sweeps/<name><suffix>``.
BACKEND_SUFFIX = {"emu": "-emu", "measure": "-measured"}


def reproduce_study(study: Study, out: Path, *, quick: bool, jobs: int | None, dask: str | None, runner,
                    backend: str = "sim", explore: bool = False):
    """Runs the study's sweeps into ``out/sweeps/<name>``, checks its conclusions and
    writes ``out/report.md`` and ``out/report.html``. ``runner(spec, dir, jobs, dask,
    label, backend)`` runs one sweep (the CLI passes one with a progress bar). With
    ``backend = "emu"`` the study's ``emu`` sweeps run in the simulator and over the
    Linux stack (``sweeps/<name>-emu``), and the report sets them side by side with the
    paper (:func:`tcplab.studies.report.build_backend_report`). With ``explore`` the
    study's quick subset also runs under every reading of its unstated parameters
    (``out/explore``, :mod:`.explore`) and the report carries the map."""
    from ..sweeps import point_summary, runs_frame
    from ..sweeps.orchestrate import SweepInputError, plan
    from ..sweeps.spec import point_id
    from .measures import MeasureError
    from .report import build_backend_report, build_report

    runs_on = [("sim", ""), (backend, BACKEND_SUFFIX[backend])] if backend in BACKEND_SUFFIX else [("sim", "")]
    declarations = [(d, b, d["name"] + suffix) for d in study.sweeps(quick, backend) for b, suffix in runs_on]
    if not declarations:
        raise StudyError(f"study '{study.name}' has no sweeps for --backend {backend}")
    # Every sweep planned before the first runs: a point no run could start from is
    # reported in a second, not after the sweeps before it (plans are cheap: ~0.5 s
    # for the largest study).
    planned = [(name, on, sweep_spec(study, declaration, quick)) for declaration, on, name in declarations]
    for name, on, spec in planned:
        try:
            plan(spec, on)
        except SweepInputError as e:
            raise StudyError(f"{study.directory / 'study.toml'}: sweep {name}: {e}") from None
    out.mkdir(parents=True, exist_ok=True)
    exploration = None
    if explore:
        from .explore import ExploreError, explore_study

        try:
            exploration = explore_study(study, out / "explore", jobs=jobs, dask=dask, runner=runner)
        except ExploreError as e:
            raise StudyError(str(e)) from None
        except MeasureError as e:
            raise StudyError(f"{study.directory / 'study.toml'}: {e}") from None
    summaries, specs, walls = {}, {}, {}
    for name, on, spec in planned:
        outcome, _summary, _plots = runner(spec, out / "sweeps" / name, jobs, dask, name, on)
        runs = runs_frame(outcome.root)
        order = [point_id(p) for p in spec.points()]
        metrics = sorted({*spec.metrics, "goodput_bps"})
        summaries[name] = point_summary(runs, [p.name for p in spec.parameters], metrics, order=order)
        specs[name] = spec
        walls[name] = outcome
    try:
        if backend in BACKEND_SUFFIX:
            return build_backend_report(study, out, summaries, specs, walls, quick=quick, backend=backend)
        return build_report(study, out, summaries, specs, walls, quick=quick, exploration=exploration)
    except MeasureError as e:
        raise StudyError(f"{study.directory / 'study.toml'}: {e}") from None
