"""The results directory never costs a user a file (issue "Robustness", part 1): only
tcplab's own results are replaced, symlinks keep working, killed runs' leftovers are
cleaned up, the swap is atomic, and permissions follow the umask."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BASE, run_cli
from tcplab.output import MARKER, OutputError, check_output, write_directory


def _scenario(tmp_path: Path) -> Path:
    p = tmp_path / "s.toml"
    p.write_text(BASE)
    return p


def test_a_directory_tcplab_did_not_create_is_refused_before_the_run(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "summary.json").write_text("{}")  # what `--json > summary.json` leaves
    (mine / "thesis.tex").write_text("years of work")
    r = run_cli("run", str(_scenario(tmp_path)), "--out", str(mine), "--no-plots")
    assert r.returncode == 2
    assert "tcplab did not create" in r.stderr and str(mine) in r.stderr
    assert (mine / "thesis.tex").read_text() == "years of work"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "s.toml"]  # no run, no leftovers


def test_its_own_results_are_replaced(tmp_path):
    out = tmp_path / "res"
    assert run_cli("run", str(_scenario(tmp_path)), "--out", str(out), "--no-plots").returncode == 0
    assert (out / MARKER).exists()
    (out / "summary.json").write_text("stale")
    assert run_cli("run", str(_scenario(tmp_path)), "--out", str(out), "--no-plots").returncode == 0
    assert (out / "summary.json").read_text().startswith("{")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_files_added_to_results_are_never_deleted_by_the_next_run(tmp_path):
    """#35 item 2: a user's file inside a results directory makes the next run there
    stop (exit 2, naming it) instead of deleting it with the old results; files tcplab
    itself added later (`tcplab report --plots`) do not."""
    out = tmp_path / "res"
    scenario = str(_scenario(tmp_path))
    assert run_cli("run", scenario, "--out", str(out), "--no-plots").returncode == 0
    (out / "notes.txt").write_text("what I saw")
    before = (out / "summary.json").read_text()
    r = run_cli("run", scenario, "--out", str(out), "--no-plots")
    assert r.returncode == 2 and "notes.txt" in r.stderr and "did not write" in r.stderr
    assert (out / "notes.txt").read_text() == "what I saw" and (out / "summary.json").read_text() == before
    (out / "notes.txt").unlink()
    assert run_cli("report", str(out), "--plots").returncode == 0
    assert run_cli("run", scenario, "--out", str(out), "--no-plots").returncode == 0


@pytest.mark.parametrize("target", ["a", "b", "."])
def test_compare_never_writes_over_a_run_it_reads(tmp_path, target):
    """`compare A B --out A` deleted run A and exited 0 (issue #35): an --out that is
    one of the runs, or holds one, is refused before anything is written."""
    scenario = _scenario(tmp_path)
    runs = tmp_path / "runs"
    for name, seed in (("a", "1"), ("b", "2")):
        assert run_cli("run", str(scenario), "--out", str(runs / name), "--no-plots", "--seed", seed).returncode == 0
    (runs / "a" / "notes.txt").write_text("mine")
    before = {p: p.read_bytes() for p in sorted((runs / "a").rglob("*")) if p.is_file()}
    r = run_cli("compare", str(runs / "a"), str(runs / "b"), "--out", str(runs / target))
    assert r.returncode == 2 and "choose another --out" in r.stderr
    assert {p: p.read_bytes() for p in sorted((runs / "a").rglob("*")) if p.is_file()} == before
    assert run_cli("compare", str(runs / "a"), str(runs / "b"), "--out", str(tmp_path / "ab")).returncode == 0


def test_a_symlinked_out_keeps_pointing_at_the_results(tmp_path):
    target = tmp_path / "real"
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    for _ in range(2):  # create, then replace through the link
        r = run_cli("run", str(_scenario(tmp_path)), "--out", str(link), "--no-plots")
        assert r.returncode == 0, r.stderr
        assert link.is_symlink() and (link / "summary.json").exists() and (target / MARKER).exists()


@pytest.mark.parametrize("case", ["file", "below_a_file", "cwd"])
def test_unusable_out_paths_exit_2(tmp_path, case):
    a_file = tmp_path / "f"
    a_file.write_text("x")
    out = {"file": a_file, "below_a_file": a_file / "res", "cwd": Path(".")}[case]
    r = run_cli("run", str(_scenario(tmp_path)), "--out", str(out), "--no-plots", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert a_file.read_text() == "x"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_read_only_parent_exits_2(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        r = run_cli("run", str(_scenario(tmp_path)), "--out", str(ro / "res"), "--no-plots")
        assert r.returncode == 2 and "not writable" in r.stderr
    finally:
        ro.chmod(0o700)


def test_results_follow_the_umask(tmp_path):
    code = ("import os, tcplab; os.umask(0o027); "
            f"r = tcplab.run({str(_scenario(tmp_path))!r}); r.save({str(tmp_path / 'res')!r}, plots=False)")
    subprocess.run([sys.executable, "-c", code], check=True)
    mode = stat.S_IMODE((tmp_path / "res").stat().st_mode)
    assert mode == 0o750, oct(mode)


def test_a_killed_writers_leftovers_are_removed_by_the_next_run(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".res.tmp-{dead.pid}-abcd1234"
    stale.mkdir()
    (stale / "summary.json").write_text("{}")
    other = tmp_path / f".other.tmp-{dead.pid}-abcd1234"  # another output's: not ours to judge
    other.mkdir()
    write_directory(tmp_path / "res", lambda d: (d / "x").write_text("1"), "run")
    assert not stale.exists() and other.exists()


def test_the_swap_never_leaves_the_path_without_complete_results(tmp_path):
    """While a new result is swapped in, a reader polling the path always finds a
    complete directory (the old or the new one), never none."""
    out = tmp_path / "res"
    write_directory(out, lambda d: (d / "summary.json").write_text("old"), "run")
    reader = subprocess.Popen([sys.executable, "-c", f"""
import os, sys
p = {str(out / 'summary.json')!r}
missing = 0
for _ in range(200000):
    try:
        open(p).read()
    except FileNotFoundError:
        missing += 1
print(missing)
"""], stdout=subprocess.PIPE, text=True)
    for k in range(200):
        write_directory(out, lambda d, k=k: (d / "summary.json").write_text(str(k)), "run")
    missing = int(reader.communicate()[0])
    assert missing == 0


def test_check_output_names_the_problem(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "notes.txt").write_text("x")
    with pytest.raises(OutputError, match="did not create"):
        check_output(tmp_path / "d")
    assert check_output(tmp_path / "new") == (tmp_path / "new").resolve()


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> Path:
    """Two results directories of the base scenario, ``a`` and ``b`` (copied, not
    damaged, by the tests that use them)."""
    root = tmp_path_factory.mktemp("two-runs")
    scenario = _scenario(root)
    for name in ("a", "b"):
        assert run_cli("run", str(scenario), "--out", str(root / name), "--no-plots").returncode == 0
    return root


@pytest.mark.parametrize(("damage", "checksums"), [("empty", True), ("truncated", True), ("flipped", True),
                                                 ("empty", False), ("truncated", False)])
def test_a_damaged_series_file_is_named_not_blamed_on_writing(tmp_path, two_runs, damage, checksums):
    """Found by the output fuzzer (#35): `report` on an emptied Parquet file was an
    internal error, and `compare --out` on a corrupted one said "writing the results
    failed"; a flipped byte was read as the run's numbers. The results marker now keeps
    a SHA-256 of each data file, so any change is named; results written before that
    (no checksums) still name a file Parquet cannot read. Exit 2, nothing written."""
    import json
    import shutil

    for name in ("a", "b"):
        shutil.copytree(two_runs / name, tmp_path / name)
    if not checksums:
        marker = json.loads((tmp_path / "b" / MARKER).read_text())
        del marker["sha256"]
        (tmp_path / "b" / MARKER).write_text(json.dumps(marker))
    damaged = tmp_path / "b" / "link_series.parquet"
    data = damaged.read_bytes()
    damaged.write_bytes({"empty": b"", "truncated": data[: len(data) // 2],
                         "flipped": data[:200] + bytes([data[200] ^ 1]) + data[201:]}[damage])
    said = "changed since tcplab wrote it" if checksums else "not readable as the Parquet file tcplab wrote"
    for args in (["report", str(tmp_path / "b")], ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                                  "--out", str(tmp_path / "ab")]):
        r = run_cli(*args)
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert f"link_series.parquet: {said}" in lines[0] and "writing" not in lines[0], lines[0]
    assert not (tmp_path / "ab").exists()


def test_an_edited_summary_is_refused_by_the_commands_that_read_it(tmp_path, two_runs):
    """A summary.json changed after the run (the fuzzer retyped a link's entry: an
    internal error in `report`) is named, not read."""
    import json
    import shutil

    shutil.copytree(two_runs / "a", tmp_path / "a")
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    summary["links"][0] = []
    (tmp_path / "a" / "summary.json").write_text(json.dumps(summary))
    r = run_cli("report", str(tmp_path / "a"))
    assert r.returncode == 2 and "summary.json: changed since tcplab wrote it" in r.stderr, r.stderr
