# Blocking waits and the thread pool from the runtime's event stream: N
# threads parked on one ManualResetEvent give exactly N waits through the
# parking method, each at least 300 ms; a starved pool adds workers for
# starvation; events=-waits,-threadpool turns both off.
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record Waiter 3" -- clrscope record -o "$WORK/w" -- dotnet "$(app Waiter)" 3
expect_contains "$OUT" "starved" "the program went through both parts"
clrscope report --format json "$WORK/w" >"$WORK/w.json"
w='d["processes"][0]["waits"]'
t='d["processes"][0]["threadpool"]'
parked="[s for s in $w['sites'] if 'Clrscope.TestApps.Program.Park' in s['stack']]"
check "n == 3" "exactly 3 waits in Park" n="$(json "sum(s['count'] for s in $parked)" "$WORK/w.json")"
check "x >= 900" "each parked at least 300 ms" x="$(json "sum(s['wait_ms'] for s in $parked)" "$WORK/w.json")"
check "n == 1" "the parked stack ends in the wait handle's wait" \
	n="$(json "int(all('WaitOne' in s['stack'][-1] for s in $parked))" "$WORK/w.json")"
check "n >= 1" "the pool added workers for starvation" n="$(json "$t['starvation']" "$WORK/w.json")"
check "n >= 3" "more workers than the 2 it started with" n="$(json "$t['workers_max']" "$WORK/w.json")"
report=$(clrscope report "$WORK/w")
expect_contains "$report" "blocking waits:" "the text report lists the waits"
expect_contains "$report" "for starvation" "the text report summarises the pool"

expect_status 0 "record without waits and threadpool" -- \
	clrscope record -o "$WORK/n" --events gc,exceptions,jit,modules,threads,contention -- dotnet "$(app Waiter)" 2
clrscope report --format json "$WORK/n" >"$WORK/n.json"
check "n == 0" "no waits recorded when off" n="$(json "$w['count']" "$WORK/n.json")"
check "n == 0" "no thread pool events when off" n="$(json "d['processes'][0]['events']['threadpool']" "$WORK/n.json")"
finish
