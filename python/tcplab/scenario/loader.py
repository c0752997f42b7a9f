"""Loading scenarios from files, TOML text or dicts, with command-line overrides."""

from __future__ import annotations

import copy
import json
import os
import re
import tomllib
from collections import namedtuple
from typing import TYPE_CHECKING

from .errors import ScenarioError
from .expand import expand_counts
from .schema import CompiledTables, compile_scenario
from .toml_writer import value_text

if TYPE_CHECKING:
    from typing import Any

# os.path rather than pathlib, and no dataclasses or typing at run time: each would
# add tens of milliseconds to every `tcplab` start on a small machine.
ScenarioSource = str | os.PathLike | dict


class Scenario(namedtuple("Scenario", "source raw engine overrides", defaults=((),))):
    """A scenario ready for the engine: where it came from (``source``), what the
    user wrote after overrides (``raw``), the engine configuration compiled from it
    (``engine``) and the overrides applied, as ``KEY=VALUE`` text (``overrides``,
    ``--seed`` as ``simulation.seed``). Immutable and picklable."""

    __slots__ = ()

    def as_run(self) -> dict:
        """The scenario exactly as run: ``raw`` with its ``name`` made explicit, so
        that a file written from it runs under the same name (see
        :mod:`tcplab.scenario.toml_writer`)."""
        return {"name": self.name, **{k: v for k, v in self.raw.items() if k != "name"}}

    @property
    def name(self) -> str:
        """A short name: the scenario's ``name`` key, or the file's stem."""
        if isinstance(self.raw.get("name"), str):
            return self.raw["name"]
        if self.source in ("<text>", "<dict>"):
            return "scenario"
        return os.path.splitext(os.path.basename(self.source))[0]

    def engine_json(self) -> str:
        """The engine configuration as JSON (the engine's input format)."""
        return json.dumps(self.engine)


_TOO_DEEP = "nested too deeply (tables or arrays hundreds of levels deep); a scenario needs a few"


def _parse_text(text: str, source: str, fmt: str) -> dict:
    try:
        return _parse_text_unguarded(text, source, fmt)
    except RecursionError:
        raise ScenarioError("", _TOO_DEEP, source) from None


def _parse_text_unguarded(text: str, source: str, fmt: str) -> dict:
    if not text.strip():
        raise ScenarioError("", "the scenario is empty: expected at least [simulation], a topology or links, and [[flow]]", source)
    if fmt == "yaml":
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ScenarioError("", f"malformed YAML: {e}", source) from None
        if not isinstance(data, dict):
            raise ScenarioError("", "expected a mapping at the top of the YAML file", source)
        return data
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"malformed TOML: {e}", source) from None


