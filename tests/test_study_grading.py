"""How strictly a study's conclusions are reproduced (#30): grades against hand-worked
cases, the table checks (rank and cells) against hand-computed values, Spearman's ρ
against its textbook formula over random lists, and the figures' paper overlay against
the numbers of ../shared/EXPERIMENTS.md."""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tcplab.studies import StudyError, export_study, load_study
from tcplab.studies.checks import Outcome, evaluate, spearman
from tcplab.studies.grading import grade, summary_line


def _conclusion(**check) -> dict:
    return {"text": "t", "check": {"kind": "measure_ratio", **check}}


@pytest.mark.parametrize("check, value, holds, expected", [
    # One-sided, the paper's x5.6: tcplab x2.1 holds the bound "at least x2" but is not x5.6.
    ({"min": 2, "published": 5.6}, 2.1, True, "bound"),
    # ... x4.0 is within x1.5 of x5.6 (3.73 … 8.4): reproduced.
    ({"min": 2, "published": 5.6}, 4.0, True, "reproduced"),
    ({"min": 2, "published": 5.6}, 9.0, True, "bound"),
    # A direction the paper states without a number can only be a bound.
    ({"max": 0.5}, 0.1, True, "bound"),
    # A two-sided band around the paper's value: inside it is a reproduction.
    ({"min": 1.2, "max": 1.3, "published": 1.25}, 1.27, True, "reproduced"),
    ({"min": 1.2, "max": 1.3, "published": 1.25}, 0.96, False, "fails"),
    ({"min": 2, "published": 5.6}, None, None, "not decided"),
])
def test_grades_by_hand(check, value, holds, expected):
    outcome = Outcome(holds, "", value=value)
    assert grade(_conclusion(**check), outcome, 1.5).word == expected


def test_per_group_values_all_need_to_be_within_the_band():
    conclusion = {"text": "t", "check": {"kind": "rise", "min_ratio": 1.25}, "paper": 2.0}
    assert grade(conclusion, Outcome(True, "", value=[1.5, 2.5]), 1.5).word == "reproduced"
    assert grade(conclusion, Outcome(True, "", value=[1.5, 3.5]), 1.5).word == "bound"


def test_inputs_are_shown_but_never_counted():
    conclusion = {"text": "t", "input": True, "check": {"kind": "value", "min": 0.95, "max": 1.05}}
    g = grade(conclusion, Outcome(True, "", value=1.0), 1.5)
    assert g.word == "input"
    assert summary_line([g]) == ("Of 0 published findings checked: 0 reproduced, 0 hold only as a bound, 0 fail, "
                                 "0 not decided (1 input checks not counted).")


def test_spearman_by_hand():
    # ranks 4 3 2 1 against 4 2 3 1: sum of d^2 = 2, rho = 1 - 6 * 2 / (4 * 15) = 0.8
    assert spearman([10, 20, 30, 40], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), min_size=3, max_size=12, unique_by=(
    lambda t: t[0], lambda t: t[1])))
def test_spearman_matches_the_formula_without_ties(pairs):
    """Without ties ρ = 1 − 6 Σd² / (n(n² − 1)) (Spearman 1904), an independent form."""
    a, b = [float(p[0]) for p in pairs], [float(p[1]) for p in pairs]
    n = len(a)

    def ranks(v):
        return {x: i for i, x in enumerate(sorted(v))}

    ra, rb = ranks(a), ranks(b)
    d2 = sum((ra[x] - rb[y]) ** 2 for x, y in zip(a, b, strict=True))
    assert spearman(a, b) == pytest.approx(1 - 6 * d2 / (n * (n * n - 1)), abs=1e-9)


_PUBLISHED = [  # the paper's Table 2 at 100 ms (Mbit/s), as the highspeed study lists it
    {"sweep": "t2", "where": {"variant": v, "rtt_ms": 100}, "column": "goodput_bps", "scale": 1e-6, "value": x}
    for v, x in {"reno": 88.96, "hstcp": 330.66, "stcp": 499.56, "bic": 478.37, "cubic": 268.90}.items()
]


