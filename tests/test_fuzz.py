"""The scenario fuzzer in CI (issue "Robustness", part 6): 300 cases from a fixed
seed, each run as the real command; every case must end in exit 0 with conserved
packets or exit 2 with one message naming the file, field or option — never a
traceback, a panic, an unannounced hang or a death by memory. 24 more cases run
tcplab's commands on its own outputs (#35: `query` with hostile SQL, `report` and
`compare` on damaged results), 24 mutated sweep tables and sweep files (`tcplab
sweep`) and 6 mutated study files (`tcplab reproduce DIR --quick`). ``make fuzz`` runs
6,000, 1,000, 2,500 and 500 (tests/fuzz/run.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_300_fuzzed_scenarios_end_in_exit_0_or_a_clear_exit_2(tmp_path):
    p = subprocess.run([sys.executable, "-m", "fuzz.run", "--cases", "300", "--output-cases", "24",
                        "--sweep-cases", "24", "--study-cases", "6", "--failures", str(tmp_path / "failures")],
                       cwd=TESTS, capture_output=True, text=True, timeout=1800)
    print(p.stdout)
    failures = sorted(path.name for path in (tmp_path / "failures").glob("*")) if (tmp_path / "failures").exists() else []
    assert p.returncode == 0, f"{failures}\n{p.stdout}\n{p.stderr[-3000:]}"
    counts = {line.split()[0]: int(line.split()[1]) for line in p.stdout.splitlines()[1:] if line.strip()}
    assert sum(counts.values()) == 354
    # The fuzzer exercises both sides: runs that complete and inputs that are refused.
    assert counts.get("ok", 0) >= 20 and counts.get("refused", 0) >= 100, counts
