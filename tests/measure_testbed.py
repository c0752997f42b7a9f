"""Real hosts for ``tcplab measure`` tests, on one machine: network namespaces joined by
veth pairs through a router namespace, the router's links shaped by tbf (this kernel
has no netem: no added delay), and an ``sshd`` (Debian's openssh-server, pinned in
requirements/debian.txt) in each host namespace, reached over a separate management
link from this namespace — the test logs in by SSH as to any testbed's machines.

    a (10.77.1.1) --veth-- r --veth, tbf RATE, MTU-- b (10.77.2.1)
    management: 10.78.N.1 in each host namespace, 10.78.N.2 here

Needs root, iproute2 and sshd; the namespaces and daemons are removed on exit.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def _in(ns: str, *args: str) -> None:
    subprocess.run(["ip", "netns", "exec", ns, *args], check=True, capture_output=True, text=True)


class SshLab:
    """Two hosts (``a``, ``b``) and a router; ``hosts_file(...)`` writes a tcplab
    hosts file for them."""

    def __init__(self, rate_mbit: float, mtu_b: int = 1500, burst_bytes: int = 4096, limit_bytes: int = 60_000) -> None:
        self.tag = f"tl{os.getpid() % 100000}"
        self.ns = {h: f"{self.tag}-{h}" for h in ("a", "r", "b")}
        self.rate_mbit, self.mtu_b = rate_mbit, mtu_b
        self.burst, self.limit = burst_bytes, limit_bytes
        self.dir = Path(tempfile.mkdtemp(prefix="tcplab-testbed-"))
        self.daemons: list[subprocess.Popen] = []
        self.address = {"a": "10.77.1.1", "b": "10.77.2.1"}
        self.management = {"a": "10.78.1.1", "b": "10.78.2.1"}

    def __enter__(self) -> SshLab:
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _build(self) -> None:
        ns, t = self.ns, self.tag
        for name in ns.values():
            _ip("netns", "add", name)
            _in(name, "ip", "link", "set", "lo", "up")
        # Data path: a <-> r <-> b.
        for host, subnet in (("a", 1), ("b", 2)):
            _ip("link", "add", f"{t}{host}0", "type", "veth", "peer", "name", f"{t}r{host}")
            _ip("link", "set", f"{t}{host}0", "netns", ns[host])
            _ip("link", "set", f"{t}r{host}", "netns", ns["r"])
            _in(ns[host], "ip", "addr", "add", f"10.77.{subnet}.1/24", "dev", f"{t}{host}0")
            _in(ns["r"], "ip", "addr", "add", f"10.77.{subnet}.254/24", "dev", f"{t}r{host}")
            _in(ns[host], "ip", "link", "set", f"{t}{host}0", "up")
            _in(ns["r"], "ip", "link", "set", f"{t}r{host}", "up")
            _in(ns[host], "ip", "route", "add", "10.77.0.0/16", "via", f"10.77.{subnet}.254")
            # Management path: this namespace <-> the host, for SSH only.
            _ip("link", "add", f"{t}m{host}", "type", "veth", "peer", "name", f"{t}h{host}")
            _ip("link", "set", f"{t}h{host}", "netns", ns[host])
            _ip("addr", "add", f"10.78.{subnet}.2/30", "dev", f"{t}m{host}")
            _ip("link", "set", f"{t}m{host}", "up")
            _in(ns[host], "ip", "addr", "add", f"10.78.{subnet}.1/30", "dev", f"{t}h{host}")
            _in(ns[host], "ip", "link", "set", f"{t}h{host}", "up")
            for dev in (f"{t}{host}0",):
                # One segment per packet on the wire (no GSO bursts past the shaper's accounting).
                _in(ns[host], "ip", "link", "set", "dev", dev, "gso_max_segs", "1")
        _in(ns["r"], "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
        # The r -> b link is the narrow one: its MTU, and tbf at the rate both ways.
        _in(ns["r"], "ip", "link", "set", f"{t}rb", "mtu", str(self.mtu_b))
        _in(ns["b"], "ip", "link", "set", f"{t}b0", "mtu", str(self.mtu_b))
        for dev in (f"{t}rb", f"{t}ra"):
            _in(ns["r"], "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{self.rate_mbit}mbit",
                "burst", str(self.burst), "limit", str(self.limit))
        self._ssh()

    def _ssh(self) -> None:
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        key = self.dir / "id"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.dir / "host_key")], check=True)
        (self.dir / "authorized_keys").write_text((self.dir / "id.pub").read_text())
        os.chmod(self.dir, 0o700)
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
        for host in ("a", "b"):
            self.daemons.append(subprocess.Popen(
                ["ip", "netns", "exec", self.ns[host], sshd, "-D", "-e", "-f", "/dev/null",
                 "-o", f"ListenAddress={self.management[host]}", "-o", f"HostKey={self.dir / 'host_key'}",
                 "-o", f"AuthorizedKeysFile={self.dir / 'authorized_keys'}", "-o", "PermitRootLogin=prohibit-password",
                 "-o", "StrictModes=no", "-o", "UsePAM=no", "-o", "PidFile=none", "-o", "PasswordAuthentication=no"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 10
        for host in ("a", "b"):
            while subprocess.run(["ssh", *self.ssh_options(), f"root@{self.management[host]}", "true"],
                                 capture_output=True).returncode != 0:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"sshd in {self.ns[host]} did not come up")
                time.sleep(0.1)

    def ssh_options(self) -> list[str]:
        """The client options that log in to the testbed's sshd."""
        return ["-i", str(self.dir / "id"), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "LogLevel=ERROR", "-o", "BatchMode=yes"]

    def hosts_file(self, path: Path, names: dict[str, str], via: str = "ssh", python: str | None = None) -> Path:
        """A hosts file mapping scenario host names (``names``: scenario name -> a|b)
        to the testbed's hosts, reached by SSH or as namespaces."""
        lines = []
        for scenario_name, host in names.items():
            lines.append(f"[host.{scenario_name}]")
            if via == "ssh":
                lines.append(f'ssh = "root@{self.management[host]}"')
                lines.append("ssh_options = [" + ", ".join(f'"{o}"' for o in self.ssh_options()) + "]")
            else:
                lines.append(f'netns = "{self.ns[host]}"')
            lines.append(f'address = "{self.address[host]}"')
            if python:
                lines.append(f'python = "{python}"')
        path.write_text("\n".join(lines) + "\n")
        return path

    def processes_in(self, host: str) -> list[str]:
        """Command lines of the processes in a host's namespace (sshd excluded)."""
        out = subprocess.run(["ip", "netns", "pids", self.ns[host]], capture_output=True, text=True).stdout.split()
        found = []
        for pid in out:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            except OSError:
                continue
            if "sshd" not in cmd:
                found.append(cmd)
        return found

    def sockets_in(self, host: str) -> str:
        """Listening and connected TCP/UDP sockets in a host's namespace, except sshd's."""
        out = subprocess.run(["ip", "netns", "exec", self.ns[host], "ss", "-Htuanp"], capture_output=True, text=True).stdout
        return "\n".join(line for line in out.splitlines() if "sshd" not in line and ":22 " not in line)

    def close(self) -> None:
        for d in self.daemons:
            d.kill()
            d.wait()
        for name in self.ns.values():
            for pid in subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True).stdout.split():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), 9)
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        for host in ("a", "b"):
            subprocess.run(["ip", "link", "del", f"{self.tag}m{host}"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
