"""ns-2's answer on the studies' own points (#30 item 1), one file per study beside it
(``<study>/ns2.json``), which the study report grades every conclusion it can on.

highspeed (this file): Table 2 (one flow, 5 variants × 5 RTTs), Table 3 (two flows of
one variant, RTT 10 ms and 10/20/30/60 ms) and TCP-friendliness (Reno against each
variant, 10 and 100 ms), run by ns-2.35's Agent/TCP/Linux with the Linux 2.6.22
modules of the same names, on the study's default reading: 1 Gbit/s bottleneck,
50-packet DropTail, 10 Gbit/s access, Bernoulli 10^-6 loss, 60 s.

Each point is rendered with the differential suite's ns-2 script writer
(tests/differential/ns2.py: the same topology, queue and loss conventions that suite
checks against tcplab), so the reference is ns-2 running the paper's experiment, not
a copy of tcplab's choices. The study report reads the values back
(``python/tcplab/studies/highspeed/ns2.json``) and grades every conclusion it can on
them, next to tcplab's grade.

lan: tests/ns2/study_lan.py; jumbo: tests/ns2/study_jumbo.py.

    python tests/ns2/studies.py [--study highspeed|lan|jumbo] [--seeds 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "differential"))
import ns2 as differential  # noqa: E402
from tcplab.differential.space import Flow, Loss, Sample  # noqa: E402

#: The study's variant names → ns-2 TCP/Linux module names.
MODULES = {"reno": "reno", "hstcp": "highspeed", "stcp": "scalable", "bic": "bic", "cubic": "cubic"}
NECK_BPS, QUEUE, ACCESS_FACTOR, LOSS, DURATION_S = 1e9, 50, 10.0, 1e-6, 60.0
STUDIES_DIR = HERE.parent.parent / "python" / "tcplab" / "studies"
REFERENCE = ("ns-2.35 Agent/TCP/Linux (Linux 2.6.22 modules), TCPSink/Sack1, one ACK per segment, timestamps; "
             "tests/ns2/studies.py")


def _sample(index: int, rtts_s: list[float], ccs: list[str]) -> Sample:
    flows = tuple(Flow("tcp", MODULES[cc], rtt, (0,)) for cc, rtt in zip(ccs, rtts_s, strict=True))
    return Sample("ns2-linux", 0, index, "dumbbell", NECK_BPS, min(rtts_s), QUEUE, ACCESS_FACTOR, flows, DURATION_S,
                  loss=Loss(LOSS))


def points() -> list[tuple[str, dict, Sample]]:
    """(sweep, point parameters, ns-2 sample) of every reference point."""
    out = []
    for cc in MODULES:
        for rtt in (10, 50, 100, 150, 200):
            out.append(("table2_2618", {"variant": cc, "rtt_ms": rtt}, _sample(len(out), [rtt / 1e3], [cc])))
    for cc in MODULES:
        for ratio in (1, 2, 3, 6):
            out.append(("table3", {"variant": cc, "rtt_ratio": ratio},
                        _sample(len(out), [0.010, 0.010 * ratio], [cc, cc])))
    for cc in ("hstcp", "stcp", "bic", "cubic"):
        for rtt in (10, 100):
            out.append(("friendliness", {"variant": cc, "rtt_ms": rtt},
                        _sample(len(out), [rtt / 1e3, rtt / 1e3], ["reno", cc])))
    return out


def _run(point, seeds: int, ns: str) -> dict:
    sweep, params, sample = point
    with tempfile.TemporaryDirectory() as tmp:
        runs = [differential.run_ns2(sample, seed, Path(tmp), ns) for seed in range(1, seeds + 1)]
    flows = {f"f{i}": [r.goodput_bps[i] for r in runs] for i in range(len(sample.flows))}
    total = [sum(r.goodput_bps) for r in runs]
    jain = [sum(r.goodput_bps) ** 2 / (len(r.goodput_bps) * sum(g * g for g in r.goodput_bps)) for r in runs]
    print(f"{sweep} {params}: " + ", ".join(f"{k} {sum(v) / len(v) / 1e6:.1f} Mb/s" for k, v in flows.items()),
          flush=True)
    return {"sweep": sweep, "point": params, "runs": {"goodput_bps": total, "jain": jain},
            "flows": {k: {"goodput_bps": v} for k, v in flows.items()}}


def _studies() -> dict:
    """Study name → (its points, the runner of one point, the reference's description)."""
    import study_jumbo
    import study_lan

    return {"highspeed": (points, _run, REFERENCE), "lan": (study_lan.points, study_lan.run, study_lan.REFERENCE),
            "jumbo": (study_jumbo.points, study_jumbo.run, study_jumbo.REFERENCE)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--study", choices=["highspeed", "lan", "jumbo"], default="highspeed")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, help="default: python/tcplab/studies/<study>/ns2.json")
    args = ap.parse_args(argv)
    ns = shutil.which("ns")
    if ns is None:
        print("ns-2 (`ns`) is not installed: requirements/debian.txt", file=sys.stderr)
        return 2
    study_points, run_point, reference = _studies()[args.study]
    out = args.out or STUDIES_DIR / args.study / "ns2.json"
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda p: run_point(p, args.seeds, ns), study_points()))
    doc = {"reference": reference, "seeds": args.seeds, "points": results}
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