def _summary(values: dict[str, float]) -> dict:
    return {"t2": pd.DataFrame({"variant": list(values), "rtt_ms": [100] * len(values),
                                "goodput_bps": [v * 1e6 for v in values.values()]})}


def test_ranking_against_the_papers_order():
    check = {"kind": "ranking", "sweep": "t2", "y": "goodput_bps", "by": "variant", "where": {"rtt_ms": 100},
             "min_rho": 0.8, "top": 1}
    same = evaluate(check, _summary({"reno": 30, "hstcp": 300, "stcp": 450, "bic": 440, "cubic": 150}), None, _PUBLISHED)
    assert same.holds and same.value == pytest.approx(1.0)
    # bic and stcp swapped at the top: rho = 1 - 6 * 2 / 120 = 0.9, but the leader differs.
    swapped = evaluate(check, _summary({"reno": 30, "hstcp": 300, "stcp": 440, "bic": 450, "cubic": 150}), None,
                       _PUBLISHED)
    assert swapped.holds is False and swapped.value == pytest.approx(0.9)
    assert "paper: stcp > bic > hstcp > cubic > reno" in swapped.detail


@pytest.mark.parametrize("jain, expected", [
    # CUBIC clearly the fairest: 0.80 - 0.60 = 0.20 > 0.05 + 0.05.
    ({"cubic": (0.80, 0.05), "reno": (0.60, 0.05), "stcp": (0.50, 0.01)}, "reproduced"),
    # Reno clearly ahead of the paper's CUBIC: a failure.
    ({"cubic": (0.58, 0.01), "reno": (0.70, 0.02), "stcp": (0.50, 0.01)}, "fails"),
    # Reno ahead by 0.027, the half-widths 0.034 + 0.036: the runs cannot tell.
    ({"cubic": (0.585, 0.036), "reno": (0.612, 0.034), "stcp": (0.505, 0.001)}, "not decided"),
    # CUBIC ahead, but the runner-up within the noise: not a reproduction either.
    ({"cubic": (0.62, 0.03), "reno": (0.60, 0.03), "stcp": (0.50, 0.01)}, "not decided"),
])
def test_an_extreme_is_decided_only_outside_the_noise(jain, expected):
    df = pd.DataFrame([{"variant": v, "rtt_ratio": 6, "jain": m, "jain_ci": ci} for v, (m, ci) in jain.items()])
    check = {"kind": "extreme", "sweep": "t3", "y": "jain", "by": "variant", "where": {"rtt_ratio": 6},
             "largest": True, "expect": "cubic"}
    outcome = evaluate(check, {"t3": df})
    assert grade({"text": "t", "check": check}, outcome, 1.5).word == expected, outcome.detail


def test_cells_within_a_factor():
    check = {"kind": "cells", "sweep": "t2", "y": "goodput_bps", "factor": 1.5}
    near = {"reno": 88.96 * 1.4, "hstcp": 330.66 / 1.4, "stcp": 499.56, "bic": 478.37, "cubic": 268.9}
    assert evaluate(check, _summary(near), None, _PUBLISHED).holds
    far = dict(near, reno=88.96 / 3)
    outcome = evaluate(check, _summary(far), None, _PUBLISHED)
    assert outcome.holds is False and outcome.value == pytest.approx(4 / 5)
    assert "variant = reno, rtt_ms = 100: ×0.33" in outcome.detail


def _sctp_study_edited(tmp_path, old: str, new: str) -> str:
    """The sctp study exported to ``tmp_path`` with the first ``old`` replaced by ``new``."""
    export_study(load_study("sctp"), tmp_path)
    study = tmp_path / "study.toml"
    text = study.read_text()
    assert old in text
    study.write_text(text.replace(old, new, 1))
    return str(tmp_path)


def test_a_band_that_excludes_the_papers_value_is_refused(tmp_path):
    edited = _sctp_study_edited(tmp_path, "min = 1.2, max = 1.3, published = 1.25", "min = 1.2, max = 1.3, published = 1.5")
    with pytest.raises(StudyError, match=r"conclusion\[\d+\]\.check: the paper's value 1.5 is outside its band"):
        load_study(edited)


