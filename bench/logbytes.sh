#!/usr/bin/env bash
# Log size benchmark: log bytes per sample of a real session in steady
# state.  Workload (one busy thread, a constant set of functions) under
# clrscope at 1 kHz, once with each sampler; bench/logstats divides the
# bytes of every record (framing, definitions, events, status, samples) by
# the samples taken, over the whole log and over the steady part, from
# WARMUP seconds after the start on (definitions and JIT events are mostly
# written by then).  Not a test: nothing is asserted.
#
#   bench/logbytes.sh [-i ITERATIONS] [-w WARMUP] [-e EVENTS] [BUILD_DIR]
#
#   -i ITERATIONS  Workload's length (default 600, about 20 s unprofiled)
#   -w WARMUP      seconds left out of the steady part (default 3)
#   -e EVENTS      the runtime events recorded beside the samples (default
#                  none: the goal is the samples'; "all" reads about 100,
#                  most of it sampled allocations)
#
# Prints one row per sampler and part beside the goal (at most 16 bytes
# per sample in steady state).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

iterations=600
warmup=3
bench_opt() {
	case $1 in
	i) bench_uint iterations -i "$2" ;;
	w) bench_uint warmup -w "$2" ;;
	e) events=$2 ;;
	esac
}
events=none
bench_options "i:w:e:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
logstats=$(bench_tool logstats)
workload=$(bench_app Workload)
bench_workdir logbytes
rate=1000

# measure SAMPLER: one session; appends "SAMPLER PART logstats-row" per part.
measure() {
	local sampler=$1 session="$work/s-$1" start
	start=$(date +%s.%N)
	"$clrscope" record -o "$session" --rate "$rate" --sampler "$sampler" --events "$events" -- \
		dotnet "$workload" "$iterations" >"$work/out-$sampler" 2>"$work/err-$sampler" </dev/null ||
		{ echo "clrscope record failed:" >&2; cat "$work/err-$sampler" >&2; exit 1; }
	echo "$sampler whole $("$logstats" "$session" | awk 'NR == 2')" >>"$work/results"
	echo "$sampler steady $("$logstats" --after "$(python3 -c "print($start + $warmup)")" "$session" |
		awk 'NR == 2')" >>"$work/results"
	rm -rf "$session"
}

echo "clrscope log size benchmark: Workload $iterations at $rate Hz, events $events, steady after $warmup s" >&2
for sampler in mixed suspend signal; do
	echo "  sampler=$sampler" >&2
	measure "$sampler"
done

python3 - "$work/results" "$warmup" <<'EOF'
import sys
goal = 16.0
print("%-8s %-16s %8s %9s %13s %10s %13s  %s" % (
    "sampler", "part", "seconds", "samples", "samples/tick", "log bytes", "bytes/sample", "goal"))
for line in open(sys.argv[1]):
    # sampler part | pid ticks samples seconds median p99 max bytes bytes/sample dropped
    f = line.split()
    part = "whole log" if f[1] == "whole" else "after %s s" % sys.argv[2]
    ticks, samples, secs, nbytes, per = int(f[3]), int(f[4]), float(f[5]), int(f[9]), float(f[10])
    verdict = "" if f[1] == "whole" else ("<= %.0f: %s" % (goal, "met" if per <= goal else "missed"))
    if int(f[11]):
        verdict += " (%s records dropped)" % f[11]
    print("%-8s %-16s %8.1f %9d %13.2f %10d %13.2f  %s" % (
        f[0], part, secs, samples, samples / max(ticks, 1), nbytes, per, verdict))
EOF
