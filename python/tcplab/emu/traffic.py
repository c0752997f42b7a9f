"""tcplab's traffic generators for emulated runs: the applications of a scenario as
real sockets of the Linux stack, run by :mod:`tcplab.emu.host` inside each host's
network namespace.

A flow's receiver listens on ``_core.emu_flow_port(flow)`` (the forwarder tells a
packet's flow by that port). Every endpoint bins what it measures on the monotonic
clock every process of the run shares, from the run's time zero: delivered bytes per
bin at the receiver, the kernel's TCP state (``TCP_INFO``: cwnd, ssthresh, smoothed RTT,
retransmissions) at the end of each bin at a TCP sender, and each datagram's one-way
delay at a UDP receiver (datagrams carry their sequence number and send time).
"""

from __future__ import annotations

import contextlib
import math
import random
import socket
import struct
import threading
import time

#: ``struct tcp_info`` (include/uapi/linux/tcp.h) up to ``tcpi_snd_wnd``: the fields
#: read here and their byte offsets.
_TCP_INFO_LEN = 232
_U32 = {"snd_mss": 16, "lost": 32, "retrans": 36, "rtt": 68, "rttvar": 72, "snd_ssthresh": 76, "snd_cwnd": 80,
        "total_retrans": 100, "segs_out": 136, "min_rtt": 148, "data_segs_out": 156, "delivered": 192, "snd_wnd": 228}
_U64 = {"pacing_rate": 104, "bytes_acked": 120, "delivery_rate": 160, "busy_time": 168, "rwnd_limited": 176,
        "sndbuf_limited": 184, "bytes_sent": 200, "bytes_retrans": 208}
#: ``tcpi_snd_ssthresh`` before the first loss (TCP_INFINITE_SSTHRESH).
INFINITE_SSTHRESH = 0x7FFFFFFF

#: How long a blocked socket call waits before looking at the clock again.
_POLL_S = 0.05
#: How long a TCP sender waits for its connection to be set up.
_CONNECT_S = 30.0
#: How long a TCP receiver waits past the run's end for its sender to close.
_LINGER_NS = 2_000_000_000
#: Datagram header of tcplab's UDP sources: sequence number, send time (ns).
_STAMP = struct.Struct("!QQ")
#: The clock datagrams are stamped with and their arrival read on: the monotonic clock
#: every process of an emulated run shares. Between real hosts (tcplab measure) the
#: wall clock, whose offset between hosts is what synchronisation leaves.
stamp_clock = time.monotonic_ns


