#!/usr/bin/env bash
# Side by side with the reference tool: runs one .NET program twice, under
# clrscope record (the default mixed sampler) and under dotnet-trace collect
# (EventPipe's sampler, every managed thread every millisecond; the real tool,
# installed from NuGet into BUILD/tools on first use), and prints where each
# says the program's first process spent its wall time, method by method
# (bench/versus.py: managed frames only, inclusive and self shares, and the
# difference in points).  The two runs are two executions: a program that
# does the same work each time should read the same in both, within a point
# or two; where they differ by more, one of the two is wrong or the program
# did other work (dotnet-trace's samples land on safe points: a loop's GC
# poll; and its default providers change how a program's threads start).
#
#   bench/versus.sh [-r RATE] [-n TOP] [-i METHOD] [-b BUILD_DIR] [-w REGEX -l LOAD] -- COMMAND [ARG...]
#
# RATE: clrscope's samples per second (default 1000, EventPipe's); TOP: the
# methods listed (default 25); METHOD: a second table, of the time under
# that method only (a program that each tool slows down differently spends
# different shares of its wall time waiting; the work under one method
# compares).  A server: with -w and -l, once a line of
# the program's output matches REGEX, the shell command LOAD runs (a load
# generator), and the program is expected to end by itself after it.
#
# Examples:
#   bench/versus.sh -- dotnet build/apps/Shapes/Shapes.dll osr 3
#   DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0 bench/versus.sh -w '^listening' \
#       -l 'taskset -c 1 hey -c 32 -q 100 -z 9s http://127.0.0.1:21999/hash?n=16' \
#       -- taskset -c 0 dotnet build/apps/WebHash/WebHash.dll 21999 12
#   MSBuild: an up-to-date build (the compiler out of process, as with
#   -p:UseSharedCompilation=false, hangs under dotnet-trace: the child
#   inherits its paused diagnostics port):
#   DOTNET_CLI_USE_MSBUILD_SERVER=0 bench/versus.sh -- dotnet build PROJ -m:1 -nodeReuse:false
#
# Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rate=1000
top=25
build_dir=
ready=
load=
within=
bench_opt() {
	case $1 in
	r) bench_uint rate -r "$2" ;;
	n) bench_uint top -n "$2" ;;
	b) build_dir=$2 ;;
	i) within=$2 ;;
	w) ready=$2 ;;
	l) load=$2 ;;
	esac
}
bench_options "r:n:i:b:w:l:" "" "$@"
set -- "${bench_args[@]}"
(($# >= 1)) || bench_usage_error "no command: put it after --"
[[ -z $ready && -z $load || -n $ready && -n $load ]] || bench_usage_error "-w and -l go together"
bench_build "$build_dir"
bench_workdir versus

bench_dotnet_trace || exit 1

# under TOOL...: the program under one tool, its output in OUT; with -w/-l
# the load runs once the program is ready
under() {
	local out=$1
	shift
	echo "$* ..." >&2
	bench_start "$out" "$@"
	local pid=$bench_pid
	if [[ -n $load ]] && bench_wait_line "$out" "$ready" 120 "$pid"; then
		bash -c "$load" >"$out.load" 2>&1 || echo "(the load exited with status $?: $(tail -1 "$out.load"))" >&2
	fi
	bench_reap "$pid" || {
		echo "(it exited with status $?: compared all the same)" >&2
		tail -3 "$out.err" >&2
	}
}
under "$work/clrscope.out" "$clrscope" record -o "$work/session" --rate "$rate" -- "$@"
under "$work/trace.out" "$trace" collect --show-child-io --format Speedscope -o "$work/trace.nettrace" -- "$@"
[[ -s $work/trace.speedscope.json ]] || { echo "dotnet-trace wrote no speedscope file:" >&2; tail -5 "$work/trace.out" "$work/trace.out.err" >&2; exit 1; }

# the first process of the session: the one dotnet-trace traced too (a
# program's children are recorded by clrscope, not by dotnet-trace)
"$clrscope" report --format json "$work/session" >"$work/all.json"
pid=$(python3 -c '
import json, sys
procs = json.load(open(sys.argv[1]))["processes"]
print(min(procs, key=lambda p: p.get("start_unix_ms") or 0)["pid"] if procs else "")' "$work/all.json")
[[ -n $pid ]] || { echo "clrscope recorded no process:" >&2; tail -5 "$work/clrscope.out.err" >&2; exit 1; }
"$clrscope" report --format json --pid "$pid" "$work/session" >"$work/ours.json"
"$clrscope" report --format collapsed --time wall --pid "$pid" "$work/session" >"$work/ours.folded"
python3 "$bench_here/bench/versus.py" "$work/ours.json" "$work/ours.folded" "$work/trace.speedscope.json" "$top"
if [[ -n $within ]]; then
	echo
	python3 "$bench_here/bench/versus.py" --within "$within" "$work/ours.json" "$work/ours.folded" \
		"$work/trace.speedscope.json" "$top"
fi
