#!/usr/bin/env bash
# Side by side with the kernel's own CPU sampler, on a real server: one
# WebHash (ASP.NET Core) process at a fixed load (hey), recorded by clrscope
# at 1 kHz (the default mixed sampler), while `perf record -e cpu-clock`
# samples the same threads (the pool's workers and the socket engine) each
# time one has used 250 us of CPU: its samples land where the CPU time went,
# whatever a thread's bursts.  Over the same window, per thread group:
# the CPU time by the kernel's count (/proc/PID/task/TID/schedstat), what
# clrscope's CPU samples and perf's stand for (samples times their period),
# and where each puts it, leaf by leaf (bench/versus_perf.py: a managed
# method, or a native module; for a sample in the kernel, the user-mode
# instruction it returns to, which is where clrscope's signal finds it).
# perf names JIT code from the runtime's perf map (DOTNET_PerfMapEnabled=1),
# which covers JIT code only: the server runs with ReadyToRun code off and
# without the W^X double mapping, in both tools' view alike.
#
#   bench/versus_perf.sh [-n ROUNDS] [-s SECONDS] [-q REQUESTS_PER_S] [-t TOP] [-b BUILD_DIR]
#
# ROUNDS: servers, one after another (default 2); SECONDS: each one's window
# (default 15); REQUESTS_PER_S: the load (default 3200); TOP: leaves listed
# (default 12).  Needs perf (Debian: linux-perf) and the right to sample
# one's own threads (kernel.perf_event_paranoid 2 or less, or root).
#
# Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rounds=2 seconds=15 fixed_rate=3200 top=12
bench_opt() {
	case $1 in
	n) bench_uint rounds -n "$2" ;;
	s) bench_uint seconds -s "$2" ;;
	q) bench_uint fixed_rate -q "$2" ;;
	t) bench_uint top -t "$2" ;;
	b) build_dir=$2 ;;
	esac
}
build_dir=
bench_options "n:s:q:t:b:" "" "$@"
set -- "${bench_args[@]}"
(($# == 0)) || bench_usage_error "takes no operands, not: $*"
bench_build "$build_dir"
bench_need perf "Debian: apt-get install linux-perf"
bench_need hey "apt-get install hey, or scripts/deps.sh"
((fixed_rate >= 32)) || bench_usage_error "-q wants at least 32 requests per second"
bench_workdir versus-perf
app=$(bench_app WebHash)
bench_split_cpus
export DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0 # (see bench/server.sh)
export DOTNET_PerfMapEnabled=1 DOTNET_ReadyToRun=0 DOTNET_EnableWriteXorExecute=0

# the group's threads: "TID NAME" lines, and their CPU time so far (ns)
threads_of() {
	local t name
	for t in /proc/"$1"/task/*; do
		name=$(cat "$t/comm" 2>/dev/null) || continue
		[[ $name == ".NET TP Worker" || $name == ".NET Sockets" ]] && echo "${t##*/} $(cut -d' ' -f1 "$t/schedstat") $name"
	done
}

for ((r = 0; r < rounds; r++)); do
	dir=$work/round$r
	mkdir -p "$dir"
	port=$((21000 + RANDOM % 20000))
	life=$((seconds + 20))
	bench_start "$dir/server" "${server_cpu[@]}" "$clrscope" record -o "$dir/session" --rate 1000 -- \
		dotnet "$app" "$port" "$life"
	record_pid=$bench_pid
	bench_wait_line "$dir/server" '^listening' 60 "$record_pid"
	pid=$(bench_webhash_pid "$port")
	[[ -n $pid ]] || { echo "versus_perf.sh: the server's process is not to be found" >&2; exit 1; }
	bench_start "$dir/hey" "${load_cpu[@]}" hey -c 32 -q $((fixed_rate / 32)) -z "$((seconds + 10))s" \
		"http://127.0.0.1:$port/hash?n=16"
	bench_sleep 6 # (the pool grows to the load, the methods reach tier 1)
	tids=$(threads_of "$pid" | awk '{ print $1 }' | paste -sd,)
	# the window's ends and the threads' CPU clocks are read by perf's own
	# command, while its samples are taken
	export -f threads_of
	"${load_cpu[@]}" perf record -q -e cpu-clock -c 250000 -g -t "$tids" -o "$dir/perf.data" -- \
		bash -c 'threads_of "$1" >"$2/before"; date +%s.%N >"$2/window"; sleep "$3"
			date +%s.%N >>"$2/window"; threads_of "$1" >"$2/after"' - "$pid" "$dir" "$seconds" \
		2>"$dir/perf.err" || { echo "perf record failed: $(cat "$dir/perf.err")" >&2; exit 1; }
	bench_reap "$record_pid" || true
	perf script -i "$dir/perf.data" -F tid,ip,sym,dso >"$dir/perf.txt" 2>/dev/null
	"$clrscope" report --format json "$dir/session" >"$dir/report.json"
	python3 "$bench_here/bench/versus_perf.py" "$clrscope" "$dir" 250000 "$top"
done
