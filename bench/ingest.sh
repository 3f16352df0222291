#!/usr/bin/env bash
# Ingest benchmark: a synthetic session of N samples (bench/gen_session.c,
# the agent's format and batching) read by 'clrscope report' on one core,
# in samples per second, beside the goal (at least 2 million a second);
# then the same session written as pprof (per-thread counts, protobuf-c,
# gzip), and one whose functions are a quarter native (named from libc's
# symbols by the report). Not a test: nothing is asserted.
#
#   bench/ingest.sh [-n SAMPLES] [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

samples=2000000
bench_opt() {
	case $1 in
	n) bench_uint samples -n "$2" ;;
	esac
}
bench_options "n:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
gen_session=$(bench_tool gen_session)
bench_workdir ingest
"$gen_session" "$work/s" "$samples" >/dev/null
bytes=$(du -sb "$work/s" | cut -f1)
# best_of_3 FORMAT SESSION OUT: the shortest of three reports, in seconds
best_of_3() {
	local best="" start end run
	for run in 1 2 3; do
		start=$(date +%s.%N)
		taskset -c 0 "$clrscope" report --format "$1" "$2" >"$3"
		end=$(date +%s.%N)
		best=$(python3 -c "print(min($end - $start, ${best:-1e9}))")
	done
	echo "$best"
}
best=$(best_of_3 json "$work/s" /dev/null)
pprof_best=$(best_of_3 pprof "$work/s" "$work/p.pb.gz")
pprof_bytes=$(stat -c %s "$work/p.pb.gz")
# the same shape with a quarter of the functions native (libc's, named
# from its symbol table by the report)
"$gen_session" "$work/n" "$samples" 2000 20000 25 >/dev/null
native_best=$(best_of_3 json "$work/n" /dev/null)
python3 - "$samples" "$best" "$bytes" "$pprof_best" "$pprof_bytes" "$native_best" <<'PY'
import sys
n, t, b, pt, pb = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
nt = float(sys.argv[6])
print("%-36s %14s %12s" % ("clrscope report ingest (one core)", "measured", "goal"))
print("%-36s %14s" % ("samples", format(n, ",")))
print("%-36s %12.2f s" % ("best of 3", t))
print("%-36s %12.2f M/s %12s" % ("samples per second", n / t / 1e6, ">= 2 M/s"))
print("%-36s %12.2f B" % ("log bytes per sample", b / n))
print("%-36s %12.2f s" % ("report --format pprof, best of 3", pt))
print("%-36s %12.2f M/s" % ("pprof samples per second", n / pt / 1e6))
print("%-36s %12.1f KiB" % ("pprof file (gzip)", pb / 1024))
print("%-36s %12.2f M/s %12s" % ("... a quarter native (libc, named)", n / nt / 1e6, ">= 2 M/s"))
PY
