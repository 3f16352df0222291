# Dials reach a running agent through the dials file and its named
# semaphore: a rate change shows in samples_per_second and is acknowledged
# with its generation; garbage and a removed semaphore are reported and the
# program is unharmed.
source "$CLRSCOPE_TESTLIB"
post=$CLRSCOPE_TEST_TOOLS/post_semaphore

"$CLRSCOPE_BIN" record -o "$WORK/s" --rate 100 -- dotnet "$(app Spin)" 8 >"$WORK/spin.out" 2>"$WORK/spin.err" &
rec=$!
CHILDREN+=($rec)
for _ in $(seq 100); do grep -q "^tick 10" "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")
proc="$WORK/s/$pid"
[[ -f "$proc/dials" ]] && pass "the agent wrote its dials file" || fail "no $proc/dials"
perm=$(stat -c %a "$proc/dials")
[[ "$perm" == 600 ]] && pass "the dials file is 0600" || fail "dials file mode $perm"

expect_status 0 "dial rate=400" -- clrscope dial "$WORK/s" rate=400
expect_contains "$OUT" "generation 1 applied" "acknowledged with generation 1"
expect_contains "$OUT" "rate=400" "the effective rate is echoed"
switch=$(date +%s.%N)
expect_status 0 "dial events=-jit sampling=on" -- clrscope dial "$WORK/s" events=-jit sampling=on
expect_contains "$OUT" "events=gc,exceptions,modules,threads" "jit is off, the rest stays"
expect_status 2 "a bad dial is a usage error" -- clrscope dial "$WORK/s" rate=0
expect_contains "$ERR" "rate is a whole number" "says what a rate is"
expect_status 2 "an unknown dial" -- clrscope dial "$WORK/s" colour=red
expect_contains "$ERR" "unknown dial" "names the problem"

# Garbage in the dials file, posted behind clrscope's back.
name=$(clrscope report --format json "$WORK/s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["control"])')
printf 'generation 9\nrate=banana\n' >"$proc/dials"
"$post" "$name" && pass "posted a garbled dials file"
sleep 0.5
# The removed semaphore comes back within a second or so.
rm -f "/dev/shm/sem.${name#/}"
expect_status 1 "dial right after the semaphore was removed" -- "$post" "$name"
expect_contains "$ERR" "is gone" "says the semaphore is gone"
sleep 1.5
expect_status 0 "dial after the agent made a new semaphore" -- clrscope dial "$WORK/s" flush_ms=50
wait "$rec" && pass "the program ran to its end and exited 0" || fail "record/Spin failed"
expect_contains "$(cat "$WORK/spin.out")" "tick 35" "the program kept ticking"

clrscope report --format json "$WORK/s" >"$WORK/r.json"
expect_whole_log "$WORK/r.json" "rates changed"
p='d["processes"][0]'
check "a >= 85 and a <= 115" "about 100 ticks a second before the change" \
	a="$(json "$p['samples_per_second'][1] / 2" "$WORK/r.json")"
check "b >= 340 and b <= 460" "about 400 ticks a second after it" \
	b="$(json "$p['samples_per_second'][5] / 2" "$WORK/r.json")"
check "n == 1" "the garbled file was rejected once" \
	n="$(json "len([x for x in $p['dials'] if x['status']=='rejected'])" "$WORK/r.json")"
expect_contains "$(json "[x['error'] for x in $p['dials'] if x['status']=='rejected']" "$WORK/r.json")" "rate is a whole number" \
	"the rejection says why"
expect_contains "$(json "[m['text'] for m in $p['messages']]" "$WORK/r.json")" "was removed; made a new one" \
	"the agent reported the lost semaphore"
check "n == 3" "three changes applied, with generations" n="$(json "len([x for x in $p['dials'] if x['status']=='applied'])" "$WORK/r.json")"

expect_status 1 "dial a finished session" -- clrscope dial "$WORK/s" rate=10
expect_contains "$ERR" "no live profiled process" "says nothing is running"
finish
