#!/usr/bin/env bash
# Awaits snapshots against dotnet-dump's dumpasync, on tests/apps/Async's
# park mode (N chains of three async methods parked on one task that never
# completes, ten pairs under WhenAll, ten Task.Delay(Infinite): N+20 chains,
# 3N+25 suspended methods), side by side.
#
#   bench/awaits.sh [-n N,N...] [BUILD_DIR]
#
# For each N (default 100,10000), the program under `clrscope record`:
#   clrscope   `clrscope dial DIR snapshot=awaits`: the program's pause (the
#              forced collection with its heap walk, as the agent times it),
#              the time from the dial to the AWAITS record in the log, the
#              suspended methods and chains found, and the biggest groups;
#   dumpasync  `dotnet-dump collect` of the same program (its wall time:
#              the program stands still while its memory is written), the
#              dump's size, and `dotnet-dump analyze DUMP -c "dumpasync
#              --coalesce"`: its wall time and the groups it prints.
#              dotnet-dump (a NuGet tool) is installed into BUILD/tools on
#              first use.
# Not a test: nothing is asserted.  Run it on a quiet machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

counts="100 10000"
bench_opt() {
	case $1 in
	n) bench_uint_list counts -n "$2" ;;
	esac
}
bench_options "n:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
async=$(bench_app Async)
logstats=$(bench_tool logstats)
bench_dotnet_tool dotnet-dump || exit 1
dump=$tool
bench_workdir awaits

# groups DUMP: an AWAITS record's counts and chains (outermost first), from logstats --dump
groups() {
	python3 - "$1" <<'PY'
import re, sys
frames, stacks = {}, {}
for line in open(sys.argv[1]):
    kind = line.split(" ", 1)[0]
    if kind == "FRAMES":
        frames.update((int(i), n) for i, n in re.findall(r'frame_id=(\d+) name="([^"]*)"', line))
    elif kind == "STACKS":
        stacks.update((int(s), (int(p), int(f))) for s, p, f in
                      re.findall(r"stack_id=(\d+) parent_stack_id=(\d+) frame_id=(\d+)", line))
    elif kind == "AWAITS":
        head = dict(re.findall(r"(\w+)=(\d+)", line.split("{", 1)[0]))
        print("  clrscope:  pause %.1f ms, %s suspended, %s chains, %s unresolved" % (
            int(head["pause_us"]) / 1000, head["suspended"], head["chains"], head["unresolved"]))
        for s, n in re.findall(r"stack_id=(\d+) count=(\d+)", line)[:5]:
            path, s = [], int(s)
            while s:
                s, f = stacks[s]
                path.append(re.sub(r"^.*<(\w+)>d__\d+\.MoveNext$", r"\1", frames.get(f, "?")))
            print("    %8s  %s" % (n, " -> ".join(reversed(path))))
PY
}

for n in $counts; do
	echo "== $n parked chains"
	bench_start "$work/app-$n.out" "$clrscope" record -o "$work/s-$n" -- dotnet "$async" 30 park "$n"
	rec=$bench_pid
	bench_wait_line "$work/app-$n.out" '^parked' 60 "$rec"
	pid=$(bench_pid_of "$work/app-$n.out")
	t0=$(date +%s%N)
	"$clrscope" dial "$work/s-$n" snapshot=awaits >/dev/null
	until "$logstats" --dump "$work/s-$n" 2>/dev/null | grep -q '^AWAITS'; do
		bench_sleep 0.05
	done
	t1=$(date +%s%N)
	echo "  clrscope:  dial to record $(((t1 - t0) / 1000000)) ms"
	"$logstats" --dump "$work/s-$n" >"$work/dump-$n.txt"
	groups "$work/dump-$n.txt"

	t0=$(date +%s%N)
	"$dump" collect -p "$pid" -o "$work/core-$n" >"$work/collect-$n.txt" 2>&1
	t1=$(date +%s%N)
	t2=$(date +%s%N)
	"$dump" analyze "$work/core-$n" -c "dumpasync --coalesce" -c exit >"$work/dumpasync-$n.txt" 2>&1 || true
	t3=$(date +%s%N)
	echo "  dumpasync: collect $(((t1 - t0) / 1000000)) ms ($(($(stat -c %s "$work/core-$n") >> 20)) MiB)," \
		"analyze $(((t3 - t2) / 1000000)) ms; its coalesced groups:"
	grep -E '^\s*\[[0-9]+\]|Park' "$work/dumpasync-$n.txt" | head -12 | sed 's/^/    /'
	kill "$pid" 2>/dev/null || true
	bench_reap "$rec" || true
	rm -f "$work/core-$n"
done
