#!/usr/bin/env bash
# Cost of the runtime's event stream: the CPU loop (tests/apps/Workload)
# and a server's work (tests/apps/Server: requests on the thread pool with a
# shared lock, allocations and a failing request in a hundred) run with no
# profiler, under clrscope at 100 Hz with no runtime events, and with every
# kind (the default: the event sessions, exception messages, contention,
# waits, the thread pool and sampled allocations with their stacks).  Runs
# are interleaved (the order rotates each round); medians are compared.
#
#   bench/events.sh [-n RUNS] [-i ITERATIONS] [-q REQUESTS] [BUILD_DIR]
#
# Prints one row per program and configuration: median time, overhead
# against no profiler, spread, and the events recorded in the last run.
# Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5
iterations=40
requests=200000
bench_opt() {
	case $1 in
	n) bench_uint runs -n "$2" ;;
	i) bench_uint iterations -i "$2" ;;
	q) bench_uint requests -q "$2" ;;
	esac
}
bench_options "n:i:q:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
workload=$(bench_app Workload)
server=$(bench_app Server)
bench_workdir events

configs=(none events-none events-all)
programs=(workload server)

# run PROGRAM CONFIG N: one run; appends "program config elapsed_ms events" to results
run() {
	local program=$1 config=$2 n=$3 out="$work/$1-$2-$3" session="$work/s-$1-$2-$3" cmd
	case $program in
	workload) cmd=(dotnet "$workload" "$iterations") ;;
	server) cmd=(dotnet "$server" "$requests") ;;
	esac
	case $config in
	none) "${cmd[@]}" >"$out" ;;
	events-none) "$clrscope" record -o "$session" --rate 100 --events none -- "${cmd[@]}" >"$out" 2>/dev/null ;;
	events-all) "$clrscope" record -o "$session" --rate 100 --events all -- "${cmd[@]}" >"$out" 2>/dev/null ;;
	esac
	local events=-
	if [[ $config != none ]]; then
		events=$("$clrscope" report --format json "$session" | python3 -c '
import json, sys
e = json.load(sys.stdin)["processes"][0]["events"]
print(sum(v for k, v in e.items() if k not in ("jit", "modules", "assemblies")))')
		rm -rf "$session"
	fi
	echo "$program $config $(awk '/^elapsed_ms/ {print $2}' "$out") $events" >>"$work/results"
}

echo "event stream cost: Workload $iterations, Server $requests, $runs interleaved runs each" >&2
for ((r = 0; r < runs; r++)); do
	for program in "${programs[@]}"; do
		for ((k = 0; k < ${#configs[@]}; k++)); do
			c=${configs[$(((k + r) % ${#configs[@]}))]}
			run "$program" "$c" "$r"
			echo "  round $((r + 1))/$runs: $program $c $(tail -1 "$work/results" | awk '{print $3}') ms" >&2
		done
	done
done

python3 - "$work/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    program, config, ms, events = line.split()
    rows.setdefault((program, config), []).append((float(ms), events))
print("%-10s %-12s %10s %9s %17s %12s" % ("program", "config", "median ms", "overhead", "min..max ms", "events"))
for program in ("workload", "server"):
    base = statistics.median(ms for ms, _ in rows[(program, "none")])
    for config in ("none", "events-none", "events-all"):
        ms = [m for m, _ in rows[(program, config)]]
        m = statistics.median(ms)
        print("%-10s %-12s %10.1f %8.1f%% %8.1f..%-8.1f %12s" % (program, config, m, 100 * (m / base - 1), min(ms),
                                                              max(ms), rows[(program, config)][-1][1]))
PY
