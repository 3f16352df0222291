#!/usr/bin/env bash
# Sets up and opens clrscope's terminal UI on the bundled demo app: installs
# what is missing, builds clrscope and the demo, and launches the demo
# (CpuRatio, which burns CPU in two callers of one callee, 3:1) under the
# profiler for a minute.  Keys: Tab or 1-9 and 0 switch views, ? help, q quits.
#
#   scripts/demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

scripts/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
tests/apps/build.sh "$build/apps"

if [[ -t 0 && -t 1 ]]; then
	exec "$build/bin/clrscope" launch -- dotnet "$build/apps/CpuRatio/CpuRatio.dll" 60
fi
# no terminal (a script, CI): record and print the profile instead
session="$build/demo-session"
rm -rf "$session"
"$build/bin/clrscope" record -o "$session" -- dotnet "$build/apps/CpuRatio/CpuRatio.dll" 3
"$build/bin/clrscope" report --top 15 "$session"
