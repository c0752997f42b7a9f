"""`tcplab reproduce STUDY --explore` (#30 item 4): the quick subset under every
reading of the paper's unstated parameters, the map in the report, the default reading
repeating the plain reproduction's runs exactly (common random numbers), and bad
declarations refused before anything runs."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli
from tcplab.studies import export_study, load_study
from tcplab.sweeps import runs_frame


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    out = tmp_path_factory.mktemp("lan-explore")
    r = run_cli("reproduce", "lan", "--quick", "--explore", "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_every_reading_is_run_and_mapped(explored):
    unstated = load_study("lan").data["unstated"]
    expected = 1
    for u in unstated:
        expected *= len(u["values"])
    data = json.loads((explored / "explore" / "explore.json").read_text())
    assert len(data["readings"]) == expected and data["readings"][0] == {u["name"]: u["default"] for u in unstated}
    # Each sweep ran every value of the unstated parameters that apply to it.
    runs = runs_frame(explored / "explore" / "sweeps" / "buffer_star")
    assert sorted(runs["queue_packets"].unique()) == sorted(next(u for u in unstated if u["name"] == "queue_packets")["values"])
    assert "rto_window" not in runs.columns  # keyed to the RTO sweeps only
    assert set(runs_frame(explored / "explore" / "sweeps" / "rto_star")["rto_window"]) == {20, 50, 140}
    md = (explored / "report.md").read_text()
    assert "## The unstated parameters, explored" in md
    row = re.search(r"^\| conclusion \| (.*) \|$", md, re.M).group(1)
    assert row.split(" | ") == [str(i + 1) for i in range(expected)]


def test_the_default_reading_repeats_the_plain_runs(explored):
    """Runs that differ only in an unstated parameter share their seeds, so the
    default reading's runs are the plain reproduction's, value for value, and its
    column of the map is the report's own checklist."""
    plain = runs_frame(explored / "sweeps" / "rto_star").sort_values(["rto_s", "delay_ms"])
    everything = runs_frame(explored / "explore" / "sweeps" / "rto_star")
    default = everything[(everything["queue_packets"] == 50) & (everything["rto_window"] == 50)]
    default = default.sort_values(["rto_s", "delay_ms"])
    assert len(default) == len(plain) > 0
    assert default["seed"].tolist() == plain["seed"].tolist()
    assert default["goodput_bps"].tolist() == plain["goodput_bps"].tolist()
    data = json.loads((explored / "explore" / "explore.json").read_text())
    md = (explored / "report.md").read_text()
    for text, grades in data["grades"].items():
        assert re.search(rf"\*\*{grades[0]}\*\*( \(full run[^)]*\))?: {re.escape(text)}", md), text
    # Other readings differ: a 20-packet queue changes the runs.
    small = everything[(everything["queue_packets"] == 20) & (everything["rto_window"] == 50)].sort_values(
        ["rto_s", "delay_ms"])
    assert small["goodput_bps"].tolist() != plain["goodput_bps"].tolist()


def test_every_unstated_parameter_of_lan_changes_its_runs(explored):
    """The RTO sweep's window (20, 50, 140 packets) once set only the receive buffer,
    under the ns2 profile's 20-segment window: all three readings ran one simulation.
    Each reading of it now moves the runs, and the map warns of none."""
    everything = runs_frame(explored / "explore" / "sweeps" / "rto_star")
    at = {w: everything[(everything["queue_packets"] == 50) & (everything["rto_window"] == w)].sort_values(
        ["rto_s", "delay_ms"])["goodput_bps"].tolist() for w in (20, 50, 140)}
    assert at[20] != at[50] and at[50] != at[140]
    data = json.loads((explored / "explore" / "explore.json").read_text())
    assert data["inert"] == []
    assert "No effect" not in (explored / "report.md").read_text()


def test_a_parameter_whose_readings_change_no_result_is_named_in_the_map():
    """Hand-made summaries: ``window``'s two readings give the same results at every
    point of the sweep it applies to, ``queue``'s do not."""
    import pandas as pd
    from tcplab.studies.explore import inert_parameters, map_markdown

    unstated = [{"name": "queue", "values": [20, 50], "default": 50, "why": "."},
                {"name": "window", "values": [20, 50], "default": 50, "why": "."}]
    summary = pd.DataFrame([{"queue": q, "window": w, "rto_s": r, "point": f"p{q}{w}{r}", "runs": 1, "failed": 0,
                             "goodput_bps": 1e6 * q + r, "goodput_bps_ci": float("nan")}
                            for q in (20, 50) for w in (20, 50) for r in (0.1, 0.2)])
    parameters = {"rto": ["queue", "window", "rto_s"]}
    assert inert_parameters(unstated, {"rto": summary}, {"rto": ["queue", "window"]}, parameters) == ["window"]
    moved = summary.assign(goodput_bps=summary["goodput_bps"] + summary["window"])
    assert inert_parameters(unstated, {"rto": moved}, {"rto": ["queue", "window"]}, parameters) == []
    data = {"readings": [{"queue": 50, "window": 50}, {"queue": 20, "window": 50}], "unstated": unstated,
            "grades": {"c1": ["fails", "fails"]}, "inert": ["window"]}
    assert any(line.startswith("**No effect: the readings of window changed no run's result") for line in map_markdown(data))


