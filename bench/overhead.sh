#!/usr/bin/env bash
# Overhead benchmark: a fixed CPU workload (tests/apps/Workload, which times
# its own work) run with no profiler, under clrscope at 100 Hz and 1 kHz
# (the default mixed sampler, and at 1 kHz also the suspending and the
# signal sampler; at 100 Hz also with no runtime events, the cost of the
# event session and callbacks), and
# under the runtime's own EventPipe sample profiler at 1 ms.  The agent
# leaves background GC on (only --heap-snapshots turns it off), so the run
# with no profiler is the reference; the one with DOTNET_gcConcurrent=0
# shows what background GC itself costs this workload.  Runs are
# interleaved (the order rotates each round) so that drift of the machine
# touches every configuration alike; medians are compared.
#
#   bench/overhead.sh [-n RUNS] [-i ITERATIONS] [BUILD_DIR]
#
# Prints one row per configuration: median work time, overhead against no
# profiler, the spread, samples per second actually taken, and (clrscope)
# the runtime's median suspension per sample.  Not a test: nothing is
# asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5
iterations=100
bench_opt() {
	case $1 in
	n) bench_uint runs -n "$2" ;;
	i) bench_uint iterations -i "$2" ;;
	esac
}
bench_options "n:i:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
workload=$(bench_app Workload)
bench_workdir bench

configs=(none none-blocking-gc clrscope-100hz clrscope-100hz-noevents clrscope-1khz clrscope-1khz-suspend clrscope-1khz-signal eventpipe-1ms)

# run CONFIG N: one run; appends "config elapsed_ms samples_per_s suspend_us" to results
run() {
	local config=$1 n=$2 out="$work/$1-$2" session="$work/s-$1-$2" extra=""
	case $config in
	none) dotnet "$workload" "$iterations" >"$out" ;;
	none-blocking-gc) DOTNET_gcConcurrent=0 dotnet "$workload" "$iterations" >"$out" ;;
	clrscope-100hz) "$clrscope" record -o "$session" --rate 100 -- dotnet "$workload" "$iterations" >"$out" 2>/dev/null ;;
	clrscope-100hz-noevents)
		"$clrscope" record -o "$session" --rate 100 --events none -- dotnet "$workload" "$iterations" >"$out" 2>/dev/null
		;;
	clrscope-1khz) "$clrscope" record -o "$session" --rate 1000 -- dotnet "$workload" "$iterations" >"$out" 2>/dev/null ;;
	clrscope-1khz-suspend)
		"$clrscope" record -o "$session" --rate 1000 --sampler suspend -- dotnet "$workload" "$iterations" >"$out" 2>/dev/null
		;;
	clrscope-1khz-signal)
		"$clrscope" record -o "$session" --rate 1000 --sampler signal -- dotnet "$workload" "$iterations" >"$out" 2>/dev/null
		;;
	eventpipe-1ms)
		DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$work/ep-$n.nettrace" \
			DOTNET_EventPipeConfig='Microsoft-DotNETCore-SampleProfiler:0:5' \
			dotnet "$workload" "$iterations" >"$out"
		;;
	esac
	local ms
	ms=$(awk '/^elapsed_ms/ {print $2}' "$out")
	if [[ $config == clrscope-* ]]; then
		extra=$("$clrscope" report --format json "$session" | python3 -c '
import json, sys
p = json.load(sys.stdin)["processes"][0]
secs = max(p["duration_ms"] / 1000.0, 1e-9)
print("%.0f %.1f" % (p["ticks"] / secs, p["agent"]["suspend_us_median"]))')
		rm -rf "$session"
	elif [[ $config == eventpipe-* ]]; then
		extra="- - $(stat -c %s "$work/ep-$n.nettrace")"
		rm -f "$work/ep-$n.nettrace"
	else
		extra="- -"
	fi
	echo "$config $ms $extra" >>"$work/results"
}

echo "clrscope overhead benchmark: Workload $iterations, $runs interleaved runs per configuration" >&2
for ((r = 0; r < runs; r++)); do
	for ((k = 0; k < ${#configs[@]}; k++)); do
		c=${configs[$(((k + r) % ${#configs[@]}))]}
		run "$c" "$r"
		echo "  round $((r + 1))/$runs: $c $(tail -1 "$work/results" | awk '{print $2}') ms" >&2
	done
done

python3 - "$work/results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault(f[0], []).append(f[1:])
order = ["none", "none-blocking-gc", "clrscope-100hz", "clrscope-100hz-noevents", "clrscope-1khz", "clrscope-1khz-suspend",
         "clrscope-1khz-signal", "eventpipe-1ms"]
def med(name):
    return statistics.median(float(r[0]) for r in rows[name])
base, like = med("none"), med("none-blocking-gc")
print("%-23s %10s %9s %12s %17s %10s %12s" % ("configuration", "median ms", "overhead", "vs blocking", "min..max ms",
                                             "ticks/s", "suspend us"))
for name in order:
    ms = [float(r[0]) for r in rows[name]]
    m = med(name)
    rate = [float(r[1]) for r in rows[name] if r[1] != "-"]
    sus = [float(r[2]) for r in rows[name] if r[2] != "-"]
    print("%-23s %10.1f %8.1f%% %11.1f%% %8.1f..%-8.1f %10s %12s" % (
        name, m, 100 * (m / base - 1), 100 * (m / like - 1), min(ms), max(ms),
        "%.0f" % statistics.median(rate) if rate else "-",
        "%.1f" % statistics.median(sus) if sus else "-"))
ep = 100 * (med("eventpipe-1ms") / base - 1)
def over(name):
    return 100 * (med(name) / base - 1)
print()
print("goals (against no profiler):")
print("  clrscope 100 Hz <= 2%%: %.1f%% (with no runtime events %.1f%%)" % (over("clrscope-100hz"),
      over("clrscope-100hz-noevents")))
print("  clrscope 1 kHz <= half of EventPipe 1 ms (%.1f%% -> %.1f%%): mixed (the default) %.1f%%, suspend %.1f%%, "
      "signal %.1f%%" % (ep, ep / 2, over("clrscope-1khz"), over("clrscope-1khz-suspend"), over("clrscope-1khz-signal")))
EOF
