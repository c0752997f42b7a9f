"""Whether an emulated run kept time (#35 item 7): the verdict on its self-calibration,
by hand-made figures against the documented bounds; the report and an emulated sweep
say it. The real runs' verdicts are checked in test_emu.py (root)."""

from __future__ import annotations

import pytest
from tcplab.emu import EmuError
from tcplab.emu.timekeeping import FLAG, REFUSE, describe, judge
from tcplab.report import _emulation_section

IDLE_FORWARDER = {"lateness_mean_ms": 0.045, "lateness_max_ms": 3.1, "lateness_bounds_ms": [0.1, 0.5, 1, 2, 5],
                  "lateness_histogram": [990, 8, 2, 0, 0, 0, 0, 0], "written_packets": 1000, "unroutable": 0,
                  "write_failures": 0}


def _delay(configured: float, measured: float) -> dict:
    return {"flow": "f0", "what": "min RTT", "configured_ms": configured, "measured_ms": measured,
            "deviation_ms": measured - configured}


def _rate(deviation_pct: float | None) -> dict:
    achieved = None if deviation_pct is None else 10e6 * (1 + deviation_pct / 100)
    return {"link": "a->b", "configured_bps": 10e6, "achieved_bps": achieved, "deviation_pct": deviation_pct,
            "busy_s": 5.0, "intervals": 4000}


@pytest.mark.parametrize("calibration, rates, lateness, verdict", [
    # docs/emulation.md's idle figures: 10.000 ms against 10.004 ms, 10.000 Mb/s.
    ([_delay(10.004, 10.000)], [_rate(0.0)], 0.045, "kept"),
    # Within the flag bound (max(1 ms, 5%) of 40.1 ms = 2.005 ms): 38.2 is 1.9 ms short.
    ([_delay(40.1, 38.2)], [_rate(1.9)], 0.19, "kept"),
    # The loaded run: 1.8 ms short of 40.1 is kept, 12 ms short is beyond the
    # refuse bound (max(5 ms, 20%) = 8.02 ms).
    ([_delay(40.1, 38.3), _delay(40.1, 28.1)], [_rate(0.0)], 0.045, "unreliable"),
    ([_delay(40.1, 36.0)], [_rate(0.0)], 0.045, "flagged"),  # 4.1 ms: beyond 2.005, within 8.02
    ([_delay(2.0, 3.2)], [_rate(0.0)], 0.045, "flagged"),    # 1.2 ms on a 2-ms path: the 1-ms floor
    ([_delay(10.0, 10.0)], [_rate(-2.5)], 0.045, "flagged"),
    ([_delay(10.0, 10.0)], [_rate(-12.0)], 0.045, "unreliable"),
    # Above the configured rate is the lateness of each busy period's first packet
    # (measured on a 1-Gb/s access link of an idle run), not a faster link.
    ([_delay(10.0, 10.0)], [_rate(96.5)], 0.045, "kept"),
    ([_delay(10.0, 10.0)], [_rate(None)], 0.3, "flagged"),
    ([_delay(10.0, 10.0)], [_rate(None)], 2.5, "unreliable"),
    ([{**_delay(10.0, 10.0), "measured_ms": None, "deviation_ms": None}], [], 0.045, "kept"),
])
def test_the_verdict_by_hand(calibration, rates, lateness, verdict):
    kept = judge(calibration, rates, {**IDLE_FORWARDER, "lateness_mean_ms": lateness})
    assert kept["verdict"] == verdict, kept
    assert bool(kept["problems"]) == (verdict != "kept")
    assert kept["flag"]["delay_ms"] == FLAG.delay_ms and kept["refuse"]["rate_pct"] == REFUSE.rate_pct


def test_the_problems_name_the_flow_link_and_bound():
    kept = judge([_delay(40.1, 28.1)], [_rate(-12.0)], {**IDLE_FORWARDER, "lateness_mean_ms": 2.5})
    said = describe(kept)
    assert said.startswith("the emulator could not keep time: the results are unreliable")
    assert "flow f0: measured base delay 28.10 ms against 40.10 ms configured (-12.00 ms; ±8.02 ms allowed)" in said
    assert "link a->b: 8.800 Mb/s achieved against 10.000 configured (-12.0%; 10% below allowed)" in said
    assert "2.50 ms late on average (2 ms allowed)" in said
    assert describe(judge([_delay(10.0, 10.0)], [], IDLE_FORWARDER)) is None


def test_the_report_says_the_verdict():
    summary = {"emulation": {"forwarder": IDLE_FORWARDER, "calibration": [_delay(40.1, 36.0)], "link_rates": [],
                             "errors": [], "timekeeping": judge([_delay(40.1, 36.0)], [], IDLE_FORWARDER)}}
    html = _emulation_section(summary)
    assert "<b>Flagged</b>" in html and "flow f0: measured base delay 36.00 ms" in html
    summary["emulation"]["timekeeping"] = judge([_delay(10.0, 10.0)], [], IDLE_FORWARDER)
    assert "<b>Kept time</b>" in _emulation_section(summary)
    del summary["emulation"]["timekeeping"]  # results written before the verdict existed
    assert "Kept time" not in _emulation_section(summary)


def test_an_emulated_sweep_records_an_unreliable_run_as_failed(monkeypatch):
    from types import SimpleNamespace

    import tcplab.emu
    from tcplab.sweeps import task

    unreliable = judge([_delay(40.1, 28.1)], [], IDLE_FORWARDER)
    monkeypatch.setattr(tcplab.emu, "emulate", lambda scenario: SimpleNamespace(
        summary={"emulation": {"timekeeping": unreliable}, "wall_time_s": 1.0}, series=None))
    with pytest.raises(EmuError, match="could not keep time.*flow f0"):
        task._emulate(object())