def tcp_info(sock: socket.socket) -> dict:
    """The kernel's view of a TCP connection: the fields of :data:`_U32`/:data:`_U64`."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    raw = raw.ljust(_TCP_INFO_LEN, b"\0")
    info = {k: struct.unpack_from("I", raw, o)[0] for k, o in _U32.items()}
    info.update({k: struct.unpack_from("Q", raw, o)[0] for k, o in _U64.items()})
    return info


class Clock:
    """The run's time base: ns since time zero, and the bin a time falls in."""

    def __init__(self, zero_ns: int, bin_ns: int, duration_ns: int) -> None:
        self.zero_ns, self.bin_ns, self.duration_ns = zero_ns, bin_ns, duration_ns
        self.bins = max(1, -(-duration_ns // bin_ns))

    def now(self) -> int:
        return time.monotonic_ns() - self.zero_ns

    def bin(self, t_ns: int) -> int:
        return min(max(t_ns, 0) // self.bin_ns, self.bins - 1)

    def sleep_until(self, t_ns: int) -> None:
        delay = (t_ns - self.now()) / 1e9
        if delay > 0:
            time.sleep(delay)


class Endpoint(threading.Thread):
    """One end of one flow, run as a thread; ``result`` holds its measurements."""

    def __init__(self, flow: dict, clock: Clock) -> None:
        super().__init__(name=f"{type(self).__name__}-{flow['index']}", daemon=True)
        self.flow, self.clock = flow, clock
        self.start_ns, self.stop_ns = flow["start_ns"], flow["stop_ns"]
        self.result: dict = {"flow": flow["index"]}
        self.error: str | None = None
        #: Running count of what the endpoint moved so far (bytes delivered to a
        #: receiver, datagrams a UDP sender sent), read by tcplab measure's interval lines.
        self.count = 0

    def work(self) -> None:
        """The endpoint's job, run on its thread."""
        raise NotImplementedError

    def run(self) -> None:
        try:
            self.work()
        except Exception as e:  # reported to the orchestrator, which names the flow
            self.error = f"{type(e).__name__}: {e}"


class TcpReceiver(Endpoint):
    """Accepts the flow's connection and counts the bytes delivered to it per bin."""

    def __init__(self, flow: dict, clock: Clock, address: str) -> None:
        super().__init__(flow, clock)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        rcvbuf = (flow.get("tcp") or {}).get("rcvbuf")
        if rcvbuf:
            # A receive buffer the socket asks for (tcplab measure; emulated hosts set
            # the namespace's tcp_rmem instead). Set before listen: accepted sockets inherit it.
            self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        clamp = (flow.get("tcp") or {}).get("window_clamp")
        if clamp:
            # The scenario's max_window: the receiver never advertises more.
            self.listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, clamp)
        self.listener.bind((address, flow["port"]))
        self.listener.listen(1)
        self.listener.settimeout(_POLL_S)

    def work(self) -> None:
        delivered = [0] * self.clock.bins
        total, last_ns, conn = 0, None, None
        end = self.clock.duration_ns
        while conn is None and self.clock.now() < end:
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
        self.listener.close()
        if conn is not None:
            conn.settimeout(_POLL_S)
            buffer = bytearray(1 << 16)
            # Reads on past the run's end (counting nothing) until the sender closes:
            # closing first would fail the sender's last writes.
            while (now := self.clock.now()) < end + _LINGER_NS:
                try:
                    n = conn.recv_into(buffer)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if n == 0:
                    break
                if now < end:
                    delivered[self.clock.bin(now)] += n
                    total, last_ns = total + n, now
                    self.count = total
            conn.close()
        self.result.update(delivered_bytes=delivered, delivered_total=total, last_byte_ns=last_ns)


class TcpSender(Endpoint):
    """Connects at the flow's start with its congestion control and sends what its
    application produces: always (bulk), ``size_bytes`` (file), or at ``rate_bps``
    (rate-limited, optionally ``size_bytes`` in all). Samples ``TCP_INFO`` at the end
    of every bin."""

    def __init__(self, flow: dict, clock: Clock, peer: str) -> None:
        super().__init__(flow, clock)
        self.peer = peer
        self.sock: socket.socket | None = None
        self.samples: list[dict | None] = [None] * clock.bins
        self.sent = 0

    def work(self) -> None:
        self.clock.sleep_until(self.start_ns)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp = self.flow["tcp"]
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, tcp["kernel_cc"].encode())
        if tcp.get("mss_bytes"):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, tcp["mss_bytes"])
        # The handshake takes a round trip or more (a lost SYN: the kernel's 1 s timer).
        sock.settimeout(_CONNECT_S)
        connected_at = self.clock.now()
        sock.connect((self.peer, self.flow["port"]))
        sock.settimeout(_POLL_S)
        self.sock = sock
        app = self.flow["app"]
        size = app.get("size_bytes")
        rate = app.get("rate_bps")
        chunk = memoryview(bytearray(1 << 16))
        while (now := self.clock.now()) < self.stop_ns and (size is None or self.sent < size):
            want = len(chunk) if size is None else min(len(chunk), size - self.sent)
            if rate:
                # Data appears at `rate`: send what has been produced by now.
                produced = int((now - connected_at) * rate / 8e9)
                want = min(want, produced - self.sent)
                if want <= 0:
                    time.sleep(min(_POLL_S, max(1e-4, len(chunk) * 8 / rate / 4)))
                    continue
            try:
                self.sent += sock.send(chunk[:want])
            except TimeoutError:
                continue
            except OSError:
                break  # the receiver is gone (its host failed: reported there)
        if size is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
        # Keep the connection open to the end of the run: its state is sampled until
        # then, and a file's last bytes may still be in flight.
        while self.clock.now() < self.clock.duration_ns:
            time.sleep(_POLL_S)
        self.result.update(app_bytes_sent=self.sent, connected_ns=connected_at, info=tcp_info(sock),
                           samples=self.samples)
        sock.close()

    def sample(self, bin_index: int) -> None:
        """Called by the :class:`Sampler` at the end of bin ``bin_index``."""
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.samples[bin_index] = tcp_info(self.sock)


