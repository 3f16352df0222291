#!/usr/bin/env bash
# Server benchmark: an ASP.NET Core (Kestrel) app (tests/apps/WebHash:
# SHA-256 over a 1 KiB buffer per request, 16 times) under a load generator
# on the loopback, with no profiler, under clrscope at 100 Hz and at 1 kHz
# (the default mixed sampler, with and without its self-check, the validate
# dial), and under dotnet-trace's default collection (the real tool,
# installed from NuGet into BUILD/tools on first use).  A server costs what
# a CPU loop hides: thread-pool threads that wake and park, sockets, many
# threads.  Runs are interleaved (the order rotates each round) so that
# drift of the machine touches every configuration alike.
#
#   bench/server.sh [-n RUNS] [-d SECONDS] [-c CONNECTIONS] [-q REQUESTS_PER_S] [-k CONFIGS] [BUILD_DIR]
#
# -k picks the configurations (a comma-separated list; default all but the
# -noasync ones): none, clrscope-100hz, clrscope-1khz,
# clrscope-1khz-novalidate, clrscope-100hz-kernel, clrscope-1khz-kernel,
# dotnet-trace, and clrscope-100hz-noasync and clrscope-1khz-noasync (the
# async dial off: no logical stacks, for what they cost).
#
# Each run: the app starts under its configuration, takes one second of
# load to warm up, then two measured phases of SECONDS each:
#  - saturated (wrk, CONNECTIONS connections as fast as they go): requests
#    per second and the 99th percentile latency, medians and spread;
#  - a fixed load (hey, REQUESTS_PER_S in all, default 3200: about a third
#    of what the server can take): the CPU time the server and the
#    profiler's own processes used, as a share of one CPU, and what the
#    profiler added to the unprofiled server's.  At a fixed load every
#    configuration does the same work, so the CPU it takes is the cost
#    itself; saturated throughput reads it through the machine's noise
#    (requests/s of one configuration moved by 20-40 % between runs here,
#    the CPU at a fixed load by a few points of a CPU).  A profiler's cost
#    is mostly per tick and per thread, not per request, so the points of a
#    CPU it adds at a fixed load are about the share of a saturated
#    server's throughput it would take.
# Also for clrscope: the share of a CPU its sampler thread used in the
# saturated phase, and the agent's own account of its cost over each whole
# run (its STATUS records: its threads' and its signal handler's CPU time,
# the sampler thread's time by task per tick and per signal).  With two
# CPUs or more the server (and the profiler's own processes) is pinned to
# CPU 0 and the load to CPU 1: unpinned, the
# scheduler's placement moves the unprofiled server's throughput by +-20 %
# from run to run.  The thread pool's spin-waiting is off in every
# configuration (DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0): a worker
# that spins burns whatever CPU is idle, so with it the server's CPU at a
# fixed load follows the machine's idle time, not the work.  Last, for scale,
# what a thread that only sleeps a tick and wakes costs on this machine
# (bench/wakecost.c): every sampler that wakes each tick pays it, EventPipe's
# too.  Not a test: nothing is asserted.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5
seconds=5
connections=32
fixed_rate=3200
bench_opt() {
	case $1 in
	n) bench_uint runs -n "$2" ;;
	d) bench_uint seconds -d "$2" ;;
	c) bench_uint connections -c "$2" ;;
	q) bench_uint fixed_rate -q "$2" ;;
	k) [[ $2 =~ ^[a-z0-9,-]+$ ]] || bench_usage_error "-k wants configurations like none,clrscope-1khz, not '$2'"
	   picked=${2//,/ } ;;
	esac
}
picked=""
bench_options "n:d:c:q:k:" "" "$@"
set -- "${bench_args[@]}"
(($# <= 1)) || bench_usage_error "one build directory at most"
bench_build "${1:-}"
bench_need wrk "apt-get install wrk, or scripts/deps.sh"
bench_need hey "apt-get install hey, or scripts/deps.sh"
# hey's rate is per worker: 32 workers share the total
hey_workers=32
((fixed_rate >= hey_workers)) || bench_usage_error "-q wants at least $hey_workers requests per second"
export DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0
app=$(bench_app WebHash)
bench_workdir server
bench_split_cpus
load_threads=$((${#load_cpu[@]} ? 1 : 2))

all_configs=(none clrscope-100hz clrscope-1khz clrscope-1khz-novalidate clrscope-100hz-kernel clrscope-1khz-kernel
	dotnet-trace clrscope-100hz-noasync clrscope-1khz-noasync)
if [[ -n $picked ]]; then
	read -ra configs <<<"$picked"
	for c in "${configs[@]}"; do
		[[ " ${all_configs[*]} " == *" $c "* ]] || bench_usage_error "no configuration '$c' (${all_configs[*]})"
	done
else
	configs=("${all_configs[@]:0:7}")
fi
if [[ " ${configs[*]} " == *" dotnet-trace "* ]] && ! bench_dotnet_trace; then
	kept=()
	for c in "${configs[@]}"; do
		[[ $c == dotnet-trace ]] || kept+=("$c")
	done
	configs=("${kept[@]}")
	echo "(dotnet-trace's row is left out)" >&2
fi

# run CONFIG N: one run; appends "config requests_per_s p99_ms sampler_cpu_pct
# fixed_load_cpu_pct fixed_load_p99_ms served program_pct profiler_threads_pct
# profiler_processes_pct" to results
run() {
	local config=$1 n=$2 out="$work/$1-$2" port=$((21000 + RANDOM % 20000)) life=$((2 * seconds + 10))
	case $config in
	none) bench_start "$out" "${server_cpu[@]}" dotnet "$app" "$port" "$life" ;;
	clrscope-100hz) bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate 100 -- dotnet "$app" "$port" "$life" ;;
	clrscope-1khz) bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate 1000 -- dotnet "$app" "$port" "$life" ;;
	clrscope-1khz-novalidate)
		bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate 1000 --validate 0 -- dotnet "$app" "$port" "$life"
		;;
	clrscope-100hz-noasync | clrscope-1khz-noasync)
		local rate=100
		[[ $config == clrscope-1khz-noasync ]] && rate=1000
		bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate $rate --async off -- dotnet "$app" "$port" "$life"
		;;
	clrscope-100hz-kernel | clrscope-1khz-kernel)
		local rate=100
		[[ $config == clrscope-1khz-kernel ]] && rate=1000
		bench_start "$out" "${server_cpu[@]}" "$clrscope" record -o "$work/s-$n" --rate $rate --sampler kernel -- dotnet "$app" "$port" "$life"
		;;
	dotnet-trace)
		bench_start "$out" "${server_cpu[@]}" "$trace" collect --show-child-io --format Speedscope -o "$work/t-$n.nettrace" -- dotnet "$app" "$port" "$life"
		;;
	esac
	local pid=$bench_pid
	bench_wait_line "$out" '^listening' 60 "$pid"
	"${load_cpu[@]}" wrk -t"$load_threads" -c"$connections" -d1s "http://127.0.0.1:$port/hash?n=16" >/dev/null 2>&1 || true
	local before after
	before=$(sampler_ticks "$port")
	"${load_cpu[@]}" wrk -t"$load_threads" -c"$connections" -d"${seconds}s" --latency "http://127.0.0.1:$port/hash?n=16" >"$out.wrk" 2>&1 || true
	after=$(sampler_ticks "$port")
	local tree_before tree_after
	tree_before=$(tree_split "$pid")
	"${load_cpu[@]}" hey -c "$hey_workers" -q $((fixed_rate / hey_workers)) -z "${seconds}s" \
		"http://127.0.0.1:$port/hash?n=16" >"$out.hey" 2>&1 || true
	tree_after=$(tree_split "$pid")
	bench_reap "$pid" || true
	# the agent's own account of its cost over the whole run (clrscope only)
	if [[ -d $work/s-$n ]]; then
		"$clrscope" report --format json "$work/s-$n" 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)["processes"][0]
