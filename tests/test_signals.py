"""Ctrl-C and SIGTERM stop a run with one line, exit 128 + signal, and leave nothing
behind (issue "Robustness", part 5); a write that is interrupted keeps the old results."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tcplab.output import write_directory

LONG = """
[simulation]
duration = "600s"
[topology.dumbbell]
pairs = 2
access = { bandwidth = "10Gbps", delay = "1ms" }
bottleneck = { bandwidth = "1Gbps", delay = "20ms" }
[[flow]]
from = "left0"
to = "right0"
app = { type = "bulk" }
transport = "tcp"
"""


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_with_one_line_and_no_leftovers(tmp_path, sig, status):
    (tmp_path / "long.toml").write_text(LONG)
    out = tmp_path / "out" / "res"
    p = subprocess.Popen([sys.executable, "-m", "tcplab", "run", str(tmp_path / "long.toml"), "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)  # well into the simulation (600 s of 1 Gbit/s take minutes)
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == status, stderr
    assert "Traceback" not in stderr and f"interrupted by {signal.Signals(sig).name}" in stderr
    # The run was announced as long before it started; then one line for the signal.
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines[0].startswith("warning:") and "min of wall time" in lines[0], lines
    assert len(lines) == 2, lines
    assert not (tmp_path / "out").exists()


def test_an_interrupted_write_keeps_the_old_results(tmp_path):
    out = tmp_path / "res"
    write_directory(out, lambda d: (d / "summary.json").write_text("old"), "run")

    def interrupted(d: Path) -> None:
        (d / "summary.json").write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_directory(out, interrupted, "run")
    assert (out / "summary.json").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["res"]
