"""The example scenarios come with the package (issue "Results people look at and
trust", part 8): listed, copied out, and each one valid."""

from __future__ import annotations

from conftest import SCENARIOS, run_cli


def test_examples_are_listed_and_copied_byte_for_byte(tmp_path):
    p = run_cli("examples")
    assert p.returncode == 0, p.stderr
    names = sorted(f.name for f in SCENARIOS.glob("*.toml"))
    assert names and all(f"{name}:" in p.stdout for name in names)
    p = run_cli("examples", "--copy", str(tmp_path / "mine"))
    assert p.returncode == 0, p.stderr
    for name in names:
        assert (tmp_path / "mine" / name).read_bytes() == (SCENARIOS / name).read_bytes()
        v = run_cli("validate", str(tmp_path / "mine" / name))
        assert v.returncode == 0, v.stderr


def test_copying_over_existing_files_is_refused(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "default.toml").write_text("# mine\n")
    p = run_cli("examples", "--copy", str(tmp_path / "mine"))
    assert p.returncode == 2 and "default.toml" in p.stderr
    assert (tmp_path / "mine" / "default.toml").read_text() == "# mine\n"
