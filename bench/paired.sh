#!/usr/bin/env bash
# Paired benchmark: what each profiler adds to one process, measured inside
# that process in turns: a server at a fixed load, or (-l) the CPU loop.
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
#              back); with -S, sampling by that sampler (mixed, the default;
#              signal, which samples only the threads that ran a period;
#              kernel; suspend: see SAMPLERS in clrscope-dial(1));
#  - trace:    dotnet-trace collect -p PID --duration ACTIVE (its default
#              providers: EventPipe's sample profiler and runtime events),
#              the agent as in off.
# Each window's figure is the server process's CPU over the window (start-up
# and teardown of the profiler's session included: dotnet-trace's rundown,
# the dial's round trip), and for dotnet-trace also its own process's CPU
# (its start-up included: a .NET program).  A profiler's cost is its
# window's CPU less the same round's off window: paired, the server's drift
# cancels.  Server, clrscope and dotnet-trace run on CPU 0, the load on
# CPU 1 (with two CPUs or more).
# With -s the server is saturated instead, in turns only: each turn runs
# wrk (32 connections, on CPU 1) for ACTIVE - 2 seconds while its profiler
# is in its steady state (clrscope from its dial's return on; dotnet-trace
# from when its session began, its output file appears, so that neither
# its start-up nor its rundown is in the figure; off at the same offset),
# and a turn's figures are wrk's requests/s and p99 latency: a profiler's
# cost as a loss of throughput (the measure of the throughput goal), with
# the server and dotnet-trace sharing CPU 0.  A loss is 1 - the
# turn's requests/s / the round's off turn's.
# With -l the process is the CPU loop instead (tests/apps/Workload --stream,
# one thread, no load generator, nothing pinned, as in bench/overhead.sh),
# and a window's figure is the loop's work per second over the profiler's
# turn: from the dial on to the dial's return off for clrscope, from its
# session's start (its output file appears) to its exit (rundown included)
# for dotnet-trace, the middle ACTIVE seconds for off.  A profiler's loss is
# 1 - its rate / the round's off rate.
# Medians over rounds are printed with 95 % intervals (a bootstrap over the
# rounds), and so is the margin of the 1 kHz goal: half of dotnet-trace's
# cost less clrscope's, round by round (above zero: clrscope costs less than
# half).  At a fixed load it then prints the part of clrscope's cost that
# comes before any stack is walked, the least a sampler of its design pays
# on this machine (the agent's counts from its report, times bench/wakecost's
# and bench/sigcost's unit costs), and what that leaves to its walking,
# naming and logging under the goal.  -k DIR keeps each window's figures
# (and the loop's units) there.  Not a test: nothing is asserted.
#
#   bench/paired.sh [-l|-s] [-n ROUNDS] [-w WINDOW] [-a ACTIVE] [-r RATE] [-q REQUESTS_PER_S] [-S SAMPLER] [-k DIR] [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rounds=8
window=10
active=5
rate=1000
fixed_rate=3200
loop=0
saturated=0
keep=
sampler=mixed
bench_opt() {
	case $1 in
	l) loop=1 ;;
	s) saturated=1 ;;
	k) keep=$2 ;;
	S) sampler=$2 ;;
	n) bench_uint rounds -n "$2" ;;
	w) bench_uint window -w "$2" ;;
	a) bench_uint active -a "$2" ;;
	r) bench_uint rate -r "$2" ;;
	q) bench_uint fixed_rate -q "$2" ;;
	esac
}
bench_options "n:w:a:r:q:S:lsk:" "loop=l saturated=s keep=k sampler=S" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
((active + 2 <= window)) || bench_usage_error "-a wants at least 2 s less than the window (-w)"
((!loop || !saturated)) || bench_usage_error "-l and -s: one or the other"
((!saturated || active >= 4)) || bench_usage_error "-s wants -a 4 at least (the load runs for ACTIVE - 2 s)"
[[ $sampler =~ ^(mixed|signal|kernel|suspend)$ ]] || bench_usage_error "-S is mixed, signal, kernel or suspend, not '$sampler'"
bench_build "${1:-}"
bench_dotnet_trace || { echo "dotnet-trace is what this compares with: none, no benchmark" >&2; exit 1; }
bench_workdir paired
warm=15
life=$((rounds * 3 * (window + 3) + warm + 30))
session=$work/session
quiet=(sampling=off events=none) loud=(sampling=on events=all sampler=$sampler)
trace_duration=$(printf '00:00:00:%02d' "$active") # dotnet-trace's --duration
server_cpu=() load_cpu=() url=

