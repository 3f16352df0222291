# Heap snapshots of real programs: a program retaining exactly N objects of
# its own type shows exactly N of them, launched and attached; a second
# snapshot is kept beside the first; a snapshot asked for as the program
# exits harms nothing; many pending requests make one snapshot.  Snapshots
# are of the live object graph, from the runtime's heap-dump events in a
# forced collection, with roots, and background GC stays on (the program
# tells); --heap-snapshots walks a forced GC with the profiler's callbacks
# instead, background GC off; a process with instrumentation (no event
# session beside it) walks the heap in a runtime suspension (.NET 10).
source "$CLRSCOPE_TESTLIB"
retainer=$(app Retainer)

retained_in() { # retained_in REPORT.json -> count of Retained in the latest snapshot
	json "[h['count'] for h in (d['processes'][0]['heap'] or []) if h['type']=='Clrscope.TestApps.Retained'] or [0]" "$1" | tr -d '[]'
}

# launched
"$CLRSCOPE_BIN" record -o "$WORK/launched" -- dotnet "$retainer" 1234 20 >"$WORK/l.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/l.out" '^retained 1234' 20 || fail "Retainer did not start: $(cat "$WORK/l.out")"
expect_status 0 "dial snapshot=heap" -- clrscope dial "$WORK/launched" snapshot=heap
wait_heap_snapshots 10 "$WORK/launched" 1 && pass "the snapshot arrived" || fail "no snapshot: $(cat "$WORK/r.json")"
n=$(retained_in "$WORK/r.json")
[[ "$n" == 1234 ]] && pass "launched: exactly 1234 Retained objects live" || fail "launched: $n Retained"
bytes=$(json "[h['bytes'] for h in d['processes'][0]['heap'] if h['type']=='Clrscope.TestApps.Retained'][0]" "$WORK/r.json")
check "b == 1234 * 32" "each Retained takes 32 bytes (aligned)" b="$bytes"
expect_status 0 "a second snapshot" -- clrscope dial "$WORK/launched" snapshot=heap
wait_heap_snapshots 10 "$WORK/launched" 2 && pass "both snapshots are kept" || fail "second snapshot missing"
check "n == 2" "both snapshots are of the live object graph" \
	n="$(json "sum(s['walk'] == 'graph' for s in d['processes'][0]['heap_snapshots'])" "$WORK/r.json")"
check "n > 0" "a graph snapshot counts its roots" \
	n="$(json "d['processes'][0]['heap_snapshots'][-1]['roots']['handle'] + d['processes'][0]['heap_snapshots'][-1]['roots']['stack']" "$WORK/r.json")"
# a huge count asked at once is one snapshot, not thousands of heap walks
expect_status 0 "dial snapshots=5000" -- clrscope dial "$WORK/launched" snapshots=5000
wait_heap_snapshots 10 "$WORK/launched" 3 || fail "no snapshot for snapshots=5000"
sleep 1.5
clrscope report --format json "$WORK/launched" >"$WORK/r.json"
n=$(json "len(d['processes'][0]['heap_snapshots'])" "$WORK/r.json")
[[ "$n" == 3 ]] && pass "the 4998 pending requests made one snapshot" || fail "$n snapshots after snapshots=5000"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/l.out")
kill -INT "$rec" 2>/dev/null || true
wait "$rec" || true

