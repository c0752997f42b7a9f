"""Shared helpers: run the real `tcplab` command in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"


def machine_too_busy_for_real_time() -> str | None:
    """Why this machine cannot run a real-time emulation faithfully now, or None: other
    work keeps every core busy (the 1-minute load average, less this test process, at
    or above the number of cores). Under two busy loops on two cores the kernel's TCP in
    the emulated hosts retransmitted twice as much as on an idle machine (sample
    kernel-s1-009), while the forwarder still kept time: the host's scheduler, not the
    emulation, was measured. Tests comparing the real stack skip with this reason."""
    import os
    import time

    cores = os.cpu_count() or 1
    # Runnable tasks now (/proc/loadavg's 4th field, this process excluded), averaged
    # over half a second, and the 1-minute load average: either may show the others.
    runnable = []
    for _ in range(10):
        with open("/proc/loadavg") as f:
            runnable.append(int(f.read().split()[3].split("/")[0]) - 1)
        time.sleep(0.05)
    now = sum(runnable) / len(runnable)
    load = os.getloadavg()[0] - 1
    if max(now, load) >= cores:
        return f"the machine is busy ({now:.1f} other tasks runnable, load average {load + 1:.1f}, {cores} cores)"
    return None


def skip_if_machine_busy() -> None:
    """Skips the calling real-time test, saying why, when
    :func:`machine_too_busy_for_real_time` finds the machine busy."""
    if (reason := machine_too_busy_for_real_time()) is not None:
        pytest.skip(f"real-time emulation not faithful now: {reason}")


#: Emulated runs a real-time test tries before it gives up on this machine keeping
#: time: a virtual machine's occasional stall of several milliseconds spoils a run on
#: an idle machine (2026-11-28: 37 of 260,000 packets written more than 5 ms late, the
#: run judged unreliable), where an emulator keeping wrong time would spoil them all.
EMU_ATTEMPTS = 2


def emulate_keeping_time(out: Path, *args: str, accept: tuple[str, ...] = ("kept",)) -> tuple[Path, dict]:
    """Runs ``tcplab emu ARGS`` into ``out`` (then ``out-2``, ...) until a run's own
    timekeeping verdict (docs/emulation.md) is one of ``accept``; returns that run's
    directory and summary. Skips the calling test, with every run's problems, when
    none of :data:`EMU_ATTEMPTS` runs is: the machine, not the emulation, would be
    measured. A run that fails otherwise fails the test."""
    import json

    problems = []
    for attempt in range(1, EMU_ATTEMPTS + 1):
        where = out if attempt == 1 else out.with_name(f"{out.name}-{attempt}")
        done = run_cli("emu", *args, "--out", str(where))
        assert done.returncode in (0, 1) and (where / "summary.json").exists(), done.stderr
        summary = json.loads((where / "summary.json").read_text())
        timekeeping = summary["emulation"]["timekeeping"]
        if timekeeping["verdict"] in accept:
            assert done.returncode == 0, done.stderr
            return where, summary
        problems.append(f"{timekeeping['verdict']}: {timekeeping['problems']}")
    pytest.skip(f"no emulated run kept time in {EMU_ATTEMPTS}: {problems}")


def emulation_unreliable(results: Path) -> str | None:
    """Why the emulated run in ``results`` judged that it could not keep time
    (docs/emulation.md, timekeeping), or None: then the machine, not the stack, was
    measured."""
    import json

    timekeeping = json.loads((results / "summary.json").read_text())["emulation"]["timekeeping"]
    if timekeeping["verdict"] == "unreliable":
        return f"the emulator could not keep time on this machine now: {timekeeping['problems']}"
    return None


def skip_unless_emulation_kept_time(results: Path) -> None:
    """Skips the calling test, with the run's own reason, when the emulated run in
    ``results`` could not keep time (:func:`emulation_unreliable`)."""
    if (reason := emulation_unreliable(results)) is not None:
        pytest.skip(reason)


def failed_emulated_runs(sweep: Path) -> list[str]:
    """The messages of the failed runs of the emulated sweep in ``sweep``; skips the
    calling test when each of them is the emulator's own verdict that it could not keep
    time (a stored run fails with it: sweeps/task.py), as
    :func:`skip_unless_emulation_kept_time` does for one run."""
    import tcplab
    from tcplab.emu.timekeeping import UNRELIABLE

    con = tcplab.open_sweep(str(sweep))
    try:
        messages = [m for (m,) in con.execute("SELECT message FROM runs WHERE status != 'ok'").fetchall()]
    finally:
        con.close()
    if messages and all(str(m).startswith(UNRELIABLE) for m in messages):
        pytest.skip(f"the emulator could not keep time on this machine now: {messages}")
    return messages


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs ``python -m tcplab ARGS`` and captures its output."""
    return subprocess.run([sys.executable, "-m", "tcplab", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.fixture
def write_scenario(tmp_path):
    """Writes TOML text to a scenario file and returns its path."""

    def write(text: str, name: str = "scenario.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


BASE = """
[simulation]
duration = "2s"
seed = 1

[topology.dumbbell]
pairs = 2
access = { bandwidth = "100Mbps", delay = "2ms" }
bottleneck = { bandwidth = "10Mbps", delay = "10ms", queue = { type = "droptail", limit = "50 packets" } }

[[flow]]
from = "left0"
to = "right0"
transport = "udp"
app = { type = "cbr", rate = "6Mbps", packet_size = "1000B" }
"""

TCP_BASE = BASE.replace('transport = "udp"\napp = { type = "cbr", rate = "6Mbps", packet_size = "1000B" }',
                        'app = { type = "bulk" }\ntransport = { type = "tcp", cc = "newreno" }')


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory):
    """`tcplab reproduce STUDY --quick`, run once per study for the whole session (the
    studies' quick subsets take seconds each; several test files read their reports):
    a function of the study's name giving its output directory."""
    done: dict[str, Path] = {}

    def reproduce(study: str) -> Path:
        if study not in done:
            out = tmp_path_factory.mktemp(f"quick-{study}") / study
            result = run_cli("reproduce", study, "--quick", "--out", str(out))
            assert result.returncode == 0, result.stderr
            done[study] = out
        return done[study]

    return reproduce


#: A long fat path without SACK, as the property sampler of tests/test_tcp_properties.py
#: drew it (seed 35, rounded): Reno's slow start overshoots a 2-BDP queue by about 800
#: segments, and without SACK NewReno repairs one per round trip — the flow delivers
#: about 2% of the link for the rest of the run. The `linux` profile collapses and so
#: does the kernel (docs/loss-recovery.md, "Without SACK on a long fat path"):
#: tests/test_emu.py checks that, tests/test_advise.py that the advisor asks for SACK.
NO_SACK_COLLAPSE = """
[simulation]
duration = "25s"
seed = 1
bin = "100ms"

[topology.dumbbell]
pairs = 1
access = { bandwidth = "1Gbps", delay = "0.5ms" }
bottleneck = { bandwidth = "44Mbps", delay = "35ms", queue = { type = "droptail", limit = "530 packets" } }

[[flow]]
from = "left0"
to = "right0"
app = { type = "bulk" }
transport = { type = "tcp", profile = "linux", cc = "reno", sack = false, mss = "1460B" }
"""
