# The signal sampler: no runtime suspension, busy threads only, and no
# safe-point bias: the 3:1 callers of one callee keep their ratio, a tight
# leaf loop gets its own time, and the sampler can be switched live.  The
# mixed sampler (the default) signals the busy thread the same way, so the
# runtime is not suspended for it, and still samples the waiting ones.
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record CpuRatio with --sampler signal at 1 kHz" -- \
	clrscope record -o "$WORK/s" --sampler signal --rate 1000 -- dotnet "$(app CpuRatio)" 3
clrscope report --format json "$WORK/s" >"$WORK/r.json"
expect_whole_log "$WORK/r.json" "signal sampler"
p='d["processes"][0]'
samples=$(json "$p['samples']" "$WORK/r.json")
check "s > 2000" "busy-thread samples at about 1 kHz" s="$samples"
check "x == 0" "the runtime was never suspended" x="$(json "$p['agent']['suspend_us_median']" "$WORK/r.json")"
burn=$(json "[f['self'] for f in $p['functions'] if f['name'].endswith('Worker.Burn')][0]" "$WORK/r.json")
check "b / s >= 0.95" "Burn has the self time (no PollGC in the way)" b="$burn" s="$samples"
heavy=$(json "[f['total'] for f in $p['functions'] if f['name'].endswith('Worker.Heavy')][0]" "$WORK/r.json")
light=$(json "[f['total'] for f in $p['functions'] if f['name'].endswith('Worker.Light')][0]" "$WORK/r.json")
check "abs(h / max(l, 1) - 3.0) <= 0.6" "Heavy:Light is 3:1 within 20%" h="$heavy" l="$light"
expect_contains "$(clrscope report --format collapsed "$WORK/s")" "Worker.Heavy;Clrscope.TestApps.Program+Worker.Burn" \
	"callers stand above the callee"

# mixed: the same program, its busy thread by signal (the waiting threads of
# the mixed sampler: e2e.still_threads)
expect_status 0 "record CpuRatio with the default (mixed) sampler at 1 kHz" -- \
	clrscope record -o "$WORK/m" --rate 1000 -- dotnet "$(app CpuRatio)" 3
clrscope report --format json "$WORK/m" >"$WORK/m.json"
expect_whole_log "$WORK/m.json" "mixed sampler"
heavy=$(json "[f['total'] for f in $p['functions'] if f['name'].endswith('Worker.Heavy')][0]" "$WORK/m.json")
light=$(json "[f['total'] for f in $p['functions'] if f['name'].endswith('Worker.Light')][0]" "$WORK/m.json")
check "abs(h / max(l, 1) - 3.0) <= 0.6" "mixed: Heavy:Light is 3:1 within 20%" h="$heavy" l="$light"
check "x == 0" "mixed: the busy thread needs no suspension (median)" \
	x="$(json "$p['agent']['suspend_us_median']" "$WORK/m.json")"
check "s > 2000" "mixed: a sample per tick of the busy thread" s="$(json "$p['samples']" "$WORK/m.json")"
# what the profiler cost the program, as the agent measured it: its threads'
# and its handler's CPU time, and the sampler thread's time by task (each
# timed as it ran, so together no more than the run; the busy thread is
# signalled about once a tick, a handler costs microseconds)
a="$p['agent']"
check "s > 0 and w > 0 and h > 0" "mixed: the sampler, the writer and the handler used CPU" \
	s="$(json "$a['sampler_cpu_ms']" "$WORK/m.json")" w="$(json "$a['writer_cpu_ms']" "$WORK/m.json")" \
	h="$(json "$a['handler_cpu_ms']" "$WORK/m.json")"
check "h / n < 0.5" "mixed: under half a millisecond of handler per signal" \
	h="$(json "$a['handler_cpu_ms']" "$WORK/m.json")" n="$(json "$a['signals']" "$WORK/m.json")"
