#!/usr/bin/env bash
# Every benchmark in one command, each printing its table beside its goals:
# overhead against the reference samplers, where each says the C# compiler
# spends its time, runtime suspension per sample,
# log bytes per sample, report ingest speed, the terminal UI's latency and
# CPU, instrumentation and heap snapshot costs, and the agent's memory over
# a session.  The runs are the shorter ones the issue notes quote (about 50
# minutes on a 2-core machine with a 3-minute soak).  Not a test: nothing
# is asserted.
#
#   bench/all.sh [-m SOAK_MINUTES] [BUILD_DIR]
#
#   -m SOAK_MINUTES  length of the memory soak (default 3; the notes also
#                    quote a 10-minute run: bench/soak.sh --tui 10)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

soak=3
bench_opt() {
	case $1 in
	m) bench_uint soak -m "$2" ;;
	esac
}
bench_options "m:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
build=("$@") # empty: each script's default (build/)
here=$(dirname "$0")

section() { printf '\n== %s\n' "$*"; }
section "overhead: bench/overhead.sh -n 9"
"$here/overhead.sh" -n 9 "${build[@]}"
section "server: bench/server.sh -n 5"
"$here/server.sh" -n 5 "${build[@]}"
section "server, paired in one process: bench/paired.sh -n 12"
"$here/paired.sh" -n 12 "${build[@]}"
section "server, paired, 20 s turns (dotnet-trace's session start and rundown weigh less): bench/paired.sh -n 8 -w 24 -a 20"
"$here/paired.sh" -n 8 -w 24 -a 20 "${build[@]}"
section "server saturated, paired in one process: bench/paired.sh -s -n 16 -w 12 -a 8"
"$here/paired.sh" -s -n 16 -w 12 -a 8 "${build[@]}"
section "CPU loop, paired in one process: bench/paired.sh -l -n 40 -w 4 -a 1"
"$here/paired.sh" -l -n 40 -w 4 -a 1 "${build[@]}"
section "side by side with dotnet-trace on the C# compiler: bench/versus_csc.sh"
"$here/versus_csc.sh" ${build[0]:+-b "${build[0]}"}
section "side by side with perf's CPU clock on a server: bench/versus_perf.sh -n 2"
if command -v perf >/dev/null; then
	"$here/versus_perf.sh" -n 2 ${build[0]:+-b "${build[0]}"}
else
	echo "skipped: no perf (Debian: apt-get install linux-perf)"
fi
section "a walk's time in the sampler thread, warm and cold: bench/walkcold.sh -n 3"
"$here/walkcold.sh" -n 3 ${build[0]:+-b "${build[0]}"}
section "suspension per sample: bench/suspension.sh -s 4 -b 1"
"$here/suspension.sh" -s 4 -b 1 "${build[@]}"
section "log bytes per sample: bench/logbytes.sh"
"$here/logbytes.sh" "${build[@]}"
section "idle threads in the log: bench/idlebytes.sh"
"$here/idlebytes.sh" "${build[@]}"
section "report ingest: bench/ingest.sh"
"$here/ingest.sh" "${build[@]}"
section "terminal UI: bench/tui.sh"
"$here/tui.sh" "${build[@]}"
section "runtime event stream: bench/events.sh -n 5"
"$here/events.sh" -n 5 "${build[@]}"
section "instrumentation and heap snapshots: bench/memory.sh -n 5"
"$here/memory.sh" -n 5 "${build[@]}"
section "heap snapshots of the object graph against dotnet-gcdump: bench/heapgraph.sh"
"$here/heapgraph.sh" "${build[@]}"
section "memory over a session: bench/soak.sh $soak"
"$here/soak.sh" "$soak" "${build[@]}"