def test_table2_figure_shows_the_papers_values(quick_reproduction):
    """The highspeed Table 2 figure carries the paper's numbers (EXPERIMENTS.md, Table 2
    at 10 and 100 ms) as reference markers, paired with the variant's line."""
    out = quick_reproduction("highspeed")
    html = (out / "report.html").read_text()
    charts = json.loads(re.search(r"id='tcplab-charts'>(.*?)</script>", html, re.S).group(1).replace("<\\/", "</"))
    table2 = next(c for c in charts if c["name"].startswith("fig01"))
    assert table2["xlabel"] == "RTT (ms)"
    lines = {ln["name"]: ln for ln in table2["panels"][0]["lines"]}
    stcp = lines["paper, variant = stcp"]
    assert stcp["role"] == "reference" and stcp["pair"] == "variant = stcp"
    xs = np.frombuffer(base64.b64decode(stcp["x"]), "<f8")
    ys = np.frombuffer(base64.b64decode(stcp["y"]), "<f4")
    assert dict(zip(xs.tolist(), ys.tolist(), strict=True)) == pytest.approx({10: 654.79, 100: 499.56}, rel=1e-6)
    md = (out / "report.md").read_text()
    assert re.search(r"\*\*Of \d+ published findings checked: \d+ reproduced, \d+ hold only as a bound, \d+ fail", md)


def test_prose_numbers_come_from_this_runs_catalog(quick_reproduction):
    """#30 item 2: each number the explanations quote is filled from the run's own
    catalog — checked against the catalog queried directly — and a quick run that did
    not run a quantity's sweep says n/a and names the sweep."""
    import duckdb
    from tcplab.studies.prose import render

    out = quick_reproduction("lan")
    con = duckdb.connect(str(out / "sweeps" / "buffer_star" / "catalog.duckdb"), read_only=True)
    (mean,) = con.execute("SELECT avg(goodput_bps) FROM runs WHERE delay_ms = 20 AND buffer = 10 AND status = 'ok'"
                          ).fetchone()
    con.close()
    quantities = load_study("lan").data["quantity"]
    text, missing = render("{star_20_10} and {star_1_10}", quantities, out)
    assert text == f"{mean * 1e-6:.2f} and n/a" and missing == ["star_1_10"]  # the quick run has no 1 ms points
    md = (out / "report.md").read_text()
    assert f"{mean * 1e-6:.2f} and " in md
    # The explanation quoting the one-client sweep's 1 and 10 ms points (full run only)
    # is left out, and the report names the sweep it needs.
    assert "n/a" not in md.split("## Where")[1].split("## Figures")[0]
    assert "points of buffer_one_client this run did not run and" in md


def test_an_explanation_beside_points_not_run_is_left_out_not_shown_with_na(quick_reproduction):
    """jumbo's quick run has no packet-mode RED points: its packet-mode explanation
    ("node 7 gains several-fold as the paper reports") had been printed with n/a in
    place of every number. It is left out, the byte-mode one it was split from stays."""
    md = (quick_reproduction("jumbo") / "report.md").read_text()
    differences = md.split("## Where tcplab differs")[1].split("## Figures")[0]
    assert "Narrow backbone, RED byte mode" in differences
    assert "RED packet mode" not in differences and "n/a" not in differences
    assert "more explanations need points of table2 this run did not run and are left out." in differences


@pytest.mark.parametrize("change, said", [
    ('{star_20_10}', "{nonexistent}"),
    ('star_20_10 = { sweep = "buffer_star"', 'star_20_10 = { sweep = "buffer_stra"'),
    # Found by the fuzzer (#35): a format that formats no number was an internal
    # error while the report was written, after the sweeps.
    ('{star_20_10}', "{star_20_10:1Tbps}"),
    ('scale = 1e-6, format = ".2f" }', 'scale = 1e-6, format = "1Tbps" }'),
])
def test_prose_that_names_nothing_is_refused(tmp_path, change, said):
    export_study(load_study("lan"), tmp_path)
    study = tmp_path / "study.toml"
    text = study.read_text()
    old, new = change, said
    assert old in text
    study.write_text(text.replace(old, new, 1))
    with pytest.raises(StudyError, match=r"names no \[quantity\]|declares no sweep 'buffer_stra'|"
                                         r"'1Tbps' is not a format for a number"):
        load_study(str(tmp_path))


