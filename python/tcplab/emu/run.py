"""Runs a scenario over the real Linux stack: one namespace per host
(:mod:`tcplab.emu.host`), the forwarder between them (``_core.emu_forward``: the
engine's link models against the wall clock), and the results assembled as the
simulator's (:mod:`tcplab.emu.results`).

Nothing outlives a run: every host process dies with this one (``PR_SET_PDEATHSIG``)
and its namespace and TUN device with it; the forwarder is a thread of this process.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import typing
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import _core
from ..engine_errors import scenario_error
from ..results import RunResult
from ..scenario.loader import Scenario
from . import capacity, support
from .results import assemble

#: The emulated hosts' network and its mask (``tcplab_engine::emulate``).
NETWORK, NETMASK = "10.100.0.0/16", "255.255.0.0"
#: Time between telling the hosts when time zero is and time zero.
_LEAD_NS = 300_000_000
#: How long after the run's end a host may take to report.
_GRACE_S = 20.0


class EmuError(RuntimeError):
    """The emulator could not run (no root, a host that failed to start): exit 2."""


def require_root() -> None:
    """EmuError unless this process can emulate: root, a TUN driver and iproute2."""
    if os.geteuid() != 0:
        raise EmuError("tcplab emu needs root (it creates network namespaces and TUN devices); "
                       "the simulator, tcplab run, does not")
    if not os.path.exists("/dev/net/tun"):
        raise EmuError("tcplab emu needs the TUN driver (/dev/net/tun is missing)")
    if not shutil.which("ip"):
        raise EmuError("tcplab emu needs iproute2's `ip` (Debian: apt-get install iproute2, the version pinned in "
                       "requirements/debian.txt)")


@dataclass
class _Host:
    node: int
    name: str
    address: str
    mtu: int
    endpoints: list = field(default_factory=list)
    sysctls: dict = field(default_factory=dict)
    route: list = field(default_factory=list)
    process: subprocess.Popen | None = None
    device: int | None = None
    stderr: typing.IO[str] | None = None


def _merge(host: _Host, sysctls: dict, route: list, origin: str) -> None:
    """Adds a flow's settings to its host's; buffers take the larger, anything else must
    agree with the host's other flows."""
    for key, value in sysctls.items():
        old = host.sysctls.get(key)
        if key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem") and old is not None:
            value = max(old, value, key=lambda v: int(v.split()[2]))
        elif old is not None and old != value:
            raise support.EmulationRefused(origin + ".transport", f"host {host.name!r} has flows that need "
                                           f"{key} = {old} and {value}: Linux sets it per host")
        host.sysctls[key] = value
    if route and host.route and route != host.route:
        raise support.EmulationRefused(origin + ".transport", f"host {host.name!r} has flows with different "
                                       "initial windows or minimum RTOs: Linux sets them per host")
    host.route = route or host.route


def _plan_hosts(scenario: Scenario) -> tuple[list[_Host], list[dict], list]:
    engine = scenario.engine
    try:
        hosts_info, routes = _core.emu_plan(scenario.engine_json())
    except _core.EngineConfigError as e:
        raise scenario_error(scenario, e) from None
    try:
        plans = support.check(engine)
    except support.EmulationRefused as e:
        raise e.with_source(scenario.source) from None
    hosts = {name: _Host(node, name, address, mtu) for node, name, address, mtu in hosts_info}
    sim = engine["simulation"]
    ipv6 = {"net.ipv6.conf.all.disable_ipv6": 1, "net.ipv6.conf.default.disable_ipv6": 1}
    for index, (f, plan) in enumerate(zip(engine["flows"], plans, strict=True)):
        sender, receiver = hosts[f["from"]], hosts[f["to"]]
        stop = min(f["stop_ns"] or sim["duration_ns"], sim["duration_ns"])
        flow = {"index": index, "transport": f["transport"]["type"], "port": _core.emu_flow_port(index),
                "start_ns": f["start_ns"], "stop_ns": stop, "app": f["app"], "tcp": plan or None}
        sender.endpoints.append({"role": "sender", "flow": flow, "peer": receiver.address,
                                 "seed": sim["seed"] * 1_000_003 + index})
        receiver.endpoints.append({"role": "receiver", "flow": flow})
        try:
            if plan:
                _merge(sender, plan["sysctls"]["sender"], plan["route"], f["origin"])
                _merge(receiver, plan["sysctls"]["receiver"], plan["route"], f["origin"])
        except support.EmulationRefused as e:
            raise e.with_source(scenario.source) from None
    for h in hosts.values():
        h.sysctls.update({k: v for k, v in ipv6.items() if os.path.exists("/proc/sys/" + k.replace(".", "/"))})
    return list(hosts.values()), plans, routes


