#!/usr/bin/env bash
# Ingest benchmark: a synthetic session of N samples (bench/gen_session.c,
# the agent's format and batching) read by 'clrscope report' on one core,
# in samples per second, beside the goal (at least 2 million a second);
# then the same session written as pprof (per-thread counts, protobuf-c,
# gzip). Not a test: nothing is asserted.
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
best=""
for run in 1 2 3; do
	start=$(date +%s.%N)
	taskset -c 0 "$clrscope" report --format json "$work/s" >/dev/null
	end=$(date +%s.%N)
	t=$(python3 -c "print($end - $start)")
	best=$(python3 -c "print(min($t, ${best:-1e9}))")
done
pprof_best=""
for run in 1 2 3; do
	start=$(date +%s.%N)
	taskset -c 0 "$clrscope" report --format pprof "$work/s" >"$work/p.pb.gz"
	end=$(date +%s.%N)
	t=$(python3 -c "print($end - $start)")
	pprof_best=$(python3 -c "print(min($t, ${pprof_best:-1e9}))")
done
pprof_bytes=$(stat -c %s "$work/p.pb.gz")
python3 - "$samples" "$best" "$bytes" "$pprof_best" "$pprof_bytes" <<'PY'
import sys
n, t, b, pt, pb = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
print("%-36s %14s %12s" % ("clrscope report ingest (one core)", "measured", "goal"))
print("%-36s %14s" % ("samples", format(n, ",")))
print("%-36s %12.2f s" % ("best of 3", t))
print("%-36s %12.2f M/s %12s" % ("samples per second", n / t / 1e6, ">= 2 M/s"))
print("%-36s %12.2f B" % ("log bytes per sample", b / n))
print("%-36s %12.2f s" % ("report --format pprof, best of 3", pt))
print("%-36s %12.2f M/s" % ("pprof samples per second", n / pt / 1e6))
print("%-36s %12.1f KiB" % ("pprof file (gzip)", pb / 1024))
PY
