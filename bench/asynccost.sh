#!/usr/bin/env bash
# What the logical stacks cost a program that resumes async methods as fast
# as it can: tests/apps/Async's yield mode (each round awaits a method that
# awaits Task.Yield(): one resume on a pool thread a round), unprofiled and
# under clrscope at 1 kHz with the async dial on (the default) and off.
#
#   bench/asynccost.sh [-n RUNS] [-d SECONDS] [BUILD_DIR]
#
# Each of RUNS rounds (default 5) runs every configuration once, in a
# rotating order, for SECONDS (default 5); printed: the rounds (resumes) a
# second, median and spread, the loss against the unprofiled program, and
# for the profiled runs the samples given their logical callers, those
# left unresolved, and the sampler's time spent finding them (the agent's
# own account).  Not a test: nothing is asserted.  Run it on a quiet
# machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5
seconds=5
bench_opt() {
	case $1 in
	n) bench_uint runs -n "$2" ;;
	d) bench_uint seconds -d "$2" ;;
	esac
}
bench_options "n:d:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
app=$(bench_app Async)
bench_workdir asynccost

configs=(none async-on async-off)
: >"$work/results"
for ((r = 0; r < runs; r++)); do
	for ((k = 0; k < ${#configs[@]}; k++)); do
		c=${configs[$(((k + r) % ${#configs[@]}))]}
		out="$work/$c-$r"
		case $c in
		none) dotnet "$app" "$seconds" yield >"$out" 2>&1 ;;
		async-on) "$clrscope" record -o "$out.s" --rate 1000 -- dotnet "$app" "$seconds" yield >"$out" 2>&1 ;;
		async-off) "$clrscope" record -o "$out.s" --rate 1000 --async off -- dotnet "$app" "$seconds" yield >"$out" 2>&1 ;;
		esac
		rounds=$(awk '$1 == "done" { print $2 }' "$out")
		agent="- - -"
		if [[ -d $out.s ]]; then
			agent=$("$clrscope" report --format json "$out.s" | python3 -c '
import json, sys
a = json.load(sys.stdin)["processes"][0]["agent"]
print(a["async_resolved"], a["async_unresolved"], a["async_ms"])')
		fi
		echo "$c ${rounds:-nan} $agent" >>"$work/results"
	done
	echo "  round $((r + 1))/$runs" >&2
done
python3 - "$work/results" "$seconds" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, rounds, resolved, unresolved, ms = line.split()
    rows.setdefault(name, []).append((float(rounds) / float(sys.argv[2]), resolved, unresolved, ms))
base = statistics.median(r for r, *_ in rows["none"])
print("%-10s %16s %8s %22s %10s %12s %10s" % ("config", "resumes/s", "loss", "min..max", "resolved", "unresolved",
                                               "sampler ms"))
for name in ("none", "async-on", "async-off"):
    v = rows.get(name, [])
    if not v:
        continue
    rates = [r for r, *_ in v]
    med = statistics.median(rates)
    last = v[-1]
    print("%-10s %16.0f %7.1f%% %22s %10s %12s %10s" % (name, med, 100 * (1 - med / base),
          "%.0f..%.0f" % (min(rates), max(rates)), last[1], last[2], last[3]))
PY