# start_server: WebHash under clrscope (quiet) and its fixed load; pid
start_server() {
	bench_need hey "apt-get install hey, or scripts/deps.sh"
	bench_need wrk "apt-get install wrk, or scripts/deps.sh"
	local hey_workers=32 port=$((21000 + RANDOM % 20000)) app p
	((fixed_rate >= hey_workers)) || bench_usage_error "-q wants at least $hey_workers requests per second"
	export DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0 # (see bench/server.sh)
	app=$(bench_app WebHash)
	bench_split_cpus
	bench_start "$work/server" "${server_cpu[@]}" "$clrscope" record -o "$session" --rate "$rate" -- dotnet "$app" "$port" "$life"
	record_pid=$bench_pid
	bench_wait_line "$work/server" '^listening' 60 "$record_pid"
	"$clrscope" dial "$session" "${quiet[@]}" >/dev/null
	pid=$(bench_webhash_pid "$port")
	[[ -n $pid ]] || { echo "paired.sh: the server's process is not to be found" >&2; exit 1; }
	url="http://127.0.0.1:$port/hash?n=16"
	if ((saturated)); then
		"${load_cpu[@]}" wrk -t1 -c32 -d"${warm}s" "$url" >/dev/null 2>&1 || true
		return
	fi
	"${load_cpu[@]}" wrk -t1 -c32 -d2s "$url" >/dev/null 2>&1 || true
	bench_start "$work/hey" "${load_cpu[@]}" hey -c "$hey_workers" -q $((fixed_rate / hey_workers)) -z "$((life - warm))s" "$url"
}

# start_loop: the CPU loop under clrscope (quiet), its units in $work/units; pid
start_loop() {
	local app
	app=$(bench_app Workload)
	bench_start "$work/units" "$clrscope" record -o "$session" --rate "$rate" -- dotnet "$app" --stream "$life"
	record_pid=$bench_pid
	bench_wait_line "$work/units" '^pid ' 60 "$record_pid"
	pid=$(bench_pid_of "$work/units")
	"$clrscope" dial "$session" "${quiet[@]}" >/dev/null
}

if ((loop)); then start_loop; else start_server; fi
((saturated)) || bench_sleep "$warm" # the program's own warm-up: tiering, the pool's size (-s: under wrk)

# saturate: wrk over a turn's steady part; prints "requests_per_s p99_us"
saturate() {
	"${load_cpu[@]}" wrk -t1 -c32 -d"$((active - 2))s" --latency "$url" 2>/dev/null | awk '
		function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
		/^Requests\/sec:/ { rps = $2 }
		$1 == "99%" { p99 = us($2) }
		END { printf "%s %s\n", (rps == "" ? 0 : rps), (p99 == "" ? 0 : p99) }'
}

# saturated_turn KIND: a turn under wrk (-s): its profiler started, wrk
# once that is steady, the profiler stopped; prints saturate's figures
saturated_turn() {
	local tp waited=0
	case $1 in
	off)
		sleep 1
		saturate
		;;
	clrscope)
		"$clrscope" dial "$session" "${loud[@]}" >/dev/null
		sleep 1
		saturate
		sleep 1
		"$clrscope" dial "$session" "${quiet[@]}" >/dev/null
		;;
	trace)
		"${server_cpu[@]}" "$trace" collect -p "$pid" --duration "$trace_duration" \
			-o "$work/t.nettrace" >/dev/null 2>&1 &
		tp=$!
		while [[ ! -e $work/t.nettrace ]] && ((waited++ < 200)) && kill -0 "$tp" 2>/dev/null; do sleep 0.05; done
		if [[ -e $work/t.nettrace ]]; then
			saturate
		else
			echo "paired.sh: dotnet-trace began no session within 10 s: this turn is not counted" >&2
			kill "$tp" 2>/dev/null || true
			echo "0 0" # (no requests/s: the round is incomplete)
		fi
		wait "$tp" || true
		rm -f "$work"/t.nettrace*
		;;
	esac
}