class Sampler(threading.Thread):
    """Samples every TCP sender's kernel state at the end of every bin."""

    def __init__(self, senders: list[TcpSender], clock: Clock) -> None:
        super().__init__(name="tcp-info-sampler", daemon=True)
        self.senders, self.clock = senders, clock

    def run(self) -> None:
        for b in range(self.clock.bins):
            self.clock.sleep_until(min((b + 1) * self.clock.bin_ns, self.clock.duration_ns) - 1_000)
            for s in self.senders:
                s.sample(b)


class UdpSender(Endpoint):
    """CBR, Poisson or on/off datagrams, each stamped with its sequence number and send
    time; sends that fall behind catch up at once, as the simulator's would."""

    def __init__(self, flow: dict, clock: Clock, peer: str, seed: int) -> None:
        super().__init__(flow, clock)
        self.peer = peer
        self.rng = random.Random(seed)

    def gaps(self):
        """Successive send times (ns from the flow's start) of the application."""
        app = self.flow["app"]
        gap = app["payload_bytes"] * 8e9 / app["rate_bps"]
        t = 0.0
        if app["type"] == "cbr":
            while True:
                yield t
                t += gap
        elif app["type"] == "poisson":
            while True:
                yield t
                t += self.rng.expovariate(1.0 / gap)
        else:
            on, off = app["on_ns"], app["off_ns"]
            draw = (lambda m: self.rng.expovariate(1.0 / m)) if app["exponential"] else (lambda m: m)
            while True:
                end = t + draw(on)
                while t < end:
                    yield t
                    t += gap
                t = end + draw(off)

    def work(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        payload = bytearray(max(self.flow["app"]["payload_bytes"], _STAMP.size))
        seq = sent = 0
        for offset in self.gaps():
            at = self.start_ns + int(offset)
            # A source that has fallen behind its schedule (its host's queue blocks it)
            # still stops at its stop time, as the simulator's would.
            if at >= self.stop_ns or self.clock.now() >= self.stop_ns:
                break
            self.clock.sleep_until(at)
            _STAMP.pack_into(payload, 0, seq, stamp_clock())
            try:
                sock.sendto(payload, (self.peer, self.flow["port"]))
                sent += 1
                self.count = sent
            except OSError:
                pass  # the local device's queue was full: the datagram is lost here
            seq += 1
        sock.close()
        self.result.update(datagrams_sent=sent, datagrams_offered=seq,
                           app_bytes_sent=sent * len(payload))


#: Linux's SO_TIMESTAMPNS (asm-generic/socket.h; Python's socket module does not name
#: it): the kernel stamps each datagram with its arrival time (CLOCK_REALTIME, a struct
#: timespec), delivered as an SCM_TIMESTAMPNS message of the same number.
_SO_TIMESTAMPNS = 35
_TIMESPEC = struct.Struct("@qq")


class UdpReceiver(Endpoint):
    """Counts delivered bytes per bin and each datagram's one-way delay, both by the
    time the kernel received the datagram, not the time this process read it: a
    receiver the scheduler kept waiting would otherwise move bytes into later bins (and
    past the run's end) and count its own wait as delay."""

    def __init__(self, flow: dict, clock: Clock, address: str) -> None:
        super().__init__(flow, clock)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        self.sock.bind((address, flow["port"]))
        self.sock.settimeout(_POLL_S)

    def work(self) -> None:
        delivered = [0] * self.clock.bins
        delays_us: list[int] = []
        buffer = bytearray(65536)
        end = self.clock.duration_ns
        # The kernel's stamps are on the wall clock; the run's bins on the monotonic
        # clock, the datagrams' send stamps on stamp_clock.
        wall_minus_run = time.time_ns() - time.monotonic_ns() + self.clock.zero_ns
        wall_minus_stamp = time.time_ns() - stamp_clock()
        draining = False
        while True:
            try:
                n, ancillary, _, _ = self.sock.recvmsg_into([buffer], 64)
            except (TimeoutError, BlockingIOError):
                if draining:
                    break
                if self.clock.now() >= end:
                    # What arrived before the end and waits in the socket still counts.
                    self.sock.setblocking(False)
                    draining = True
                continue
            wall = _arrival_wall_ns(ancillary)
            at = wall - wall_minus_run if wall is not None else self.clock.now()
            if at >= end:
                break  # datagrams are read in arrival order: the rest came later still
            if n >= _STAMP.size:
                _, sent_ns = _STAMP.unpack_from(buffer, 0)
                arrived = wall - wall_minus_stamp if wall is not None else stamp_clock()
                delays_us.append((arrived - sent_ns) // 1000)
            delivered[self.clock.bin(at)] += n
            self.count += n
        self.sock.close()
        self.result.update(delivered_bytes=delivered, delivered_total=sum(delivered), delays_us=delays_us)


def _arrival_wall_ns(ancillary: list[tuple[int, int, bytes]]) -> int | None:
    """The kernel's arrival stamp of a datagram (ns, wall clock) from recvmsg's
    ancillary data, or None when the kernel attached none."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(data) >= _TIMESPEC.size:
            seconds, nanoseconds = _TIMESPEC.unpack_from(data)
            return seconds * 1_000_000_000 + nanoseconds
    return None


def delay_summary(delays_us: list[int]) -> dict:
    """min/mean/p50/p95/p99/max of one-way delays, ms (None without datagrams), and the
    mean absolute difference of consecutive delays (jitter, RFC 3550 without smoothing)."""
    if not delays_us:
        return {"min": None, "mean": None, "p50": None, "p95": None, "p99": None, "max": None, "jitter": None}
    ordered = sorted(delays_us)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] / 1000

    jitter = (sum(abs(a - b) for a, b in zip(delays_us[1:], delays_us[:-1], strict=False))
              / (len(delays_us) - 1) / 1000) if len(delays_us) > 1 else 0.0
    return {"min": ordered[0] / 1000, "mean": sum(ordered) / len(ordered) / 1000, "p50": pick(0.5),
            "p95": pick(0.95), "p99": pick(0.99), "max": ordered[-1] / 1000, "jitter": jitter}


def endpoints(specs: list[dict], clock: Clock, address: str) -> list[Endpoint]:
    """The endpoints a host runs, from their descriptions (role, flow, peer, seed; a
    receiver binds to ``address`` unless its description says ``bind``): used by the
    emulated hosts (tcplab.emu.host) and by tcplab measure's agent alike."""
    out: list[Endpoint] = []
    for e in specs:
        flow = e["flow"]
        if e["role"] == "receiver":
            cls = TcpReceiver if flow["transport"] == "tcp" else UdpReceiver
            out.append(cls(flow, clock, e.get("bind", address)))
        elif flow["transport"] == "tcp":
            out.append(TcpSender(flow, clock, e["peer"]))
        else:
            out.append(UdpSender(flow, clock, e["peer"], seed=e["seed"]))
    return out