def test_the_reference_simulator_is_graded_on_the_same_checks():
    """A reference's values go through the very checks tcplab's do: Table 3's ratio at
    RTT ratio 2 from two flows' goodputs, hand-made here (1.7 against the paper's 1.71:
    reproduced; 17 fails)."""
    from tcplab.studies.grading import grade
    from tcplab.studies.reference import Reference

    conclusion = next(c for c in load_study("highspeed").data["conclusion"]
                      if c["text"].startswith("Table 3, reno: short-RTT / long-RTT throughput at RTT ratio 2 "))

    def reference(long_flow: float) -> Reference:
        return Reference("test", [{"sweep": "table3", "point": {"variant": "reno", "rtt_ratio": 2},
                                   "runs": {"goodput_bps": [3.4e8 + long_flow]},
                                   "flows": {"f0": {"goodput_bps": [3.4e8]}, "f1": {"goodput_bps": [long_flow]}}}])

    for long_flow, word in ((2e8, "reproduced"), (2e7, "fails")):
        ref = reference(long_flow)
        outcome = evaluate(conclusion["check"], ref.summaries(), ref.measure, [])
        assert outcome.value == pytest.approx(3.4e8 / long_flow)
        assert grade(conclusion, outcome, 1.5).word == word


def test_a_published_table_expands_to_its_entries():
    """#34 item 5: a study's published numbers are one table (a row each); the loader
    expands the rows into the `[[published]]` entries the checks and the report read,
    by hand here, and refuses a row that does not fit its columns."""
    from tcplab.studies.published import expand

    table = {"sweep": "t2", "scale": 1e-6, "where": ["cc"], "row": ["id"],
             "columns": ["label", "value", "cc", "table", "id", "column"],
             "rows": [["reno: node 7", 9.6, "reno", "flows", "node7", "goodput_bps"],
                      ["reno: buffer", 11.4, "reno", "links", "b->c", "queue_max_bytes"]]}
    entries, problem = expand({"published": [{"label": "x", "value": 1, "sweep": "s", "column": "c"}],
                               "published_table": [table]})
    assert problem is None
    assert entries == [
        {"label": "x", "value": 1, "sweep": "s", "column": "c"},
        {"label": "reno: node 7", "value": 9.6, "sweep": "t2", "where": {"cc": "reno"}, "table": "flows",
         "row": {"id": "node7"}, "column": "goodput_bps", "scale": 1e-6},
        {"label": "reno: buffer", "value": 11.4, "sweep": "t2", "where": {"cc": "reno"}, "table": "links",
         "row": {"id": "b->c"}, "column": "queue_max_bytes", "scale": 1e-6},
    ]
    short = {**table, "rows": [["reno: node 7", 9.6, "reno", "flows", "node7"]]}
    assert expand({"published_table": [short]})[1] == "published_table[0].rows[0]: 5 values for 6 columns"
    text = {**table, "rows": [["reno: node 7", "9.6", "reno", "flows", "node7", "goodput_bps"]]}
    assert expand({"published_table": [text]})[1] == "published_table[0].rows[0]: value: expected a number, got '9.6'"
    unnamed = {**table, "columns": ["label", "value", "table", "id", "column"]}
    assert expand({"published_table": [unnamed]})[1].startswith("published_table[0].columns: missing cc")


def test_the_shipped_studies_publish_from_tables():
    """jumbo's 128 numbers, highspeed's 50 and lfn's 5 come from their tables."""
    counts = {name: len(load_study(name).data["published"]) for name in ("jumbo", "highspeed", "lfn")}
    assert counts == {"jumbo": 128, "highspeed": 50, "lfn": 5}


