"""What `pip install .` reads declares everything the package imports (issue #32, item 1:
a `pip install .` crashed on every command because click was imported but not declared).

Plain pip into a fresh virtual environment runs every --help and one run
(tests/packaging_check.sh, also `make test-packaging`); every third-party module
imported anywhere under python/tcplab maps, through the installed distributions, to a
dependency pyproject.toml declares (or an optional extra, for the modules imported only
where that extra is used); requirements/runtime.txt pins the same versions."""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib

from conftest import REPO

PACKAGE = REPO / "python" / "tcplab"


def _top_level_imports() -> dict[str, set[str]]:
    """Top-level module name → the files of the package that import it."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(REPO)))
    return found


def _name(requirement: str) -> str:
    return re.split(r"[\[=<>!~ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_imported_distribution_is_declared():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = {_name(r) for r in project["dependencies"]}
    extras = {_name(r) for reqs in project.get("optional-dependencies", {}).values() for r in reqs}
    # "dask[distributed]" brings the distributed package: its bracket names count too.
    extras |= {e.strip().lower() for reqs in project.get("optional-dependencies", {}).values() for r in reqs
               for group in re.findall(r"\[([^\]]*)\]", r) for e in group.split(",")}
    owners = md.packages_distributions()
    missing = {}
    for module, files in _top_level_imports().items():
        if module == "tcplab" or module in sys.stdlib_module_names:
            continue
        dists = {d.lower().replace("_", "-") for d in owners.get(module, [])}
        assert dists, f"{module} (imported by {sorted(files)}) belongs to no installed distribution"
        if not dists & (declared | extras):
            missing[module] = sorted(files)
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_runtime_requirements_pin_what_pyproject_declares():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = [line.strip() for line in (REPO / "requirements" / "runtime.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    assert sorted(project["dependencies"]) == sorted(runtime)


def test_plain_pip_install_runs_every_command():
    """`pip install .` into a fresh virtual environment: every subcommand's --help and a
    run of the default scenario (tests/packaging_check.sh, also `make test-packaging`)."""
    import subprocess

    proc = subprocess.run(["bash", str(REPO / "tests" / "packaging_check.sh")], capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
