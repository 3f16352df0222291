#!/usr/bin/env bash
# Soak benchmark: memory over a long session.  DeepThreads (busy threads at
# a fixed depth; with "events" its main thread causes GCs and exceptions all
# along, from a constant set of functions) runs MINUTES under clrscope at
# 1 kHz with every runtime event on, beside an unprofiled twin of it (the
# same threads, stacks and garbage, but its threads wait instead of
# spinning, so that it leaves the cores to the profiled one).  Every
# INTERVAL seconds the resident set (VmRSS) of both, and of the terminal UI
# following the session with --tui (clrscope open in a detached tmux), is
# printed; at the end, each one's growth from minute 1 to the end.  The
# profiled minus the unprofiled is what the agent holds.  Not a test:
# nothing is asserted.
#
#   bench/soak.sh [--tui] [-i INTERVAL] [-t THREADS] [-d DEPTH] [MINUTES [BUILD_DIR]]
#
#   MINUTES      length of the session (default 10)
#   --tui        also follow the session with 'clrscope open' and measure it
#   -i INTERVAL  seconds between measurements (default 10)
#   -t THREADS   DeepThreads' busy threads (default 1)
#   -d DEPTH     their stack depth (default 20)
#
# Goal: flat (no growth after the first minute) at a constant number of
# functions.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

minutes=10
interval=10
threads=1
depth=20
tui=false
bench_opt() {
	case $1 in
	T) tui=true ;;
	i) bench_uint interval -i "$2" ;;
	t) bench_uint threads -t "$2" ;;
	d) bench_uint depth -d "$2" ;;
	esac
}
bench_options "Ti:t:d:" "tui=T" "$@"
set -- "${bench_args[@]}"
(($# <= 2)) || bench_usage_error "too many operands: MINUTES and BUILD_DIR at most"
[[ -z ${1:-} ]] || bench_uint minutes MINUTES "$1"
bench_build "${2:-}"
logstats=$(bench_tool logstats)
deep=$(bench_app DeepThreads)
bench_workdir soak
session=$work/s
rate=1000
seconds=$((minutes * 60))
# the apps outlive the measurements a little, so the last one sees them running
app_args=("$threads" "$depth" "$((seconds + 15))" events)

# start_app NAME COMMAND...: starts it, waits for "ready"; sets app_pid.
start_app() {
	local name=$1
	shift
	bench_start "$work/$name.out" "$@"
	bench_wait_line "$work/$name.out" '^ready$' 120 "$bench_pid" || { cat "$work/$name.out.err" >&2; exit 1; }
	app_pid=$(bench_pid_of "$work/$name.out")
}

# start_tui: clrscope open on the session in a detached tmux; sets tui_pid.
start_tui() {
	local sock="clrscope-soak-$$"
	bench_at_exit "tmux -L '$sock' kill-server 2>/dev/null"
	# exec: the pane's process is clrscope itself
	tmux -L "$sock" -f /dev/null new-session -d -s soak -x 120 -y 40 \
		"exec env TERM=xterm-256color LANG=C.UTF-8 '$clrscope' open '$session'"
	tui_pid=$(tmux -L "$sock" display-message -p -t soak '#{pane_pid}')
}

mb() { [[ $1 == - ]] && echo - || awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "clrscope soak: DeepThreads ${app_args[*]} at $rate Hz, events on, $minutes min" >&2
start_app twin dotnet "$deep" "${app_args[@]}" busy=0
twin_pid=$app_pid # bench_start ran dotnet itself: the same pid
start_app profiled "$clrscope" record -o "$session" --rate "$rate" --events all -- dotnet "$deep" "${app_args[@]}"
record_pid=$bench_pid
profiled_pid=$app_pid
tui_pid=""
! $tui || start_tui

printf "%8s %14s %14s %12s %10s\n" "time" "profiled MiB" "unprofiled MiB" "agent MiB" "TUI MiB"
start=$(date +%s)
for ((t = 0; t <= seconds; t += interval)); do
	bench_sleep $((start + t - $(date +%s) > 0 ? start + t - $(date +%s) : 0))
	p=$(bench_rss_kb "$profiled_pid") u=$(bench_rss_kb "$twin_pid") v=-
	[[ -z $tui_pid ]] || v=$(bench_rss_kb "$tui_pid")
	a=-
	[[ $p == - || $u == - ]] || a=$((p - u))
	echo "$t $p $u $v" >>"$work/rss"
	printf "%5d:%02d %14s %14s %12s %10s\n" $((t / 60)) $((t % 60)) "$(mb "$p")" "$(mb "$u")" "$(mb "$a")" "$(mb "$v")"
done

bench_reap "$twin_pid" || true
bench_reap "$record_pid" || { echo "clrscope record failed:" >&2; cat "$work/profiled.out.err" >&2; exit 1; }

# sampled_functions FILE [REPORT OPTION...]: the names of the functions the samples name
sampled_functions() {
	local file=$1
	shift
	"$clrscope" report --format json "$@" "$session" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["processes"][0]["functions"]:
    print(f["name"])' >"$file"
}
sampled_functions "$work/functions-first" --to 60
sampled_functions "$work/functions-whole" --to "$seconds" # not the shutdown
python3 - "$work/rss" "$work/functions-first" "$work/functions-whole" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
# the first row at or after minute 1 (the first one if the run is shorter)
base = next((r for r in rows if int(r[0]) >= 60), rows[0])
last = rows[-1]
def growth(i):
    if base[i] == "-" or last[i] == "-":
        return "-"
    b, e = int(base[i]), int(last[i])
    return "%+.1f MiB" % ((e - b) / 1024) + (" (%+.1f%%)" % (100.0 * (e / b - 1)) if b > 0 else "")
agent = lambda r: "-" if "-" in (r[1], r[2]) else str(int(r[1]) - int(r[2]))
base.append(agent(base)); last.append(agent(last))
span = "%d:%02d to %d:%02d" % (int(base[0]) // 60, int(base[0]) % 60, int(last[0]) // 60, int(last[0]) % 60)
print()
print("growth from %s (goal: flat at a constant number of functions)" % span)
print("  %-24s %s" % ("profiled process", growth(1)))
print("  %-24s %s" % ("unprofiled twin", growth(2)))
print("  %-24s %s" % ("agent (the difference)", growth(4)))
print("  %-24s %s" % ("terminal UI", growth(3)))
first, whole = (set(open(f).read().split("\n")) - {""} for f in sys.argv[2:4])
new = sorted(whole - first)
print("functions sampled: %d in the first minute, %d new after it (to the last measurement)%s" % (
    len(first), len(new), (": " + ", ".join(new[:8]) + (" ..." if len(new) > 8 else "")) if new else ""))
EOF
"$logstats" "$session" | awk 'NR == 2 {
	printf "session: %d ticks (%.0f/s), %d samples, %.1f MiB of log, %d records dropped\n",
		$2, ($4 > 0 ? ($2 - 1) / $4 : 0), $3, $8 / 1048576, $10 }'
