#!/usr/bin/env bash
# Sets up and shows clrscope on the bundled demo app: installs what is
# missing, builds clrscope and the demo, records the demo and prints its
# profile.
#
#   scripts/demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

scripts/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
tests/apps/build.sh "$build/apps"

session="$build/demo-session"
rm -rf "$session"
"$build/bin/clrscope" record -o "$session" -- dotnet "$build/apps/CpuRatio/CpuRatio.dll" 3
"$build/bin/clrscope" report --top 15 "$session"