check "least > 0 and all <= ms" "mixed: the sampler's tasks took time, together less than the run" \
	least="$(json "min($a['sampler_ms'].values())" "$WORK/m.json")" \
	all="$(json "sum($a['sampler_ms'].values())" "$WORK/m.json")" ms="$(json "$p['duration_ms']" "$WORK/m.json")"
check "abs(share - (s + w + h) / ms) < 0.01 and 0 < share < 0.5" "mixed: the cost as a share of one CPU" \
	share="$(json "$a['cpu_share']" "$WORK/m.json")" s="$(json "$a['sampler_cpu_ms']" "$WORK/m.json")" \
	w="$(json "$a['writer_cpu_ms']" "$WORK/m.json")" h="$(json "$a['handler_cpu_ms']" "$WORK/m.json")" \
	ms="$(json "$p['duration_ms']" "$WORK/m.json")"
expect_contains "$(clrscope report "$WORK/m")" "cost: " "the text report says what the profiler cost"
# CpuRatio's worker never waits: its signals find it running (the few that
# find a thread waiting are the runtime's threads')
check "w < 0.1 * n" "mixed: hardly a signal found its thread waiting (a busy program)" \
	w="$(json "$a['signals_waiting']" "$WORK/m.json")" n="$(json "$a['signals']" "$WORK/m.json")"

# switch live: suspension first, then the signal sampler; a tight leaf loop
# (Spin's SpinInner) is seen only once the runtime stops choosing where
"$CLRSCOPE_BIN" record -o "$WORK/live" --sampler suspend --rate 500 -- dotnet "$(app Spin)" 5 >"$WORK/spin.out" 2>"$WORK/spin.err" &
rec=$!
CHILDREN+=($rec)
for _ in $(seq 100); do grep -q '^tick 10' "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
expect_status 0 "dial sampler=signal" -- clrscope dial "$WORK/live" sampler=signal
expect_contains "$OUT" "sampler=signal" "the agent switched"
rc=0
wait "$rec" || rc=$?
check "rc == 0" "the program ran to its end" rc="$rc"
clrscope report --format json "$WORK/live" >"$WORK/l.json"
inner=$(json "sum(f['self'] for f in $p['functions'] if f['name'].endswith('Program.SpinInner'))" "$WORK/l.json")
check "n > 200" "SpinInner's own time shows with the signal sampler" n="$inner"
expect_status 2 "an unknown sampler" -- clrscope record --sampler magic -- true

# the kernel sampler, switched off live: the threads' perf events close
# (each is a descriptor of the program's, shown by /proc as perf_event)
if kernel_samples_here; then
	"$CLRSCOPE_BIN" record -o "$WORK/kernel" --sampler kernel --rate 500 -- dotnet "$(app Spin)" 5 >"$WORK/spin.out" 2>"$WORK/spin.err" &
	rec=$!
	CHILDREN+=($rec)
	for _ in $(seq 100); do grep -q '^tick 10' "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
	pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")
	perf_fds() { find "/proc/$pid/fd" -lname '*perf_event*' 2>/dev/null | wc -l; }
	check "n >= 1" "kernel sampler: the running thread has its perf event" n="$(perf_fds)"
	expect_status 0 "dial sampler=mixed" -- clrscope dial "$WORK/kernel" sampler=mixed
	sleep 0.2
	check "n == 0" "kernel sampler: switched off, every perf event is closed" n="$(perf_fds)"
	rc=0
	wait "$rec" || rc=$?
	check "rc == 0" "kernel sampler: the program ran to its end" rc="$rc"
	clrscope report --format json "$WORK/kernel" >"$WORK/k.json"
	expect_whole_log "$WORK/k.json" "kernel sampler, switched"
	check "k > 100" "kernel sampler: the kernel sampled before the switch" \
		k="$(json "d['processes'][0]['agent']['kernel_samples']" "$WORK/k.json")"
else
	skip_part "kernel sampler switched off live: $KERNEL_SAMPLES_WHY"
fi
finish
