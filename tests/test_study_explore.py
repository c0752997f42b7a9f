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


@pytest.mark.parametrize("edit, said", [
    (lambda text: re.sub(r"\[\[unstated\]\].*?(?=\n\[\[sweep\]\])", "", text, flags=re.S), "declares no [[unstated]]"),
    (lambda text: text.replace("default = 50\nwhy = \"ns-2's default", "default = 70\nwhy = \"ns-2's default", 1),
     "unstated[0].default: 70 is not one of its values"),
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