def test_the_papers_optimum_is_marked_on_its_line():
    """#30: where the paper puts a line's optimum (an `optimum` check on the figure's
    sweep and axes), drawn on tcplab's line at the paper's x — interpolated between
    the points, by hand here — and nowhere beyond the line's range."""
    from tcplab.charts import Line
    from tcplab.studies.figures import optimum_markers

    fig = {"sweep": "buffer_star", "x": "buffer", "y": "goodput_bps"}
    lines = [Line("delay_ms = 20.0", np.array([10.0, 20.0, 40.0, 60.0]), np.array([1.0, 3.0, 5.0, 9.0])),
             Line("delay_ms = 0.1", np.array([10.0, 20.0]), np.array([2.0, 2.0]))]
    check = {"kind": "optimum", "sweep": "buffer_star", "x": "buffer", "y": "goodput_bps", "by": "delay_ms",
             "expect": {"20": [40, 50], "0.1": 40, "1": 30}}
    markers = optimum_markers(fig, [check, {**check, "y": "srtt_ms"}], lines)
    assert [m.name for m in markers] == ["paper's optimum, delay_ms = 20.0"]
    assert markers[0].x.tolist() == [40.0, 50.0] and markers[0].y.tolist() == [5.0, 7.0]
    assert markers[0].pair == "delay_ms = 20.0" and markers[0].role == "reference"


def test_a_check_kind_that_is_a_table_is_named_not_an_internal_error(tmp_path):
    """Found by `make fuzz` (2026-11-28): a study whose `check.kind` is a table ended
    in `TypeError: unhashable type: 'dict'` while its shape was checked; it is an
    unknown kind, named with the file's entry."""
    edited = _sctp_study_edited(tmp_path, 'kind = "measure_ratio"', 'kind = { a = 1 }')
    with pytest.raises(StudyError, match=r"check\.kind: unknown check kind"):
        load_study(edited)


def test_an_explanation_whose_claim_this_run_contradicts_says_so(quick_reproduction):
    """An explanation's `holds` state its words as comparisons of its numbers; one this
    run's numbers contradict is printed after "NOT BORNE OUT BY THIS RUN" and the values
    that contradict it, never as if the data showed it. The jumbo quick run's byte-mode
    node 7 gets less with jumbo frames than without (its catalog, queried directly, gives
    the figures the message must quote)."""
    import copy

    import duckdb
    from tcplab.studies.prose import unmet_claims
    from tcplab.studies.report import _differences

    out = quick_reproduction("jumbo")
    study = load_study("jumbo")
    quantities = study.data["quantity"]
    con = duckdb.connect(str(out / "sweeps" / "table2" / "catalog.duckdb"), read_only=True)
    node7 = dict(con.execute(
        "SELECT r.frames, avg(f.goodput_bps) FROM flows f JOIN runs r USING (key) WHERE r.status = 'ok' AND "
        "r.condition = 'none' AND r.backbone = 'narrow' AND r.red = 'byte' AND f.id = 'node7' GROUP BY r.frames"
    ).fetchall())
    con.close()
    jumbo, standard = (f"{node7[k] * 1e-6:.1f}" for k in ("jumbo", "standard"))
    held, missing = unmet_claims(["{node7_narrow_jumbo_byte} <= {node7_narrow_standard_byte}"], quantities, out)
    assert held == [] and missing == []
    unmet, _ = unmet_claims(["{node7_narrow_jumbo_byte} > {node7_narrow_standard_byte}",
                             "{node7_narrow_jumbo_byte} > 2 * {node7_narrow_jumbo_byte}", "{node7_narrow_jumbo_byte} < 100"],
                            quantities, out)
    assert len(unmet) == 2
    assert unmet[0] == (f"node7_narrow_jumbo_byte = {jumbo} is not > node7_narrow_standard_byte = {standard}")
    assert node7["jumbo"] < node7["standard"]
    assert "is not > 2 × node7_narrow_jumbo_byte" in unmet[1]
    _, missing = unmet_claims(["{node7_narrow_jumbo_packet} > 1"], quantities, out)
    assert missing == ["node7_narrow_jumbo_packet"]  # packet mode: full run only

    changed = copy.deepcopy(study)
    entry = next(d for d in changed.data["difference"] if d["text"].startswith("Narrow backbone, RED byte mode"))
    entry["holds"] = ["{node7_narrow_jumbo_byte} > {node7_narrow_standard_byte}"]
    texts = _differences(changed, out, quick=True)
    flagged = [t for t in texts if "Narrow backbone, RED byte mode" in t]
    assert len(flagged) == 1 and flagged[0].startswith(f"NOT BORNE OUT BY THIS RUN (node7_narrow_jumbo_byte = {jumbo}")
    assert not any(t.startswith("NOT BORNE OUT") for t in _differences(study, out, quick=True))


