"""ns-2's runs of the studies' own points (tests/ns2/studies.py, #30 item 1): the stored
reference is what ns-2 gives today, and a study's report grades ns-2 on the points its
own run covered, no more."""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest
from conftest import REPO
from test_ns2_differential import ensure_ns2

sys.path.insert(0, str(REPO / "tests" / "ns2"))
import study_jumbo  # noqa: E402
import study_lan  # noqa: E402

LAN_REFERENCE = REPO / "python" / "tcplab" / "studies" / "lan" / "ns2.json"
JUMBO_REFERENCE = REPO / "python" / "tcplab" / "studies" / "jumbo" / "ns2.json"


@pytest.mark.parametrize("sweep, point", [
    ("buffer_star", {"buffer": 60, "delay_ms": 20}),
    ("buffer_one_client", {"buffer": 30, "delay_ms": 20}),
    ("rto_star", {"rto_s": 0.025, "delay_ms": 1}),
    ("rto_default_star", {"delay_ms": 0.1}),
    ("rto_segment", {"rto_s": 0.1, "delay_ms": 1}),
])
def test_lan_reference_is_what_ns2_gives_today(sweep, point):
    """ns-2 draws no random number on the star and seeded ones on the segment: a rerun
    repeats the stored figures to the digit, or the stored reference (and every ns-2
    grade the lan report shows) is stale."""
    ns = ensure_ns2()
    stored = next(p for p in json.loads(LAN_REFERENCE.read_text())["points"]
                  if p["sweep"] == sweep and p["point"] == point)
    ns_run = next(r for w, params, r in study_lan.points() if w == sweep and params == point)
    assert study_lan.run((sweep, point, ns_run), len(stored["runs"]["goodput_bps"]), ns)["runs"] == stored["runs"]


def test_jumbo_reference_is_what_ns2_gives_today():
    """Replication 1 of the narrow backbone with jumbo frames, byte-mode RED, 5% loss
    (RED's drops and the loss draw from seeded streams): the rerun repeats the stored
    first replication to the digit."""
    ns = ensure_ns2()
    point = {"backbone": "narrow", "frames": "jumbo", "red": "byte", "condition": "loss5"}
    stored = next(p for p in json.loads(JUMBO_REFERENCE.read_text())["points"] if p["point"] == point)
    options = next(o for _, params, o in study_jumbo.points() if params == point)
    rerun = study_jumbo.run(("table2", point, options), 1, ns)
    for node, columns in stored["flows"].items():
        for column, values in columns.items():
            assert rerun["flows"][node][column] == values[:1], (node, column)
    assert rerun["links"]["b->c"]["queue_max_bytes"] == stored["links"]["b->c"]["queue_max_bytes"][:1]


def test_jumbo_points_read_the_path_length_cases_from_the_study():
    """The far and near cases' access delays are the study's own (study.toml), not a copy:
    node 7's path is the longest in delay_far (23 ms a hop) and the shortest in delay_near."""
    far = next(o for _, p, o in study_jumbo.points() if p["condition"] == "delay_far")
    near = next(o for _, p, o in study_jumbo.points() if p["condition"] == "delay_near")
    far_ms, near_ms = ([float(x) for x in o["access"].split(",")] for o in (far, near))
    assert far_ms[7] == max(far_ms) == 23 and near_ms[7] == min(near_ms) == 5


def test_the_rto_sweeps_run_ns2_with_a_fixed_rto_and_the_window_of_50():
    """The points say what the study says: a 50-packet window in the RTO sweeps, ns-2.35's
    defaults elsewhere, a fixed RTO as minrto_ = maxrto_, on the star and on the segment."""
    def args(sweep: str, **where) -> dict:
        run = next(r for w, params, r in study_lan.points() if w == sweep and all(params[k] == v for k, v in where.items()))
        return dict(a.split("=") for a in run.args)

    for sweep in ("rto_star", "rto_segment"):
        a = args(sweep, rto_s=0.1)
        assert (a["window"], a["iw"], a["minrto"], a["maxrto"], a["rtoinit"], a["tick"]) == ("50", "2", "0.1", "0.1", "0.1", "0.01")
    for sweep in ("rto_default_star", "rto_default_segment"):
        a = args(sweep)
        assert (float(a["minrto"]), float(a["maxrto"]), float(a["rtoinit"])) == (0.2, 60.0, 3.0)
    assert args("buffer_segment", buffer=70)["window"] == "70"


def test_the_reference_is_graded_on_the_points_tcplab_ran():
    """A quick run's optimum over its coarse grid must be set against ns-2's optimum over
    the same grid: the reference's summary keeps only the points tcplab's has."""
    from tcplab.studies.reference import Reference

    points = [{"sweep": "rto_star", "point": {"rto_s": r, "delay_ms": 1}, "runs": {"goodput_bps": [g]}}
              for r, g in ((0.05, 9.0e6), (0.075, 9.6e6), (0.1, 9.4e6))]
    ref = Reference("test", points)
    ours = {"rto_star": pd.DataFrame({"rto_s": [0.05, 0.1], "delay_ms": [1.0, 1.0], "goodput_bps": [1.0, 2.0]})}
    assert sorted(ref.summaries(on=ours)["rto_star"]["rto_s"]) == [0.05, 0.1]
    assert sorted(ref.summaries()["rto_star"]["rto_s"]) == [0.05, 0.075, 0.1]
    assert "rto_star" not in ref.summaries(on={})
