"""Runs a compiled scenario on the engine, in steps so progress can be shown."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import _core
from .scenario import Scenario, ScenarioError

if TYPE_CHECKING:
    from .budget import Estimate

#: The first step of the run loop is 1/PROGRESS_STEPS of the run (a progress update
#: follows each step; later steps are sized by STEP_WALL_S).
PROGRESS_STEPS = 200
#: Wall time one step of the run loop aims at, in seconds.
STEP_WALL_S = 0.1

ProgressCallback = Callable[[int, int, int], None]
"""Called with (simulated ns so far, total ns, events so far) after each step."""

IntervalCallback = Callable[[int, int, list], None]
"""Called with (interval start ns, interval end ns, every flow's counters at its end —
``Simulation.snapshot``) at the end of each reporting interval."""


class InternalError(RuntimeError):
    """The engine found a bug in itself (e.g. packets not conserved). Not bad input."""


def build(scenario: Scenario) -> _core.Simulation:
    """The engine's simulation for ``scenario``; engine-side validation errors become
    :class:`ScenarioError` naming the scenario's file and field."""
    try:
        return _core.Simulation(scenario.engine_json())
    except _core.EngineConfigError as e:
        raise scenario_error(scenario, e) from None


def scenario_error(scenario: Scenario, error: _core.EngineConfigError) -> ScenarioError:
    """The engine's rejection of ``scenario`` as a :class:`ScenarioError` naming the
    scenario's file and field."""
    path, message = _name_the_field(scenario, *error.args)
    return ScenarioError(path, message, scenario.source)


#: Engine keys (SI units in the name) and the scenario keys they come from.
_SCENARIO_KEYS = {"mtu_bytes": "mtu", "bandwidth_bps": "bandwidth", "delay_ns": "delay", "framing_bytes": "framing",
                  "rate_bps": "rate", "payload_bytes": "packet_size", "size_bytes": "size", "duration_ns": "duration",
                  "bin_ns": "bin", "start_ns": "start", "stop_ns": "stop", "mss_bytes": "mss", "on_ns": "on", "off_ns": "off",
                  "initial_window_segments": "initial_window", "mean_packet_bytes": "mean_packet_size"}

#: A JSON type error from the engine's reader: what was wrong, and where in the text.
_AT_COLUMN = re.compile(r"^(?:not a valid engine configuration: )?(.*) at line 1 column (\d+)$")
_LIMITS = {"u8": 2**8 - 1, "u16": 2**16 - 1, "u32": 2**32 - 1, "u64": 2**64 - 1}


def _name_the_field(scenario: Scenario, path: str, message: str) -> tuple[str, str]:
    """A type or range error the engine reports by its position in the JSON text,
    restated at the scenario's field: the engine item's ``origin`` and the scenario's
    key for it (e.g. "topology.dumbbell.bottleneck: mtu: integer 10000000000, expected
    u32 (at most 4294967295)"). Other errors are returned as they are."""
    m = _AT_COLUMN.match(message)
    if not m:
        return path, message
    steps = _json_path_at(scenario.engine_json(), int(m.group(2)) - 1)
    node, origin = scenario.engine, None
    tail: list = []
    for step in steps:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and "origin" in node:
            origin, tail = node["origin"], []
        else:
            tail.append(step)
    detail = m.group(1).replace("invalid value: ", "").replace("`", "")
    for kind, limit in _LIMITS.items():
        if detail.endswith(f"expected {kind}"):
            detail += f" (at most {limit})"
    tail = [_SCENARIO_KEYS.get(s, s) if isinstance(s, str) else s for s in tail]
    field = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in tail).lstrip(".")
    return (origin or path), (f"{field}: {detail}" if field else detail)