def read_raw(source: ScenarioSource) -> tuple[dict, str]:
    """The user's scenario as a dict, and a name for error messages."""
    if isinstance(source, dict):
        try:
            return native(source), "<dict>"  # a copy: native rebuilds every container
        except RecursionError:
            raise ScenarioError("", _TOO_DEEP, "<dict>") from None
    looks_like_path = isinstance(source, os.PathLike) or ("\n" not in source and "=" not in source)
    if looks_like_path:
        path = os.fspath(source)
        if not os.path.exists(path):
            raise ScenarioError("", "no such file", path)
        if os.path.isdir(path):
            raise ScenarioError("", "is a directory, expected a scenario file (.toml or .yaml)", path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise ScenarioError("", f"cannot read: {e}", path) from None
        fmt = "yaml" if os.path.splitext(path)[1].lower() in (".yaml", ".yml") else "toml"
        return _parse_text(text, path, fmt), path
    return _parse_text(str(source), "<text>", "toml"), "<text>"


def _override_value(text: str) -> Any:
    """A --set value: parsed as TOML if it is a TOML value (42, 0.5, true, [..], {..}),
    otherwise kept as a string (so 50Mbps needs no quotes)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text


#: One step of a field path: a key (``app``), ``[3]``, ``[-1]``, ``[*]``, a slice
#: ``[2:5]`` or a filter ``[name=client3]``.
_STEP = re.compile(r"\.?([^.\[\]]+)|\[([^\[\]]*)\]")


def _override_steps(key: str) -> list:
    """The steps of a field path: ``str`` keys, ``int`` indexes, ``slice`` objects and
    ``(field, value)`` filters."""
    steps: list = []
    pos = 0
    while pos < len(key):
        m = _STEP.match(key, pos)
        if m is None or (pos == 0 and key.startswith(".")):
            raise ScenarioError(key, "cannot read the field path (expected e.g. flow[0].app.rate, flow[*].transport.sack "
                                     "or link[from=b].delay)", "--set")
        pos = m.end()
        if m.group(1) is not None:
            steps.append(int(m.group(1)) if m.group(1).isascii() and m.group(1).isdigit() else m.group(1))
            continue
        sel = m.group(2).strip()
        if sel == "*":
            steps.append(slice(None))
        elif re.fullmatch(r"-?\d+", sel):
            steps.append(int(sel))
        elif re.fullmatch(r"(-?\d*):(-?\d*)", sel):
            a, b = sel.split(":")
            steps.append(slice(int(a) if a else None, int(b) if b else None))
        elif "=" in sel:
            field, _, value = sel.partition("=")
            steps.append((field.strip(), value.strip()))
        else:
            raise ScenarioError(key, f"cannot read the selector [{sel}]: expected an index [3], [*], a slice [2:5] "
                                     "or a filter [name=client3]", "--set")
    if not steps:
        raise ScenarioError(key, "empty field path (expected e.g. flow[0].app.rate)", "--set")
    return steps


def _step_text(step: Any) -> str:
    if isinstance(step, str):
        return f".{step}"
    if isinstance(step, int):
        return f"[{step}]"
    if isinstance(step, slice):
        if step.start is None and step.stop is None:
            return "[*]"
        return f"[{'' if step.start is None else step.start}:{'' if step.stop is None else step.stop}]"
    return f"[{step[0]}={step[1]}]"


def apply_override(raw: dict, assignment: str) -> int:
    """Applies one ``KEY=VALUE`` to the scenario dict in place and returns how many
    fields it set. KEY is a field path: keys joined by dots and list items selected by
    index (``flow[0]``, ``flow[-1]``), all of them (``flow[*]``), a slice (``flow[2:5]``)
    or a filter on one of their fields (``link[from=b]``, ``flow[name=node7]``)."""
    if "=" not in assignment:
        raise ScenarioError(assignment, "expected KEY=VALUE, e.g. topology.dumbbell.bottleneck.bandwidth=50Mbps", "--set")
    # The key ends at the first '=' outside brackets (filters contain '=').
    depth = 0
    for cut, ch in enumerate(assignment):  # noqa: B007 (cut is the loop's result)
        depth += ch == "["
        depth -= ch == "]"
        if ch == "=" and depth == 0:
            break
    else:
        raise ScenarioError(assignment, "expected KEY=VALUE, e.g. flow[*].transport.sack=true", "--set")
    key, text = assignment[:cut].strip(), assignment[cut + 1:]
    return set_path(raw, key, _override_value(text.strip()))


def set_path(raw: dict, key: str, value: Any) -> int:
    """Sets ``value`` at the field path ``key`` (see :func:`apply_override`) in
    ``raw``; returns how many fields were set."""
    steps = _override_steps(key)
    return _set(raw, steps, value, key, "")


def _set(node: Any, steps: list, value: Any, key: str, where: str) -> int:
    step, rest = steps[0], steps[1:]
    here = (where + _step_text(step)).lstrip(".")
    if isinstance(step, str):
        if not isinstance(node, dict):
            raise ScenarioError(where or key, "is not a table, cannot set a key in it", "--set")
        if not rest:
            node[step] = copy.deepcopy(value)
            return 1
        if step not in node:
            node[step] = {}
        return _set(node[step], rest, value, key, here)
    if not isinstance(node, list):
        raise ScenarioError(where or key, "is not a list, cannot select items in it", "--set")
    if isinstance(step, int):
        if not -len(node) <= step < len(node):
            raise ScenarioError(here, f"index {step} out of range (the list has {len(node)} items)", "--set")
        indexes = [step % len(node)]
    elif isinstance(step, slice):
        indexes = list(range(len(node)))[step]
    else:
        field, wanted = step
        indexes = [i for i, item in enumerate(node) if isinstance(item, dict) and _matches(item.get(field), wanted)]
    if not indexes:
        raise ScenarioError(here, f"selects none of the list's {len(node)} items", "--set")
    count = 0
    for i in indexes:
        if rest:
            count += _set(node[i], rest, value, key, f"{where}[{i}]")
        else:
            node[i] = copy.deepcopy(value)
            count += 1
    return count


def _matches(field_value: object, wanted: str) -> bool:
    if isinstance(field_value, str):
        return field_value == wanted
    return field_value is not None and str(field_value).lower() == wanted.lower()


def split_count_overrides(overrides) -> tuple[list[str], list[str]]:
    """Overrides of a ``count`` key apply to the scenario as written (before counted
    tables are expanded); all others to the expanded scenario."""
    before: list[str] = []
    after: list[str] = []
    for assignment in overrides:
        key = assignment[0] if isinstance(assignment, tuple) else assignment.partition("=")[0].strip()
        (before if key.endswith(".count") else after).append(assignment)
    return before, after


def native(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into Python numbers and lists, in
    nested dicts and lists too (a new container wherever one is walked), so that a
    scenario built with numpy reads as if written by hand."""
    if isinstance(value, dict):
        return {k: native(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [native(v) for v in value]
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return native(value.tolist())
    return value


def _apply(raw: dict, assignment: str | tuple[str, Any]) -> None:
    if isinstance(assignment, tuple):
        path, value = assignment
        set_path(raw, path, native(value))
    else:
        apply_override(raw, assignment)


def load(source: ScenarioSource, overrides: list | tuple = (), seed: int | None = None, *,
         tables: CompiledTables | None = None) -> Scenario:
    """Reads, overrides, validates (syntax and units) and compiles a scenario.

    ``overrides`` are ``KEY=VALUE`` strings as for ``--set``, or ``(KEY, value)`` pairs
    whose value is used as is (what sweeps pass). Counted tables are expanded after
    overrides of ``count`` keys and before all others (docs/scenario.md, "Many tables
    at once").

    The engine checks the rest (references, reachability, ranges) when it is built.
    ``tables``: a sweep's planning compiles its points with one
    :class:`~tcplab.scenario.schema.CompiledTables` (their scenarios then share the
    tables they have in common, and must not be changed).
    """
    raw, name = read_raw(source)
    # A sweep declared in the scenario is read by tcplab.sweeps, not by the engine.
    raw.pop("sweep", None)
    before, after = split_count_overrides(overrides)
    for assignment in before:
        _apply(raw, assignment)
    try:
        expand_counts(raw)
    except ScenarioError as e:
        raise e.with_source(name) from None
    for assignment in after:
        _apply(raw, assignment)
    if seed is not None:
        raw.setdefault("simulation", {})
        if isinstance(raw["simulation"], dict):
            raw["simulation"]["seed"] = native(seed)
    try:
        engine = compile_scenario(raw, tables)
    except ScenarioError as e:
        raise e.with_source(name) from None
    except RecursionError:
        raise ScenarioError("", _TOO_DEEP, name) from None
    applied = [_override_text(o) for o in overrides]
    if seed is not None:
        applied.append(f"simulation.seed={native(seed)}")
    return Scenario(source=name, raw=raw, engine=engine, overrides=tuple(applied))


def _override_text(override: str | tuple) -> str:
    """An override as ``KEY=VALUE`` text, whichever form it was given in."""
    if isinstance(override, str):
        return override
    key, value = override
    try:
        return f"{key}={value_text(native(value))}"
    except (TypeError, ScenarioError):
        return f"{key}={value!r}"
