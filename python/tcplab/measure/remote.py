"""Starting the traffic agent on a real host and talking to it.

The agent is started with the host's own ``python3`` — over SSH (``BatchMode``: a
missing key is an error, never a prompt) or, for a host that is a network namespace of
this machine, with ``ip netns exec`` — and receives its code on standard input
(:mod:`.agent`). A failure to start says which host and why, in one line: SSH could not
connect or log in, there is no ``python3``, the namespace does not exist.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import queue
import shlex
import subprocess
import tempfile
import threading
import time
import typing

from ..emu import traffic
from . import agent
from .hosts import HostSpec

#: Seconds SSH may take to connect.
CONNECT_TIMEOUT_S = 10
#: Seconds an agent may take to answer after it was started or told to start.
ANSWER_TIMEOUT_S = 30.0


class MeasureError(RuntimeError):
    """A host could not be used (unreachable, no python3, an agent that failed):
    exit status 2, naming the host."""


def bundle() -> str:
    """The agent's code, as the first line of its standard input."""
    return json.dumps({"traffic": inspect.getsource(traffic), "agent": inspect.getsource(agent)})


def command(host: HostSpec) -> list[str]:
    """The command that starts the agent on ``host``."""
    remote = [host.python, "-u", "-c", agent.BOOTSTRAP]
    if host.netns is not None:
        return ["ip", "netns", "exec", host.netns, *remote]
    assert host.ssh is not None
    return ["ssh", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={CONNECT_TIMEOUT_S}", "-o", "ServerAliveInterval=5",
            "-o", "ServerAliveCountMax=3", *host.ssh_options, host.ssh, "--", shlex.join(remote)]


class Agent:
    """The agent running on one host: send it a JSON line, read one back."""

    def __init__(self, host: HostSpec) -> None:
        self.host = host
        self.stderr: typing.IO[str] = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  (closed by close())
        try:
            self.process = subprocess.Popen(command(host), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self.stderr, text=True, start_new_session=False)
        except FileNotFoundError as e:
            raise MeasureError(f"host {host.name!r} ({host.where}): {e.filename} is not installed here") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, name=f"agent-{host.name}", daemon=True).start()

    def send(self, message: dict | str) -> None:
        """Writes one line to the agent (a dict as JSON)."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise self.failure("the agent exited") from None

    def _read(self) -> None:
        """Moves the agent's lines to :attr:`lines` as they come (None at its end): the
        controller waits on several agents, and on interval lines between answers."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def receive(self, timeout_s: float = ANSWER_TIMEOUT_S) -> dict:
        """The agent's next line, parsed (MeasureError if it fails, says why, or is silent)."""
        try:
            line = self.lines.get(timeout=timeout_s)
        except queue.Empty:
            raise self.failure(f"no answer within {timeout_s:g} s") from None
        if line is None:
            self.lines.put(None)  # the end stays the end for whoever asks next
            self.process.wait(timeout=5)
            raise self.failure("the agent exited")
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            raise self.failure(f"unexpected output {line.strip()[:200]!r}") from None
        if "error" in message:
            raise MeasureError(f"host {self.host.name!r} ({self.host.where}): {message['error']}")
        return message

    def failure(self, what: str) -> MeasureError:
        """A :class:`MeasureError` for this host, saying what its process printed."""
        time.sleep(0.05)
        code = self.process.poll()
        self.stderr.seek(0)
        lines = [ln.strip() for ln in self.stderr.read().splitlines() if ln.strip()]
        detail = lines[-1] if lines else ""
        h = f"host {self.host.name!r} ({self.host.where})"
        if self.host.ssh and code == 255:
            return MeasureError(f"{h}: ssh could not connect or log in: {detail or 'no message'}")
        if code == 127 or "command not found" in detail or ("No such file or directory" in detail and self.host.python in detail):
            return MeasureError(f"{h}: there is no {self.host.python} to run the agent ({detail})")
        if self.host.netns and ("netns" in detail.lower() or "network namespace" in detail):
            return MeasureError(f"{h}: {detail}")
        return MeasureError(f"{h}: {what}" + (f" ({detail})" if detail else "") + (f", exit status {code}" if code else ""))

    def close(self) -> None:
        """Ends the agent (closing its input is enough: it exits when its input ends)."""
        with contextlib.suppress(OSError):  # its input already broken: it is ending anyway
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()