def _start(host: _Host, clock: dict) -> None:
    """Starts the host's process and takes its TUN device (EmuError if it fails)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    host.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  (closed by _stop, after the host ends)
    host.process = subprocess.Popen(
        [sys.executable, "-m", "tcplab.emu.host", str(os.getpid()), str(theirs.fileno())],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=host.stderr, text=True,
        pass_fds=(theirs.fileno(),))
    theirs.close()
    config = {"address": host.address, "netmask": NETMASK, "network": NETWORK, "mtu": host.mtu,
              "txqueuelen": 1000, "sysctls": host.sysctls, "route": host.route, "endpoints": host.endpoints,
              "clock": clock}
    assert host.process.stdin is not None and host.process.stdout is not None
    host.process.stdin.write(json.dumps(config) + "\n")
    host.process.stdin.flush()
    answer = host.process.stdout.readline()
    if not answer:
        host.stderr.seek(0)
        raise EmuError(f"host {host.name!r} did not start: {host.stderr.read().strip()[-800:]}")
    message = json.loads(answer)
    if "error" in message:
        raise EmuError(f"host {host.name!r}: {message['error']}")
    _, fds, _, _ = socket.recv_fds(ours, 16, 1)
    ours.close()
    host.device = fds[0]


def _stop(hosts: list[_Host]) -> None:
    for h in hosts:
        if h.process is not None and h.process.poll() is None:
            h.process.kill()
        if h.process is not None:
            h.process.wait()
            for stream in (h.process.stdin, h.process.stdout):
                if stream is not None:
                    stream.close()
        if h.device is not None:
            os.close(h.device)
            h.device = None
        if h.stderr is not None:
            h.stderr.close()
            h.stderr = None


def _check_capacity(scenario: Scenario, routes: list, hosts: list[_Host], force: bool) -> dict:
    """The scenario's offered packet rate against this machine's measured capacity
    (measured first if it never was): EmulationRefused beyond it, unless ``force``."""

    measured = capacity.stored() or measure_capacity()
    offered = capacity.offered_packets_per_s(scenario.engine, routes)
    limit = capacity.HEADROOM * capacity.packets_per_s(max(h.mtu for h in hosts), measured)
    total = sum(offered)
    record = {"offered_packets_per_s": total, "capacity_packets_per_s": limit / capacity.HEADROOM,
              "measured_at": measured["measured_at"], "beyond_capacity": total > limit}
    if total > limit and not force:
        busiest = max(range(len(offered)), key=offered.__getitem__)
        raise support.EmulationRefused(
            scenario.engine["flows"][busiest]["origin"],
            f"the flows offer up to {total:,.0f} packets/s (this one {offered[busiest]:,.0f}); the emulator sustains "
            f"{limit / capacity.HEADROOM:,.0f} on this machine ({capacity.HEADROOM:.0%} of it may be used): lower "
            "the rates, or run with --force (the results are flagged)").with_source(scenario.source)
    return record


def measure_capacity() -> dict:
    """Measures how many packets/s this machine's emulator sustains at each of
    :data:`capacity.MTUS` (a saturating UDP flow's delivered rate over its second and
    third seconds) and stores it as this machine's (:func:`capacity.record`)."""
    rates: dict[str, float] = {}
    for mtu in capacity.MTUS:
        run = emulate(capacity.calibration_scenario(mtu), check_capacity=False)
        assert run.series is not None
        delivered = run.series.flow["delivered_bytes"][10:30].sum()
        rates[str(mtu)] = float(delivered / (mtu - 28) / 2.0)
    return capacity.record(rates)


