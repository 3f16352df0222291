#!/usr/bin/env bash
# Where a walk's time goes in the sampler thread: memory it waits for, or
# work.  One WebHash (ASP.NET Core) server pinned to CPU 0 at a fixed load
# (hey on CPU 1), recorded at 1 kHz with the measuring build of the agent
# (build/bench/libclrscope-agent-walkprobe.so, agent/unwind/walkprobe.h).  Four
# times a second that agent repeats the capture it has just walked, on the
# same copy and trail: at once (every line it touches warm), after one kind
# of memory it touches was flushed from every cache (the rest warm), and
# after 64 MiB of other memory was read (every cache and the TLB cold, as
# after the program ran between two ticks).  Per round: the walks' mean as
# the sampler made them, and the medians of the replayed walks as made and
# of each replay.
#
#   bench/walkcold.sh [-n ROUNDS] [-s SECONDS] [-q REQUESTS_PER_S] [-b BUILD_DIR]
#
# ROUNDS: servers, one after another (default 3); SECONDS: each one's
# window (default 15); REQUESTS_PER_S: the load (default 3200).
#
# Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rounds=3 seconds=15 fixed_rate=3200
bench_opt() {
	case $1 in
	n) bench_uint rounds -n "$2" ;;
	s) bench_uint seconds -s "$2" ;;
	q) bench_uint fixed_rate -q "$2" ;;
	b) build_dir=$2 ;;
	esac
}
build_dir=
bench_options "n:s:q:b:" "" "$@"
set -- "${bench_args[@]}"
(($# == 0)) || bench_usage_error "takes no operands, not: $*"
bench_build "$build_dir"
probe=$build/bench/libclrscope-agent-walkprobe.so
[[ -f $probe ]] || { echo "no $probe: build it (cmake --build $build --target clrscope_agent_walkprobe)" >&2; exit 1; }
bench_need hey "apt-get install hey, or scripts/deps.sh"
((fixed_rate >= 32)) || bench_usage_error "-q wants at least 32 requests per second"
bench_workdir walkcold
app=$(bench_app WebHash)
bench_split_cpus
export DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0 # (see bench/server.sh)

echo "walk times in the sampler thread, ns (every walk's mean; replayed walks' medians: as made, and walked again)"
printf '%-6s %8s %8s %8s | %8s %7s %7s %9s %7s %7s %7s %7s\n' round walks mean replayed 'as made' warm code addresses bodies trail stack all
for ((r = 0; r < rounds; r++)); do
	dir=$work/round$r
	mkdir -p "$dir"
	port=$((21000 + RANDOM % 20000))
	CLRSCOPE_AGENT=$probe CLRSCOPE_AGENT_LOG=$dir/agent.log bench_start "$dir/server" "${server_cpu[@]}" \
		"$clrscope" record -o "$dir/session" --rate 1000 -- dotnet "$app" "$port" "$((seconds + 40))"
	record_pid=$bench_pid
	bench_wait_line "$dir/server" '^listening' 60 "$record_pid"
	"$clrscope" dial "$dir/session" sampling=off >/dev/null
	bench_start "$dir/hey" "${load_cpu[@]}" hey -c 32 -q $((fixed_rate / 32)) -z "$((seconds + 20))s" \
		"http://127.0.0.1:$port/hash?n=16"
	bench_sleep 8 # (the pool grows to the load, the methods reach tier 1)
	"$clrscope" dial "$dir/session" sampling=on >/dev/null # (the figures start again)
	bench_sleep "$seconds"
	"$clrscope" dial "$dir/session" sampling=off >/dev/null
	pid=$(bench_webhash_pid "$port")
	[[ -z $pid ]] || kill "$pid"
	bench_reap "$record_pid" || true
	line=$(grep -a 'walkprobe:' "$dir/agent.log" | tail -1) ||
		{ echo "walkcold.sh: round $r: the agent wrote no figures ($dir/agent.log)" >&2; exit 1; }
	python3 - "$r" "$line" <<'EOF'
import re, sys
nums = [float(x) for x in re.findall(r"[0-9]+(?:\.[0-9]+)?", sys.argv[2].split("walkprobe:", 1)[1])]
walks, mean, replays, made, warm, code, addresses, bodies, trail, stack, all_cold = nums[:11]
print("%-6s %8d %8.0f %8d | %8.0f %7.0f %7.0f %9.0f %7.0f %7.0f %7.0f %7.0f"
      % (sys.argv[1], walks, mean, replays, made, warm, code, addresses, bodies, trail, stack, all_cold))
EOF
done
echo "(code, addresses, ...: that memory alone flushed from the caches, the rest warm; all: 64 MiB read first)"