def test_one_at_a_time_varies_each_unstated_value_alone_around_the_default():
    """Hand-worked: two parameters of 3 and 2 values give the default and the 2 + 1
    other values, each alone; the grid gives all 6 combinations, the default first."""
    from tcplab.studies.explore import readings_of

    unstated = [{"name": "a", "values": [1, 2, 3], "default": 2}, {"name": "b", "values": ["x", "y"], "default": "x"}]
    assert readings_of(unstated, "one_at_a_time") == [{"a": 2, "b": "x"}, {"a": 1, "b": "x"}, {"a": 3, "b": "x"},
                                                      {"a": 2, "b": "y"}]
    grid = readings_of(unstated, "grid")
    assert grid[0] == {"a": 2, "b": "x"} and len(grid) == 6
    assert sorted((r["a"], r["b"]) for r in grid) == [(a, b) for a in (1, 2, 3) for b in ("x", "y")]


def test_a_reading_that_changes_no_physics_measures_the_noise_and_is_never_the_best():
    """Hand-made map: reading 2 changes a physical parameter (2 conclusions reproduce
    against the default's 0), reading 3 only the realization of the random numbers
    (``physical = false``) and moves 3 of 4 grades: it is not offered as the best
    reading, and the best one's gain of 2 is said to lie within that noise."""
    from tcplab.studies.explore import noise_readings, verdicts

    data = {"unstated": [{"name": "loss", "values": [1, 2], "default": 1},
                         {"name": "model", "values": ["a", "b"], "default": "a", "physical": False}],
            "readings": [{"loss": 1, "model": "a"}, {"loss": 2, "model": "a"}, {"loss": 1, "model": "b"}],
            "grades": {"c1": ["bound", "reproduced", "reproduced"], "c2": ["fails", "reproduced", "reproduced"],
                       "c3": ["fails", "fails", "reproduced"], "c4": ["bound", "bound", "bound"]}}
    assert noise_readings(data) == [2]
    best, _beats, noise = verdicts(data)
    assert best.startswith("The reading loss = 2, model = a reproduces 2 of these 4 conclusions, the default 0")
    assert "within the noise of one realization" in best
    assert "model = b changes nothing" in noise and "moves 3 of the 4 grades" in noise
    data["unstated"][1]["physical"] = True
    best, _beats, noise = verdicts(data)
    assert best.startswith("The reading loss = 1, model = b reproduces 3") and noise == ""


def test_lfn_explores_the_loss_rate_over_the_full_runs_and_keeps_the_dedicated_path_loss_free():
    """lfn's loss-dependent conclusions need the 600-s baseline: its exploration runs
    the full durations (one replication) under each reading of the shared path's loss,
    while a case that sets the loss itself (the dedicated lightpath: 0) keeps it."""
    from tcplab.studies import sweep_spec
    from tcplab.studies.explore import _explored_declaration, explored_conclusions, explored_sweeps, unstated_parameters

    study = load_study("lfn")
    unstated = unstated_parameters(study)
    losses = next(u for u in unstated if u["name"] == "shared_loss")["values"]
    assert len(losses) >= 3
    assert {d["name"] for d in explored_sweeps(study)} >= {"progression", "protocols", "mtu"}
    decided = {c["text"] for c in explored_conclusions(study)}
    assert any(t.startswith("Reno over the shared path settles far below the link") for t in decided)
    assert any(t.startswith("The three fixes together raise") for t in decided)
    progression = next(d for d in study.sweeps(quick=False) if d["name"] == "progression")
    explored, added = _explored_declaration(progression, unstated, "one_at_a_time")
    spec = sweep_spec(study, explored, quick=True)
    steps = len(spec.parameter("step").values)
    readings = 1 + sum(len(u["values"]) - 1 for u in unstated if u["name"] in added)
    assert len(spec.points()) == readings * steps
    for point in spec.points():
        settings = dict(spec.overrides(point))  # the last setting of a field wins
        if point["step"] == "baseline":
            assert settings["link[1].forward.loss.rate"] == point["shared_loss"]
            assert settings["simulation.duration"] == "600s"
        if point["step"] in ("all_three", "all_three_memory", "intel_pci"):
            assert settings["link[1].forward.loss.rate"] == 0, point


@pytest.mark.parametrize("edit, said", [
    (lambda text: re.sub(r"\[\[unstated\]\].*?(?=\n\[\[sweep\]\])", "", text, flags=re.S), "declares no [[unstated]]"),
    (lambda text: text.replace("default = 50\nwhy = \"ns-2's default", "default = 70\nwhy = \"ns-2's default", 1),
     "unstated[0].default: 70 is not one of its values"),
    (lambda text: text.replace("\n[[sweep]]", "\n[explore]\ndesign = \"random\"\n\n[[sweep]]", 1),
     'explore.design: expected "grid" or "one_at_a_time"'),
])
def test_bad_unstated_declarations_exit_2(tmp_path, edit, said):
    export_study(load_study("lan"), tmp_path / "study")
    path = tmp_path / "study" / "study.toml"
    text = path.read_text()
    changed = edit(text)
    assert changed != text
    path.write_text(changed)
    r = run_cli("reproduce", str(tmp_path / "study"), "--quick", "--explore", "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and said in r.stderr, r.stderr
