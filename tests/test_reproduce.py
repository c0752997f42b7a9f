"""`tcplab reproduce`: the studies' quick subsets grade their conclusions as recorded
(each conclusion's `quick_run` and `full_run` in its study.toml, written from a quick
and a full `tcplab reproduce`); a change fails here and must be explained in the
study."""

from __future__ import annotations

import json
import re

import tomllib

import pytest

from conftest import run_cli
from tcplab.studies import load_study


def test_list_and_unknown_study():
    r = run_cli("reproduce", "--list")
    assert r.returncode == 0 and "lan" in r.stdout and "jumbo" in r.stdout
    bad = run_cli("reproduce", "lann")
    assert bad.returncode == 2 and "unknown study 'lann' (did you mean 'lan'?)" in bad.stderr


def test_export_writes_the_study_files(tmp_path):
    r = run_cli("reproduce", "lan", "--export", str(tmp_path / "lan"))
    assert r.returncode == 0
    data = tomllib.loads((tmp_path / "lan" / "study.toml").read_text())
    assert data["name"] == "lan" and (tmp_path / "lan" / "lan-star.toml").exists()


@pytest.mark.parametrize("study", ["lan", "jumbo", "highspeed", "lfn", "sctp"])
def test_quick_reproduction_decides_conclusions_as_the_full_run(study, quick_reproduction):
    out = quick_reproduction(study)
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert "## Published numbers side by side" in md
    # The paper's figures redrawn: interactive charts in the HTML, PNGs beside the Markdown.
    charts = json.loads(re.search(r"id='tcplab-charts'>(.*?)</script>", html, re.S).group(1).replace("<\\/", "</"))
    assert bool(charts) == bool(load_study(study).data.get("figure"))
    assert all(c["name"].startswith("fig") and c["panels"][0]["lines"] for c in charts)
    assert {c["name"] for c in charts} <= {p.stem for p in (out / "figures").glob("*.png")}
    conclusions = [c for c in load_study(study).data["conclusion"] if not c.get("full_only")]
    assert conclusions
    for c in conclusions:
        # Each check says how this quick run graded it (as recorded when the study last
        # changed: quick runs are deterministic) and how the recorded full run did.
        assert f"**{c['quick_run']}** (full run, as recorded: {c['full_run']}): {c['text']}" in md, \
            f"{study}: '{c['text']}' is no longer graded {c['quick_run']} by the quick run"
    assert f"This quick run decides only the {len(conclusions)} checks whose sweeps it ran" in md


def _as_toml_lines(table: dict) -> str:
    """``table`` as the key = value lines of a TOML table (strings quoted as JSON is)."""
    def value(v: object) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + " }"
        return json.dumps(v)
    return "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in table.items())


