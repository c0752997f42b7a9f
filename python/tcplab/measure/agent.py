"""The traffic agent of ``tcplab measure``, as it runs on a real host.

Nothing is installed there: the controller starts the host's ``python3`` with a short
bootstrap (:data:`BOOTSTRAP`) over SSH (or in a network namespace), and sends this
module's source and that of :mod:`tcplab.emu.traffic` (the same generators
``tcplab emu`` runs) as the first line of the agent's standard input; both are
executed in memory. Standard library only.

Protocol on stdin/stdout, one JSON object per line, as ``tcplab.emu.host``'s: the
controller sends the host's work (flow endpoints, or path probes); the agent answers
``{"ready": ..., "host": <what it knows about itself>}`` once its receivers listen (or
``{"error": ...}``); the controller sends ``{"start_in_ns": N}``, time zero N ns on the
agent's own monotonic clock from now; the agent answers with its results.

The agent leaves nothing behind: it writes no file, and a thread watches its standard
input — when the controller goes away, however (killed, its SSH connection cut), the
input ends and the agent exits at once, its sockets closed by the kernel.
"""

import contextlib
import ctypes
import json
import os
import platform
import queue
import socket
import struct
import sys
import threading
import time

#: Run by the remote ``python3 -c``: reads the bundle (the sources of this module and
#: of the traffic generators) and hands over to :func:`main`.
BOOTSTRAP = (
    "import json,sys,types\n"
    "if sys.version_info<(3,10):\n"
    "    print(json.dumps({'error':'the agent needs python3 3.10 or newer; this host has '+sys.version.split()[0]}),flush=True)\n"
    "    sys.exit(3)\n"
    "b=json.loads(sys.stdin.readline())\n"
    "m={}\n"
    "for n in ('traffic','agent'):\n"
    "    mod=types.ModuleType('tcplab_'+n);sys.modules[mod.__name__]=mod\n"
    "    exec(compile(b[n],'tcplab/'+n+'.py','exec'),mod.__dict__);m[n]=mod\n"
    "m['agent'].main(m['traffic'])\n"
)

#: Sysctls reported in a host's provenance.
SYSCTLS = ("net.ipv4.tcp_congestion_control", "net.ipv4.tcp_available_congestion_control", "net.ipv4.tcp_rmem",
           "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_sack",
           "net.ipv4.tcp_timestamps", "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_no_metrics_save",
           "net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_ecn", "net.core.default_qdisc")
#: Linux's adjtimex status bit: the clock is not synchronised (STA_UNSYNC).
STA_UNSYNC = 0x0040
#: IP_MTU_DISCOVER / IP_PMTUDISC_DO / IP_MTU (linux/in.h): probe with "don't fragment".
IP_MTU_DISCOVER, IP_PMTUDISC_DO, IP_MTU = 10, 2, 14
#: Probe datagrams: kind (b"E" echo, b"T" train), train, sequence, send time (wall ns).
PROBE = struct.Struct("!cIIQ")
#: Bytes of IPv4 and UDP headers.
UDP_IP = 28


def _read_lines(into: "queue.Queue") -> None:
    """Feeds stdin's lines to the main thread; at its end the controller is gone, and
    so is the agent (os._exit: no thread, socket or child outlives it)."""
    for line in sys.stdin:
        into.put(line)
    os._exit(0)


_SAYING = threading.Lock()


def _say(message: dict) -> None:
    """One line to the controller (whole: the interval reporter writes too)."""
    with _SAYING:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def clock_synchronised() -> dict:
    """What the kernel says of its wall clock: synchronised (NTP/PTP discipline) and its
    estimated error, from adjtimex(2)."""
    buf = ctypes.create_string_buffer(256)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        state = libc.adjtimex(buf)
    except (OSError, AttributeError):
        return {"synchronised": None, "esterror_us": None}
    # struct timex: modes (int), then longs: offset, freq, maxerror, esterror, status (int).
    long = ctypes.sizeof(ctypes.c_long)
    esterror = struct.unpack_from("l", buf, 4 * long)[0]
    status = struct.unpack_from("i", buf, 5 * long)[0]
    return {"synchronised": state != 5 and not status & STA_UNSYNC, "esterror_us": esterror}