# take_window KIND: one window; prints "KIND process_ticks milliseconds
# profiler_process_ticks profiler_process_ticks_after_its_start-up
# turn_start_ns turn_end_ns" (the profiler's turn in wall-clock time)
take_window() {
	local kind=$1 t0 c0 c1 own="0 0" turn own_total own_steady turn_a turn_b
	t0=$(date +%s%N)
	c0=$(bench_cpu_ticks "/proc/$pid/stat")
	case $saturated:$kind in
	1:*)
		own=$(saturated_turn "$kind") turn="0 0"
		;;
	0:off)
		turn="$((t0 + (window - active) * 500000000)) $((t0 + (window + active) * 500000000))"
		;;
	0:clrscope)
		turn=$(date +%s%N)
		"$clrscope" dial "$session" "${loud[@]}" >/dev/null
		bench_sleep "$active"
		"$clrscope" dial "$session" "${quiet[@]}" >/dev/null
		turn="$turn $(date +%s%N)"
		;;
	0:trace)
		# its own CPU, whole and from when its session began (its output
		# file appears: the start-up of a .NET program before that), and
		# its turn: from then to its exit
		read -r own_total own_steady turn_a turn_b < <("${server_cpu[@]}" python3 - "$(getconf CLK_TCK)" "$work/t.nettrace" \
			"$trace" collect -p "$pid" --duration "$trace_duration" -o "$work/t.nettrace" <<'PY'
import os, resource, subprocess, sys, time
hz, out, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
began, began_ns = None, None
while p.poll() is None:
    if began is None and os.path.exists(out):
        began_ns = time.time_ns()
        try:
            with open("/proc/%d/stat" % p.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            began = int(fields[11]) + int(fields[12])
        except (OSError, IndexError):
            pass
    time.sleep(0.02)
end_ns = time.time_ns()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
total = round((r.ru_utime + r.ru_stime) * hz)
print(total, total - (began if began is not None else 0), began_ns or 0, end_ns)
PY
)
		own="$own_total $own_steady" turn="$turn_a $turn_b"
		rm -f "$work"/t.nettrace*
		;;
	esac
	local left
	left=$(((t0 + window * 1000000000 - $(date +%s%N)) / 1000000))
	((left > 0)) && bench_sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"
	c1=$(bench_cpu_ticks "/proc/$pid/stat")
	echo "$kind $((c1 - c0)) $((($(date +%s%N) - t0) / 1000000)) $own $turn"
}

what="one WebHash server at $fixed_rate requests/s"
((!saturated)) || what="one WebHash server saturated by wrk in each turn"
((!loop)) || what="the CPU loop (Workload --stream)"
echo "clrscope paired benchmark: $what; $rounds rounds of ${window} s windows (off, clrscope $rate Hz ($sampler sampler), dotnet-trace; sampling ${active} s of each)" >&2
orders=("off clrscope trace" "clrscope trace off" "trace off clrscope")
for ((r = 0; r < rounds; r++)); do
	for kind in ${orders[$((r % 3))]}; do
		echo "$r $(take_window "$kind")" >>"$work/windows"
	done
	echo "  round $((r + 1))/$rounds: $(tail -3 "$work/windows" | awk -v s="$saturated" '{ if (s) printf "%s %s/s p99 %.1f ms  ", $2, $5, $6 / 1000; else printf "%s %s%s  ", $2, $3, ($5 ? "+" $5 : "") }')" >&2
done
kill "$record_pid" 2>/dev/null || true
if [[ -n $keep ]]; then
	mkdir -p "$keep" && cp "$work/windows" "$keep/" && { ((!loop)) || cp "$work/units" "$keep/"; }
fi

# At a fixed load, what any sampler of this design pays on this machine
# before it walks a stack: its wake-ups, its survey's reads of each
# thread's CPU clock, the waits its signals interrupt and its handlers.
# The agent's counts over the clrscope turns (its report) times this
# machine's unit costs, measured pinned like the server.  The mixed
# sampler's only: its wall samples say how many clocks a tick reads.
unit_costs=()
if ((!loop && !saturated)) && [[ $sampler == mixed && -x $build/bench/wakecost && -x $build/bench/sigcost ]]; then
	wait "$record_pid" 2>/dev/null || true
	"$clrscope" report -f json "$session" >"$work/report.json" 2>/dev/null || true
	wake=$("${server_cpu[@]}" "$build/bench/wakecost" 1000)
	unit_costs=("$work/report.json"
		"$(sed -n 's/.*wake: \([0-9.]*\) us of CPU alone.*/\1/p' <<<"$wake")"
		"$(sed -n 's/.*, \([0-9.]*\) us beside a busy thread.*/\1/p' <<<"$wake")"
		"$(sed -n "s/.*CPU clock: \([0-9.]*\) us.*/\1/p" <<<"$wake")"
		"$("${server_cpu[@]}" "$build/bench/sigcost" 1000 2 | sed -n 's/.*: \([0-9.]*\) us of that thread.*/\1/p')")
