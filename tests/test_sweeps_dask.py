"""The same sweep on a real Dask cluster (a scheduler and two worker processes started
here, not mocked), including a worker killed mid-sweep: results equal the local ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import run_cli
from test_sweeps import SWEEP, _runs, star

pytest.importorskip("distributed")
DASK = str(Path(sys.executable).with_name("dask"))


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two single-threaded workers (no nanny: a killed worker stays dead)."""
    sched_file = tmp_path / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    procs = [subprocess.Popen([DASK, "scheduler", "--scheduler-file", str(sched_file), "--port", "0",
                               "--dashboard-address", ":0", "--no-show"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    deadline = time.time() + 60
    while not sched_file.exists() and time.time() < deadline:
        time.sleep(0.1)
    address = json.loads(sched_file.read_text())["address"]
    workers = [subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-nanny", "--dashboard-address", ":0"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env) for _ in range(2)]
    procs += workers
    from distributed import Client

    with Client(address, timeout="30s") as c:
        c.wait_for_workers(2, timeout=60)
    yield address, workers
    for p in procs:
        p.kill()
        p.wait()


def test_sweep_on_dask_with_a_worker_killed_matches_local(cluster, write_scenario, tmp_path):
    address, workers = cluster
    path = write_scenario(star("60s", "200Mbps") + SWEEP.format(reps=10))  # 40 runs of 60 s
    cmd = [sys.executable, "-m", "tcplab", "sweep", str(path), "--dask", address, "--out", str(tmp_path / "dask")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)  # the cluster is working through the runs
    assert proc.poll() is None, "the sweep ended before a worker could be killed"
    workers[0].send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert "40 run now (0 failed)" in out
    local = run_cli("sweep", str(path), "--jobs", "2", "--out", str(tmp_path / "local"))
    assert local.returncode == 0
    dask_runs = _runs(tmp_path / "dask")
    assert len(dask_runs) == 40 and dask_runs == _runs(tmp_path / "local")
    # Resumption works the same way on the cluster.
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "40 already stored, 0 run now" in again.stdout
