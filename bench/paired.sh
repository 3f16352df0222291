#!/usr/bin/env bash
# Paired server benchmark: what each profiler adds to one server process at
# a fixed load, measured inside that process in turns.
# bench/server.sh compares separate runs, and a server's own CPU at the same
# load moves by 15 % from run to run (JIT tiering, the thread pool's size,
# GC timing): more than a profiler adds.  Here one WebHash server (started
# under clrscope record, its agent quiet between turns) takes a fixed load (hey)
# for the whole run, and its time is cut into windows of WINDOW seconds,
# in rounds of three, the order rotating:
#  - off:      nothing samples or records events (the agent is loaded, its
#              sampling off and its event kinds none);
#  - clrscope: the agent's defaults (sampling at RATE, every event kind) for
#              ACTIVE seconds (clrscope dial sampling=on events=all, then
#              back);
#  - trace:    dotnet-trace collect -p PID --duration ACTIVE (its default
#              providers: EventPipe's sample profiler and runtime events),
#              the agent as in off.
# Each window's figure is the server process's CPU over the window (start-up
# and teardown of the profiler's session included: dotnet-trace's rundown,
# the dial's round trip), and for dotnet-trace also its own process's CPU
# (its start-up included: a .NET program).  A profiler's cost is its
# window's CPU less the same round's off window: paired, the server's drift
# cancels.  Server, clrscope and dotnet-trace run on CPU 0, the load on
# CPU 1 (with two CPUs or more).  Not a test: nothing is asserted.
#
#   bench/paired.sh [-n ROUNDS] [-w WINDOW] [-a ACTIVE] [-r RATE] [-q REQUESTS_PER_S] [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rounds=8
window=10
active=5
rate=1000
fixed_rate=3200
bench_opt() {
	case $1 in
	n) bench_uint rounds -n "$2" ;;
	w) bench_uint window -w "$2" ;;
	a) bench_uint active -a "$2" ;;
	r) bench_uint rate -r "$2" ;;
	q) bench_uint fixed_rate -q "$2" ;;
	esac
}
bench_options "n:w:a:r:q:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
((active + 2 <= window)) || bench_usage_error "-a wants at least 2 s less than the window (-w)"
bench_build "${1:-}"
command -v hey >/dev/null || { echo "no hey: install it (apt-get install hey, or scripts/deps.sh)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "no wrk: install it (apt-get install wrk, or scripts/deps.sh)" >&2; exit 1; }
bench_dotnet_trace || { echo "dotnet-trace is what this compares with: none, no benchmark" >&2; exit 1; }
hey_workers=32
((fixed_rate >= hey_workers)) || bench_usage_error "-q wants at least $hey_workers requests per second"
export DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0 # (see bench/server.sh)
app=$(bench_app WebHash)
bench_workdir paired
server_cpu=() load_cpu=()
if (($(nproc) >= 2)) && command -v taskset >/dev/null; then
	server_cpu=(taskset -c 0) load_cpu=(taskset -c 1)
fi

port=$((21000 + RANDOM % 20000))
warm=15
life=$((rounds * 3 * (window + 3) + warm + 30))
session=$work/session
bench_start "$work/server" "${server_cpu[@]}" "$clrscope" record -o "$session" --rate "$rate" -- dotnet "$app" "$port" "$life"
record_pid=$bench_pid
bench_wait_line "$work/server" '^listening' 60 "$record_pid"
quiet=(sampling=off events=none)
"$clrscope" dial "$session" "${quiet[@]}" >/dev/null
pid=
for p in $(pgrep -f "WebHash.dll $port " || true); do
	[[ $(cat "/proc/$p/comm" 2>/dev/null) == dotnet ]] && pid=$p
done
[[ -n $pid ]] || { echo "paired.sh: the server's process is not to be found" >&2; exit 1; }

"${load_cpu[@]}" wrk -t1 -c32 -d2s "http://127.0.0.1:$port/hash?n=16" >/dev/null 2>&1 || true
bench_start "$work/hey" "${load_cpu[@]}" hey -c "$hey_workers" -q $((fixed_rate / hey_workers)) -z "$((life - warm))s" \
	"http://127.0.0.1:$port/hash?n=16"
bench_sleep "$warm" # the load's own warm-up: tiering, the pool's size

# take_window KIND: one window; prints "KIND server_ticks milliseconds
# profiler_process_ticks profiler_process_ticks_after_its_start-up"
take_window() {
	local kind=$1 t0 c0 c1 own="0 0"
	t0=$(date +%s%N)
	c0=$(bench_cpu_ticks "/proc/$pid/stat")
	case $kind in
	clrscope)
		"$clrscope" dial "$session" sampling=on events=all >/dev/null
		bench_sleep "$active"
		"$clrscope" dial "$session" "${quiet[@]}" >/dev/null
		;;
	trace)
		# its own CPU, whole and from when its session began (its output
		# file appears: the start-up of a .NET program before that)
		own=$("${server_cpu[@]}" python3 - "$(getconf CLK_TCK)" "$work/t.nettrace" \
			"$trace" collect -p "$pid" --duration "$(printf '00:00:00:%02d' "$active")" -o "$work/t.nettrace" <<'PY'
import os, resource, subprocess, sys, time
hz, out, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
began = None
while p.poll() is None:
    if began is None and os.path.exists(out):
        try:
            with open("/proc/%d/stat" % p.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            began = int(fields[11]) + int(fields[12])
        except (OSError, IndexError):
            pass
    time.sleep(0.02)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
total = round((r.ru_utime + r.ru_stime) * hz)
print(total, total - (began if began is not None else 0))
PY
)
		rm -f "$work"/t.nettrace*
		;;
	esac
	local left
	left=$(((t0 + window * 1000000000 - $(date +%s%N)) / 1000000))
	((left > 0)) && bench_sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"
	c1=$(bench_cpu_ticks "/proc/$pid/stat")
	echo "$kind $((c1 - c0)) $((($(date +%s%N) - t0) / 1000000)) $own"
}