def _json_path_at(text: str, offset: int) -> list[str | int]:
    """The keys and indices leading to the value at character ``offset`` of the JSON
    ``text`` (as ``json.dumps`` writes it)."""
    stack: list[list] = []  # per open container: [key or index, expecting a key]
    i = 0
    while i < min(offset, len(text)):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if stack and stack[-1][1]:
                stack[-1][0], stack[-1][1] = json.loads(text[i:j + 1]), False
            i = j
        elif c == "{":
            stack.append([None, True])
        elif c == "[":
            stack.append([0, False])
        elif c in "}]":
            stack.pop()
        elif c == "," and stack:
            if isinstance(stack[-1][0], int) and not stack[-1][1]:
                stack[-1][0] += 1
            else:
                stack[-1][1] = True
        i += 1
    return [frame[0] for frame in stack if frame[0] is not None]


def validate(scenario: Scenario) -> None:
    """Checks everything the engine checks, without running."""
    build(scenario)


def simulate(scenario: Scenario, progress: ProgressCallback | None = None, *, series: bool = True,
             cost: Estimate | None = None, interval_ns: int | None = None,
             on_interval: IntervalCallback | None = None, pcap: tuple[list[str], Path, int] | None = None,
             ) -> tuple[dict, float]:
    """Runs the scenario to its end; returns the engine's results and the wall time.

    The results are the summaries (docs/results.md) plus, under ``"series"``, the time
    series as a :class:`tcplab.series.Series`; ``series=False`` leaves them out. With
    ``interval_ns`` and ``on_interval``, every flow's counters are reported at the end
    of each interval of simulated time (``tcplab run --interval``). A run
    that would need more memory than is available is refused before it starts
    (:func:`tcplab.budget.check_memory`; pass ``cost`` if it is already estimated).
    ``pcap`` = (selectors, directory, snap length) writes packet captures there
    (:func:`tcplab.capture.capture_files`)."""
    from .budget import check_memory, estimate, memory_cap

    cost = cost or estimate(scenario)
    check_memory(scenario, cost)
    with memory_cap(cost):
        return _simulate(scenario, progress, series, interval_ns, on_interval, pcap)


def _simulate(scenario: Scenario, progress: ProgressCallback | None, series: bool,
              interval_ns: int | None, on_interval: IntervalCallback | None,
              pcap: tuple[list[str], Path, int] | None) -> tuple[dict, float]:
    """:func:`simulate`'s run, once admitted."""
    sim = build(scenario)
    if pcap is not None:
        from .capture import capture_files

        selectors, directory, snaplen = pcap
        flow_ids = [f["name"] for f in scenario.engine["flows"]]
        files = capture_files(selectors, sim.channel_names(), sim.first_hops(), flow_ids, directory)
        sim.capture(files, snaplen)
    started = time.perf_counter()
    total = sim.duration_ns
    # Steps of simulated time sized to take about STEP_WALL_S each (the first is
    # 1/PROGRESS_STEPS of the run): the progress bar moves smoothly on a long run, and
    # a short run returns to Python only a few times.
    step = max(total // PROGRESS_STEPS, 1)
    # Reporting intervals end on multiples of interval_ns (and at the end of the run);
    # progress steps fall in between.
    interval = (interval_ns or 0) if on_interval is not None else 0
    next_report = interval if interval > 0 else total
    t = 0
    while t < total:
        before, step_started = t, time.perf_counter()
        t = min(t + step, total, next_report)
        sim.run_until(t)
        took = time.perf_counter() - step_started
        if t - before == step:  # a full step: its cost says how long the next may be
            step = max(min(int(step * STEP_WALL_S / max(took, 1e-4)), step * 4, total), 1)
        if progress is not None:
            progress(t, total, sim.events)
        if on_interval is not None and interval > 0 and t in (next_report, total):
            on_interval(next_report - interval, t, json.loads(sim.snapshot()))
            next_report += interval
    try:
        summary_json, tables = sim.finish(series)
    except _core.EngineInternalError as e:
        raise InternalError(str(e)) from None
    results = json.loads(summary_json)
    for emptied in ("flow_series", "link_series", "delay_histograms"):
        results.pop(emptied, None)
    if tables is not None:
        from .series import Series

        results["series"] = Series.from_engine(results, tables)
    return results, time.perf_counter() - started
