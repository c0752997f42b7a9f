"""The fuzzer in CI (issue "Robustness", part 6): 80 scenarios from two fixed seeds,
each run as the real command; every case must end in exit 0 with conserved packets or
exit 2 with one message naming the file, field or option — never a traceback, a panic,
an unannounced hang or a death by memory. 12 more cases run tcplab's commands on its own
outputs (#35: `query` with hostile SQL, `report` and `compare` on damaged results), 12
mutated sweep tables and sweep files (`tcplab sweep`) and 4 mutated study files
(`tcplab reproduce DIR --quick`). ``make fuzz`` runs 6,000, 1,000, 2,500 and 500
(tests/fuzz/run.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_80_fuzzed_scenarios_end_in_exit_0_or_a_clear_exit_2(tmp_path):
    # Two fuzzers side by side (a core each when this file runs alone), about
    # equally long: 40 scenarios and the output commands in one; 40 scenarios from
    # another seed and the sweep and study files in the other (#32: CI time; `make fuzz`
    # runs 10,000 cases).
    runs = {name: subprocess.Popen([sys.executable, "-m", "fuzz.run", *args, "--failures", str(tmp_path / name)],
                                   cwd=TESTS, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for name, args in [("outputs", ["--cases", "40", "--output-cases", "12"]),
                               ("files", ["--cases", "40", "--seed", "20261127", "--sweep-cases", "12",
                                          "--study-cases", "4"])]}
    counts: dict[str, int] = {}
    for name, p in runs.items():
        stdout, stderr = p.communicate(timeout=1800)
        print(stdout)
        failures = sorted(path.name for path in (tmp_path / name).glob("*")) if (tmp_path / name).exists() else []
        assert p.returncode == 0, f"{name}: {failures}\n{stdout}\n{stderr[-3000:]}"
        for line in stdout.splitlines()[1:]:
            if line.strip():
                counts[line.split()[0]] = counts.get(line.split()[0], 0) + int(line.split()[1])
    assert sum(counts.values()) == 108
    # The fuzzer exercises both sides: runs that complete and inputs that are refused.
    assert counts.get("ok", 0) >= 10 and counts.get("refused", 0) >= 40, counts
