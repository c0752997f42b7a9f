#!/usr/bin/env bash
# `make test-packaging`: what a user gets from plain pip. A fresh virtual environment,
# `pip install .` (pyproject.toml's dependencies only, the engine built by maturin),
# every subcommand's --help and one run of the bundled default scenario.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
echo "pip install $repo into a fresh venv (builds the engine; a few minutes)"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$repo"
cd "$work"
for command in run validate report compare sweep query reproduce advise measure emu crosscheck examples schema; do
    "$work/venv/bin/tcplab" "$command" --help > /dev/null
done
"$work/venv/bin/tcplab" run "$repo/scenarios/default.toml" --out "$work/default" > /dev/null
test -s "$work/default/summary.json"
echo "pip install . works: every --help and a run of scenarios/default.toml"
