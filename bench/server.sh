#!/usr/bin/env bash
# Server benchmark: an ASP.NET Core (Kestrel) app (tests/apps/WebHash:
# SHA-256 over a 1 KiB buffer per request, 16 times) under a load generator
# on the loopback (wrk), with no profiler, under clrscope at 100 Hz and at
# 1 kHz (the default mixed sampler, with and without its self-check, the
# validate dial), and under dotnet-trace's default
# collection (the real tool, installed from NuGet into BUILD/tools on first
# use).  A server costs what a CPU loop hides: thread-pool threads that wake
# and park, sockets, many threads.  Runs are interleaved (the order rotates
# each round) so that drift of the machine touches every configuration
# alike; medians of requests per second and of the 99th percentile latency
# are compared, with the spread, and for clrscope the share of a CPU its
# sampler thread used under load (the part of the cost that the machine's
# noise does not drown: requests/s of one configuration moved by 20 % and
# more between runs here).
#
#   bench/server.sh [-n RUNS] [-d SECONDS] [-c CONNECTIONS] [BUILD_DIR]
#
# Each run: the app starts under its configuration, takes one second of
# load to warm up, then SECONDS of measured load.  With two CPUs or more
# the server (and the profiler's own processes) is pinned to CPU 0 and wrk
# to CPU 1: unpinned, the scheduler's placement moved the unprofiled
# server's throughput by +-20% from run to run, more than the costs
# measured.  Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5
seconds=5
connections=32
bench_opt() {
	case $1 in
	n) bench_uint runs -n "$2" ;;
	d) bench_uint seconds -d "$2" ;;
	c) bench_uint connections -c "$2" ;;
	esac
}
bench_options "n:d:c:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
command -v wrk >/dev/null || { echo "no wrk: install it (apt-get install wrk, or scripts/deps.sh)" >&2; exit 1; }
app=$(bench_app WebHash)
bench_workdir server
server_cpu=() load_cpu=() load_threads=2
if (($(nproc) >= 2)) && command -v taskset >/dev/null; then
	server_cpu=(taskset -c 0) load_cpu=(taskset -c 1) load_threads=1
fi

configs=(none clrscope-100hz clrscope-1khz clrscope-1khz-novalidate)
trace=$build/tools/dotnet-trace
if [[ ! -x $trace ]]; then
	echo "installing dotnet-trace into $build/tools (once)" >&2
	dotnet tool install --tool-path "$build/tools" dotnet-trace >"$work/tool.log" 2>&1 ||
		echo "dotnet-trace could not be installed (see below); its row is left out:
$(tail -3 "$work/tool.log")" >&2
fi
[[ -x $trace ]] && configs+=(dotnet-trace)

# run CONFIG N: one run; appends "config requests_per_s p99_ms" to results
run() {
	local config=$1 n=$2 out="$work/$1-$2" port=$((21000 + RANDOM % 20000)) life=$((seconds + 8))
	case $config in
	none) bench_start "$out" "${server_cpu[@]}" dotnet "$app" "$port" "$life" ;;
	clrscope-100hz) bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate 100 -- dotnet "$app" "$port" "$life" ;;
	clrscope-1khz) bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate 1000 -- dotnet "$app" "$port" "$life" ;;
	clrscope-1khz-novalidate)
		bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate 1000 --validate 0 -- dotnet "$app" "$port" "$life"
		;;
	dotnet-trace)
		bench_start "$out" "${server_cpu[@]}" "$trace" collect --show-child-io --format Speedscope -o "$work/t-$n.nettrace" -- dotnet "$app" "$port" "$life"
		;;
	esac
	local pid=$bench_pid
	bench_wait_line "$out" '^listening' 60 "$pid"
	"${load_cpu[@]}" wrk -t"$load_threads" -c"$connections" -d1s "http://127.0.0.1:$port/hash?n=16" >/dev/null 2>&1 || true
	local before after
	before=$(sampler_ticks "$port")
	"${load_cpu[@]}" wrk -t"$load_threads" -c"$connections" -d"${seconds}s" --latency "http://127.0.0.1:$port/hash?n=16" >"$out.wrk" 2>&1 || true
	after=$(sampler_ticks "$port")
	bench_reap "$pid" || true
	rm -rf "$work/s-$n" "$work"/t-"$n".*
	python3 - "$config" "$out.wrk" "$before" "$after" "$seconds" "$(getconf CLK_TCK)" >>"$work/results" <<'PY'
