#!/usr/bin/env bash
# Compiles dumbbell.cc against the pinned PyPI `ns3` wheel installed in PYTHON's
# environment (default: the repo's .venv). The wheel ships ns-3's headers and shared
# libraries (ns3/include, ns3/lib64); we link the modules the program uses and record
# their directory as the runtime path. Output: benchmarks/build/ns3-dumbbell.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-$here/../../.venv/bin/python}"
root="$("$python" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("ns3").origin))' 2>/dev/null || true)"
if [ -z "$root" ] || [ ! -d "$root/include" ]; then
    # The wheel's top-level package may not be importable by spec; fall back to site-packages.
    root="$("$python" -c 'import site; print(site.getsitepackages()[0])')/ns3"
fi
version="$(ls "$root/lib64" | sed -n 's/^libns3\.\([0-9.]*\)-core\.so$/\1/p' | head -n 1)"
[ -n "$version" ] || { echo "no ns-3 core library under $root/lib64" >&2; exit 1; }
mkdir -p "$here/../build"
libs=""
for m in core network internet point-to-point applications traffic-control stats bridge mobility; do
    libs="$libs -lns3.$version-$m"
done
g++ -O2 -std=c++20 -DNS3_LOG_ENABLE=0 -w -I"$root/include" "$here/dumbbell.cc" \
    -L"$root/lib64" $libs -Wl,-rpath,"$root/lib64" -o "$here/../build/ns3-dumbbell"
echo "$here/../build/ns3-dumbbell"