def emulate(scenario: Scenario, progress: Callable[[float], None] | None = None, *, force: bool = False,
            check_capacity: bool = True) -> RunResult:
    """Runs ``scenario`` over the Linux stack in real time (its duration of wall time)
    and returns its results in the simulator's form, with ``backend = "emu"`` and the
    run's self-calibration under ``emulation``. ``progress`` is called with the
    fraction done about twice a second. A scenario offering more packets per second
    than this machine's emulator sustains is refused unless ``force``."""
    require_root()
    hosts, plans, routes = _plan_hosts(scenario)
    load_check = _check_capacity(scenario, routes, hosts, force) if check_capacity else None
    sim = scenario.engine["simulation"]
    duration_ns = sim["duration_ns"]
    clock = {"bin_ns": sim["bin_ns"], "duration_ns": duration_ns}
    stop_read, stop_write = os.pipe()
    forwarded: dict = {}
    forwarder: threading.Thread | None = None
    started = time.monotonic()
    try:
        for h in hosts:
            _start(h, clock)
        zero_ns = time.monotonic_ns() + _LEAD_NS
        ports = [(h.node, h.device) for h in hosts if h.device is not None]

        def forward() -> None:
            try:
                forwarded["json"] = _core.emu_forward(scenario.engine_json(), ports, stop_read, zero_ns)
            except BaseException as e:  # re-raised in the caller's thread
                forwarded["error"] = e

        forwarder = threading.Thread(target=forward, name="tcplab-forwarder", daemon=True)
        forwarder.start()
        for h in hosts:
            assert h.process is not None and h.process.stdin is not None
            h.process.stdin.write(json.dumps({"zero_ns": zero_ns}) + "\n")
            h.process.stdin.flush()
        end_ns = zero_ns + duration_ns
        while (now := time.monotonic_ns()) < end_ns:
            if progress is not None:
                progress(min(1.0, max(0.0, (now - zero_ns) / duration_ns)))
            time.sleep(min(0.5, max(0.0, (end_ns - now) / 1e9)))
        reports = {}
        for h in hosts:
            reports[h.name] = _report(h, deadline=time.monotonic() + _GRACE_S)
        if progress is not None:
            progress(1.0)
    finally:
        # The forwarder stops by itself at the run's end; this ends it early on an
        # error or an interrupt.
        os.write(stop_write, b"x")
        if forwarder is not None:
            forwarder.join()
        _stop(hosts)
        os.close(stop_read)
        os.close(stop_write)
    if "error" in forwarded:
        raise forwarded["error"]
    result = assemble(scenario, hosts, reports, json.loads(forwarded["json"]), plans, routes,
                      wall_time_s=time.monotonic() - started)
    if result.summary["emulation"]["errors"]:
        # A generator that failed leaves its flow unmeasured: no results rather than wrong ones.
        raise EmuError("; ".join(result.summary["emulation"]["errors"]))
    result.summary["emulation"]["capacity"] = load_check
    return result


def _report(host: _Host, deadline: float) -> dict:
    """The host's endpoints' results (EmuError if it does not answer in time)."""
    assert host.process is not None and host.process.stdout is not None
    result: dict = {}

    def read() -> None:
        assert host.process is not None and host.process.stdout is not None
        line = host.process.stdout.readline()
        if line:
            result.update(json.loads(line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=max(0.0, deadline - time.monotonic()))
    if "endpoints" not in result:
        host.process.kill()
        raise EmuError(f"host {host.name!r} did not report its results")
    return result
