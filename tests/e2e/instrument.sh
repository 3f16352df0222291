# Enter/leave instrumentation on real programs: exact call counts of a
# NoInlining method, nothing hooked outside the patterns, shadow stacks that
# survive exceptions, the recording dial, and the refusals (attach, detach).
source "$CLRSCOPE_TESTLIB"
counter=$(app CallCounter)
N=100000

calls_of() { # calls_of NAME REPORT.json -> calls (None when not hooked)
	json "[f['calls'] for f in d['processes'][0]['functions'] if f['name']=='$1'] or [None]" "$2" | tr -d '[]'
}

# one method by its full name
expect_status 0 "record with --instrument (exact name)" -- \
	clrscope record -o "$WORK/exact" --instrument Clrscope.TestApps.Counted.Target -- dotnet "$counter" $N
clrscope report --format json "$WORK/exact" >"$WORK/exact.json"
[[ $(calls_of Clrscope.TestApps.Counted.Target "$WORK/exact.json") == "$N" ]] &&
	pass "Target was called exactly $N times" || fail "Target calls: $(calls_of Clrscope.TestApps.Counted.Target "$WORK/exact.json")"
[[ $(calls_of Clrscope.TestApps.Counted.Other "$WORK/exact.json") == "None" ]] &&
	pass "Other, outside the pattern, has no hooks (calls null)" || fail "Other: $(calls_of Clrscope.TestApps.Counted.Other "$WORK/exact.json")"
hooked=$(json "d['processes'][0]['instrumentation']['hooked']" "$WORK/exact.json")
[[ "$hooked" == 1 ]] && pass "exactly one function hooked" || fail "hooked: $hooked"

# a type pattern
expect_status 0 "record with --instrument 'Namespace.Type.*'" -- \
	clrscope record -o "$WORK/type" -i 'Clrscope.TestApps.Counted.*' -- dotnet "$counter" $N
clrscope report --format json "$WORK/type" >"$WORK/type.json"
[[ $(calls_of Clrscope.TestApps.Counted.Target "$WORK/type.json") == "$N" ]] && pass "Target: $N calls" || fail "Target under Counted.*"
[[ $(calls_of Clrscope.TestApps.Counted.Other "$WORK/type.json") == "$((2 * N))" ]] && pass "Other: $((2 * N)) calls" || fail "Other under Counted.*"
[[ $(calls_of Clrscope.TestApps.Program.CallAll "$WORK/type.json") == "None" ]] && pass "CallAll is not hooked" || fail "CallAll hooked"
times=$(json "[(f['inclusive_ns'],f['exclusive_ns']) for f in d['processes'][0]['functions'] if f['name']=='Clrscope.TestApps.Counted.Other'][0]" "$WORK/type.json" | tr -d '() ')
incl=${times%,*} excl=${times#*,}
check "excl > 0 and incl >= excl" "inclusive and exclusive times are measured" incl="$incl" excl="$excl"

# a method pattern excludes its neighbour
expect_status 0 "record with --instrument '*.Other'" -- \
	clrscope record -o "$WORK/method" -i '*.Other' -- dotnet "$counter" $N
clrscope report --format json "$WORK/method" >"$WORK/method.json"
[[ $(calls_of Clrscope.TestApps.Counted.Other "$WORK/method.json") == "$((2 * N))" ]] && pass "*.Other: $((2 * N)) calls" || fail "*.Other"
[[ $(calls_of Clrscope.TestApps.Counted.Target "$WORK/method.json") == "None" ]] && pass "*.Other leaves Target alone" || fail "Target hooked by *.Other"

# exceptions unwind through hooked frames: counts stay exact, no repairs
expect_status 0 "record an instrumented program that throws" -- \
	clrscope record -o "$WORK/throw" -i 'Clrscope.TestApps.Program.*' -- dotnet "$(app Thrower)" 500
clrscope report --format json "$WORK/throw" >"$WORK/throw.json"
for fn in Throw Level1 Level2; do
	[[ $(calls_of Clrscope.TestApps.Program.$fn "$WORK/throw.json") == 500 ]] && pass "$fn: 500 calls through exceptions" || fail "$fn calls"
done
[[ $(calls_of Clrscope.TestApps.Program.Main "$WORK/throw.json") == 1 ]] && pass "Main: 1 call" || fail "Main calls"
repaired=$(json "d['processes'][0]['instrumentation']['repaired']" "$WORK/throw.json")
[[ "$repaired" == 0 ]] && pass "the unwind callbacks kept every shadow stack straight" || fail "repaired: $repaired"
nested=$(json "[f['inclusive_ns'] for f in d['processes'][0]['functions'] if f['name'].endswith(('.Main','.Throw'))]" "$WORK/throw.json" | tr -d '[] ')
main=${nested%,*} throw=${nested#*,}
check "main >= throw > 0" "Main's inclusive time holds Throw's" main="$main" throw="$throw"

# the recording dial: off stops the counts, on resumes them
"$CLRSCOPE_BIN" record -o "$WORK/dial" -i 'Clrscope.TestApps.Program.SpinInner' -- dotnet "$(app Spin)" 12 >"$WORK/spin.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/spin.out" '^tick 3' 20 || fail "Spin did not start: $(cat "$WORK/spin.out")"
expect_status 0 "dial instrument=off" -- clrscope dial "$WORK/dial" instrument=off
sleep 1.2
a=$(clrscope report --format json "$WORK/dial" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([f["calls"] for f in d["processes"][0]["functions"] if f["name"].endswith("SpinInner")][0])')
sleep 1.2
b=$(clrscope report --format json "$WORK/dial" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([f["calls"] for f in d["processes"][0]["functions"] if f["name"].endswith("SpinInner")][0])')
check "a > 0 and a == b" "no calls counted while recording is off" a="$a" b="$b"
expect_status 0 "dial instrument=on" -- clrscope dial "$WORK/dial" instrument=on
sleep 1.2
c=$(clrscope report --format json "$WORK/dial" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([f["calls"] for f in d["processes"][0]["functions"] if f["name"].endswith("SpinInner")][0])')
check "c > b" "counting resumes when it is on again" b="$b" c="$c"
expect_status 1 "detach is refused for an instrumented program" -- clrscope dial "$WORK/dial" detach
expect_contains "$OUT$ERR" "--instrument" "and the answer says why"
wait "$rec" && pass "the instrumented program ran to its end" || fail "record/Spin failed"

# what cannot be done says so
dotnet "$(app Spin)" 20 >"$WORK/spin2.out" 2>&1 &
spin=$!
CHILDREN+=($spin)
wait_line "$WORK/spin2.out" '^tick 1' 20 || true
expect_status 2 "record --pid --instrument is refused" -- clrscope record --pid "$spin" -i 'X.*' -o "$WORK/no"
expect_contains "$ERR" "only when the program starts" "it explains that hooks need a startup load"
expect_status 2 "record --pid --allocations is refused" -- clrscope record --pid "$spin" --allocations -o "$WORK/no2"
expect_status 2 "an empty pattern is a usage error" -- clrscope record -i '' -- true
expect_status 0 "a running program without instrumentation: the dial says it must start with it" -- \
	clrscope record --pid "$spin" -o "$WORK/attached" --duration 3
finish
