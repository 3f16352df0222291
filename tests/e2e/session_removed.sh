# The session directory removed under a running agent: the agent notices,
# stops its own threads, and the program carries on to its normal end.
source "$CLRSCOPE_TESTLIB"
"$CLRSCOPE_BIN" record -o "$WORK/s" --rate 500 -- dotnet "$(app Spin)" 4 >"$WORK/out" 2>"$WORK/err" &
rec=$!
CHILDREN+=($rec)
for _ in $(seq 100); do grep -q '^tick 3' "$WORK/out" 2>/dev/null && break; sleep 0.1; done
pid=$(awk '/^pid / {print $2; exit}' "$WORK/out")
sem=$(ls /dev/shm | grep "^sem.clrscope.$(id -u).$pid." || true)
[[ -n "$sem" ]] && pass "the agent's semaphore exists" || fail "no semaphore for $pid in /dev/shm"
rm -rf "$WORK/s"
sleep 2
rc=0
wait "$rec" || rc=$?
check "rc == 1" "record says nothing could be read back (exit 1)" rc="$rc"
expect_contains "$(cat "$WORK/err")" "was removed while recording" "and says why"
expect_contains "$(cat "$WORK/out")" "tick 15" "the program kept running to its end"
[[ -z "$(ls /dev/shm | grep "^sem.clrscope.$(id -u).$pid." || true)" ]] && pass "the agent removed its semaphore" ||
	fail "semaphore left behind"
finish
