"""The scenario fuzzer: ``python -m fuzz.run --cases N`` (from tests/; ``make fuzz``
runs 5,000). Generates cases with Hypothesis from a fixed seed, runs each as the
``tcplab`` command (see :mod:`fuzz.harness`), prints the outcome counts, and writes
every failing case (scenario file, command line, what went wrong) under --failures.
``--output-cases M`` adds M cases on tcplab's own outputs: ``tcplab query`` with hostile
SQL on a small sweep, ``tcplab report`` and ``tcplab compare`` on a results directory
with a file damaged (#35); ``--sweep-cases`` mutated sweep tables and sweep files
(``tcplab sweep``); ``--study-cases`` a shipped study with its study.toml mutated
(``tcplab reproduce DIR --quick``). Exit status 1 if any case failed."""

from __future__ import annotations

import os

# One thread per math library: the fuzzer forks a child per case.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .harness import run_case, summarize  # noqa: E402
from .strategies import RESULT_FILES, Case, cases, query_cases, results_cases, study_cases, sweep_cases  # noqa: E402

#: The fixtures output cases damage: a results directory and a sweep, both small.
FIXTURE_SCENARIO = """
[simulation]
duration = "1s"
[topology.dumbbell]
pairs = 2
access = { bandwidth = "100Mbps", delay = "1ms" }
bottleneck = { bandwidth = "10Mbps", delay = "10ms", queue = { type = "droptail", limit = "20 packets" } }
[[flow]]
name = "tcp"
from = "left0"
to = "right0"
app = { type = "bulk" }
transport = { type = "tcp", cc = "cubic" }
[[flow]]
name = "udp"
from = "left1"
to = "right1"
app = { type = "cbr", rate = "2Mbps", packet_size = "1000B" }
transport = "udp"
"""
FIXTURE_SWEEP = """
[sweep]
replications = 1
[sweep.parameters]
limit = { values = [10, 40], set = { "topology.dumbbell.bottleneck.queue.limit" = "{limit} packets" } }
"""


#: The shipped study whose study.toml the study cases mutate: its quick run takes
#: seconds, and its checks cover ratios, differences, trends, optima and bands.
FUZZED_STUDY = "sctp"


def make_fixtures(root: Path) -> dict[str, Path]:
    """``res`` (and ``base``, the same): a results directory; ``sweep``: a sweep."""
    import subprocess

    root.mkdir(parents=True, exist_ok=True)
    (root / "scenario.toml").write_text(FIXTURE_SCENARIO)
    (root / "sweep.toml").write_text(FIXTURE_SCENARIO + FIXTURE_SWEEP)
    for cmd in (["run", "scenario.toml", "--out", "res", "--no-plots"], ["sweep", "sweep.toml", "--out", "sweep"]):
        subprocess.run([sys.executable, "-m", "tcplab", *cmd], cwd=root, check=True, capture_output=True)
    return {"res": root / "res", "base": root / "res", "sweep": root / "sweep"}


def make_sweep_fixtures(root: Path) -> dict[str, Path]:
    """``base``: a directory holding the scenario a sweep file names (base/scenario.toml)."""
    (root / "base").mkdir(parents=True, exist_ok=True)
    (root / "base" / "scenario.toml").write_text(FIXTURE_SCENARIO)
    return {"base": root / "base"}


def make_study_fixtures(root: Path) -> dict[str, Path]:
    """``study``: FUZZED_STUDY's files (``reproduce --export``); ``study-out``: its
    finished quick run, which a case resumes."""
    import subprocess

    root.mkdir(parents=True, exist_ok=True)
    for cmd in (["reproduce", FUZZED_STUDY, "--export", "study"],
                ["reproduce", "study", "--quick", "--out", "study-out", "--jobs", "1"]):
        subprocess.run([sys.executable, "-m", "tcplab", *cmd], cwd=root, check=True, capture_output=True)
    return {"study": root / "study", "study-out": root / "study-out"}