fi

python3 - "$loop" "$work/windows" "$work/units" "$(getconf CLK_TCK)" "$window" "$active" "$rate" "$saturated" \
	"$sampler" "${unit_costs[@]}" <<'EOF'
import bisect, json, random, statistics, sys
loop = sys.argv[1] == "1"
saturated = sys.argv[8] == "1"
sampler = sys.argv[9]
windows, units = sys.argv[2], sys.argv[3]
hz, window, active, rate = (float(a) for a in sys.argv[4:8])
med = statistics.median

# per round and kind: the server's CPU ticks and the profiler's (whole, from
# its session on), or the loop's units per second over the turn
rounds = {}
if loop:
    ends = [int(f[2]) for f in (l.split() for l in open(units)) if len(f) == 3 and f[0] == "unit"]
    def done(t):  # units finished by wall time t, the one under way counted in part
        k = bisect.bisect_right(ends, t)
        if k == 0 or k == len(ends):
            return None
        return k + (t - ends[k - 1]) / (ends[k] - ends[k - 1])
for line in open(windows):
    r, kind, server, ms, own, steady, a, b = line.split()
    if loop:
        wa, wb = done(int(a)), done(int(b))
        if int(b) > int(a) and wa is not None and wb is not None:
            rounds.setdefault(r, {})[kind] = (wb - wa) / ((int(b) - int(a)) / 1e9)
    elif saturated:
        if float(own) > 0 and abs(int(ms) / 1000 - window) <= 1.0:
            rounds.setdefault(r, {})[kind] = (float(own), float(steady))
    elif abs(int(ms) / 1000 - window) <= 1.0:  # (else a window that overran, a profiler slow to end: no measure)
        rounds.setdefault(r, {})[kind] = (int(server), int(own), int(steady))
full = [v for v in rounds.values() if len(v) == 3]
if not full:
    sys.exit("paired.sh: no complete round")

def interval(xs, stat=med, draws=4000):
    """95 % interval of stat(xs) by resampling the rounds"""
    rng = random.Random(1)
    got = sorted(stat([xs[rng.randrange(len(xs))] for _ in xs]) for _ in range(draws))
    return got[int(draws * 0.025)], got[int(draws * 0.975) - 1]

def row(name, xs, unit="%"):
    lo, hi = interval(xs)
    print("%-56s %7.2f %-2s  95 %% %6.2f..%-6.2f  range %6.2f..%-6.2f" % (name, med(xs), unit, lo, hi, min(xs), max(xs)))

def margin(name, pairs):
    """half of dotnet-trace's cost less clrscope's, round by round (the 1 kHz goal: above zero)"""
    xs = [t / 2 - c for c, t in pairs]
    lo, hi = interval(xs)
    t_med = med(t for _, t in pairs)
    ratio = "clrscope / dotnet-trace %.2f" % (med(c for c, _ in pairs) / t_med) if t_med > 0 else \
        "dotnet-trace's median not above zero"
    verdict = ("under half" if lo > 0 else "not under half" if hi < 0 else "not told from half") + " of dotnet-trace's"
    print("%-56s %7.2f %-2s  95 %% %6.2f..%-6.2f  %s: %s" % (name, med(xs), "pt", lo, hi, ratio, verdict))

