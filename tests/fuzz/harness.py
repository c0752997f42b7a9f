"""Runs one fuzz case as the real ``tcplab`` command would run it — in a forked child
with its output captured, a wall-clock limit and an address-space limit — and judges
the outcome against tcplab's promises (issue "Robustness", part 6):

- exit status 0 or 2 only; no traceback, panic or "internal error";
- exit 2: one message (an ``error:`` line, or a usage-error box) naming the file,
  field or option;
- exit 0: the results exist and conserve packets (sent = delivered + dropped + in
  flight, per flow);
- bounded: a run stopped at the time limit must have been announced as long, and
  none may die of memory (the limit is below the machine's: the estimate has to
  refuse first).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .strategies import Case

#: The interpreter's stack limit, which tcplab runs with (the fuzzer raises its own).
DEFAULT_RECURSION_LIMIT = sys.getrecursionlimit()

#: Address space a case may use beyond what the fuzzer's process maps at start.
MEMORY_HEADROOM = 3 * 2**30


@dataclass
class Outcome:
    """How a case ended: ``kind`` is ok, refused, announced_timeout, or a failure kind."""

    kind: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "refused", "announced_timeout")


def _mapped_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(case: Case, workdir: Path, address_space: int) -> None:
    os.chdir(workdir)
    out_fd = os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err_fd = os.open("stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    from tcplab import cli

    if case.argv is not None:
        args = list(case.argv)
    else:
        args = [case.command, case.filename, *case.args]
        if case.command == "run":
            args += ["--out", case.out] + ([] if case.plots else ["--no-plots"])
    sys.argv = ["tcplab", *args]
    code = 0
    try:
        cli.main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - anything escaping main() is a finding
        import traceback

        traceback.print_exc()
        code = 99
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_case(case: Case, workdir: Path, time_limit_s: float, fixtures: dict[str, Path] | None = None) -> Outcome:
    """Runs ``case`` in ``workdir`` (created empty, then given copies of the case's
    ``fixtures``, directories by name) and judges it."""
    workdir.mkdir(parents=True)
    for name in case.fixtures:
        shutil.copytree((fixtures or {})[name], workdir / name)
    (workdir / case.filename).parent.mkdir(parents=True, exist_ok=True)
    (workdir / case.filename).write_bytes(case.content)
    address_space = _mapped_bytes() + MEMORY_HEADROOM
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            _child(case, workdir, address_space)
        finally:
            os._exit(98)
    deadline = time.monotonic() + time_limit_s
    timed_out = False
    while True:
        done, status, _ = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            timed_out = True
            break
        time.sleep(0.02)
    stderr = (workdir / "stderr.txt").read_text(errors="replace")
    if timed_out:
        if "of wall time" in stderr and "warning:" in stderr:
            return Outcome("announced_timeout")
        return Outcome("unannounced_timeout", stderr[-300:])
    if os.WIFSIGNALED(status):
        return Outcome(f"killed_by_{signal.Signals(os.WTERMSIG(status)).name}", stderr[-500:])
    code = os.WEXITSTATUS(status)
    for marker in ("Traceback", "panicked", "internal error", "RUST_BACKTRACE"):
        if marker in stderr:
            return Outcome("traceback", stderr[-800:])
    if code == 2:
        # A file a fixture holds (a sweep file's scenario) is named by its full path.
        return _judge_refusal(case, stderr.replace(f"{workdir}{os.sep}", ""))
    if code == 0:
        return _judge_success(case, workdir)
    if code == 1 and case.command == "sweep" and "run(s) failed; their messages" in stderr:
        # Documented: a sweep whose points are valid only in part runs the valid ones
        # and stores each failed run with its message (docs/sweeps.md).
        return Outcome("ok")
    return Outcome(f"exit_{code}", stderr[-500:])


_BOX = str.maketrans("", "", "╭╮╰╯─│┌┐└┘━┃")


def _judge_refusal(case: Case, stderr: str) -> Outcome:
    lines = [line for line in stderr.splitlines() if line.strip()]
    if case.command == "reproduce":
        # What a study reads from its runs (a column, a row) is known only once they
        # exist: such an error may follow the sweeps' progress lines.
        lines = [line for line in lines if "━" not in line and "remaining (" not in line]
    if len(lines) == 1 and lines[0].startswith("error: "):
        # It names where: the scenario file (then a field or line), --set, or the --out path.
        message = lines[0][len("error: "):]
        # ... or, for a command on tcplab's outputs, the command or the directory it read.
        named = (f"{case.command}:", *case.fixtures) if case.argv is not None else ()
        if message.startswith((case.filename, "--set", "--seed", case.out[:40], *named)):
            return Outcome("refused")
        return Outcome("refusal_names_nothing", lines[0][:300])
    # A usage error (unknown option, a value of the wrong type) comes as a box.
    inner = [line.translate(_BOX).strip() for line in lines]
    inner = [line for line in inner if line and line != "Error"]
    usage = any(line.startswith(("Usage:", "Try ")) for line in inner)
    message = [line for line in inner if not line.startswith(("Usage:", "Try "))]
    if usage and len(message) == 1 and ("--" in message[0] or any(w in message[0].lower() for w in ("argument", "option"))):
        return Outcome("refused")
    return Outcome("unclear_refusal", stderr[-500:])


def _judge_success(case: Case, workdir: Path) -> Outcome:
    if case.command != "run":
        return Outcome("ok")
    found = list(workdir.glob("**/summary.json"))
    if len(found) != 1:
        return Outcome("no_results", f"{len(found)} summary.json files")
    summary = json.loads(found[0].read_text())
    for f in summary["flows"]:
        if f["packets_sent"] != f["packets_delivered"] + f["packets_dropped"] + f["packets_in_flight"]:
            return Outcome("conservation", json.dumps(f)[:400])
        r = f["reverse"]
        if r["packets_sent"] < r["packets_delivered"] + r["packets_dropped"]:
            return Outcome("conservation", json.dumps(f)[:400])
    return Outcome("ok")


def summarize(outcomes: Counter) -> str:
    """One line per outcome kind, failures marked."""
    total = sum(outcomes.values())
    rows = [f"{kind:22s} {n:6d}  {'FAILURE' if Outcome(kind).failed else ''}" for kind, n in outcomes.most_common()]
    return "\n".join([f"{total} cases"] + rows)