# background GC: on under the default walk, off with --heap-snapshots (a
# gen-2 heap this big makes the program's non-blocking GC a background one)
for mode in default forced; do
	opts=()
	[[ $mode == forced ]] && opts=(--heap-snapshots)
	"$CLRSCOPE_BIN" record "${opts[@]}" -o "$WORK/$mode" -- dotnet "$retainer" 100000 20 >"$WORK/$mode.out" 2>&1 &
	rec=$!
	CHILDREN+=($rec)
	wait_line "$WORK/$mode.out" '^retained 100000' 30 || fail "$mode: Retainer did not start: $(cat "$WORK/$mode.out")"
	expect_status 0 "$mode: dial snapshot=heap" -- clrscope dial "$WORK/$mode" snapshot=heap
	wait_heap_snapshots 10 "$WORK/$mode" 1 && pass "$mode: the snapshot arrived" || fail "$mode: no snapshot"
	n=$(retained_in "$WORK/r.json")
	[[ "$n" == 100000 ]] && pass "$mode: exactly 100000 Retained objects" || fail "$mode: $n Retained"
	if [[ $mode == default ]]; then
		expect_contains "$(cat "$WORK/$mode.out")" "background_gc on" "default: background GC is still on"
		expect_contains "$(json "d['processes'][0]['heap_snapshots'][-1]['walk']" "$WORK/r.json")" "graph" "default: the live object graph"
	else
		expect_contains "$(cat "$WORK/$mode.out")" "background_gc off" "--heap-snapshots: background GC is off"
		expect_contains "$(json "d['processes'][0]['heap_snapshots'][-1]['walk']" "$WORK/r.json")" "gc" "--heap-snapshots: walked in a forced GC"
		roots=$(json "d['processes'][0]['heap_snapshots'][-1]['roots']['handle'] + d['processes'][0]['heap_snapshots'][-1]['roots']['stack']" "$WORK/r.json")
		check "r > 0" "--heap-snapshots: roots are counted by kind" r="$roots"
		expect_contains "$(json "d['processes'][0]['features']" "$WORK/r.json")" "heap_snapshots" "--heap-snapshots is a recorded feature"
	fi
	kill -INT "$rec" 2>/dev/null || true
	wait "$rec" || true
done
expect_status 2 "--heap-snapshots with --pid is refused" -- clrscope record --pid 1 --heap-snapshots

# instrumentation: no event session, so the suspended walk (garbage counted)
"$CLRSCOPE_BIN" record --instrument 'Clrscope.TestApps.Program.Idle' -o "$WORK/instr" -- dotnet "$retainer" 1234 20 >"$WORK/i.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/i.out" '^retained 1234' 20 || fail "Retainer did not start: $(cat "$WORK/i.out")"
expect_status 0 "instrumented: dial snapshot=heap" -- clrscope dial "$WORK/instr" snapshot=heap
wait_heap_snapshots 10 "$WORK/instr" 1 && pass "instrumented: the snapshot arrived" || fail "instrumented: no snapshot"
expect_contains "$(json "d['processes'][0]['heap_snapshots'][-1]['walk']" "$WORK/r.json")" "suspended" \
	"instrumented: walked in a suspension"
check "n == 1" "a suspended walk counts no roots" n="$(json "int(d['processes'][0]['heap_snapshots'][-1]['roots'] is None)" "$WORK/r.json")"
n=$(retained_in "$WORK/r.json")
[[ "$n" -ge 1234 ]] && pass "instrumented: at least 1234 Retained objects" || fail "instrumented: $n Retained"
kill -INT "$rec" 2>/dev/null || true
wait "$rec" || true

# attached
dotnet "$retainer" 777 30 >"$WORK/a.out" 2>&1 &
app_pid=$!
CHILDREN+=($app_pid)
wait_line "$WORK/a.out" '^retained 777' 20 || fail "Retainer did not start"
"$CLRSCOPE_BIN" record --pid "$app_pid" -o "$WORK/attached" --duration 8 >"$WORK/rec.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/rec.out" 'attached to pid' 15 || fail "no attach: $(cat "$WORK/rec.out")"
expect_status 0 "dial snapshot=heap after attaching" -- clrscope dial "$WORK/attached" snapshot=heap
wait_heap_snapshots 10 "$WORK/attached" 1 && pass "the attached snapshot arrived" || fail "no attached snapshot"
n=$(retained_in "$WORK/r.json")
[[ "$n" == 777 ]] && pass "attached: exactly 777 Retained objects live" || fail "attached: $n Retained"
wait "$rec" && pass "record --pid ends and detaches after a snapshot" || fail "record --pid failed: $(cat "$WORK/rec.out")"
kill -0 "$app_pid" 2>/dev/null && pass "the program keeps running after the detach" || fail "the program died"

# a snapshot asked for while the program exits
"$CLRSCOPE_BIN" record -o "$WORK/exiting" -- dotnet "$retainer" 100000 1 >"$WORK/e.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/e.out" '^retained' 20 || true
sleep 0.9
clrscope dial "$WORK/exiting" snapshot=heap >/dev/null 2>&1 || true
wait "$rec" && pass "a program exiting during a snapshot exits cleanly" || fail "exit status: $(cat "$WORK/e.out")"
grep -q '^retained 100000' "$WORK/e.out" && pass "with its own output intact" || fail "output: $(cat "$WORK/e.out")"
finish
