#!/usr/bin/env bash
# Side by side with the reference tool: runs one .NET program twice, under
# clrscope record (the default mixed sampler) and under dotnet-trace collect
# (EventPipe's sampler, every managed thread every millisecond; the real tool,
# installed from NuGet into BUILD/tools on first use), and prints where each
# says the program's first process spent its wall time, method by method
# (bench/versus.py: managed frames only, inclusive and self shares, and the
# difference in points).  The two runs are two executions: a program that
# does the same work each time should read the same in both, within a point
# or two; where they differ by more, one of the two is wrong (dotnet-trace's
# samples land on safe points, which inflates methods that leave managed
# code, such as P/Invokes and waits).
#
#   bench/versus.sh [-r RATE] [-n TOP] [-b BUILD_DIR] -- COMMAND [ARG...]
#
# Examples:
#   bench/versus.sh -- dotnet build/apps/CpuRatio/CpuRatio.dll 3
#   bench/versus.sh -- dotnet build tests/apps/WebHash -m:1 -nodeReuse:false \
#       -p:UseSharedCompilation=false --no-incremental -o /tmp/webhash-out
#
# RATE: clrscope's samples per second (default 1000, EventPipe's); TOP: the
# methods listed (default 25).  Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rate=1000
top=25
build_dir=
bench_opt() {
	case $1 in
	r) bench_uint rate -r "$2" ;;
	n) bench_uint top -n "$2" ;;
	b) build_dir=$2 ;;
	esac
}
bench_options "r:n:b:" "" "$@"
set -- "${bench_args[@]}"
(($# >= 1)) || bench_usage_error "no command: put it after --"
bench_build "$build_dir"
bench_workdir versus

bench_dotnet_trace || exit 1

echo "clrscope record --rate $rate -- $*" >&2
"$clrscope" record -o "$work/session" --rate "$rate" -- "$@" >"$work/clrscope.out" 2>&1 ||
	echo "(the program exited with status $?: compared all the same)" >&2
echo "dotnet-trace collect --format Speedscope -- $*" >&2
"$trace" collect --format Speedscope -o "$work/trace.nettrace" -- "$@" >"$work/trace.out" 2>&1 ||
	echo "(dotnet-trace or the program exited with status $?: compared all the same)" >&2
[[ -s $work/trace.speedscope.json ]] || { echo "dotnet-trace wrote no speedscope file:" >&2; tail -5 "$work/trace.out" >&2; exit 1; }

# the first process of the session: the one dotnet-trace traced too (a
# program's children are recorded by clrscope, not by dotnet-trace)
"$clrscope" report --format json "$work/session" >"$work/all.json"
pid=$(python3 -c '
import json, sys
procs = json.load(open(sys.argv[1]))["processes"]
print(min(procs, key=lambda p: p.get("start_unix_ms") or 0)["pid"] if procs else "")' "$work/all.json")
[[ -n $pid ]] || { echo "clrscope recorded no process: see $work/clrscope.out" >&2; exit 1; }
"$clrscope" report --format json --pid "$pid" "$work/session" >"$work/ours.json"
"$clrscope" report --format collapsed --time wall --pid "$pid" "$work/session" >"$work/ours.folded"
python3 "$bench_here/bench/versus.py" "$work/ours.json" "$work/ours.folded" "$work/trace.speedscope.json" "$top"