a, ms = p["agent"], p["duration_ms"]
if ms and a.get("cpu_share") is not None:
    t = a["sampler_ms"]
    print(sys.argv[1], ms, a["sampler_cpu_ms"], a["handler_cpu_ms"], a["writer_cpu_ms"], t["unwind"], t["survey"],
          t["signal"], t["record"], a["suspend_ms_total"], a["signals"], p["ticks"],
          a["signals_waiting"])' "$config" >>"$work/costs" || true
	fi
	rm -rf "$work/s-$n" "$work"/t-"$n".*
	python3 - "$config" "$out.wrk" "$before" "$after" "$seconds" "$(getconf CLK_TCK)" "$out.hey" \
		"$tree_before" "$tree_after" "$fixed_rate" >>"$work/results" <<'PY'
import re, sys
# (the three parts of tree_split, before and after the fixed load)
text = open(sys.argv[2]).read()
rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\b", text, re.M)
scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
before, after, seconds, hz = sys.argv[3:7]
def share(a, b):
    return "nan" if a == "-" or b == "-" else "%.2f" % (100.0 * (int(b) - int(a)) / int(hz) / float(seconds))
parts = [share(a, b) for a, b in zip(sys.argv[8].split(), sys.argv[9].split())]
fixed = open(sys.argv[7]).read()
fixed_p99 = re.search(r"^\s+99% in ([\d.]+) secs", fixed, re.M)
ok = re.search(r"^\s+\[200\]\s+(\d+) responses", fixed, re.M)
# a fixed load the server did not keep up with (or errors) is no measure
served = int(ok.group(1)) if ok else 0
kept_up = served >= 0.95 * int(sys.argv[10]) * float(seconds)
fixed_cpu = "%.2f" % sum(map(float, parts)) if kept_up else "nan"
if not kept_up:
    parts = ["nan"] * 3
