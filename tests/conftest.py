"""Shared helpers: run the real `tcplab` command in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"


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