def test_a_claim_not_of_the_claim_form_is_refused_when_the_study_loads():
    from tcplab.studies.prose import problems

    data = {"quantity": {"a": {"sweep": "s", "column": "goodput_bps"}},
            "difference": [{"text": "x", "holds": ["{a} < {b}", "{a} about 3", "{a} >= 2 * {a}"]}]}
    found = problems(data, {"s"})
    assert found == ["difference[0].holds[0]: {b} names no [quantity]",
                     "difference[0].holds[1]: '{a} about 3' is not a claim of the form \"{a} < {b}\", "
                     "\"{a} >= 2 * {b}\" or \"{a} > 0.5\""]


def test_every_published_number_is_labelled_with_what_it_is(quick_reproduction):
    """highspeed's unlabelled `compare` checks (Reno at 100 ms over Reno at 10 ms, a
    high-speed variant over Reno) had shown in the published-numbers table as bare
    `goodput_bps` rows: a reader could not tell them apart. Each now names its two
    points."""
    md = (quick_reproduction("highspeed") / "report.md").read_text()
    table = md.split("## Published numbers side by side")[1].split("\n## ")[0]
    rows = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows and "goodput_bps" not in rows
    assert "goodput_bps, variant reno, rtt_ms 100 / variant reno, rtt_ms 10" in rows


def test_table3s_published_ratios_are_drawn_as_the_jain_index_they_imply():
    """The highspeed study's Table 3 figure shows Jain's index; the paper publishes the
    two flows' throughput ratio r, which fixes the index: (1 + r)² / 2(1 + r²). By hand:
    r = 13.95 (STCP at RTT ratio 6) gives 14.95² / 2(1 + 194.6025) = 0.5713; r = 1 gives 1."""
    import numpy as np
    from tcplab.charts import Line
    from tcplab.studies.figures import jain_of_ratio, paper_ratios_as_jain

    assert jain_of_ratio(1.0) == 1.0 and jain_of_ratio(13.95) == pytest.approx(0.5713, abs=1e-4)
    study = load_study("highspeed")
    fig = next(f for f in study.data["figure"] if f["sweep"] == "table3")
    checks = [c["check"] for c in study.data["conclusion"]]
    stcp = Line("variant = stcp", np.array([1.0, 6.0]), np.array([0.99, 0.5]), markers=True)
    (marks,) = paper_ratios_as_jain(fig, checks, [stcp])
    assert marks.pair == "variant = stcp" and marks.role == "reference"
    assert list(marks.x) == [1.0, 6.0] and marks.y == pytest.approx([jain_of_ratio(1.01), 0.5713], abs=1e-4)
    assert paper_ratios_as_jain({**fig, "y": "goodput_bps"}, checks, [stcp]) == []


def test_a_quick_reports_figures_say_what_the_quick_subset_ran(quick_reproduction):
    """The sctp study's figure titles give the paper's transfer sizes (10 and 100 MB); its
    quick subset moves 2 MB, and its figures must not claim the paper's sizes."""
    md = (quick_reproduction("sctp") / "report.md").read_text()
    titles = [line[4:] for line in md.splitlines() if line.startswith("### Fig.")]
    assert len(titles) == 3 and all("quick subset" in t and "2 MB" in t and "100 MB" not in t for t in titles), titles
    full = [f["title"] for f in load_study("sctp").data["figure"]]
    assert all("MB" in t and "quick" not in t for t in full)