print(sys.argv[1], rps.group(1) if rps else "nan",
      "%.2f" % (float(p99.group(1)) * scale[p99.group(2)]) if p99 else "nan", share(before, after),
      fixed_cpu, "%.2f" % (1000 * float(fixed_p99.group(1))) if fixed_p99 else "nan", served, *parts)
PY
}

# tree_split PID: the CPU time (clock ticks) PID and every process under it
# used so far, in three parts: the program's own threads (the process
# running the app), the profiler's threads inside it (clrscope's agent
# threads, and the threads the runtime starts for an EventPipe session:
# unnamed, so called "dotnet" like the main thread; an unprofiled server has
# none) and the profiler's own processes around it (clrscope record,
# dotnet-trace).  The program's part moves by 15 % from run to run at the
# same load; the profiler's parts hardly move.
tree_split() {
	python3 - "$1" "$app" <<'PY'
import os, sys
def times(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    comm, fields = text[text.index("(") + 1:text.rindex(")")], text.rsplit(")", 1)[1].split()
    return comm, int(fields[1]), int(fields[11]) + int(fields[12])  # comm, ppid, utime + stime
procs = {int(n): t for n in os.listdir("/proc") if n.isdigit() and (t := times("/proc/%s/stat" % n))}
tree, grew = {int(sys.argv[1])}, True
while grew:
    grew = False
    for pid, (_, ppid, _) in procs.items():
        if ppid in tree and pid not in tree:
            tree.add(pid)
            grew = True
program = agent = around = 0
for pid in tree & procs.keys():
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            is_app = sys.argv[2].encode() in f.read()
    except OSError:
        is_app = False
    if not is_app or procs[pid][0] != "dotnet":
        around += procs[pid][2]
        continue
    ours = 0  # (a process's own times count its ended threads too: the program's)
    for tid in os.listdir("/proc/%d/task" % pid):
        t = times("/proc/%d/task/%s/stat" % (pid, tid))
        if t and (t[0].startswith("clrscope") or (t[0] == "dotnet" and int(tid) != pid)):
            ours += t[2]
    program += procs[pid][2] - ours
    agent += ours
print(program, agent, around)
PY
}

# sampler_ticks PORT: the CPU time (clock ticks) of clrscope's sampler thread
# in the server listening on PORT so far, '-' without one: the part of the
# cost that is the sampler thread's own (the fixed load's CPU is the whole)
sampler_ticks() {
	local p t
	p=$(bench_webhash_pid "$1")
	for t in ${p:+/proc/"$p"/task/*}; do
		if [[ $(cat "$t/comm" 2>/dev/null) == clrscope-samp* ]]; then
			bench_cpu_ticks "$t/stat"
			return
		fi
	done
	echo -
}

echo "clrscope server benchmark: WebHash under wrk (${connections} connections, ${seconds} s), $runs interleaved runs" >&2
for ((r = 0; r < runs; r++)); do
	for ((k = 0; k < ${#configs[@]}; k++)); do
		c=${configs[$(((k + r) % ${#configs[@]}))]}
		run "$c" "$r"
		echo "  round $((r + 1))/$runs: $(tail -1 "$work/results")" >&2
	done
done

python3 - "$work/results" "$fixed_rate" <<'EOF'
import math, statistics, sys
rows, sampler, fixed, fixed_p99, program, own_threads, own_procs = {}, {}, {}, {}, {}, {}, {}
for line in open(sys.argv[1]):
    name, rps, p99, cpu, fcpu, fp99, _, prog, threads, procs = line.split()
    if not math.isnan(float(rps)):
        rows.setdefault(name, []).append((float(rps), float(p99)))
    for table, value in ((sampler, cpu), (fixed, fcpu), (fixed_p99, fp99), (program, prog), (own_threads, threads),
                         (own_procs, procs)):
        if not math.isnan(float(value)):
            table.setdefault(name, []).append(float(value))
order = [c for c in ["none", "clrscope-100hz", "clrscope-100hz-noasync", "clrscope-1khz", "clrscope-1khz-noasync",
                    "clrscope-1khz-novalidate", "clrscope-100hz-kernel", "clrscope-1khz-kernel", "dotnet-trace"]
         if c in rows or c in fixed]
med = statistics.median
def spread(values, fmt):
    return (fmt + ".." + fmt) % (min(values), max(values)) if values else "-"
print("saturated (wrk):")
print("%-24s %12s %9s %18s %11s %16s %15s" % ("configuration", "median req/s", "loss", "min..max req/s", "median p99",
                                             "min..max p99 ms", "sampler thread"))
base = med(r for r, _ in rows["none"]) if "none" in rows else float("nan")
for name in order:
    if name not in rows:
        continue
    rps = [r for r, _ in rows[name]]
    p99 = [p for _, p in rows[name]]
    print("%-24s %12.0f %8.1f%% %18s %8.1f ms %16s %15s" % (
        name, med(rps), 100 * (1 - med(rps) / base), spread(rps, "%.0f"), med(p99), spread(p99, "%.1f"),
        "%.1f%% of a CPU" % med(sampler[name]) if name in sampler else "-"))
print()
print("fixed load (hey, %s requests/s): CPU of the server and the profiler's processes, %% of one CPU" % sys.argv[2])
print("%-24s %10s %14s %10s %12s" % ("configuration", "median CPU", "min..max", "added", "median p99"))
fbase = med(fixed["none"]) if "none" in fixed else float("nan")
for name in order:
    if name not in fixed:
        print("%-24s %10s (the server did not keep up with the load in any run)" % (name, "-"))
        continue
    print("%-24s %9.1f%% %14s %+9.1f %9.1f ms" % (name, med(fixed[name]), spread(fixed[name], "%.1f"),
                                               med(fixed[name]) - fbase,
                                               med(fixed_p99[name]) if name in fixed_p99 else float("nan")))
print()
print("fixed load, who used that CPU (medians, % of one CPU): the program's own threads (their spread is the")
print("machine's), the profiler's threads in the server, the profiler's processes, and those two together")
print("%-24s %10s %14s %16s %12s %14s" % ("configuration", "program", "min..max", "profiler threads", "processes",
                                        "profiler's own"))
own = {name: [t + p for t, p in zip(own_threads[name], own_procs[name])] for name in own_threads if name in own_procs}
for name in order:
    if name in program:
        print("%-24s %9.1f%% %14s %15.1f%% %11.1f%% %13.1f%%" % (
            name, med(program[name]), spread(program[name], "%.1f"), med(own_threads[name]), med(own_procs[name]),
            med(own[name])))
print("(clrscope's own leave out its signal handler's time in the program's threads, in the agent's account below, and")
print(" what waking parked threads for their signals costs them (bench/sigcost); dotnet-trace's leave out what its")
print(" suspensions cost the program's threads)")
def loss(name):
    return 100 * (1 - med(r for r, _ in rows[name]) / base)
def added(name):
    return med(fixed[name]) - fbase if name in fixed and "none" in fixed else float("nan")
print()
if "dotnet-trace" in rows:
    print("goals, saturated: clrscope 1 kHz loses at most half of dotnet-trace's loss (%.1f%% -> %.1f%%): %.1f%%; "
          "clrscope 100 Hz at most 3%%: %.1f%%" % (loss("dotnet-trace"), loss("dotnet-trace") / 2,
                                                 loss("clrscope-1khz"), loss("clrscope-100hz")))
    # a profiler's cost is mostly per tick and per thread, not per request:
    # the points of a CPU it adds at a fixed load are about the share of a
    # saturated server's throughput it takes
    print("goals, fixed load: clrscope 1 kHz adds at most half of dotnet-trace's CPU (%+.1f -> %+.1f points): %+.1f; "
          "clrscope 100 Hz at most 3 points: %+.1f" % (added("dotnet-trace"), added("dotnet-trace") / 2,
                                                     added("clrscope-1khz"), added("clrscope-100hz")))
    if "clrscope-1khz-kernel" in fixed:
        print("goals, fixed load, the kernel sampler: 1 kHz %+.1f, 100 Hz %+.1f" % (
            added("clrscope-1khz-kernel"), added("clrscope-100hz-kernel")))
if "dotnet-trace" in own and "clrscope-1khz" in own:
    print("the profilers' own threads and processes: clrscope 1 kHz %.1f%% of a CPU against dotnet-trace's %.1f%% "
          "(half: %.1f%%); clrscope 100 Hz %.1f%%" % (med(own["clrscope-1khz"]), med(own["dotnet-trace"]),
                                                 med(own["dotnet-trace"]) / 2, med(own["clrscope-100hz"])))
    if "clrscope-1khz-kernel" in own:
        print("... the kernel sampler: 1 kHz %.1f%%, 100 Hz %.1f%%" % (med(own["clrscope-1khz-kernel"]),
                                                                   med(own["clrscope-100hz-kernel"])))
EOF

# the agent's own figures: its threads' and its handler's CPU, and the
# sampler thread's time by task, per tick and per signal
if [[ -s $work/costs ]]; then
	echo
	# what a signal costs a thread it wakes, on this machine, pinned like the server
	wake_us=$("${server_cpu[@]}" "$build/bench/sigcost" 1000 2 | sed -n 's/.*: \([0-9.]*\) us of that thread.*/\1/p')
	python3 - "$work/costs" "${wake_us:-nan}" <<'EOF'
import statistics, sys
wake_us = float(sys.argv[2])
runs = {}
for line in open(sys.argv[1]):
    name, *v = line.split()
    runs.setdefault(name, []).append([float(x) for x in v])
print("the agent's own account, whole runs (medians): % of one CPU, and microseconds per tick or per signal")
print("%-24s %8s %8s %8s %8s | %10s %9s %10s %9s %8s" % (
    "configuration", "sampler", "handler", "writer", "waking", "unwind/sig", "clocks/tk", "signal/sig", "record/tk",
    "rest/tk"))
for name, rs in runs.items():
    med = lambda f: statistics.median(f(r) for r in rs)
    # ms, sampler, handler, writer, unwind, survey, signal, record, suspend, signals, ticks, signals_waiting
    share = lambda i: med(lambda r: 100 * r[i] / r[0])
    waking = med(lambda r: 100 * r[11] * wake_us / 1000 / r[0])
    per = lambda i, n: med(lambda r: 1000 * r[i] / max(r[n], 1))
    rest = med(lambda r: 1000 * max(r[1] - sum(r[4:9]), 0) / max(r[10], 1))
    print("%-24s %7.1f%% %7.1f%% %7.1f%% %7.1f%% | %10.1f %9.1f %10.1f %9.1f %8.1f" % (
        name, share(1), share(2), share(3), waking, per(4, 9), per(5, 10), per(6, 9), per(7, 10), rest))
print("(waking: the signals that found their thread waiting, each at what bench/sigcost says waking a thread")
print(" costs it here (%.1f us): the kernel's part, charged to the program's threads; rest: the sampler" % wake_us)
print(" thread's CPU time outside its timed tasks, mostly its sleep and wake-up each tick)")
EOF
fi

# what any sampler that wakes every tick pays on this machine before its work
if [[ -x $build/bench/wakecost ]]; then
	echo
	echo "for scale: a thread that only sleeps a tick and wakes, pinned like the server (bench/wakecost):"
	"${server_cpu[@]}" "$build/bench/wakecost" 1000
	"${server_cpu[@]}" "$build/bench/wakecost" 10000 300
fi
if [[ -x $build/bench/sigcost ]]; then
	echo "and what a signal costs a thread it wakes from a wait (bench/sigcost):"
	"${server_cpu[@]}" "$build/bench/sigcost" 1000 2
fi
if [[ -x $build/bench/perfcost ]]; then
	echo "and what sampling a running thread costs it, by a signal and by the kernel (bench/perfcost):"
	"${server_cpu[@]}" "$build/bench/perfcost" 1000 2 || true
fi
