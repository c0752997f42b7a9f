"""Every example in README.md and docs/ runs as written (issue #32: "docs examples that
do not run"). TOML blocks are read by the scenario loader — whole scenarios as they are,
fragments completed with the least that makes them a scenario (a duration, the hosts a
link names, one flow) — sweep blocks are planned, a block that says which repository file
it copies must equal that file, the README's Python runs, and every `tcplab` command line
in a console block names a subcommand and options that `--help` lists."""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib

import pytest
import tcplab
from conftest import REPO
from tcplab.sweeps.spec import read_sweep

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(language: str) -> list[tuple[str, str]]:
    """(``file:line`` id, body) of every fenced block in ``language``."""
    found = []
    for doc in DOCS:
        text = doc.read_text()
        for m in BLOCK.finditer(text):
            if m.group(1) == language:
                line = text.count("\n", 0, m.start()) + 1
                found.append((f"{doc.relative_to(REPO)}:{line}", m.group(2)))
    return found


def complete(fragment: dict) -> dict:
    """``fragment`` made a runnable scenario: a duration if it has none, every node a
    link or segment names declared as a host, a second host behind the first router
    when fewer than two hosts exist, and a UDP flow between each two hosts — or, for a
    fragment of flows (or of one flow's transport table), those flows on a dumbbell. A
    fat tree's hosts are ``host{i}``."""
    scenario = dict(fragment)
    scenario.setdefault("simulation", {"duration": "1s"})
    given = scenario.pop("flow", [])
    if isinstance(given, dict):  # a [flow.transport] fragment: one flow's table
        given = [given]
    if not any(k in scenario for k in ("topology", "node", "link", "segment")):
        scenario["topology"] = {"dumbbell": {"pairs": max(2, len(given)),
                                             "access": {"bandwidth": "100Mbps", "delay": "1ms"},
                                             "bottleneck": {"bandwidth": "10Mbps", "delay": "10ms"}}}
    if "fat_tree" in scenario.get("topology", {}):
        hosts = [f"host{i}" for i in range(scenario["topology"]["fat_tree"]["k"] ** 3 // 4)]
    elif "topology" in scenario:
        pairs = scenario["topology"]["dumbbell"]["pairs"]
        hosts = [f"{side}{i}" for i in range(pairs) for side in ("left", "right")]
    else:
        nodes = {n["name"]: n.get("kind", "host") for n in scenario.get("node", [])}
        named = [end for link in scenario.get("link", []) for end in (link["from"], link["to"])]
        named += [s for seg in scenario.get("segment", []) for s in seg["stations"]]
        for name in named:
            if name not in nodes:
                nodes[name] = "host"
                scenario.setdefault("node", []).append({"name": name})
        hosts = [n for n, kind in nodes.items() if kind == "host"]
        if len(hosts) < 2:
            router = next(n for n, kind in nodes.items() if kind == "router")
            scenario.setdefault("node", []).append({"name": "peer"})
            scenario.setdefault("link", []).append({"from": router, "to": "peer", "bandwidth": "1Gbps", "delay": "1ms"})
            hosts.append("peer")
    flows = [{"name": f"flow{i}", "from": hosts[2 * i], "to": hosts[2 * i + 1], "transport": "udp",
              "app": {"type": "cbr", "rate": "1Mbps", "packet_size": "1000B"}} for i in range(len(hosts) // 2)]
    for i, flow in enumerate(given):
        tcp = isinstance(flow.get("transport"), dict) and flow["transport"].get("type") != "udp"
        flows[i] = {**flows[i], **({"app": {"type": "bulk"}} if tcp else {}), **flow}
    scenario["flow"] = flows
    return scenario


SCENARIO_BLOCKS = [(where, body) for where, body in blocks("toml") if "[sweep]" not in body and "[host." not in body]
SWEEP_BLOCKS = [(where, body) for where, body in blocks("toml") if "[sweep]" in body]
HOSTS_BLOCKS = [(where, body) for where, body in blocks("toml") if "[host." in body]


@pytest.mark.parametrize("where,body", SCENARIO_BLOCKS, ids=[w for w, _ in SCENARIO_BLOCKS])
def test_every_toml_example_is_a_valid_scenario_or_fragment(where, body):
    fragment = tomllib.loads(body)  # a block that is not TOML fails here, with its line
    first, _, rest = body.partition("\n")
    copied = re.fullmatch(r"#\s*(\S+\.toml)", first.strip())
    if copied and (REPO / copied.group(1)).exists():  # "# scenarios/x.toml", then the file as it is
        assert rest == (REPO / copied.group(1)).read_text(), f"{where} no longer shows {copied.group(1)} as it is"
    tcplab.load(complete(fragment))


@pytest.mark.parametrize("where,body", HOSTS_BLOCKS, ids=[w for w, _ in HOSTS_BLOCKS])
def test_every_hosts_file_example_reads(where, body, tmp_path):
    """tcplab measure's hosts files (docs/measure.md) as `read_hosts` reads them."""
    from tcplab.measure import read_hosts

    path = tmp_path / "hosts.toml"
    path.write_text(body)
    hosts = read_hosts(path, [])
    assert hosts, where


@pytest.mark.parametrize("where,body", SWEEP_BLOCKS, ids=[w for w, _ in SWEEP_BLOCKS])
def test_every_sweep_example_plans_and_its_points_load(where, body, tmp_path):
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    path = tmp_path / "example-sweep.toml"
    path.write_text(body)
    spec = read_sweep(path)
    points = spec.points()
    assert points
    for point in (points[0], points[-1]):
        tcplab.load(spec.scenario, overrides=[*spec.base_overrides, *spec.overrides(point)])


def test_the_readme_python_example_runs(tmp_path):
    (where, body), = [b for b in blocks("python") if b[0].startswith("README.md")]
    script = tmp_path / "example.py"
    script.write_text(body.replace('r.save("results/x")', f'r.save({str(tmp_path / "x")!r})')
                      .replace('tcplab.load("results/x")', f'tcplab.load({str(tmp_path / "x")!r})'))
    proc = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


def _command_lines() -> list[tuple[str, list[str]]]:
    found = []
    for where, body in blocks("console"):
        for line in body.splitlines():
            command = line.split("$", 1)[1] if "$" in line else ""
            words = shlex.split(command.split("#")[0].split(">")[0])
            words = words[1:] if words[:1] == ["sudo"] else words
            if words and words[0].endswith("tcplab"):
                found.append((where, words[1:]))
    return found


COMMANDS = _command_lines()


@pytest.mark.parametrize("where,words", COMMANDS, ids=[f"{w}:{' '.join(a[:2])}" for w, a in COMMANDS])
def test_every_console_example_uses_a_subcommand_and_options_that_exist(where, words):
    subcommand = words[0]
    env = {**os.environ, "COLUMNS": "200"}  # wide enough that no option name is cut
    help_text = subprocess.run([sys.executable, "-m", "tcplab", subcommand, "--help"], capture_output=True,
                               text=True, env=env, timeout=120).stdout
    assert "Usage:" in help_text, f"{where}: no subcommand {subcommand!r}"
    for option in (w.split("=")[0] for w in words[1:] if w.startswith("--")):
        assert option in help_text, f"{where}: tcplab {subcommand} has no {option}"


@pytest.mark.parametrize("where,body", blocks("python"), ids=[w for w, _ in blocks("python")])
def test_every_python_example_is_valid_python_that_names_real_api(where, body):
    tree = ast.parse(body, where)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "tcplab":
            assert hasattr(tcplab, node.attr), f"{where}: tcplab.{node.attr} does not exist"


#: Directories whose every module and sub-directory docs/architecture.md's map names.
MAPPED = ["crates/engine/src", "crates/engine/src/net", "crates/engine/src/transport", "python/tcplab",
          "python/tcplab/scenario", "python/tcplab/emu", "python/tcplab/differential"]
#: Not modules of their own: package markers, build products, the binding's stubs.
UNMAPPED = {"mod", "__init__", "__main__", "__pycache__", "_core", "py.typed"}


@pytest.mark.parametrize("directory", MAPPED)
def test_the_architecture_map_names_every_module(directory):
    """docs/architecture.md is a map that matches the tree: a module added, moved or
    renamed without it fails here."""
    text = (REPO / "docs" / "architecture.md").read_text()
    missing = []
    for entry in sorted((REPO / directory).iterdir()):
        stem = entry.name.split(".")[0]
        if stem in UNMAPPED or entry.suffix not in ("", ".rs", ".py"):
            continue
        if not re.search(rf"(?<![\w/]){re.escape(stem)}(\.rs|\.py|/|\b)", text):
            missing.append(entry.name)
    assert not missing, f"docs/architecture.md does not name {missing} of {directory}"
