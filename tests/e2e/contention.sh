# Lock contention from the runtime's event stream: 4 threads blocked on one
# lock in each of K rounds give exactly 4K contended acquisitions, each
# waiting at least 20 ms, all with the waiting thread's stack through the
# locking method; events=-contention turns them off live and at launch.
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
finish
