# Lock contention from the runtime's event stream: 4 threads blocked on one
# lock in each of K rounds give exactly 4K contended acquisitions, each
# waiting at least 20 ms, all with the waiting thread's stack through the
# locking method; events=-contention turns them off at launch, and the
# dial turns them off and on again live: of three paced rounds with the
# middle one off, exactly 8 are recorded; an attached agent starts the
# runtime's event session too: exactly the 4 of the round after the attach.
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record Contender 3" -- clrscope record -o "$WORK/c" -- dotnet "$(app Contender)" 3
expect_contains "$OUT" "contended 12" "every thread took the lock"
clrscope report --format json "$WORK/c" >"$WORK/c.json"
c='d["processes"][0]["contention"]'
check "n == 12" "exactly 12 contentions" n="$(json "$c['count']" "$WORK/c.json")"
check "n == 12" "events.contention agrees" n="$(json "d['processes'][0]['events']['contention']" "$WORK/c.json")"
check "x >= 240" "each waited at least 20 ms" x="$(json "$c['wait_ms']" "$WORK/c.json")"
check "n == 12" "every contention's stack holds the locking method" \
	n="$(json "sum(s['count'] for s in $c['sites'] if 'Clrscope.TestApps.Program.TakeLock' in s['stack'])" "$WORK/c.json")"
check "n == 1" "the stacks run root to leaf (the thread's start before the locking method)" \
	n="$(json "int(all(s['stack'].index('Clrscope.TestApps.Program.TakeLock') > 0 for s in $c['sites']))" "$WORK/c.json")"
check "x > 0" "sites carry their wait" x="$(json "$c['sites'][0]['wait_ms']" "$WORK/c.json")"
expect_contains "$(clrscope report "$WORK/c")" "lock contention: 12 waits" "the text report summarises contention"

expect_status 0 "record without contention" -- clrscope record -o "$WORK/n" --events gc,exceptions,jit,modules,threads -- dotnet "$(app Contender)" 1
clrscope report --format json "$WORK/n" >"$WORK/n.json"
check "n == 0" "no contention recorded when it is off" n="$(json "$c['count']" "$WORK/n.json")"

# live: the dial restarts the runtime's event session between rounds
mkfifo "$WORK/in"
"$CLRSCOPE_BIN" record -o "$WORK/live" -- dotnet "$(app Contender)" 3 --paced <"$WORK/in" >"$WORK/live.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
exec 7>"$WORK/in"
round() { # round I: lets round I run and waits for the next one to be asked for
	echo go >&7
	wait_line "$WORK/live.out" "^${2}" 30 || fail "round $1 did not end: $(cat "$WORK/live.out")"
}
wait_line "$WORK/live.out" '^round 0' 30 || fail "Contender did not start: $(cat "$WORK/live.out")"
round 0 'round 1'
expect_status 0 "dial events=-contention" -- clrscope dial "$WORK/live" events=-contention
round 1 'round 2'
expect_status 0 "dial events=+contention" -- clrscope dial "$WORK/live" events=+contention
round 2 'contended 12'
exec 7>&-
wait "$rec" && pass "the paced run ended" || fail "record failed: $(cat "$WORK/live.out")"
clrscope report --format json "$WORK/live" >"$WORK/live.json"
check "n == 8" "exactly the 8 contentions of the rounds recorded" n="$(json "$c['count']" "$WORK/live.json")"

# attached: the event session starts from InitializeForAttach
mkfifo "$WORK/in2"
dotnet "$(app Contender)" 2 --paced <"$WORK/in2" >"$WORK/att.out" 2>&1 &
app_pid=$!
CHILDREN+=($app_pid)
exec 8>"$WORK/in2"
wait_line "$WORK/att.out" '^round 0' 30 || fail "Contender did not start: $(cat "$WORK/att.out")"
echo go >&8
wait_line "$WORK/att.out" '^round 1' 30 || fail "round 0 did not end"
"$CLRSCOPE_BIN" record --pid "$app_pid" -o "$WORK/att" >"$WORK/att-rec.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/att-rec.out" 'attached to pid' 15 || fail "no attach: $(cat "$WORK/att-rec.out")"
echo go >&8
wait_line "$WORK/att.out" '^contended 8' 30 || fail "round 1 did not end: $(cat "$WORK/att.out")"
exec 8>&-
wait "$app_pid" || true
wait "$rec" || true
clrscope report --format json "$WORK/att" >"$WORK/att.json"
check "n == 4" "attached: exactly the 4 contentions after the attach" n="$(json "$c['count']" "$WORK/att.json")"
finish
