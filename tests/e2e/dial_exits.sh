# The target dies while 'clrscope dial' waits for its agent's answer: the
# dial notices at once (the agent's process lock is free), fails with
# status 1 and says the process exited, instead of waiting out its
# timeout.  A stopped target is told apart (it times out, with a hint),
# and dials racing a program's own end never hang and always say why.
source "$CLRSCOPE_TESTLIB"
dll=$(app Spin)

record_spin() { # record_spin DIR SECONDS: sets $rec and $target
	"$CLRSCOPE_BIN" record -o "$WORK/$1" --rate 100 -- dotnet "$dll" "$2" >"$WORK/$1.out" 2>"$WORK/$1.err" &
	rec=$!
	CHILDREN+=($rec)
	wait_line "$WORK/$1.out" '^tick 1' 30 || fail "Spin did not start: $(cat "$WORK/$1.err")"
	target=$(awk '/^pid / {print $2; exit}' "$WORK/$1.out")
}

# killed while the dial waits: the stopped target cannot answer
record_spin killed 30
kill -STOP "$target"
timeout 60 "$CLRSCOPE_BIN" dial --timeout 30 "$WORK/killed" rate=300 >"$WORK/dial.out" 2>"$WORK/dial.err" &
fails_when_killed $! "$target" "$WORK/dial.err" "the dial" "the process exited (or was killed) before its agent answered"
wait "$rec" || true
expect_status 1 "a dial after that" -- timeout 20 "$CLRSCOPE_BIN" dial "$WORK/killed" rate=300
expect_contains "$ERR" "exited (or was killed)" "says the process is gone"

# stopped, and left stopped: the timeout, with a hint
record_spin stopped 30
kill -STOP "$target"
started=$SECONDS
expect_status 1 "a dial to a stopped target" -- timeout 20 "$CLRSCOPE_BIN" dial --timeout 1.5 "$WORK/stopped" rate=300
expect_contains "$ERR" "is the process stopped" "times out with a hint"
check "took <= 4" "after its timeout" took=$((SECONDS - started))
kill -CONT "$target"
expect_status 0 "a dial once it runs again" -- timeout 20 "$CLRSCOPE_BIN" dial "$WORK/stopped" rate=250
kill -TERM "$target"
wait "$rec" || true

# the program ends on its own while dials keep coming
record_spin racing 1.5
outcomes="" dials=0 applied=0
while kill -0 "$target" 2>/dev/null; do
	rc=0
	timeout 20 "$CLRSCOPE_BIN" dial "$WORK/racing" rate=$((100 + RANDOM % 100)) >/dev/null 2>"$WORK/race.err" || rc=$?
	err=$(cat "$WORK/race.err")
	dials=$((dials + 1))
	case "$rc:$err" in
	0:*) applied=$((applied + 1)) outcomes+=" $rc" ;;
	1:*"has stopped"* | 1:*"exited (or was killed)"* | 1:*"stopped before it answered"* | \
		1:*"no live profiled process"* | 1:*"is gone"*) outcomes+=" $rc" ;;
	*) fail "a dial racing the end: exit $rc: $err" ;;
	esac
done
check "dials >= 3 and applied >= 1" "dials kept coming up to the program's end, applied while it ran:$outcomes" \
	dials="$dials" applied="$applied"
wait "$rec" && pass "the program ended normally meanwhile" || fail "record failed: $(cat "$WORK/racing.err")"
expect_status 1 "a dial after the end" -- timeout 20 "$CLRSCOPE_BIN" dial "$WORK/racing" rate=300
expect_contains "$ERR" "no live profiled process" "says nothing is running"
finish
