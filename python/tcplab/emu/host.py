"""One emulated host: ``python -m tcplab.emu.host PARENT_PID SOCKET_FD`` (started by
:mod:`tcplab.emu.run`, never by hand).

The process moves itself into a new network namespace, creates its only interface —
a TUN device, ``tun0``, whose other side is the forwarder — configures it and the
namespace's TCP settings, hands the device's descriptor to the parent over the Unix
socket it inherited (SOCKET_FD), and runs its flows' endpoints
(:mod:`tcplab.emu.traffic`). It dies with its parent (``PR_SET_PDEATHSIG``), and the
namespace and device with it: nothing outlives a run, however it ends.

Protocol on stdin/stdout, one JSON object per line: the parent sends the host's
configuration; the host answers ``{"ready": true}`` (or ``{"error": ...}``) once its
device is handed over and its receivers listen; the parent sends ``{"zero_ns": T}``,
the run's time zero on the monotonic clock; the host answers with its endpoints'
results when the run is over.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys

from . import traffic

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
IFF_UP = 0x1
SIOCGIFFLAGS, SIOCSIFFLAGS = 0x8913, 0x8914
SIOCSIFADDR, SIOCSIFNETMASK, SIOCSIFMTU, SIOCSIFTXQLEN = 0x8916, 0x891C, 0x8922, 0x8943
DEVICE = "tun0"

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _ifreq(name: str, payload: bytes) -> bytes:
    return struct.pack("16s", name.encode()) + payload.ljust(24, b"\0")


def _set_address(sock: socket.socket, name: str, request: int, address: str) -> None:
    sockaddr = struct.pack("HH4s", socket.AF_INET, 0, socket.inet_aton(address))
    fcntl.ioctl(sock, request, _ifreq(name, sockaddr))


def bring_up(sock: socket.socket, name: str) -> None:
    flags = struct.unpack_from("H", fcntl.ioctl(sock, SIOCGIFFLAGS, _ifreq(name, b"")), 16)[0]
    fcntl.ioctl(sock, SIOCSIFFLAGS, _ifreq(name, struct.pack("H", flags | IFF_UP)))


def enter_new_namespace(parent: int) -> None:
    """Dies with the parent, then leaves the parent's network namespace for a new one."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)
    _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")


def create_device(config: dict) -> int:
    """``tun0`` with the host's address, MTU and a route to every emulated host."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", DEVICE.encode(), IFF_TUN | IFF_NO_PI))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        bring_up(s, "lo")
        fcntl.ioctl(s, SIOCSIFMTU, _ifreq(DEVICE, struct.pack("i", config["mtu"])))
        fcntl.ioctl(s, SIOCSIFTXQLEN, _ifreq(DEVICE, struct.pack("i", config["txqueuelen"])))
        _set_address(s, DEVICE, SIOCSIFADDR, config["address"])
        _set_address(s, DEVICE, SIOCSIFNETMASK, config["netmask"])
        bring_up(s, DEVICE)
    # GSO off: TCP then builds one-segment packets instead of up to 64 KB sent back to
    # back (a TUN device has no TSO, but the kernel's software GSO would still burst).
    subprocess.run(["ip", "link", "set", "dev", DEVICE, "gso_max_segs", "1"], check=True, capture_output=True, text=True)
    if config.get("route"):
        # Route attributes (initial window, minimum RTO) only iproute2 sets.
        subprocess.run(["ip", "route", "replace", config["network"], "dev", DEVICE, *config["route"]],
                       check=True, capture_output=True, text=True)
    return fd


def set_sysctls(sysctls: dict[str, str]) -> None:
    """Per-namespace settings (net.ipv4.tcp_*): written in this namespace only."""
    for key, value in sysctls.items():
        with open("/proc/sys/" + key.replace(".", "/"), "w") as f:
            f.write(str(value))


def send_fd(channel: int, fd: int) -> None:
    """Hands ``fd`` over the inherited Unix socket ``channel``."""
    with socket.socket(fileno=channel) as s:
        socket.send_fds(s, [b"tun"], [fd])


def main() -> None:
    parent, channel = int(sys.argv[1]), int(sys.argv[2])
    enter_new_namespace(parent)
    config = json.loads(sys.stdin.readline())
    say = lambda message: print(json.dumps(message), flush=True)  # noqa: E731
    try:
        set_sysctls(config["sysctls"])
        fd = create_device(config)
        send_fd(channel, fd)
        os.close(fd)
        clock_config = config["clock"]
        # Receivers listen before the parent is told the host is ready.
        clock = traffic.Clock(0, clock_config["bin_ns"], clock_config["duration_ns"])
        ends = traffic.endpoints(config["endpoints"], clock, config["address"])
    except (OSError, subprocess.CalledProcessError, ValueError) as failure:
        detail = getattr(failure, "stderr", "") or ""
        say({"error": f"{type(failure).__name__}: {failure} {detail}".strip()})
        return
    say({"ready": True})
    clock.zero_ns = json.loads(sys.stdin.readline())["zero_ns"]
    senders = [end for end in ends if isinstance(end, traffic.TcpSender)]
    sampler = traffic.Sampler(senders, clock)
    for end in ends:
        end.start()
    sampler.start()
    for end in ends:
        # The run's end plus time to close: an endpoint stuck past it is reported.
        end.join(timeout=max(0.0, (clock.duration_ns - clock.now()) / 1e9) + 5.0)
    sampler.join(timeout=1.0)
    say({"endpoints": [{**end.result, "role": type(end).__name__, "error": end.error
                        or (f"{type(end).__name__} still running at the end of the run" if end.is_alive() else None)}
                       for end in ends]})


if __name__ == "__main__":
    main()
