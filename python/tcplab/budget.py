"""What a run will cost, checked before it starts.

The engine estimates events, wall time and peak memory from the scenario alone
(``crates/engine/src/estimate.rs``). Here that estimate meets this machine: a run whose
memory estimate exceeds :data:`MEMORY_HEADROOM` of the memory available is refused (a
:class:`ScenarioError` naming the knob to turn), an admitted run goes with its address
space capped (:func:`memory_cap`), and a run estimated to take longer than
:data:`WARN_AFTER_S` is announced before it starts.
"""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import _core
from .engine_errors import scenario_error
from .scenario import Scenario, ScenarioError

#: Runs estimated to take longer than this (seconds of wall time) are announced;
#: the environment variable ``TCPLAB_WARN_AFTER_S`` overrides it.
WARN_AFTER_S = 60.0
#: A run is admitted only if its memory estimate is at most this share of what is
#: available: the rest is the margin for the estimate's error and for everything else
#: on the machine (#35: a run estimated at 97% of free memory was admitted).
MEMORY_HEADROOM = 0.8
#: While a run goes, this process's address space is capped at what it has mapped plus
#: the estimate times this factor plus :data:`CAP_SLACK_BYTES` (libraries imported
#: meanwhile, thread stacks): an estimate that is wrong fails the run (the engine's
#: allocation fails and the process ends), instead of taking the machine's memory.
CAP_FACTOR = 2.0
CAP_SLACK_BYTES = 2 << 30


@dataclass(frozen=True)
class Estimate:
    """A run's estimated cost (see ``crates/engine/src/estimate.rs`` for the model)."""

    events: float
    wall_s: float
    memory_bytes: float
    series_bytes: float
    series_cells: int
    network_bytes: float
    packets_bytes: float
    largest_queue: str | None


def estimate(scenario: Scenario, config_json: str | None = None) -> Estimate:
    """The engine's estimate for ``scenario`` (``config_json``: its
    :meth:`Scenario.engine_json`, if the caller already has it)."""
    try:
        raw = json.loads(_core.estimate(config_json or scenario.engine_json()))
    except _core.EngineConfigError as e:
        raise scenario_error(scenario, e) from None
    return Estimate(**{k: raw[k] for k in Estimate.__dataclass_fields__})


def available_memory() -> float:
    """Bytes this process may still allocate: the least of the memory the kernel
    reports available, the address-space limit (``ulimit -v``) less what is mapped,
    and the cgroup's limit less its usage (containers, batch schedulers)."""
    limits = [n for n in (_mem_available(), _address_space_left(), _cgroup_left()) if n is not None]
    return float(min(limits)) if limits else float("inf")


def _mem_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _address_space_left() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    return soft - (_mapped_bytes() or 0)


def _mapped_bytes() -> int | None:
    """This process's address space (what RLIMIT_AS counts), or None if unknown."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


def _cgroup_left() -> int | None:
    cgroup = Path("/sys/fs/cgroup")
    try:
        maximum = (cgroup / "memory.max").read_text().strip()
        if maximum == "max":
            return None
        return int(maximum) - int((cgroup / "memory.current").read_text())
    except (OSError, ValueError):
        return None


def _gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.0f} MB"


def check_memory(scenario: Scenario, cost: Estimate) -> None:
    """Refuses ``scenario`` (ScenarioError) if its memory estimate exceeds what is
    available, naming the part that dominates and the knob that shrinks it."""
    available = available_memory()
    if cost.memory_bytes <= MEMORY_HEADROOM * available:
        return
    parts = {"series": cost.series_bytes, "network": cost.network_bytes, "packets": cost.packets_bytes}
    largest = max(parts, key=lambda k: parts[k])
    if largest == "series":
        field = "simulation.bin"
        advice = (f"{cost.series_cells:,} time-series cells (bins × (flows + link directions)) take "
                  f"{_gb(cost.series_bytes)}: use a wider bin, a shorter run, or fewer flows")
    elif largest == "packets":
        field = cost.largest_queue or "flow"
        advice = (f"queued packets take {_gb(cost.packets_bytes)}: lower this queue's limit or the "
                  "flows' receive buffers / rates")
    else:
        field = "flow"
        advice = f"the network itself (nodes, links, flows) takes {_gb(cost.network_bytes)}: simulate fewer flows or hosts"
    raise ScenarioError(field, f"this run needs about {_gb(cost.memory_bytes)} of memory and "
                               f"{_gb(max(available, 0))} is available (a run may take {MEMORY_HEADROOM:.0%} of "
                               f"it, the rest is margin); {advice}", scenario.source)


@contextmanager
def memory_cap(cost: Estimate) -> Iterator[None]:
    """Caps this process's address space while a run admitted by :func:`check_memory`
    goes (:data:`CAP_FACTOR`, :data:`CAP_SLACK_BYTES`), and lifts the cap after it. A
    tighter limit already in place is kept."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    mapped = _mapped_bytes()
    if mapped is None:
        yield
        return
    cap = int(mapped + CAP_FACTOR * cost.memory_bytes + CAP_SLACK_BYTES)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def warn_after_s() -> float:
    """The long-run threshold: ``TCPLAB_WARN_AFTER_S`` or :data:`WARN_AFTER_S`."""
    try:
        return float(os.environ.get("TCPLAB_WARN_AFTER_S", WARN_AFTER_S))
    except ValueError:
        return WARN_AFTER_S


def duration_text(seconds: float) -> str:
    """'about 3 min', 'about 2.5 h', 'about 40 days'."""
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"about {seconds / size:.3g} {unit}"
    return f"about {seconds:.0f} s"
