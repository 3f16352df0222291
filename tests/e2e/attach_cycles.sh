# Attach and detach many times to one process: no crash, no growth of the
# target's memory beyond a bound, no file descriptor left behind per cycle,
# its output unaffected; the same into one session again and again.  Then detaches racing the runtime's shutdown: the
# program ends cleanly and its session ends once.  The suite runs 20
# cycles; CLRSCOPE_ATTACH_CYCLES=200 runs the issue's 200 (about 2 min).
source "$CLRSCOPE_TESTLIB"
cycles=${CLRSCOPE_ATTACH_CYCLES:-20}
races=${CLRSCOPE_ATTACH_RACES:-6}
dotnet "$(app Spin)" >"$WORK/spin.out" 2>&1 &
spin=$!
CHILDREN+=($spin)
for _ in $(seq 100); do grep -q '^tick 3' "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
rss() { awk '/^VmRSS/ {print $2}' "/proc/$spin/status"; }
fds() { find "/proc/$spin/fd" -mindepth 1 | wc -l; }
clrscope record --pid "$spin" -o "$WORK/warm" --duration 0.3 >/dev/null 2>&1 || true
before=$(rss)
fd_before=$(fds)
ok=0
for i in $(seq "$cycles"); do
	if clrscope record --pid "$spin" -o "$WORK/c$i" --duration 0.2 --rate 500 >/dev/null 2>"$WORK/err"; then
		ok=$((ok + 1))
	else
		fail "cycle $i: $(cat "$WORK/err")"
		break
	fi
	((i % 50 == 0)) && echo "cycle $i: $(fds) descriptors, $(rss) kB"
	((i > 3)) && rm -rf "$WORK/c$((i - 3))"
done
after=$(rss)
fd_after=$(fds)
check "ok == n" "every attach/detach cycle worked" ok="$ok" n="$cycles"
kill -0 "$spin" 2>/dev/null && pass "the program survived $cycles cycles" || fail "the program died"
check "a - b < 64 * 1024" "its memory grew by less than 64 MiB" a="$after" b="$before"
check "a == b" "no file descriptor left behind" a="$fd_after" b="$fd_before"
echo "rss before ${before} kB, after ${after} kB; descriptors ${fd_before}, ${fd_after}"
samples=$(clrscope report --format json "$WORK/c$cycles" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')
check "s > 0" "the last cycle still records samples" s="$samples"

# Recording into one session again and again (the UI's 'a' does it too):
# the session holds each run of the pid (PID, PID.2, ...) and each record
# detaches the agent it attached, not the first run's, so nothing stays
# behind (before, the second run's agent kept recording, and 6 descriptors
# with it).
fd_before=$(fds)
for i in 1 2 3; do
	expect_status 0 "run $i into one session" -- clrscope record --pid "$spin" -o "$WORK/again" --duration 0.2 --rate 500
	expect_contains "$ERR" "detached from pid $spin" "run $i detached its own agent"
done
check "n == 3" "the session holds the three runs" n="$(clrscope report --format json "$WORK/again" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["processes"]))')"
check "a == b" "no descriptor left behind after the three" a="$(fds)" b="$fd_before"
kill "$spin"

# A detach and the runtime's shutdown at once: the control thread stops
# the sampler for the detach while Shutdown stops it too.  Each way round
# the program says bye and exits 0, and its session records how it ended.
for r in $(seq "$races"); do
	out=$WORK/race$r.out
	dotnet "$(app Spin)" >"$out" 2>&1 &
	pid=$!
	CHILDREN+=($pid)
	wait_line "$out" '^tick 2' 20 || { fail "race $r: Spin did not start"; continue; }
	clrscope record --pid "$pid" -o "$WORK/r$r" --rate 1000 >/dev/null 2>"$WORK/rec$r.err" &
	rec=$!
	wait_line "$WORK/rec$r.err" 'attached|recording' 10 || sleep 1
	sleep 0.3
	# the dial posts after some 20 ms and the detach takes a few more: the
	# signal (Spin exits at once, the runtime shuts down) lands before,
	# during or after it
	clrscope dial --timeout 3 "$WORK/r$r" detach >"$WORK/dial$r.out" 2>&1 &
	dial=$!
	sleep "$(awk -v r="$r" 'BEGIN {print (r - 1) * 0.012}')"
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	wait "$dial" 2>/dev/null || true
	wait "$rec" 2>/dev/null || true
	[[ "$status" == 0 ]] && grep -q '^bye$' "$out" && pass "race $r: the program exited cleanly" ||
		fail "race $r: exit $status: $(tail -3 "$out")"
	ends=$(clrscope report --format json "$WORK/r$r" 2>/dev/null |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["processes"][0]; print(p["end"])' 2>&1)
	[[ "$ends" == "detached" || "$ends" == "runtime shutdown" ]] && pass "race $r: the session ended ($ends)" ||
		fail "race $r: the session's end: $ends"
done
finish
