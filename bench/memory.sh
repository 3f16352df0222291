#!/usr/bin/env bash
# Instrumentation and heap snapshot benchmark.
#
#   bench/memory.sh [-n RUNS] [-c CALLS] [-m MIB] [BUILD_DIR]
#
# 1. Instrumentation overhead on a call-heavy loop (tests/apps/CallBench:
#    CALLS calls of one NoInlining method, timed by the program itself after
#    start-up): no profiler; clrscope sampling at 100 Hz without
#    instrumentation; with the method instrumented and recording on; and
#    instrumented with recording off (the instrument=off dial, set before the
#    loop starts).  Interleaved runs, medians, nanoseconds per call.
# 2. Heap snapshots of a MIB-mebibyte heap (tests/apps/BigHeap), each walk
#    in a process of its own: the default walk of the live object graph (a
#    forced collection with the runtime's heap-dump events; background GC
#    on) and --heap-snapshots (a forced collection with the profiler's heap
#    walk; background GC off): the pause and the objects counted, against a
#    plain full blocking collection of the same heap (GC.Collect, timed by
#    the program), RUNS of each.  bench/heapgraph.sh compares the graph walk
#    with dotnet-gcdump and the counts-only walk in a suspension.
# -c 0 skips the instrumentation part.
# Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5
calls=50000000
mib=1024
bench_opt() {
	case $1 in
	n) bench_uint runs -n "$2" ;;
	c) [[ $2 == 0 ]] && calls=0 || bench_uint calls -c "$2" ;;
	m) bench_uint mib -m "$2" ;;
	esac
}
bench_options "n:c:m:" "runs=n calls=c mib=m" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
callbench=$(bench_app CallBench)
bigheap=$(bench_app BigHeap)
bench_workdir memory

# open_stdin NAME: a FIFO the next program reads its commands from; fd 3 writes it
fifo_for() {
	rm -f "$work/$1.fifo"
	mkfifo "$work/$1.fifo"
}

# call_run CONFIG N: one timed loop; appends "config elapsed_ms" to results
call_run() {
	local config=$1 n=$2 out="$work/call-$1-$2" session="$work/s-$1-$2"
	fifo_for call
	case $config in
	none) dotnet "$callbench" "$calls" <"$work/call.fifo" >"$out" 2>&1 & ;;
	sampling) "$clrscope" record -o "$session" --rate 100 -- dotnet "$callbench" "$calls" <"$work/call.fifo" >"$out" 2>/dev/null & ;;
	instrument-on | instrument-off)
		"$clrscope" record -o "$session" --rate 100 -i Clrscope.TestApps.Bench.Step -- \
			dotnet "$callbench" "$calls" <"$work/call.fifo" >"$out" 2>/dev/null &
		;;
	esac
	local pid=$!
	exec 3>"$work/call.fifo"
	bench_wait_line "$out" '^ready' 60 "$pid"
	if [[ $config == instrument-off ]]; then
		"$clrscope" dial "$session" instrument=off >/dev/null
	fi
	echo go >&3
	exec 3>&-
	wait "$pid"
	echo "$config $(awk '/^elapsed_ms/ {print $2}' "$out")" >>"$work/calls"
	rm -rf "$session"
}

