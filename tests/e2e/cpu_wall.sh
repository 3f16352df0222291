# CPU time and wall time.  DeepThreads with one busy thread beside four
# parked ones: the CPU view (the default) holds the busy method and almost
# nothing of the parked threads; the wall view holds the parked waits in
# their true share; the busy thread's cpu_ms matches the kernel's count of
# its run time, and its on-CPU samples add up to it.  Off-CPU samples carry the wait kind: Contender's threads
# wait for a lock, Spin's helper sleeps, the parked threads wait on an
# event.  The terminal UI's w toggles the time and the status bar says which.
source "$CLRSCOPE_TESTLIB"

# run DeepThreads under record in the background and follow the busy
# thread's run time in the kernel (schedstat: nanoseconds on a CPU) until
# the program ends
"$CLRSCOPE_BIN" record -o "$WORK/deep" --rate 400 -- dotnet "$(app DeepThreads)" 5 8 3 busy=1 \
	>"$WORK/deep.out" 2>"$WORK/deep.err" &
rec=$!
CHILDREN+=($rec)
pid=
for _ in $(seq 100); do
	pid=$(pgrep -f "^dotnet .*DeepThreads.dll 5 8 3" | head -1) && [[ -n $pid ]] && break
	sleep 0.1
done
kernel_ns=0 tid=
while kill -0 "$pid" 2>/dev/null && [[ -z $tid ]]; do
	for task in /proc/"$pid"/task/*; do
		read -r comm <"$task/comm" 2>/dev/null || continue
		[[ $comm == deep-0 ]] && tid=${task##*/}
	done
	sleep 0.02
done
# (read is a builtin: no process per reading, so the last one is at most
# a few tens of milliseconds before the thread ends)
while read -r ns _ <"/proc/$pid/task/$tid/schedstat" 2>/dev/null; do
	kernel_ns=$ns
	sleep 0.02
done
wait "$rec" && pass "record DeepThreads (one busy thread, four parked)" || fail "record failed: $(cat "$WORK/deep.err")"

clrscope report --format json "$WORK/deep" >"$WORK/cpu.json"
expect_whole_log "$WORK/cpu.json" "DeepThreads"
clrscope report --format json --time wall "$WORK/deep" >"$WORK/wall.json"
check "c < w" "CPU samples are fewer than wall samples" \
	c="$(json 'd["processes"][0]["cpu_samples"]' "$WORK/cpu.json")" w="$(json 'd["processes"][0]["wall_samples"]' "$WORK/cpu.json")"
expect_contains "$(json 'd["time"]' "$WORK/cpu.json")" "cpu" "the JSON says cpu is the default time"
top=$(json 'd["processes"][0]["functions"][0]["name"]' "$WORK/cpu.json")
expect_contains "$top" "Deep." "the CPU view's top function is the busy thread's ($top)"
# the parked threads' share of the CPU samples, and of the wall samples
share() {
	python3 - "$1" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
deep = {t["name"]: t["samples"] for t in p["threads"] if t["name"].startswith("deep-")}
parked = sum(v for k, v in deep.items() if k != "deep-0")
print(parked, deep.get("deep-0", 0), p["samples"])
EOF
}
read -r parked busy all <<<"$(share "$WORK/cpu.json")"
check "p < 0.02 * a and b > 0" "CPU view: the parked threads hold under 2% of the samples" p="$parked" b="$busy" a="$all"
read -r parked busy all <<<"$(share "$WORK/wall.json")"
check "abs(p / (p + b) - 0.8) < 0.08" "wall view: the parked threads hold their share (4 of 5 deep threads)" p="$parked" b="$busy"
waits=$(json "sum(t['state_samples']['wait'] for t in d['processes'][0]['threads'] if t['name'] in ('deep-1','deep-2','deep-3','deep-4'))" "$WORK/wall.json")
offcpu=$(json "sum(sum(t['state_samples'].values()) - t['state_samples']['running'] for t in d['processes'][0]['threads'] if t['name'] in ('deep-1','deep-2','deep-3','deep-4'))" "$WORK/wall.json")
check "w >= 0.9 * o and o > 0" "the parked threads' samples are waits on an event" w="$waits" o="$offcpu"
cpu_ms=$(json "[t['cpu_ms'] for t in d['processes'][0]['threads'] if t['name'] == 'deep-0'][0]" "$WORK/cpu.json")
check "abs(c - k / 1e6) <= 0.1 * k / 1e6 and k > 1e9" "deep-0's cpu_ms is within 10% of the kernel's run time" \
	c="$cpu_ms" k="$kernel_ns"