@pytest.mark.parametrize("entry, field", [
    ('{ label = "x", value = 1, sweep = "s", table = "runs", column = "goodput_bps\\" FROM read_csv(\'/etc/passwd\') --" }',
     "column"),
    ('{ label = "x", value = 1, sweep = "s", table = "read_csv(\'/etc/passwd\')", column = "v" }', "table"),
    ('{ label = "x", value = 1, sweep = "s", table = "flows", row = { "id\\" = 1 OR \\"1" = "a" }, column = "v" }', "row"),
])
def test_study_files_cannot_put_sql_into_published_values(tmp_path, entry, field):
    """A study file's table, column and row names go into SQL: they are checked as
    names when the study is loaded (#35 item 6), an error naming the entry."""
    from tcplab.studies import StudyError, export_study

    export_study(load_study("lan"), tmp_path)
    study = tmp_path / "study.toml"
    study.write_text(study.read_text() + "\n[[published]]\n" + _as_toml_lines(tomllib.loads(f"x = {entry}")["x"]))
    with pytest.raises(StudyError, match=rf"published\[\d+\]\.{field}"):
        load_study(str(tmp_path))
    result = run_cli("reproduce", str(tmp_path), "--quick", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and field in result.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("change, said", [
    (('kind = "measure_ratio"', 'kind = "measure_ration"'), "did you mean 'measure_ratio'"),
    (('sweep = "table2"', 'sweep = "tabel2"'), "no sweep 'tabel2'"),
])
def test_a_misspelled_check_fails_when_the_study_loads(tmp_path, change, said):
    """#34 item 5: a conclusion's check (and a published value's sweep) is validated
    when the study file is read, so a typo fails in a second, before any sweep runs,
    naming the entry."""
    from tcplab.studies import StudyError, export_study

    export_study(load_study("jumbo"), tmp_path)
    study = tmp_path / "study.toml"
    old, new = change
    text = study.read_text()
    assert old in text
    study.write_text(text.replace(old, new, 1))
    with pytest.raises(StudyError, match=r"(conclusion\[\d+\]\.check|published\[\d+\])\."):
        load_study(str(tmp_path))
    result = run_cli("reproduce", str(tmp_path), "--quick", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and said in result.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("path, value, said", [
    (("conclusion", 0, "check", "a"), True, "conclusion[0].check.a: expected a table with column"),
    (("question",), True, "question: expected a string"),
    (("conclusion", 0, "check", "mni"), 1.0, "conclusion[0].check.mni: unknown key (did you mean 'min'?)"),
    (("sweep", 0, "table", "parameters", "size", "values"), [[1], 2],
     "sweep[0] (size_sctp): table.parameters.size.values: expected values of one kind"),
    (("figure", 0, "others", 0, "sweep"), {"a": 1}, "figure[0].others[0].sweep: expected a string"),
])
def test_a_study_file_of_the_wrong_shape_fails_when_it_loads(tmp_path, path, value, said):
    """Found by the fuzzer's study cases (#35): a study file whose entries had the wrong
    type ran its sweeps and then ended in a Python error (a check's `a = true`, a
    `question` that is not text, a sweep value list of mixed kinds). The study file's
    shape (studies/shape.py) is checked when it loads: one message naming the entry,
    exit 2, nothing run or written."""
    from fuzz.strategies import to_toml
    from tcplab.studies import StudyError, export_study

    export_study(load_study("sctp"), tmp_path)
    study = tmp_path / "study.toml"
    data = tomllib.loads(study.read_text())
    node = data
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    study.write_text(to_toml(data))
    with pytest.raises(StudyError) as raised:
        load_study(str(tmp_path))
    assert f"{study}: {said}" in str(raised.value)
    if path == ("conclusion", 0, "check", "a"):  # the command says the same (one CLI run: CI time)
        result = run_cli("reproduce", str(tmp_path), "--quick", "--out", str(tmp_path / "out"))
        assert result.returncode == 2 and said in result.stderr and not (tmp_path / "out").exists()
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_quantity_the_catalog_does_not_hold_is_named(tmp_path):
    """Found by the fuzzer (#35): a published value naming a column the runs table does
    not have, or a row value of the wrong type, was a DuckDB error after the sweeps
    ran; it is an error naming the quantity."""
    import tcplab
    from tcplab.studies.measures import MeasureError, measure

    scenario = tmp_path / "s.toml"
    scenario.write_text(
        '[simulation]\nduration = "0.2s"\n[topology.dumbbell]\npairs = 1\n'
        'access = { bandwidth = "100Mbps", delay = "1ms" }\n'
        'bottleneck = { bandwidth = "10Mbps", delay = "5ms", queue = { type = "droptail", limit = "20 packets" } }\n'
        '[[flow]]\nname = "tcp"\nfrom = "left0"\nto = "right0"\napp = { type = "bulk" }\ntransport = "tcp"\n'
        '[sweep]\n[sweep.parameters]\nq = { values = [10, 20], set = { "topology.dumbbell.bottleneck.queue.limit" = "{q} packets" } }\n')
    tcplab.sweep(str(scenario), out=str(tmp_path / "sweeps" / "s"), jobs=1)
    good = {"sweep": "s", "where": {"q": 10}, "table": "flows", "row": {"id": "tcp"}, "column": "goodput_bps"}
    assert measure(good, tmp_path)[0] > 0
    for bad, said in [({"table": "runs", "column": "packets_sent"}, "runs.packets_sent"),
                      ({"row": {"id": 5}}, "flows.goodput_bps"),
                      ({"where": {"nope": 1}}, "flows.goodput_bps")]:
        with pytest.raises(MeasureError, match=re.escape(said) + ".*cannot be read"):
            measure({**good, **bad}, tmp_path)


def test_a_quick_report_leaves_out_the_explanations_only_the_full_run_shows(quick_reproduction):
    """lfn's quick report had said "tcplab's settled rate after ten minutes, 4323 Mbps
    ... is of the paper's order" from a 120-s baseline: an explanation marked
    `full_only` is left out of a quick report, which says how many were."""
    md = (quick_reproduction("lfn") / "report.md").read_text()
    entries = load_study("lfn").data["difference"]
    full_only = [d["text"] for d in entries if d.get("full_only")]
    assert full_only and len(full_only) < len(entries)
    for text in full_only:
        assert text.split(":")[0] + ":" not in md, text[:40]
    assert f"{len(full_only)} more explanations need the full run's durations or transfer sizes and are left out" in md
    # The one explanation not marked full_only quotes progression points the quick run
    # does not run either: left out, with the sweep it needs named.
    assert "Memory to memory: tcplab's FAST settles at" not in md
    assert "1 more explanation needs points of progression this run did not run and is left out." in md