echo "clrscope paired benchmark: one WebHash server at $fixed_rate requests/s; $rounds rounds of ${window} s windows (off, clrscope $rate Hz, dotnet-trace; sampling ${active} s of each)" >&2
orders=("off clrscope trace" "clrscope trace off" "trace off clrscope")
for ((r = 0; r < rounds; r++)); do
	for kind in ${orders[$((r % 3))]}; do
		echo "$r $(take_window "$kind")" >>"$work/windows"
	done
	echo "  round $((r + 1))/$rounds: $(tail -3 "$work/windows" | awk '{ printf "%s %s%s  ", $2, $3, ($5 ? "+" $5 : "") }')" >&2
done
kill "$record_pid" 2>/dev/null || true

python3 - "$work/windows" "$(getconf CLK_TCK)" "$window" "$active" "$rate" <<'EOF'
import statistics, sys
hz, window, active, rate = (float(a) for a in sys.argv[2:6])
rounds = {}
for line in open(sys.argv[1]):
    r, kind, server, ms, own, steady = line.split()
    if abs(int(ms) / 1000 - window) > 1.0:
        continue  # a window that overran (a profiler slow to end): no measure
    rounds.setdefault(r, {})[kind] = (int(server), int(own), int(steady))
def pct(ticks):  # a share of one CPU over the sampling time
    return 100.0 * ticks / hz / active
med = statistics.median
full = [v for v in rounds.values() if len(v) == 3]
if not full:
    sys.exit("paired.sh: no complete round")
off = [pct(v["off"][0]) * active / window for v in full]
cl = [pct(v["clrscope"][0] - v["off"][0]) for v in full]
tr = [pct(v["trace"][0] - v["off"][0]) for v in full]
tp = [pct(v["trace"][1]) for v in full]
ts = [pct(v["trace"][2]) for v in full]
tt = [a + b for a, b in zip(tr, ts)]
def row(name, xs):
    print("%-52s %6.1f %%   %5.1f..%-5.1f" % (name, med(xs), min(xs), max(xs)))
print("%d complete rounds; each profiler's cost: its window's CPU less the round's off window, as a share" % len(full))
print("of one CPU over its %g s of sampling (medians, min..max over rounds)" % active)
row("server unprofiled (share of a CPU)", off)
row("clrscope %d Hz: in the server" % rate, cl)
row("dotnet-trace: in the server", tr)
row("dotnet-trace: its own process, start-up included", tp)
row("dotnet-trace: its own process from its session on", ts)
row("dotnet-trace: in the server and from its session on", tt)
ratio = [a / b for a, b in zip(cl, tr) if b > 0]
ratio_all = [a / b for a, b in zip(cl, tt) if b > 0]
print("clrscope / dotnet-trace, round by round (median): in the server %.2f; against the server's and its process's %.2f" %
      (med(ratio) if ratio else float("nan"), med(ratio_all) if ratio_all else float("nan")))
EOF
