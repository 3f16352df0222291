#!/usr/bin/env bash
# Heap snapshots of the live object graph against dotnet-gcdump, on heaps of
# tests/apps/BigHeap (a linked list of nodes, each with an int[16]: about
# 18 million objects in 1 GiB), side by side.
#
#   bench/heapgraph.sh [-n RUNS] [-m MIB,MIB...] [BUILD_DIR]
#
# For each heap size (default 64,1024 MiB), RUNS rounds (default 3) of each,
# every program under `clrscope record` (which also records the runtime's
# GC events, whose pauses are the same measure for every tool):
#   clrscope   a snapshot of the live graph (the default walk): the program's
#              pause (the runtime's, and ForceGC's as the agent times it:
#              the collection, the walk and the encoding), the bytes of the
#              snapshot's records in the log, and `clrscope report --heap`:
#              its time and peak memory (reading the log, the graph, the
#              dominators, retained sizes and paths);
#   suspended  the counts-only walk in a runtime suspension (a process with
#              instrumentation has no event session): its pause, for scale;
#   GC         a plain full blocking collection of the same heap
#              (GC.Collect, timed by the program);
#   gcdump     `dotnet-gcdump collect` on the same program: its wall time and
#              its forced collection's pause (from the GC events), the
#              .gcdump's bytes, and `dotnet-gcdump report`: time and peak
#              memory.  dotnet-gcdump (a NuGet tool) is installed into
#              BUILD/tools on first use; it keeps at most 10 million objects.
# Not a test: nothing is asserted.  Run it on a quiet machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=3
sizes="64 1024"
bench_opt() {
	case $1 in
	n) bench_uint runs -n "$2" ;;
	m) bench_uint_list sizes -m "$2" ;;
	esac
}
bench_options "n:m:" "runs=n mib=m" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
bigheap=$(bench_app BigHeap)
bench_need /usr/bin/time "apt-get install time"
bench_dotnet_tool dotnet-gcdump || exit 1
gcdump=$tool
bench_workdir heapgraph
results=$work/results
: >"$results"

# start_bigheap NAME MIB [OPTION...]: BigHeap of MIB under clrscope record
# into $work/NAME, its commands through fd 3; waits until it is ready
start_bigheap() {
	local name=$1 mib=$2
	shift 2
	rm -f "$work/$name.fifo"
	mkfifo "$work/$name.fifo"
	"$clrscope" record -o "$work/$name" --rate 100 "$@" -- dotnet "$bigheap" "$mib" \
		<"$work/$name.fifo" >"$work/$name.out" 2>/dev/null &
	bigheap_pid=$!
	bench_running[$bigheap_pid]=1
	exec 3>"$work/$name.fifo"
	bench_wait_line "$work/$name.out" '^ready' 900 "$bigheap_pid"
}

stop_bigheap() {
	echo quit >&3
	exec 3>&-
	bench_reap "$bigheap_pid" || true
}

# snapshots SESSION N: waits until N snapshots are complete
snapshots() {
	local n
	for _ in $(seq 6000); do
		n=$("$clrscope" report --format json "$1" 2>/dev/null |
			python3 -c 'import json,sys; print(sum(1 for s in json.load(sys.stdin)["processes"][0]["heap_snapshots"] if s["complete"]))')
		((n >= $2)) && return 0
		sleep 0.2
	done
	return 1
}

