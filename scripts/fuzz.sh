#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) in their own build directory and
# runs each for a while; what fails is saved for you to reproduce, fix and
# keep as a regression test.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 300); targets by name (reader, dials, config,
# ipc, json, pprof, pdb, unwind; default all of them, one after another).
# Each runs on CLRSCOPE_FUZZ_WORKERS processes (default: half the CPUs, at
# least one).
# The corpus grows in BUILD/fuzz-corpus/TARGET from run to run; findings go
# to BUILD/fuzz-findings/DATE/TARGET.  BUILD is $CLRSCOPE_FUZZ_BUILD or
# build-fuzz.  Exits 1 when something was found.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-300}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2; }
shift $(($# > 0 ? 1 : 0))

read -r -a all < <(sed -n 's/^set(FUZZ_TARGETS \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")
for t in "${targets[@]}"; do
	[[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target '$t' (there are: ${all[*]})" >&2; exit 2; }
done

build=${CLRSCOPE_FUZZ_BUILD:-build-fuzz}
[[ $build == /* ]] || build=$root/$build
cpus=$(nproc)
workers=${CLRSCOPE_FUZZ_WORKERS:-$((cpus / 2 > 0 ? cpus / 2 : 1))}

if [[ ! -f $build/CMakeCache.txt ]]; then
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCLRSCOPE_FUZZ=ON >/dev/null
else
	cmake -S . -B "$build" -DCLRSCOPE_FUZZ=ON >/dev/null # finds new sources
fi
cmake --build "$build" -j"$cpus" --target "${targets[@]/#/fuzz_}"

findings=$build/fuzz-findings/$(date +%Y%m%d-%H%M%S)
# the fuzzers write their session and config files here; a crash leaves them
scratch=$(mktemp -d "${TMPDIR:-/tmp}/clrscope-fuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# "key: value" from the final stats of every job's log, summed over jobs
stat_sum() {
	awk -v key="stat::$1:" '$1 == key { s += $2 } END { print s + 0 }' "$2"/fuzz-*.log
}

found=0
summary=()
for t in "${targets[@]}"; do
	corpus=$build/fuzz-corpus/$t
	out=$findings/$t
	mkdir -p "$corpus" "$out/logs"
	dict=()
	[[ -f tests/fuzz/dicts/$t.dict ]] && dict=(-dict="$root/tests/fuzz/dicts/$t.dict")
	inputs=("$corpus" "$root/tests/fuzz/seeds_$t")
	[[ -d tests/fuzz/regressions/$t ]] && inputs+=("$root/tests/fuzz/regressions/$t")
	echo "fuzz.sh: $t for ${seconds}s on $workers worker(s); log in $out/logs"
	# -jobs: that many runs of max_total_time each, -workers of them at once
	(cd "$out/logs" && TMPDIR=$scratch "$build/tests/fuzz/fuzz_$t" -jobs="$workers" -workers="$workers" \
		-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/" "${dict[@]}" "${inputs[@]}" >/dev/null 2>&1) || true
	crashes=$(find "$out" -maxdepth 1 -type f | wc -l)
	found=$((found + crashes))
	cov=$(grep -h -o 'cov: [0-9]*' "$out"/logs/fuzz-*.log | awk '$2 > m { m = $2 } END { print m + 0 }')
	ft=$(grep -h -o 'ft: [0-9]*' "$out"/logs/fuzz-*.log | awk '$2 > m { m = $2 } END { print m + 0 }')
	summary+=("$(printf '%-7s %10s execs %7s/s  cov %5s  ft %6s  corpus %5s  new %4s  findings %s' "$t" \
		"$(stat_sum number_of_executed_units "$out/logs")" "$(stat_sum average_exec_per_sec "$out/logs")" \
		"$cov" "$ft" "$(find "$corpus" -type f | wc -l)" "$(stat_sum new_units_added "$out/logs")" "$crashes")")
done

echo
printf '%s\n' "${summary[@]}"
if ((found == 0)); then
	echo "fuzz.sh: nothing found"
	exit 0
fi
cat <<EOT

fuzz.sh: $found finding(s) in $findings/TARGET/ (crash-*, leak-*, timeout-*, oom-*).
For each one:
  reproduce    $build/tests/fuzz/fuzz_TARGET FILE
  minimize     $build/tests/fuzz/fuzz_TARGET -minimize_crash=1 -runs=100000 -exact_artifact_path=FILE.min FILE
  fix the bug, then keep the (minimized) input as a regression test:
               cp FILE.min tests/fuzz/regressions/TARGET/WHAT-IT-FOUND
  ctest -R fuzz.TARGET.regressions replays it (and every older one) in each test run.
EOT
exit 1
