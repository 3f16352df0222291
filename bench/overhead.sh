#!/usr/bin/env bash
# Overhead benchmark: a fixed CPU workload (tests/apps/Workload, which times
# its own work) run with no profiler, under clrscope at 100 Hz and 1 kHz
# (suspending the runtime, and with the signal sampler at 1 kHz), and
# under the runtime's own EventPipe sample profiler at 1 ms.  Runs are
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

configs=(none clrscope-100hz clrscope-1khz clrscope-1khz-signal eventpipe-1ms)

# run CONFIG N: one run; appends "config elapsed_ms samples_per_s suspend_us" to results
run() {
	local config=$1 n=$2 out="$work/$1-$2" session="$work/s-$1-$2" extra=""
	case $config in
	none) dotnet "$workload" "$iterations" >"$out" ;;
	clrscope-100hz) "$clrscope" record -o "$session" --rate 100 -- dotnet "$workload" "$iterations" >"$out" 2>/dev/null ;;
	clrscope-1khz) "$clrscope" record -o "$session" --rate 1000 -- dotnet "$workload" "$iterations" >"$out" 2>/dev/null ;;
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
order = ["none", "clrscope-100hz", "clrscope-1khz", "clrscope-1khz-signal", "eventpipe-1ms"]
base = statistics.median(float(r[0]) for r in rows["none"])
ep = statistics.median(float(r[0]) for r in rows["eventpipe-1ms"]) / base - 1
print("%-16s %10s %9s %17s %10s %12s" % ("configuration", "median ms", "overhead", "min..max ms", "ticks/s", "suspend us"))
for name in order:
    ms = [float(r[0]) for r in rows[name]]
    med = statistics.median(ms)
    rate = [float(r[1]) for r in rows[name] if r[1] != "-"]
    sus = [float(r[2]) for r in rows[name] if r[2] != "-"]
    print("%-16s %10.1f %8.1f%% %8.1f..%-8.1f %10s %12s" % (
        name, med, 100 * (med / base - 1), min(ms), max(ms),
        "%.0f" % statistics.median(rate) if rate else "-",
        "%.1f" % statistics.median(sus) if sus else "-"))
ours = statistics.median(float(r[0]) for r in rows["clrscope-1khz"]) / base - 1
sig = statistics.median(float(r[0]) for r in rows["clrscope-1khz-signal"]) / base - 1
print()
print("goals: clrscope 100 Hz <= 2%%: %.1f%%; clrscope 1 kHz <= half of EventPipe 1 ms (%.1f%% -> %.1f%%): "
      "suspend %.1f%%, signal %.1f%%"
      % (100 * (statistics.median(float(r[0]) for r in rows["clrscope-100hz"]) / base - 1), 100 * ep, 50 * ep,
         100 * ours, 100 * sig))
EOF
