#!/usr/bin/env bash
# Suspension benchmark: the runtime's suspension per sample at 1 kHz with the
# default (mixed) sampler beside the always-suspending one, against the
# number of busy managed threads and their stack depth (tests/apps/DeepThreads: THREADS threads, each
# DEPTH frames deep, spinning).  Each pair is one session of SECONDS, measured
# from the moment every thread is at its depth; bench/logstats reads the
# suspension of every tick from the log.  Not a test: nothing is asserted.
#
#   bench/suspension.sh [-s SECONDS] [-t THREADS,...] [-d DEPTH,...] [-b BUSY] [-S SAMPLER,...] [BUILD_DIR]
#
#   -s SECONDS  length of each session after the threads are ready (default 10)
#   -t LIST     thread counts (default 2,16,64)
#   -d LIST     stack depths in frames (default 5,50,200)
#   -b BUSY     only BUSY of the threads spin, the others wait at their depth
#               (default: all spin).  More spinning threads than cores measure
#               the scheduler too: each must get a core to reach a safe point.
#   -S LIST     samplers (default mixed,suspend; signal never suspends)
#
# Prints one row per sampler and pair: ticks taken and ticks per second (1000 when the
# sampler kept up), samples per tick (the busy threads, the main thread and
# the runtime's own), the suspension per tick (median, p99, max), and the
# goal (median under 50 us with 16 threads) on the 16-thread rows.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

seconds=10
thread_counts="2 16 64"
depths="5 50 200"
busy=""
samplers="mixed suspend"
bench_opt() {
	case $1 in
	s) bench_uint seconds -s "$2" ;;
	t) bench_uint_list thread_counts -t "$2" ;;
	d) bench_uint_list depths -d "$2" ;;
	b) bench_count busy -b "$2" ;;
	S) [[ $2 =~ ^(mixed|suspend|signal)(,(mixed|suspend|signal))*$ ]] ||
		bench_usage_error "-S wants samplers like mixed,suspend, not '$2'"
	   samplers=${2//,/ } ;;
	esac
}
bench_options "s:t:d:b:S:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
logstats=$(bench_tool logstats)
deep=$(bench_app DeepThreads)
bench_workdir suspension
rate=1000

# measure SAMPLER THREADS DEPTH BUSY: one session; appends the pair and logstats'
# row for its steady part to results (not in a $(...) subshell: the script
# must know the programs it started, to stop them if it is interrupted).
measure() {
	local sampler=$1 threads=$2 depth=$3 spinning=$4 session="$work/s-$1-$2-$3" out="$work/out-$1-$2-$3" pid after
	bench_start "$out" "$clrscope" record -o "$session" --rate "$rate" --sampler "$sampler" -- \
		dotnet "$deep" "$threads" "$depth" "$seconds" "busy=$spinning"
	pid=$bench_pid
	# the ticks before every thread reached its depth do not count
	bench_wait_line "$out" '^ready$' 120 "$pid" || { cat "$out.err" >&2; exit 1; }
	after=$(date +%s.%N)
	bench_reap "$pid" || { echo "clrscope record failed:" >&2; cat "$out.err" >&2; exit 1; }
	echo "$sampler $threads $spinning $depth $("$logstats" --after "$after" "$session" | awk 'NR == 2')" >>"$work/results"
	rm -rf "$session"
}

echo "clrscope suspension benchmark: DeepThreads at $rate Hz, $seconds s per pair" >&2
for threads in $thread_counts; do
	for depth in $depths; do
		spinning=$threads
		[[ -z $busy ]] || ((busy >= threads)) || spinning=$busy
		for sampler in $samplers; do
			echo "  $sampler: $threads threads ($spinning busy), depth $depth" >&2
			measure "$sampler" "$threads" "$depth" "$spinning"
		done
	done
done

python3 - "$work/results" "$rate" <<'EOF'
import sys
rate = float(sys.argv[2])
goal_threads, goal_us = 16, 50.0
print("%-8s %7s %5s %6s %8s %8s %13s %10s %10s %10s  %s" % (
    "sampler", "threads", "busy", "depth", "ticks", "ticks/s", "samples/tick", "median us", "p99 us", "max us",
    "goal: median < %.0f us with %d threads" % (goal_us, goal_threads)))
verdicts = []
for line in open(sys.argv[1]):
    # sampler threads busy depth | pid ticks samples seconds median p99 max bytes bytes/sample dropped
    f = line.split()
    sampler, f = f[0], f[1:]
    threads, busy, depth = int(f[0]), int(f[1]), int(f[2])
    ticks, samples, secs = int(f[4]), int(f[5]), float(f[6])
    median, p99, top, dropped = float(f[7]), float(f[8]), float(f[9]), int(f[12])
    per_s = (ticks - 1) / secs if secs > 0 else 0
    goal = ""
    if threads == goal_threads:
        goal = "met" if median < goal_us else "missed"
        verdicts.append("%s, depth %d: %.1f us (%s)" % (sampler, depth, median, goal))
    if dropped:
        goal += " (%d records dropped)" % dropped
    print("%-8s %7d %5d %6d %8d %8.0f %13.1f %10.1f %10.1f %10.1f  %s" % (
        sampler, threads, busy, depth, ticks, per_s, samples / max(ticks, 1), median, p99, top, goal))
print()
if verdicts:
    print("goal, median suspension < %.0f us with %d threads:\n  %s" % (goal_us, goal_threads, "\n  ".join(verdicts)))
print("(a tick rate below %.0f/s means the sampler fell behind: ticks are skipped, never bunched)" % rate)
EOF
