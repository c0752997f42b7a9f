"""``tcplab measure`` between real hosts, stood in for by network namespaces with an
``sshd`` each (tests/measure_testbed.py): the path characterised against the shaping
it was given, a measured CUBIC flow against ``tcplab emu`` of the written path, the
agent gone after the controller is killed, and one clear error for each way a host
can fail. The hosts file's own errors need no root.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import emulate_keeping_time, machine_too_busy_for_real_time, run_cli
from debian import ensure
from measure_testbed import SshLab
from tcplab.measure.hosts import read_hosts
from tcplab.scenario import ScenarioError

#: The shaped path: tbf at this rate both ways, this MTU on the router's link to b,
#: this queue (tbf's limit).
RATE_MBIT, MTU, LIMIT_BYTES = 20, 1400, 60_000

needs_root = pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists("/dev/net/tun"),
                                reason="needs root (network namespaces)")

# Real time: make test runs this file after the others, one test at a time, on an
# otherwise idle machine (the `realtime` marker, pyproject.toml).
pytestmark = pytest.mark.realtime

SCENARIO = """
[simulation]
duration = "{duration}"
bin = "100ms"

[[node]]
name = "sender"
[[node]]
name = "receiver"
[[link]]
from = "sender"
to = "receiver"
bandwidth = "20Mbps"
delay = "1ms"