def fuzz(n: int, time_limit_s: float, failures: Path, fuzz_seed: int, warn_after_s: float,
         output_cases: int = 0, sweep_cases_n: int = 0, study_cases_n: int = 0) -> Counter:
    """Runs ``n`` scenario cases, ``output_cases`` cases on tcplab's outputs,
    ``sweep_cases_n`` sweep files and ``study_cases_n`` study files; returns the
    outcome counts."""
    import tcplab.cli  # noqa: F401  (loaded once, before the children fork)

    # Serializing 3,000 levels of nesting needs a deep stack here; each child gets
    # the interpreter's default back before tcplab runs (see harness._child).
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))

    os.environ["TCPLAB_WARN_AFTER_S"] = str(warn_after_s)
    outcomes: Counter = Counter()
    scratch = Path(tempfile.mkdtemp(prefix="tcplab-fuzz-"))
    started = time.monotonic()

    fixtures: dict[str, Path] = {}

    def one(case: Case) -> None:
        k = sum(outcomes.values())
        workdir = scratch / f"case{k}"
        outcome = run_case(case, workdir, time_limit_s, fixtures)
        outcomes[outcome.kind] += 1
        if outcome.failed:
            target = failures / f"case{k}-{outcome.kind}"
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            (target / case.filename).parent.mkdir(parents=True, exist_ok=True)
            (target / case.filename).write_bytes(case.content)
            (target / "case.json").write_text(json.dumps({"command": case.command, "args": case.args, "out": case.out,
                                                          "plots": case.plots, "argv": case.argv,
                                                          "fixtures": list(case.fixtures), "outcome": outcome.kind,
                                                          "detail": outcome.detail}, indent=2))
            print(f"case {k}: {outcome.kind}: {outcome.detail[-300:]}", file=sys.stderr, flush=True)
        shutil.rmtree(workdir, ignore_errors=True)
        if (k + 1) % 100 == 0:
            print(f"{k + 1} cases, {time.monotonic() - started:.0f} s: {dict(outcomes)}", file=sys.stderr, flush=True)

    def drive(strategy, examples: int) -> None:
        if examples <= 0:
            return
        seed(fuzz_seed)(settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
                                 suppress_health_check=list(HealthCheck))(given(strategy)(one)))()

    try:
        drive(cases(), n)
        if output_cases:
            fixtures.update(make_fixtures(scratch / "fixtures"))
            originals = {name: (fixtures["res"] / name).read_bytes() for name in RESULT_FILES}
            drive(st.one_of(query_cases(), results_cases(originals)), output_cases)
        if sweep_cases_n:
            fixtures.update(make_sweep_fixtures(scratch / "fixtures"))
            drive(sweep_cases(), sweep_cases_n)
        if study_cases_n:
            import tomllib

            fixtures.update(make_study_fixtures(scratch / "fixtures"))
            original = tomllib.loads((fixtures["study"] / "study.toml").read_text())
            drive(study_cases(original), study_cases_n)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return outcomes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=20261123, help="Hypothesis seed (fixed: the same cases every time)")
    ap.add_argument("--time-limit", type=float, default=30.0, help="wall seconds per case")
    ap.add_argument("--warn-after", type=float, default=5.0,
                    help="TCPLAB_WARN_AFTER_S for the runs: a case may outlast --time-limit only if announced")
    ap.add_argument("--output-cases", type=int, default=0,
                    help="cases on tcplab's outputs (query, report, compare) after the scenario cases")
    ap.add_argument("--sweep-cases", type=int, default=0, help="mutated sweep tables and sweep files (tcplab sweep)")
    ap.add_argument("--study-cases", type=int, default=0,
                    help=f"the {FUZZED_STUDY} study with a mutated study.toml (tcplab reproduce DIR --quick)")
    ap.add_argument("--failures", type=Path, default=Path("fuzz-failures"))
    args = ap.parse_args()
    outcomes = fuzz(args.cases, args.time_limit, args.failures, args.seed, args.warn_after, args.output_cases,
                    args.sweep_cases, args.study_cases)
    print(summarize(outcomes))
    sys.exit(1 if any(kind not in ("ok", "refused", "announced_timeout") for kind in outcomes) else 0)


if __name__ == "__main__":
    main()