# timed OUT COMMAND...: runs COMMAND, "seconds peak_kib" into OUT; says
# when COMMAND fails (its figures are still kept)
timed() {
	local out=$1
	shift
	local err=$work/stderr.${out##*/}
	/usr/bin/time -q -f "%e %M" -o "$out" "$@" >/dev/null 2>"$err" ||
		echo "  $(basename "$1") $2 failed: $(tail -1 "$err")" >&2
}

for mib in $sizes; do
	echo "BigHeap $mib MiB: $runs rounds" >&2
	# clrscope's graph snapshots and plain collections, alternating
	start_bigheap graph "$mib"
	for ((r = 1; r <= runs; r++)); do
		echo gc >&3
		while (($(grep -c '^gc_ms' "$work/graph.out") < r)); do sleep 0.1; done
		"$clrscope" dial "$work/graph" snapshot=heap >/dev/null
		snapshots "$work/graph" "$r"
		echo "  round $r/$runs: gc $(grep '^gc_ms' "$work/graph.out" | tail -1 | awk '{print $2}') ms, snapshot done" >&2
	done
	objects=$(awk '$1 == "objects" {print $2}' "$work/graph.out")
	stop_bigheap
	for ((r = 1; r <= runs; r++)); do
		timed "$work/read-$r" "$clrscope" report --heap "$work/graph"
	done
	"$clrscope" report --format json "$work/graph" >"$work/graph.json"

	# the counts-only walk in a suspension
	start_bigheap suspended "$mib" --instrument 'No.Such.Method'
	for ((r = 1; r <= runs; r++)); do
		"$clrscope" dial "$work/suspended" snapshot=heap >/dev/null
		snapshots "$work/suspended" "$r"
	done
	stop_bigheap
	"$clrscope" report --format json "$work/suspended" >"$work/suspended.json"

	# dotnet-gcdump on the same program
	start_bigheap gcdump "$mib"
	pid=$(bench_pid_of "$work/gcdump.out")
	for ((r = 1; r <= runs; r++)); do
		timed "$work/collect-$r" "$gcdump" collect -p "$pid" -o "$work/dump-$r.gcdump"
		timed "$work/report-$r" "$gcdump" report "$work/dump-$r.gcdump"
		echo "  round $r/$runs: gcdump collected" >&2
	done
	"$gcdump" report "$work/dump-1.gcdump" >"$work/gcdump-report.txt" 2>&1 || true
	stop_bigheap
	"$clrscope" report --format json "$work/gcdump" >"$work/gcdump.json"

	python3 - "$work" "$mib" "$runs" "${objects:-0}" >>"$results" <<'PY'
import glob, json, os, re, statistics, struct, sys
work, mib, runs, objects = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
med = lambda v: statistics.median(v) if v else float("nan")

def proc(name):
    return json.load(open("%s/%s.json" % (work, name)))["processes"][0]

def induced_pauses(p):
    return [g["pause_ms"] for g in p["gcs"] if g["gen"] == 2 and g["reason"] == "induced"]

def graph_record_bytes(session):
    """Bytes of the heap snapshots' records (HEAP and HEAP_NODES .. HEAP_GRAPH), headers included."""
    n = 0
    for seg in glob.glob("%s/*/seg-*.clog" % session):
        data = open(seg, "rb").read()
        i = 16
        while i + 12 <= len(data):
            t, l = struct.unpack_from("<HI", data, i + 2)
            if t == 17 or 40 <= t <= 46:
                n += 12 + l
            i += 12 + l
    return n

def timings(prefix):
    v = []
    for f in sorted(glob.glob("%s/%s-*" % (work, prefix))):
        s, kib = open(f).read().split()[:2]
        v.append((float(s), int(kib)))
    return v

g = proc("graph")
snaps = [s for s in g["heap_snapshots"] if s["complete"]]
plain = [float(l.split()[1]) for l in open("%s/graph.out" % work) if l.startswith("gc_ms")]
gc_pauses = induced_pauses(g)  # the plain collections' and the snapshots', alternating
snap_gc = gc_pauses[1::2]
read = timings("read")
susp = [s["pause_ms"] for s in proc("suspended")["heap_snapshots"] if s["complete"]]
gd = proc("gcdump")
collect, report = timings("collect"), timings("report")
dumps = [os.path.getsize(f) for f in glob.glob("%s/dump-*.gcdump" % work)]
nodes = 0
for line in open("%s/gcdump-report.txt" % work):
    m = re.match(r"\s*([\d,]+)\s+GC Heap objects", line)
    if m:
        nodes = int(m.group(1).replace(",", ""))
last = snaps[-1] if snaps else {}
graph = last.get("graph") or {}
nbytes = graph_record_bytes("%s/graph" % work) / max(len(snaps), 1)
items = last.get("objects", 0) + graph.get("references", 0)
print("\n%s MiB heap: BigHeap %d nodes; clrscope's snapshot: %d objects, %d references" %
      (mib, objects, last.get("objects", 0), graph.get("references", 0)))
print("%-52s %12s %12s" % ("", "median", "max"))
row = lambda name, v, unit: print("%-52s %12s %12s" % (name, ("%.1f " + unit) % med(v) if v else "-", ("%.1f " + unit) % max(v) if v else "-"))
row("plain full blocking GC (GC.Collect)", plain, "ms")
row("clrscope snapshot: pause (the runtime's GC events)", snap_gc, "ms")
row("clrscope snapshot: ForceGC with the walk (the agent)", [s["pause_ms"] for s in snaps], "ms")
row("suspended walk, counts only: pause", susp, "ms")
row("dotnet-gcdump collect: pause (the runtime's GC events)", induced_pauses(gd), "ms")
row("dotnet-gcdump collect: wall time", [c[0] * 1000 for c in collect], "ms")
print("%-52s %12s" % ("clrscope snapshot: bytes in the log", "%.1f MiB" % (nbytes / 1048576.0)))
print("%-52s %12s" % ("  per object and reference", "%.2f B" % (nbytes / items) if items else "-"))
print("%-52s %12s" % (".gcdump file", "%.1f MiB" % (med(dumps) / 1048576.0) if dumps else "-"))
print("%-52s %12s" % ("  objects it holds (its 10 million cap)", nodes or "-"))
row("clrscope report --heap: time", [r[0] * 1000 for r in read], "ms")
row("clrscope report --heap: peak memory", [r[1] / 1024.0 for r in read], "MiB")
row("dotnet-gcdump report: time", [r[0] * 1000 for r in report], "ms")
row("dotnet-gcdump report: peak memory", [r[1] / 1024.0 for r in report], "MiB")
PY
	rm -rf "$work/graph" "$work/suspended" "$work/gcdump" "$work"/dump-*.gcdump "$work"/read-* "$work"/collect-* "$work"/report-*
done
cat "$results"