def floor(args, clrscope, trace):
    """the part of clrscope's cost that no cut to its walking, naming or
    logging can remove: per second, wake-ups x a wake's CPU (beside a busy
    thread .. alone), clock reads, waits interrupted x a wake from a wait,
    and the handlers' own time"""
    if sampler != "mixed":
        print("\n(no floor: its arithmetic is the mixed sampler's)")
        return
    try:
        report, alone, beside, clock_us, waking_us = args[0], *(float(a) for a in args[1:5])
        p = json.load(open(report))["processes"][0]
        agent, ticks = p["agent"], p["ticks"]
    except (ValueError, OSError, KeyError, IndexError, TypeError):
        print("(no floor: the agent's report or this machine's unit costs (bench/wakecost, bench/sigcost) are missing)")
        return
    # ticks come only while sampling: in the clrscope turns, ACTIVE seconds each
    seconds = active * sum(1 for l in open(windows) if l.split()[1:2] == ["clrscope"])
    if not ticks or not seconds:
        return
    threads = p["wall_samples"] / ticks  # (every thread sampled each tick: its clock read)
    fixed = (100 * ticks * threads * clock_us / 1e6 + 100 * agent["signals_waiting"] * waking_us / 1e6 +
             agent["handler_cpu_ms"] / 10) / seconds
    lo, hi = fixed + 100 * ticks * beside / 1e6 / seconds, fixed + 100 * ticks * alone / 1e6 / seconds
    print()
    print("before it walks a stack, a sampler of this design pays here %.1f-%.1f %% of a CPU (%.0f ticks a second: a" %
          (lo, hi, ticks / seconds))
    print("wake-up each, %.1f-%.1f us, and %.1f threads' CPU clocks read, %.2f us each; %.0f signals a second, %.0f" %
          (beside, alone, threads, clock_us, agent["signals"] / seconds, agent["signals_waiting"] / seconds))
    print("of them interrupting a wait, %.1f us each; the handlers %.1f ms a second): half of dotnet-trace's whole cost" %
          (waking_us, agent["handler_cpu_ms"] / seconds))
    print("is %.2f %%, clrscope's %.2f %%: what its walking, naming and logging may take is %.1f-%.1f %%, where they" %
          (trace / 2, clrscope, trace / 2 - hi, trace / 2 - lo))
    print("take %.1f-%.1f %% now" % (clrscope - hi, clrscope - lo))

print("%d complete rounds; medians over rounds, 95 %% intervals by a bootstrap over rounds" % len(full))
if loop:
    print("each profiler's loss: 1 - the loop's work per second over its turn / the round's off window's")
    cl = [100 * (1 - v["clrscope"] / v["off"]) for v in full]
    tr = [100 * (1 - v["trace"] / v["off"]) for v in full]
    row("loop unprofiled (units per second)", [v["off"] for v in full], "/s")
    row("clrscope %d Hz: loss" % rate, cl)
    row("dotnet-trace: loss", tr)
    margin("half dotnet-trace's loss less clrscope's", list(zip(cl, tr)))
elif saturated:
    print("each profiler's loss: 1 - the requests/s wrk got over its turn's steady part / the round's off turn's;")
    print("p99: wrk's 99th percentile of latency over the same")
    cl = [100 * (1 - v["clrscope"][0] / v["off"][0]) for v in full]
    tr = [100 * (1 - v["trace"][0] / v["off"][0]) for v in full]
    row("server unprofiled (requests per second)", [v["off"][0] for v in full], "/s")
    row("clrscope %d Hz: loss of throughput" % rate, cl)
    row("dotnet-trace: loss of throughput", tr)
    row("p99 latency unprofiled (ms)", [v["off"][1] / 1000 for v in full], "ms")
    row("clrscope %d Hz: p99 latency (ms)" % rate, [v["clrscope"][1] / 1000 for v in full], "ms")
    row("dotnet-trace: p99 latency (ms)", [v["trace"][1] / 1000 for v in full], "ms")
    margin("half dotnet-trace's loss less clrscope's", list(zip(cl, tr)))
else:
    def pct(ticks):  # a share of one CPU over the sampling time
        return 100.0 * ticks / hz / active
    print("each profiler's cost: its window's CPU less the round's off window, as a share of one CPU over its %g s" % active)
    print("of sampling")
    cl = [pct(v["clrscope"][0] - v["off"][0]) for v in full]
    tr = [pct(v["trace"][0] - v["off"][0]) for v in full]
    ts = [pct(v["trace"][2]) for v in full]
    tt = [a + b for a, b in zip(tr, ts)]
    row("server unprofiled (share of a CPU)", [pct(v["off"][0]) * active / window for v in full])
    row("clrscope %d Hz: in the server" % rate, cl)
    row("dotnet-trace: in the server", tr)
    row("dotnet-trace: its own process, start-up included", [pct(v["trace"][1]) for v in full])
    row("dotnet-trace: its own process from its session on", ts)
    row("dotnet-trace: in the server and from its session on", tt)
    margin("half dotnet-trace's whole cost less clrscope's", list(zip(cl, tt)))
    margin("half its cost in the server alone less clrscope's", list(zip(cl, tr)))
    floor(sys.argv[10:], med(cl), med(tt))
EOF
