# Allocation counting on a real program: a known number of objects of its
# own type shows at least that many; the dial pauses counting; it must be
# chosen at startup.
source "$CLRSCOPE_TESTLIB"
N=300000
expect_status 0 "record --allocations" -- clrscope record -o "$WORK/s" --allocations -- dotnet "$(app Allocator)" $N
clrscope report --format json "$WORK/s" >"$WORK/r.json"
count=$(json "[a['count'] for a in d['processes'][0]['allocations'] if a['type']=='Clrscope.TestApps.Allocated'][0]" "$WORK/r.json")
bytes=$(json "[a['bytes'] for a in d['processes'][0]['allocations'] if a['type']=='Clrscope.TestApps.Allocated'][0]" "$WORK/r.json")
check "c >= $N" "at least $N Allocated objects counted" c="$count"
check "b >= $N * 40" "with their sizes (40 bytes each)" b="$bytes"
clrscope report "$WORK/s" >"$WORK/r.txt"
grep -q "allocations by type" "$WORK/r.txt" && pass "the text report lists allocations" || fail "no allocations in the text report"

# without --allocations: null, and the dial says how to get them
expect_status 0 "record without --allocations" -- clrscope record -o "$WORK/none" -- dotnet "$(app Allocator)" 1000
clrscope report --format json "$WORK/none" >"$WORK/n.json"
[[ $(json "d['processes'][0]['allocations']" "$WORK/n.json") == None ]] && pass "allocations are null when not counted" || fail "allocations present"

# the dial pauses counting
"$CLRSCOPE_BIN" record -o "$WORK/dial" --allocations -- dotnet "$(app Spin)" 10 >"$WORK/spin.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/spin.out" '^tick 2' 20 || fail "Spin did not start"
expect_status 0 "dial allocations=off" -- clrscope dial "$WORK/dial" allocations=off
expect_contains "$OUT" "allocations=off" "acknowledged as off"
expect_status 1 "dial instrument=on without --instrument is applied in part" -- clrscope dial "$WORK/dial" instrument=on
expect_contains "$OUT$ERR" "must be chosen when the program starts" "and says so"
sleep 1.5
clrscope report --format json "$WORK/dial" >"$WORK/d.json"
[[ $(json "d['processes'][0]['allocations_recording']" "$WORK/d.json") == False ]] && pass "the report shows counting paused" || fail "not paused"
kill -INT "$rec" 2>/dev/null || true
wait "$rec" || true
finish