configs=(none sampling instrument-on instrument-off)
((calls)) || configs=()
: >"$work/calls"
((calls == 0)) || echo "instrumentation: CallBench $calls calls, $runs interleaved runs per configuration" >&2
for ((r = 0; r < runs && calls; r++)); do
	for ((k = 0; k < ${#configs[@]}; k++)); do
		c=${configs[$(((k + r) % ${#configs[@]}))]}
		call_run "$c" "$r"
		echo "  round $((r + 1))/$runs: $c $(tail -1 "$work/calls" | awk '{print $2}') ms" >&2
	done
done

# heap: per walk one process, RUNS plain collections and RUNS snapshots, alternating
heap_walk() { # heap_walk WALK [OPTION]: writes heap-WALK.out and heap-WALK.json
	local walk=$1 session="$work/heap-$1"
	shift
	echo "heap snapshot ($walk walk): BigHeap $mib MiB, $runs of each" >&2
	fifo_for heap
	"$clrscope" record -o "$session" --rate 100 "$@" -- dotnet "$bigheap" "$mib" <"$work/heap.fifo" >"$work/heap-$walk.out" 2>/dev/null &
	heap_pid=$!
	exec 3>"$work/heap.fifo"
	bench_wait_line "$work/heap-$walk.out" '^ready' 300 "$heap_pid"
	rss_kb=$(bench_rss_kb "$(bench_pid_of "$work/heap-$walk.out")")
	for ((r = 1; r <= runs; r++)); do
		echo gc >&3
		bench_wait_line "$work/heap-$walk.out" "^gc_ms" 120 "$heap_pid"
		while (($(grep -c '^gc_ms' "$work/heap-$walk.out") < r)); do sleep 0.05; done
		"$clrscope" dial "$session" snapshot=heap >/dev/null
		for _ in $(seq 1200); do
			n=$("$clrscope" report --format json "$session" | python3 -c 'import json,sys; print(sum(1 for s in json.load(sys.stdin)["processes"][0]["heap_snapshots"] if s["complete"]))')
			((n >= r)) && break
			sleep 0.1
		done
		echo "  round $r/$runs: gc $(grep '^gc_ms' "$work/heap-$walk.out" | tail -1 | awk '{print $2}') ms, snapshot done" >&2
	done
	echo quit >&3
	exec 3>&-
	wait "$heap_pid" || true
	"$clrscope" report --format json "$session" >"$work/heap-$walk.json"
	rm -rf "$session"
}
heap_walk graph
heap_walk gc --heap-snapshots

python3 - "$work/calls" "$calls" "$work" "$rss_kb" "$mib" <<'PY'
import json, statistics, sys
calls_file, ncalls, work, rss_kb, mib = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
rows = {}
for line in open(calls_file):
    c, ms = line.split()
    rows.setdefault(c, []).append(float(ms))
base = statistics.median(rows["none"]) if rows else 1
names = {"none": "no profiler", "sampling": "clrscope 100 Hz, no instrumentation",
         "instrument-on": "instrumented, recording on", "instrument-off": "instrumented, recording off (dial)"}
if rows:
    print("\ninstrumentation overhead (%d calls of one NoInlining method)" % ncalls)
    print("%-38s %10s %9s %10s %9s" % ("configuration", "median ms", "ns/call", "vs none", "spread"))
for c in ("none", "sampling", "instrument-on", "instrument-off"):
    v = rows.get(c, [])
    if not v:
        continue
    m = statistics.median(v)
    print("%-38s %10.1f %9.2f %+9.1f%% %8.1f%%" % (names[c], m, m * 1e6 / ncalls, 100 * (m - base) / base,
                                                 100 * (max(v) - min(v)) / m))
print("\nheap snapshots of a %s MiB heap (RSS %s MiB)" % (mib, "%.0f" % (int(rss_kb) / 1024.0) if rss_kb.isdigit() else "?"))
print("%-60s %10s %10s %12s" % ("pause", "median ms", "max ms", "objects"))
for walk, name in (("graph", "snapshot of the live graph (heap-dump events)"), ("gc", "snapshot by a forced GC with its walk (--heap-snapshots)")):
    out, js = "%s/heap-%s.out" % (work, walk), "%s/heap-%s.json" % (work, walk)
    gcs = [float(l.split()[1]) for l in open(out) if l.startswith("gc_ms")]
    p = json.load(open(js))["processes"][0]
    snaps = [s for s in p["heap_snapshots"] if s["complete"]]
    objects = snaps[-1]["objects"] if snaps else 0
    if gcs:
        print("%-60s %10.1f %10.1f" % ("plain full blocking GC, %s process" % walk, statistics.median(gcs), max(gcs)))
    if snaps:
        w = [s["pause_ms"] for s in snaps]
        print("%-60s %10.1f %10.1f %12d" % (name, statistics.median(w), max(w), objects))
PY
