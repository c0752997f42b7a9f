"""SCTP against ns-2.35's Agent/SCTP (tests/ns2/sctp.py): the reduced set CI runs — a
clean 10 MB transfer of 256-byte messages (bundling) and 2 MB of 1,024-byte messages
under 3% loss (five seeds), and the sctp study's 0.1 ms path with 3% loss (50 MB, five
seeds). `python tests/ns2/sctp.py` runs every case, `--study` the study's regimes."""

from __future__ import annotations

import sys

import pytest

from conftest import REPO
from test_ns2_differential import ensure_ns2

sys.path.insert(0, str(REPO / "tests" / "ns2"))
import sctp  # noqa: E402


@pytest.mark.parametrize("case", sctp.QUICK + sctp.STUDY_QUICK, ids=[c.name for c in sctp.QUICK + sctp.STUDY_QUICK])
def test_completion_and_packets_agree_with_ns2(case: sctp.Case):
    theirs, ours = sctp.compare(case, ensure_ns2())
    print(f"\n{case.name}: completion {ours.completion_s:.3f} s vs ns-2 {theirs.completion_s:.3f} s, "
          f"packets {ours.packets:,.0f} vs {theirs.packets:,.0f}")
    assert ours.completion_s == pytest.approx(theirs.completion_s, rel=sctp.COMPLETION_TOLERANCE)
    assert ours.packets == pytest.approx(theirs.packets, rel=sctp.PACKETS_TOLERANCE)
