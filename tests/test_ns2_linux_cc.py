"""Congestion control against the Linux 2.6.22 modules as ns-2.35 runs them
(tests/ns2/linux_cc.py; README.md there, case (f)). CI runs the 1 Gbit/s, 50 ms path
for 20 s with every algorithm; `make differential` runs both paths in full.

Each algorithm's goodput must agree within ±10%, and its peak and mean cwnd too. tcplab
recovers by ns-2's TCP/Linux rules, which are not Linux's (tests/ns2/README.md, case (f)).
"""

from __future__ import annotations

import sys

import pytest

from conftest import REPO
from test_ns2_differential import ensure_ns2

sys.path.insert(0, str(REPO / "tests" / "ns2"))
import linux_cc  # noqa: E402

@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    ns = ensure_ns2()
    rows = linux_cc.compare(linux_cc.QUICK, list(linux_cc.ALGORITHMS), ns)
    out = tmp_path_factory.mktemp("linux_cc")
    for figure in linux_cc.plot(rows, out):
        print(f"\ncwnd trajectories: {figure}")
    print("\n" + linux_cc.table(rows))
    return {r.cc: r for r in rows}


@pytest.mark.parametrize("cc", list(linux_cc.ALGORITHMS))
def test_goodput_agrees_with_the_linux_module(rows, cc):
    row = rows[cc]
    assert row.ok, f"{cc}: tcplab {row.ours.goodput_bps / 1e6:.1f} vs ns-2 {row.ns2.goodput_bps / 1e6:.1f} Mbit/s"


def test_cwnd_trajectories_have_the_same_shape(rows):
    """Peak and mean cwnd over the run agree within 10% (the shapes are in the plot)."""
    for cc, row in rows.items():
        for stat in (max, lambda xs: sum(xs) / len(xs)):
            ours, theirs = stat([c for _, c in row.ours.cwnd]), stat([c for _, c in row.ns2.cwnd])
            assert abs(ours / theirs - 1) <= 0.10, f"{cc}: {ours:.0f} vs {theirs:.0f}"