[[flow]]
from = "sender"
to = "receiver"
app = {{ type = "bulk" }}
transport = {{ type = "tcp", profile = "linux", cc = "cubic" }}
"""


# ----------------------------------------------------------------- the hosts file


@pytest.mark.parametrize("text, field, message", [
    ('[host.a]\naddress = "10.0.0.1"\n', "host.a", "exactly one of ssh"),
    ('[host.a]\nssh = "x"\nnetns = "y"\naddress = "10.0.0.1"\n', "host.a", "exactly one of ssh"),
    ('[host.a]\nssh = "x"\naddress = "somewhere"\n', "host.a.address", "IPv4 address"),
    ('[host.a]\nssh = "x"\naddress = "10.0.0.1"\nport = 22\n', "host.a.port", "unknown key"),
    ('[host.a]\nssh = "x"\naddress = "10.0.0.1"\nssh_options = "-p 2"\n', "host.a.ssh_options", "list of strings"),
    ('[host.a]\nssh = "x"\naddress = "10.0.0.1"\n', "host.b", "does not say which machine"),
    ("hosts = 1\n", "hosts", "unknown key"),
])
def test_hosts_file_errors_name_the_field(tmp_path: Path, text: str, field: str, message: str) -> None:
    path = tmp_path / "hosts.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        read_hosts(path, ["a", "b"])
    assert caught.value.path == field and message in str(caught.value) and str(path) in str(caught.value)


def test_sctp_is_refused_before_any_host_is_contacted(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(duration="1s").replace('type = "tcp", profile = "linux", cc = "cubic"', 'type = "sctp"'))
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[host.sender]\nnetns = "nowhere-a"\naddress = "10.0.0.1"\n'
                     '[host.receiver]\nnetns = "nowhere-b"\naddress = "10.0.0.2"\n')
    result = run_cli("measure", str(scenario), "--hosts", str(hosts), "-o", str(tmp_path / "out"))
    assert result.returncode == 2 and "flow[0].transport" in result.stderr and "SCTP" in result.stderr


# ------------------------------------------------------------------ on the testbed


@pytest.fixture(scope="module")
def testbed():
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        pytest.skip("needs root (network namespaces)")
    ensure("sshd", "openssh-server")
    with SshLab(RATE_MBIT, mtu_b=MTU, limit_bytes=LIMIT_BYTES) as tb:
        yield tb


@pytest.fixture(scope="module")
def measured_path(testbed, tmp_path_factory):
    """``tcplab measure --path a b`` on the testbed: its JSON and the scenario written."""
    d = tmp_path_factory.mktemp("path")
    hosts = testbed.hosts_file(d / "hosts.toml", {"a": "a", "b": "b"})
    busy = machine_too_busy_for_real_time()
    result = run_cli("measure", "--path", "a", "b", "--hosts", str(hosts), "--write", str(d / "path.toml"), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), d / "path.toml", busy


@needs_root
def test_path_rate_rtt_mtu_and_buffer_as_shaped(measured_path) -> None:
    """tbf at 20 Mbit/s (10^6 bit), MTU 1400 on the router's link, a 60,000-byte queue,
    no added delay (this kernel has no netem): the rate within 5%, the RTT within 1 ms
    of the veth pairs' ~0, the MTU exactly, the buffer within 30% of tbf's limit."""
    found, busy = measured_path[0], measured_path[2]
    if busy:
        pytest.skip(f"packet trains need the sender scheduled: {busy}")
    assert found["rate_bps"] == pytest.approx(RATE_MBIT * 1e6, rel=0.05)
    assert found["rtt_ms"]["min"] < 1.0
    assert found["mtu_bytes"] == MTU and found["mtu_confirmed"]
    assert found["loss_rate"] == 0
    assert found["buffer_bytes"] == pytest.approx(LIMIT_BYTES, rel=0.3)


@needs_root
def test_measured_cubic_matches_the_emulated_measured_path(testbed, measured_path, tmp_path: Path) -> None:
    """A bulk CUBIC flow measured between the hosts, and the same flow over tcplab emu
    of the path the measurement wrote: goodput within 10%."""
    busy = machine_too_busy_for_real_time()
    if busy:
        pytest.skip(f"real time, both sides: {busy}")
    path_toml = measured_path[1]
    scenario = tmp_path / "flow.toml"
    scenario.write_text(SCENARIO.format(duration="6s"))
    hosts = testbed.hosts_file(tmp_path / "hosts.toml", {"sender": "a", "receiver": "b"})
    real = run_cli("measure", str(scenario), "--hosts", str(hosts), "-o", str(tmp_path / "real"), "--json")
    assert real.returncode == 0, real.stderr
    real_goodput = json.loads(real.stdout)["flows"][0]["goodput_bps"]
    _, summary = emulate_keeping_time(tmp_path / "emu", str(path_toml), "--set", "simulation.duration=6s",
                                      accept=("kept", "flagged"))
    emu_goodput = summary["flows"][0]["goodput_bps"]
    assert emu_goodput == pytest.approx(real_goodput, rel=0.10)
    assert real_goodput > 0.8 * RATE_MBIT * 1e6
    report = (tmp_path / "real" / "report.html").read_text()
    assert "measured between real hosts" in report and "Measurement" in report


@needs_root
def test_agent_leaves_nothing_after_the_controller_is_killed(testbed, tmp_path: Path) -> None:
    scenario = tmp_path / "long.toml"
    scenario.write_text(SCENARIO.format(duration="30s"))
    hosts = testbed.hosts_file(tmp_path / "hosts.toml", {"sender": "a", "receiver": "b"})
    controller = subprocess.Popen([sys.executable, "-m", "tcplab", "measure", str(scenario), "--hosts", str(hosts),
                                   "-o", str(tmp_path / "out")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not (testbed.processes_in("a") and testbed.processes_in("b")):
        assert time.monotonic() < deadline, "the agents never started"
        time.sleep(0.1)
    time.sleep(1.0)  # the flow is running
    controller.send_signal(signal.SIGKILL)
    controller.wait()
    deadline = time.monotonic() + 10
    while testbed.processes_in("a") or testbed.processes_in("b"):
        assert time.monotonic() < deadline, f"left running: {testbed.processes_in('a') + testbed.processes_in('b')}"
        time.sleep(0.1)
    # Connections the kernel keeps in TIME-WAIT are its own, not a process's.
    for host in ("a", "b"):
        live = [line for line in testbed.sockets_in(host).splitlines() if "TIME-WAIT" not in line]
        assert not live, live
    assert not (tmp_path / "out").exists()


@needs_root
@pytest.mark.parametrize("change, message", [
    ({"ssh_options": ["-p", "2"]}, "ssh could not connect or log in"),          # nothing listens there
    ({"drop_key": True}, "ssh could not connect or log in: root@10.78.1.1: Permission denied"),
    ({"python": "python3-missing"}, "there is no python3-missing"),
])
def test_a_host_that_cannot_be_used_is_one_clear_error(testbed, tmp_path: Path, change: dict, message: str) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(duration="2s"))
    hosts = testbed.hosts_file(tmp_path / "hosts.toml", {"sender": "a", "receiver": "b"},
                               python=change.get("python"))
    text = hosts.read_text()
    if "ssh_options" in change:
        text = text.replace('ssh_options = [', 'ssh_options = ["-p", "2", ', 1)
    if change.get("drop_key"):
        text = text.replace(f'"-i", "{testbed.dir / "id"}", ', "", 1).replace(
            'ssh_options = [', 'ssh_options = ["-o", "IdentitiesOnly=yes", "-o", "IdentityFile=/dev/null", ', 1)
    hosts.write_text(text)
    result = run_cli("measure", str(scenario), "--hosts", str(hosts), "-o", str(tmp_path / "out"))
    assert result.returncode == 2, result.stderr
    assert "host 'sender'" in result.stderr and message in " ".join(result.stderr.split()), result.stderr
    assert len(result.stderr.strip().splitlines()) <= 4


@needs_root
def test_interval_lines_while_measuring(testbed, tmp_path: Path) -> None:
    """--interval 0.5s --json over a 2-s flow: four lines, each the interval's goodput
    (a receiver's count) with the sender's cwnd and RTT (its TCP_INFO), then the summary."""
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(duration="2s"))
    hosts = testbed.hosts_file(tmp_path / "hosts.toml", {"sender": "a", "receiver": "b"})
    result = run_cli("measure", str(scenario), "--hosts", str(hosts), "-o", str(tmp_path / "out"), "--interval", "0.5s",
                     "--json")
    assert result.returncode == 0, result.stderr
    *lines, summary = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(ln["start_s"], ln["end_s"]) for ln in lines] == [(0.0, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 2.0)]
    assert all(ln["cwnd_bytes"] and ln["srtt_ms"] for ln in lines[1:])
    if not machine_too_busy_for_real_time():  # the agents' reads need the CPU to keep up
        assert all(ln["goodput_bps"] > 0.5 * RATE_MBIT * 1e6 for ln in lines[1:])
    assert all(ln["packets_dropped"] is None for ln in lines)  # not observable on a real path
    assert sum(ln["delivered_bytes"] for ln in lines) <= summary["flows"][0]["delivered_bytes"]


@needs_root
def test_advise_verify_runs_both_settings_on_the_hosts(testbed, tmp_path: Path) -> None:
    """advise --verify's measurement loop on the real hosts: the scenario as it is and
    the change alternately, the change applied (the sending kernel runs reno), and a
    verdict from the measured interval. (A path where a change pays needs added delay,
    which this kernel cannot emulate: no netem; so the outcome is not asserted.)"""
    from tcplab.advise.knobs import Variant
    from tcplab.advise.verdict import UNCLEAR, Assessment, Change
    from tcplab.advise.verify import verifiable, verify
    from tcplab.measure import measure

    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(duration="2s"))
    hosts = read_hosts(testbed.hosts_file(tmp_path / "hosts.toml", {"sender": "a", "receiver": "b"}), ["sender", "receiver"])
    variant = Variant("cc", "reno", (("flow[0].transport.cc", "reno"),), "", "", "the sending host")
    claimed = Assessment(variant, Change(1.1, 1.0, 0.1, 0.05), None, None, None, None, 3, UNCLEAR, ())
    assert verifiable(claimed)
    seen = []

    def recording(loaded, spec):
        result = measure(loaded, spec)
        seen.append(result.summary["flows"][0]["label"])
        return result

    outcome = verify(scenario, [], ["flow0"], claimed, hosts, 2, recording)
    assert [label.split()[0] for label in seen] == ["cubic", "reno", "cubic", "reno"]
    assert len(outcome.current_bps) == len(outcome.changed_bps) == 2 and min(outcome.current_bps) > 0
    assert outcome.measured is not None and outcome.verdict


def test_measure_backend_needs_a_hosts_file(tmp_path: Path) -> None:
    result = run_cli("reproduce", "lfn", "--backend", "measure", "--quick", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "--hosts" in result.stderr and not (tmp_path / "out").exists()


@needs_root
def test_reproduce_lfn_on_real_hosts(testbed, tmp_path: Path) -> None:
    """#33: `reproduce lfn --backend measure --hosts FILE` runs the study's
    kernel-reachable sweep between the hosts and beside it in the simulator, and the
    report sets them side by side."""
    hosts = testbed.hosts_file(tmp_path / "hosts.toml", {"sender": "a", "receiver": "b"})
    out = tmp_path / "lfn"
    result = run_cli("reproduce", "lfn", "--backend", "measure", "--quick", "--hosts", str(hosts), "--out", str(out))
    assert result.returncode == 0, result.stderr
    report = (out / "report.md").read_text()
    assert "real hosts (measured) Mb/s" in report
    rows = [line for line in report.splitlines() if line.startswith("| hosts | cc = ")]
    assert len(rows) == 2  # quick: reno and cubic with a 4 MiB buffer
    measured = [float(row.split("|")[5]) for row in rows]
    if not machine_too_busy_for_real_time():
        assert all(m > 0.7 * RATE_MBIT for m in measured), measured
    batch = next((out / "sweeps" / "hosts-measured").glob("batches/*/runs.parquet")).parent
    assert "runs.parquet" in json.loads((batch / "manifest.json").read_text())["files"]


def test_a_flow_without_small_queues_is_a_stated_warning() -> None:
    """A real Linux host runs TCP Small Queues whatever the scenario says: measuring
    one that says otherwise warns (no host is contacted to plan)."""
    import tcplab
    from tcplab.measure.hosts import HostSpec
    from tcplab.measure.run import plan

    text = SCENARIO.format(duration="1s")
    hosts = {name: HostSpec(name=name, address=address, netns=f"ns-{name}")
             for name, address in (("sender", "10.0.0.1"), ("receiver", "10.0.0.2"))}
    _, warnings = plan(tcplab.load(text), hosts)
    assert not any("small_queues" in w for w in warnings)
    off = text.replace('profile = "linux", cc = "cubic"', 'profile = "linux", cc = "cubic", small_queues = false')
    _, warnings = plan(tcplab.load(off), hosts)
    assert any("flow[0].transport.small_queues" in w and "always" in w for w in warnings), warnings
