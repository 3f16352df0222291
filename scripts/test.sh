#!/usr/bin/env bash
# Sets up and runs every test: installs what is missing, builds clrscope with
# clang, ASan and UBSan (the agent is never sanitized), builds the C# test
# apps, and runs the unit, end-to-end and fuzzing tests through ctest.
#
#   scripts/test.sh [BUILD_DIR]      (default: build-test)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}

scripts/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	-DCLRSCOPE_WERROR=ON -DCLRSCOPE_SANITIZE=ON -DCLRSCOPE_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
tests/apps/build.sh "$build/apps"
cd "$build"
ctest --output-on-failure -j1