running=$(json "[t['state_samples']['running'] for t in d['processes'][0]['threads'] if t['name'] == 'deep-0'][0]" "$WORK/cpu.json")
# an on-CPU sample stands for a period (2.5 ms) of CPU time, at most one
# per tick: a thread that runs all the time while ticks come late (their
# mean spacing longer than 2.5 ms) has one per tick, so the count lies
# between CPU time / mean spacing and CPU time / period
tick_ms=$(json "d['processes'][0]['duration_ms'] / d['processes'][0]['ticks']" "$WORK/cpu.json")
check "r * 2.5 <= 1.1 * c and r * max(t, 2.5) >= 0.9 * c" "deep-0's on-CPU samples add up to its CPU time" \
	r="$running" t="$tick_ms" c="$cpu_ms"
# and its CPU samples, with those that stand for the time late ticks left
# over (CPU_OWED), add up to it at any spacing
samples=$(json "[t['samples'] for t in d['processes'][0]['threads'] if t['name'] == 'deep-0'][0]" "$WORK/cpu.json")
check "abs(n * 2.5 - c) <= 0.1 * c" "deep-0's CPU samples add up to its CPU time" n="$samples" c="$cpu_ms"
expect_status 0 "text report, wall" -- clrscope report --time wall "$WORK/deep"
expect_contains "$OUT" "time: wall:" "the text report says which time it counts"
expect_status 2 "a wrong --time" -- clrscope report --time both "$WORK/deep"
expect_contains "$ERR" "--time is cpu or wall" "and says what it takes"

# wait kinds: a contended lock, a sleep
expect_status 0 "record Contender" -- clrscope record -o "$WORK/lock" -- dotnet "$(app Contender)" 10
clrscope report --format json --time wall "$WORK/lock" >"$WORK/lock.json"
read -r lock off <<<"$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
ts = [t for t in p["threads"] if t["name"] == "contender"]
print(sum(t["state_samples"]["lock"] for t in ts), sum(sum(t["state_samples"].values()) - t["state_samples"]["running"] for t in ts))' "$WORK/lock.json")"
check "l >= 0.8 * o and o > 0" "Contender's threads wait for a lock" l="$lock" o="$off"
expect_status 0 "record Spin for 2 s" -- clrscope record -o "$WORK/spin" -- dotnet "$(app Spin)" 2
clrscope report --format json --time wall "$WORK/spin" >"$WORK/spin.json"
read -r sleep off cpu <<<"$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
t = [t for t in p["threads"] if t["name"] == "spin-helper"][0]
s = t["state_samples"]
print(s["sleep"], sum(s.values()) - s["running"], s["running"])' "$WORK/spin.json")"
check "s >= 0.9 * o and o > 100 and c < 0.05 * o" "Spin's helper sleeps (and barely runs)" s="$sleep" o="$off" c="$cpu"

# the terminal UI: w toggles the time
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
tui_start "$CLRSCOPE_BIN open $WORK/deep"
expect_screen "cpu time" 10 "the status bar says cpu time"
tm send-keys -t ui w
expect_screen "wall time" 5 "w: wall time"
tm send-keys -t ui 5
expect_screen "deep-1" 5 "the Threads view lists the threads"
tm send-keys -t ui q
tui_stop

finish