def about_host() -> dict:
    """Provenance of the host: kernel, Python, sysctls, interfaces' MTUs, clock state."""
    sysctls: dict[str, str | None] = {}
    for key in SYSCTLS:
        try:
            with open("/proc/sys/" + key.replace(".", "/")) as f:
                sysctls[key] = " ".join(f.read().split())
        except OSError:
            sysctls[key] = None
    interfaces = {}
    with contextlib.suppress(OSError):  # no sysfs (a container): the provenance says less
        for name in sorted(os.listdir("/sys/class/net")):
            with open(f"/sys/class/net/{name}/mtu") as f:
                interfaces[name] = {"mtu": int(f.read())}
    return {"hostname": socket.gethostname(), "kernel": platform.release(), "python": platform.python_version(),
            "sysctls": sysctls, "interfaces": interfaces, "clock": clock_synchronised()}


# --------------------------------------------------------------------- path probes


class EchoServer(threading.Thread):
    """Answers echo probes and records when each train probe arrived (wall clock)."""

    def __init__(self, address: str, port: int) -> None:
        super().__init__(name="probe-echo", daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((address, port))
        self.sock.settimeout(0.05)
        self.arrivals: list[tuple[int, int, int, int, int]] = []  # train, seq, sent ns, arrived ns, bytes
        self.stopping = False

    def run(self) -> None:
        buf = bytearray(65536)
        while not self.stopping:
            try:
                n, peer = self.sock.recvfrom_into(buf)
            except TimeoutError:
                continue
            arrived = time.time_ns()
            if n < PROBE.size:
                continue
            kind, train, seq, sent = PROBE.unpack_from(buf, 0)
            if kind == b"E":
                self.sock.sendto(bytes(buf[:n]), peer)
            else:
                self.arrivals.append((train, seq, sent, arrived, n))


def probe_rtt(peer: str, port: int, count: int, gap_s: float) -> dict:
    """``count`` small echo probes ``gap_s`` apart: each round-trip time, and how many
    came back."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect((peer, port))
    sock.settimeout(0.001)
    sent_at: dict[int, int] = {}
    rtts: list[float] = []
    end = time.monotonic() + count * gap_s + 2.0
    next_send, seq = time.monotonic(), 0
    while time.monotonic() < end and (seq < count or len(rtts) < len(sent_at)):
        if seq < count and time.monotonic() >= next_send:
            sent_at[seq] = time.monotonic_ns()
            sock.send(PROBE.pack(b"E", 0, seq, 0))
            seq += 1
            next_send += gap_s
        try:
            data = sock.recv(64)
        except OSError:  # nothing back yet (a timeout), or an ICMP error for a lost probe
            continue
        _, _, got, _ = PROBE.unpack_from(data, 0)
        if got in sent_at:
            rtts.append((time.monotonic_ns() - sent_at.pop(got)) / 1e6)
    sock.close()
    return {"sent": count, "received": len(rtts), "rtt_ms": rtts}


def probe_mtu(peer: str, port: int, largest: int) -> dict:
    """The path MTU: datagrams with "don't fragment" from ``largest`` down; the kernel
    learns a smaller path MTU from the routers' ICMP "fragmentation needed" (RFC 1191)
    and says so (EMSGSIZE, IP_MTU); the answer is then confirmed by an echo of exactly
    that size."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
    sock.connect((peer, port))
    sock.settimeout(0.3)
    mtu = min(largest, sock.getsockopt(socket.IPPROTO_IP, IP_MTU))
    confirmed = False
    for _ in range(20):
        # EMSGSIZE (the path MTU fell) or no answer in time: ask the kernel again.
        with contextlib.suppress(OSError):
            sock.send(PROBE.pack(b"E", 0, mtu, 0).ljust(mtu - UDP_IP, b"\0"))
            confirmed = len(sock.recv(65536)) == mtu - UDP_IP
        if confirmed:
            break
        mtu = min(mtu, sock.getsockopt(socket.IPPROTO_IP, IP_MTU))
        time.sleep(0.05)
    sock.close()
    return {"mtu": mtu, "confirmed": confirmed}


def probe_trains(peer: str, port: int, trains: int, length: int, size: int, gap_s: float) -> dict:
    """``trains`` trains of ``length`` back-to-back datagrams of ``size`` IP bytes; the
    receiver's arrival times give the rate the bottleneck let them through."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    sock.connect((peer, port))
    payload = bytearray(size - UDP_IP)
    for train in range(trains):
        for seq in range(length):
            PROBE.pack_into(payload, 0, b"T", train, seq, time.time_ns())
            with contextlib.suppress(OSError):  # the local queue was full: that datagram is lost here
                sock.send(payload)
        time.sleep(gap_s)
    sock.close()
    return {"trains": trains, "length": length, "size": size}


# ------------------------------------------------------------------ interval lines


class Reporter(threading.Thread):
    """At the end of every ``interval_ns`` of the run, each endpoint's running counts
    (bytes delivered, datagrams sent) and a TCP sender's kernel state, as one line."""

    def __init__(self, traffic, ends: list, clock, interval_ns: int) -> None:
        super().__init__(name="interval-reporter", daemon=True)
        self.traffic, self.ends, self.clock, self.interval_ns = traffic, ends, clock, interval_ns

    def run(self) -> None:
        end = self.interval_ns
        while end <= self.clock.duration_ns:
            self.clock.sleep_until(end)
            flows = []
            for e in self.ends:
                part = {"flow": e.flow["index"], "role": type(e).__name__, "count": e.count}
                sock = getattr(e, "sock", None)
                if isinstance(e, self.traffic.TcpSender) and sock is not None:
                    with contextlib.suppress(OSError):
                        part["tcp_info"] = self.traffic.tcp_info(sock)
                flows.append(part)
            _say({"interval": {"end_ns": end, "flows": flows}})
            end += self.interval_ns


# --------------------------------------------------------------------------- main


def main(traffic) -> None:
    """Runs one host's part of a measurement (see the module's documentation)."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_read_lines, args=(lines,), name="stdin-watch", daemon=True).start()
    config = json.loads(lines.get())
    # Between hosts only the wall clock is common (as synchronised as NTP/PTP make it).
    traffic.stamp_clock = time.time_ns
    try:
        clock = traffic.Clock(0, config["clock"]["bin_ns"], config["clock"]["duration_ns"])
        ends = traffic.endpoints(config.get("endpoints", []), clock, "0.0.0.0")
        echo = EchoServer(config["echo"]["bind"], config["echo"]["port"]) if config.get("echo") else None
    except (OSError, ValueError, KeyError) as e:
        _say({"error": f"{type(e).__name__}: {e}"})
        return
    _say({"ready": True, "host": about_host()})
    start = json.loads(lines.get())
    clock.zero_ns = time.monotonic_ns() + int(start["start_in_ns"])
    if echo is not None:
        echo.start()
    senders = [end for end in ends if isinstance(end, traffic.TcpSender)]
    sampler = traffic.Sampler(senders, clock)
    for end in ends:
        end.start()
    sampler.start()
    if config.get("interval_ns"):
        Reporter(traffic, ends, clock, config["interval_ns"]).start()
    probes: dict[str, object] = {}
    try:
        for probe in config.get("probes", []):
            clock.sleep_until(probe.get("at_ns", 0))
            kind = probe["kind"]
            if kind == "rtt":
                probes["rtt"] = probe_rtt(probe["peer"], probe["port"], probe["count"], probe["gap_s"])
            elif kind == "mtu":
                probes["mtu"] = probe_mtu(probe["peer"], probe["port"], probe["largest"])
            elif kind == "trains":
                probes["trains"] = probe_trains(probe["peer"], probe["port"], probe["trains"], probe["length"],
                                                probe["size"], probe["gap_s"])
    except OSError as e:
        probes["error"] = f"{type(e).__name__}: {e}"
    for end in ends:
        end.join(timeout=max(0.0, (clock.duration_ns - clock.now()) / 1e9) + 5.0)
    sampler.join(timeout=1.0)
    if echo is not None:
        clock.sleep_until(clock.duration_ns)
        echo.stopping = True
        echo.join(timeout=1.0)
        probes["arrivals"] = echo.arrivals
    _say({"endpoints": [{**end.result, "role": type(end).__name__, "error": end.error
                         or (f"{type(end).__name__} still running at the end of the run" if end.is_alive() else None)}
                        for end in ends],
          "probes": probes, "host": about_host()})
