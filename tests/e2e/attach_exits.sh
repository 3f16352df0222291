# The target goes away while 'clrscope record --pid' attaches to it: killed
# while its runtime holds the attach request (the target is stopped, so the
# request waits), or exiting on its own or killed at any moment around the
# attach.  clrscope never hangs, fails with status 1 and says what happened
# when nothing could be recorded, and never blames the agent for it.
source "$CLRSCOPE_TESTLIB"
dll=$(app Spin)

# start_spin SECONDS: a Spin of its own; sets $target once it ticks
start_spin() {
	dotnet "$dll" "$1" >"$WORK/spin.out" 2>&1 &
	target=$!
	CHILDREN+=($target)
	wait_line "$WORK/spin.out" '^tick 1' 30 || fail "Spin did not start"
}
attach_in_background() { # attach_in_background DIR: sets $rec
	timeout 60 "$CLRSCOPE_BIN" record --pid "$target" -o "$WORK/$1" --duration 2 >"$WORK/$1.out" 2>"$WORK/$1.err" &
	rec=$!
	CHILDREN+=($rec)
}

# The runtime cannot answer: SIGSTOP holds the request, SIGKILL ends it.
start_spin 30
kill -STOP "$target"
attach_in_background stopped
fails_when_killed "$rec" "$target" "$WORK/stopped.err" "record --pid" "pid $target exited while clrscope was attaching"

# Around the attach, at different moments: every outcome is a clear one.
for delay in 0 0.05 0.1 0.2 0.4 0.8; do
	start_spin 30
	attach_in_background "round-$delay"
	sleep "$delay"
	kill -9 "$target"
	started=$SECONDS
	rc=0
	wait "$rec" || rc=$?
	err=$(cat "$WORK/round-$delay.err")
	case "$rc:$err" in
	0:*"pid $target has exited"*) pass "killed after $delay s: recorded until it exited (exit 0)" ;;
	1:*"exited while clrscope was attaching"* | 1:*"no process $target"* | 1:*"exited right after"* | \
		1:*"process $target exited"*)
		pass "killed after $delay s: exit 1, '${err##*clrscope: }'" ;;
	*) fail "killed after $delay s: exit $rc: $err" ;;
	esac
	check "took <= 5" "and no waiting (s)" took=$((SECONDS - started))
	[[ "$err" == *"never reported in"* || "$err" == *"already loaded"* ]] && fail "blames the agent: $err"
done

# Ending on its own (Spin 1.2) while the attach is under way.
for delay in 0.6 0.9 1.1; do
	rm -f "$WORK/spin.out"
	dotnet "$dll" 1.2 >"$WORK/spin.out" 2>&1 &
	target=$!
	CHILDREN+=($target)
	wait_line "$WORK/spin.out" '^pid ' 30 || fail "Spin did not start"
	sleep "$delay"
	rc=0
	timeout 60 "$CLRSCOPE_BIN" record --pid "$target" -o "$WORK/own-$delay" --duration 5 >/dev/null 2>"$WORK/own.err" || rc=$?
	err=$(cat "$WORK/own.err")
	case "$rc:$err" in
	0:*"pid $target has exited"* | 1:*"exited while clrscope was attaching"* | 1:*"no process $target"* | \
		1:*"exited right after"* | 1:*"process $target exited"* | 1:*"is not a .NET program"* | 1:*"diagnostics socket"*)
		pass "exiting after $delay s: exit $rc, '${err##*clrscope: }'" ;;
	*) fail "exiting after $delay s: exit $rc: $err" ;;
	esac
done
finish
