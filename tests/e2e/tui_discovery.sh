# The targets screen stays responsive whatever a diagnostics socket does:
# the processes are listed on a thread of its own, each runtime given half
# a second.  "Runtimes" that accept and never answer (each its own target,
# so every trust check passes) are listed as not answering, and keys are
# answered within a second throughout (before: each refresh froze the
# screen while it waited for them).
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
fake=$(dirname "$CLRSCOPE_TESTLIB")/fakeruntime.py

# four of them: a listing takes at least 2 s
for i in 1 2 3 4; do
	/usr/bin/python3 "$fake" silent "/tmp/dotnet-diagnostic-{pid}-{start}-socket" "$WORK/silent.log" >"$WORK/fake$i.out" 2>&1 &
	CHILDREN+=($!)
	wait_line "$WORK/fake$i.out" '^ready' 10 || fail "fake runtime $i did not start"
done
trap 'rm -f $(awk "/^ready/ {print \$2}" "$WORK"/fake*.out); tui_stop; tm kill-server 2>/dev/null || true; cleanup' EXIT

# wait_screen_ms TEXT MS: until the screen shows TEXT; prints the wait.
wait_screen_ms() {
	local t0 now
	t0=$(date +%s%N)
	while :; do
		now=$(date +%s%N)
		if screen | grep -qF -- "$1"; then
			echo $(((now - t0) / 1000000))
			return 0
		fi
		(((now - t0) / 1000000 > $2)) && { echo $(((now - t0) / 1000000)); return 1; }
		sleep 0.05
	done
}

tui_start "env XDG_STATE_HOME=$WORK/state $CLRSCOPE_BIN"
expect_screen "running .NET process" 10 "the targets screen opens"
expect_screen "its runtime does not ans" 10 "the silent runtime is listed as not answering"
worst=0
for round in 1 2 3 4 5; do
	tm send-keys -t ui '?'
	ms=$(wait_screen_ms "clrscope help" 3000) || fail "round $round: '?' not answered in ${ms} ms"
	((ms > worst)) && worst=$ms
	tm send-keys -t ui x
	ms=$(wait_screen_ms "running .NET process" 3000) || fail "round $round: the list did not come back in ${ms} ms"
	((ms > worst)) && worst=$ms
	sleep 0.6
done
check "worst < 1000" "keys are answered within a second across refreshes" worst="$worst"
tm send-keys -t ui q
expect_screen "EXITED 0" 5 "q quits while a listing may be under way"
finish
