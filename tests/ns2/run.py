"""Runs the tcplab-vs-ns-2 differential suite and prints the table (Markdown).

    python tests/ns2/run.py            # every case (make differential)
    python tests/ns2/run.py --quick    # the reduced set CI runs
    python tests/ns2/run.py --out tests/ns2/RESULTS.md

Exit status 0 when every case meets the agreement targets, 1 when some do not (the
table says which and README.md in this folder says why), 2 when ns-2 is missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases  # noqa: E402


def row(c: cases.Comparison) -> str:
    o, t = c.ours, c.theirs
    seeds = len(c.case.seeds)
    spread = f" ±{c.ours_spread:.2f} / ±{c.theirs_spread:.2f}" if seeds > 1 else ""
    classes = ""
    if c.case.classes:
        classes = "; ".join(
            f"{k + 40} B: {o.class_goodput_mbps.get(k, 0):.2f} / {t.class_goodput_mbps.get(k, 0):.2f}"
            for k in c.case.classes
        )
    verdict = "agrees" if not c.failures() else "; ".join(c.failures())
    return (
        f"| {c.case.group} | {c.case.name} | {seeds} | {o.goodput_mbps:.3f} / {t.goodput_mbps:.3f}{spread} "
        f"| {c.goodput_error:+.1%} | {o.drops:.1f} / {t.drops:.1f} | {c.drops_error:+.1%} "
        f"| {o.timeouts:g} / {t.timeouts:g} | {o.retransmits:g} / {t.retransmits:g} | {classes} | {verdict} |"
    )


HEADER = (
    "| case | scenario | seeds | goodput Mbit/s tcplab / ns-2 (± sd over seeds) | Δ goodput "
    "| queue drops tcplab / ns-2 | Δ drops | timeouts | retransmitted packets | goodput by packet size "
    "| verdict |\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the reduced set CI runs")
    ap.add_argument("--group", default="abcde", help="case groups to run (default: abcde)")
    ap.add_argument("--out", type=Path, help="also write the table to this file")
    args = ap.parse_args(argv)
    ns = cases.ns2_binary()
    if not ns:
        print("ns-2 is not installed (Debian package ns2: apt-get install ns2)", file=sys.stderr)
        return 2
    selected = [c for c in cases.select(args.quick) if c.group in args.group]
    lines = [HEADER]
    print(HEADER, flush=True)
    failed = 0
    for i, case in enumerate(selected, 1):
        start = time.monotonic()
        comparison = cases.measure(case, ns)
        failed += bool(comparison.failures())
        lines.append(row(comparison))
        print(lines[-1], flush=True)
        print(f"  [{i}/{len(selected)}] {time.monotonic() - start:.1f} s", file=sys.stderr, flush=True)
    summary = f"\n{len(selected) - failed} of {len(selected)} cases meet every target."
    print(summary)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n" + summary + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