import re, sys
text = open(sys.argv[2]).read()
rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\b", text, re.M)
scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
before, after, seconds, hz = sys.argv[3:7]
sampler = "nan" if before == "-" or after == "-" else "%.2f" % (
    100.0 * (int(after) - int(before)) / int(hz) / float(seconds))
print(sys.argv[1], rps.group(1) if rps else "nan",
      "%.2f" % (float(p99.group(1)) * scale[p99.group(2)]) if p99 else "nan", sampler)
PY
}

# sampler_ticks PORT: the CPU time (clock ticks) of clrscope's sampler thread
# in the server listening on PORT so far, '-' without one: the steadiest
# part of the cost to read (the machine's noise moves requests/s far more)
sampler_ticks() {
	local p t
	for p in $(pgrep -f "WebHash.dll $1 " || true); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == dotnet ]] || continue
		for t in /proc/"$p"/task/*; do
			if [[ $(cat "$t/comm" 2>/dev/null) == clrscope-samp* ]]; then
				sed 's/.*) //' "$t/stat" | awk '{print $12 + $13}'
				return
			fi
		done
	done
	echo -
}

echo "clrscope server benchmark: WebHash under wrk (${connections} connections, ${seconds} s), $runs interleaved runs" >&2
for ((r = 0; r < runs; r++)); do
	for ((k = 0; k < ${#configs[@]}; k++)); do
		c=${configs[$(((k + r) % ${#configs[@]}))]}
		run "$c" "$r"
		echo "  round $((r + 1))/$runs: $(tail -1 "$work/results")" >&2
	done
done

python3 - "$work/results" <<'EOF'
import math, statistics, sys
rows, sampler = {}, {}
for line in open(sys.argv[1]):
    name, rps, p99, cpu = line.split()
    if not math.isnan(float(rps)):
        rows.setdefault(name, []).append((float(rps), float(p99)))
    if not math.isnan(float(cpu)):
        sampler.setdefault(name, []).append(float(cpu))
order = [c for c in ["none", "clrscope-100hz", "clrscope-1khz", "clrscope-1khz-novalidate", "dotnet-trace"] if c in rows]
base = statistics.median(r for r, _ in rows["none"])
print("%-24s %12s %9s %20s %12s %18s %16s" % ("configuration", "median req/s", "loss", "min..max req/s", "median p99",
                                               "min..max p99 ms", "sampler thread"))
for name in order:
    rps = [r for r, _ in rows[name]]
    p99 = [p for _, p in rows[name]]
    m = statistics.median(rps)
    cpu = sampler.get(name)
    print("%-24s %12.0f %8.1f%% %9.0f..%-9.0f %9.1f ms %8.1f..%-8.1f %16s" % (
        name, m, 100 * (1 - m / base), min(rps), max(rps), statistics.median(p99), min(p99), max(p99),
        "%.1f%% of a CPU" % statistics.median(cpu) if cpu else "-"))
def loss(name):
    return 100 * (1 - statistics.median(r for r, _ in rows[name]) / base)
print()
if "dotnet-trace" in rows:
    print("goals: clrscope 1 kHz loses at most half of dotnet-trace's loss (%.1f%% -> %.1f%%): %.1f%%; "
          "clrscope 100 Hz at most 3%%: %.1f%%" % (loss("dotnet-trace"), loss("dotnet-trace") / 2,
                                                 loss("clrscope-1khz"), loss("clrscope-100hz")))
EOF
