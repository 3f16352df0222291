# A start that fails part-way releases what it took: descriptors, threads,
# the control semaphore, the process lock.  The agent's testing hook
# CLRSCOPE_AGENT_FAIL_AT=STEP fails its start right after STEP.  Attached
# to a running program, each step that stops the agent before it profiles
# fails five attaches in a row with the program's descriptors and threads
# unchanged; launched, every step leaves the program running to its normal
# end, the steps after the log says why in the session, and no semaphore is
# left in /dev/shm (where a session that starts has one).
source "$CLRSCOPE_TESTLIB"

fds() { find "/proc/$1/fd" -mindepth 1 2>/dev/null | wc -l; }
threads() { find "/proc/$1/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
semaphores() { find /dev/shm -maxdepth 1 -name "sem.clrscope.*.$1.*" 2>/dev/null | wc -l; }

# a start that works makes the control semaphore the checks below look for
"$CLRSCOPE_BIN" record -o "$WORK/good" -- dotnet "$(app Spin)" 3 >"$WORK/good.out" 2>"$WORK/good.err" &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/good.out" '^tick 1' 30 || fail "Spin did not start: $(cat "$WORK/good.err")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/good.out")
check "n == 1" "a session that starts has its control semaphore" n="$(semaphores "$pid")"
wait "$rec" || fail "record failed: $(cat "$WORK/good.err")"
check "n == 0" "and removes it at the program's end" n="$(semaphores "$pid")"

# attached: steps before the agent profiles
for step in session lock log symbols; do
	CLRSCOPE_AGENT_FAIL_AT=$step dotnet "$(app Spin)" >"$WORK/spin-$step.out" 2>&1 &
	spin=$!
	CHILDREN+=($spin)
	for _ in $(seq 100); do grep -q '^tick 3' "$WORK/spin-$step.out" 2>/dev/null && break; sleep 0.1; done
	# the first attach loads the agent's library (and the runtime's attach
	# machinery); count from after it
	clrscope record --pid "$spin" -o "$WORK/a-$step-0" --duration 0.2 >/dev/null 2>&1 || true
	fd_before=$(fds "$spin") th_before=$(threads "$spin")
	failed=0
	for i in 1 2 3 4 5; do
		clrscope record --pid "$spin" -o "$WORK/a-$step-$i" --duration 0.2 >/dev/null 2>"$WORK/err" || failed=$((failed + 1))
	done
	check "f == 5" "$step: every attach failed (the hook)" f="$failed"
	sleep 0.3 # threads the failed starts ended are gone
	check "a == b" "$step: no descriptor left behind by 5 failed starts" a="$(fds "$spin")" b="$fd_before"
	check "a == b" "$step: no thread left behind" a="$(threads "$spin")" b="$th_before"
	check "n == 0" "$step: no control semaphore left" n="$(semaphores "$spin")"
	kill -0 "$spin" 2>/dev/null && pass "$step: the program runs on" || fail "$step: the program died"
	kill "$spin"
	wait "$spin" 2>/dev/null || true
done
echo "last failed attach said: $(cat "$WORK/err")"

# launched: every step; the program ends normally either way
for step in session lock log symbols; do
	expect_status 1 "launch with the start failing after $step" -- \
		env CLRSCOPE_AGENT_FAIL_AT=$step "$CLRSCOPE_BIN" record -o "$WORK/l-$step" -- dotnet "$(app CallCounter)" 2000
	expect_contains "$OUT" "called 2000" "$step: the program ran to its end"
	expect_contains "$ERR" "nothing was recorded" "$step: record says nothing was recorded"
done
for step in control sampler control-thread; do
	expect_status 0 "launch with the start failing after $step" -- \
		env CLRSCOPE_AGENT_FAIL_AT=$step "$CLRSCOPE_BIN" record -o "$WORK/l-$step" -- dotnet "$(app CallCounter)" 2000
	expect_contains "$OUT" "called 2000" "$step: the program ran to its end"
	pid=$(json 'd["processes"][0]["pid"]' <(clrscope report --format json "$WORK/l-$step"))
	report=$(clrscope report "$WORK/l-$step")
	case $step in
	control) expect_contains "$report" "no control semaphore: dials cannot reach this process" "control: the session says why" ;;
	sampler) expect_contains "$report" "the sampler could not start" "sampler: the session says why" ;;
	control-thread) expect_contains "$report" "the control thread could not start" "control-thread: the session says why" ;;
	esac
	check "n == 0" "$step: no control semaphore left after the program" n="$(semaphores "$pid")"
done

# the hook is a testing aid only: a normal attach works after all this
dotnet "$(app Spin)" >"$WORK/spin.out" 2>&1 &
spin=$!
CHILDREN+=($spin)
for _ in $(seq 100); do grep -q '^tick 3' "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
expect_status 0 "a plain attach records" -- clrscope record --pid "$spin" -o "$WORK/plain" --duration 0.3
kill "$spin"

finish
