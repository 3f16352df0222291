#!/usr/bin/env bash
# Idle log size benchmark: what threads that do nothing cost in the log.
# DeepThreads with THREADS parked threads (busy=0) and with one, each
# under clrscope at RATE for SECONDS; the difference over the extra
# threads and the seconds is the bytes an idle thread adds per second.
# Not a test: nothing is asserted.
#
#   bench/idlebytes.sh [-t THREADS] [-r RATE] [-s SECONDS] [BUILD_DIR]
#
#   -t THREADS  parked threads (default 20)
#   -r RATE     sampling rate in Hz (default 1000)
#   -s SECONDS  how long the program runs (default 15)
#
# Prints the session sizes, the bytes per idle thread per second and the
# issue's goal (an idle program of 20 threads at 1 kHz writes under
# 200 KiB in 15 s).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

threads=20
rate=1000
seconds=15
bench_opt() {
	case $1 in
	t) bench_uint threads -t "$2" ;;
	r) bench_uint rate -r "$2" ;;
	s) bench_uint seconds -s "$2" ;;
	esac
}
bench_options "t:r:s:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
((threads >= 2)) || bench_usage_error "-t wants at least 2 threads"
bench_build "${1:-}"
deep=$(bench_app DeepThreads)
bench_workdir idlebytes

# measure N: the bytes the agent wrote with N parked threads.
measure() {
	local session="$work/s-$1"
	"$clrscope" record -o "$session" --rate "$rate" -- dotnet "$deep" "$1" 5 "$seconds" busy=0 \
		>"$work/out-$1" 2>"$work/err-$1" </dev/null ||
		{ echo "clrscope record failed:" >&2; cat "$work/err-$1" >&2; exit 1; }
	find "$session" -mindepth 2 -maxdepth 2 -name 'seg-*.clog' -printf '%s\n' | awk '{s += $1} END {print s + 0}'
}

echo "clrscope idle log size: DeepThreads $threads parked threads vs 1, $rate Hz, $seconds s" >&2
many=$(measure "$threads")
one=$(measure 1)
python3 - "$threads" "$seconds" "$many" "$one" <<'PY'
import sys
threads, seconds, many, one = (int(a) for a in sys.argv[1:])
per = (many - one) / (threads - 1) / seconds
print("%-28s %12s" % ("", "log bytes"))
print("%-28s %12d" % ("%d parked threads" % threads, many))
print("%-28s %12d" % ("1 parked thread", one))
print("bytes per idle thread per second: %.0f" % per)
if threads == 20 and seconds == 15:
    print("goal: under 200 KiB for 20 threads in 15 s: %s" % ("met" if many < 200 * 1024 else "missed"))
PY
