#!/usr/bin/env bash
# Terminal UI benchmark: follows a 1 kHz session of a busy two-thread
# program (Spin) in tmux for SECONDS and prints the flush-to-screen latency
# (median and p99: from the agent's write of a segment to the redraw that
# shows it) and the UI's own CPU use, beside the goals (latency median under
# 100 ms, under 2 % of a core).  Not a test: nothing is asserted.
#
#   bench/tui.sh [-s SECONDS] [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

seconds=20
bench_opt() {
	case $1 in
	s) bench_uint seconds -s "$2" ;;
	esac
}
bench_options "s:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
spin=$(bench_app Spin)
bench_workdir tuibench
sock="clrscope-bench-$$"
bench_at_exit "tmux -L '$sock' kill-server 2>/dev/null"

tmux -L "$sock" -f /dev/null new-session -d -s b -x 120 -y 40 \
	"env TERM=xterm-256color LANG=C.UTF-8 CLRSCOPE_UI_LATENCY_LOG=$work/latency $clrscope launch --rate 1000 -o $work/s -- dotnet $spin $((seconds + 5)); sleep 30"
sleep 2
ui=$(pgrep -f "^$clrscope launch --rate 1000 -o $work/s" | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$ui/stat"; }
t0=$(ticks)
sleep "$seconds"
t1=$(ticks)
tmux -L "$sock" send-keys -t b q
sleep 1
hz=$(getconf CLK_TCK)
python3 - "$work/latency" "$t0" "$t1" "$hz" "$seconds" <<'PY'
import statistics, sys
lat = sorted(float(x) for x in open(sys.argv[1]) if x.strip())
t0, t1, hz, secs = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
cpu = 100.0 * (t1 - t0) / hz / secs
p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
print("%-34s %12s %10s" % ("terminal UI following 1 kHz", "measured", "goal"))
print("%-34s %9.1f ms %10s" % ("flush-to-screen latency, median", statistics.median(lat), "< 100 ms"))
print("%-34s %9.1f ms %10s" % ("flush-to-screen latency, p99", p99, "-"))
print("%-34s %10.2f %% %10s" % ("UI CPU use (one core = 100 %)", cpu, "< 2 %"))
print("(%d redraws measured)" % len(lat))
PY
