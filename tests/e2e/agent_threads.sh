# The agent's threads are named, so that top -H, ps -L and the Threads view
# tell them from the program's: clrscope-sample (the sampler),
# clrscope-write (the log writer), clrscope-ctl (the control thread),
# clrscope-heap (heap snapshots, once one was asked for).
source "$CLRSCOPE_TESTLIB"
"$CLRSCOPE_BIN" record -o "$WORK/s" --duration 20 -- dotnet "$(app Spin)" >"$WORK/spin.out" 2>"$WORK/rec.err" &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/spin.out" '^tick 2' 20 || fail "Spin did not start: $(cat "$WORK/spin.out")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")
CHILDREN+=("$pid")
clrscope dial "$WORK/s" snapshot=heap >/dev/null 2>&1 || fail "the snapshot dial failed"
names=$(cat /proc/"$pid"/task/*/comm | sort)
for name in clrscope-sample clrscope-write clrscope-ctl clrscope-heap; do
	grep -qx "$name" <<<"$names" && pass "a thread named $name" || fail "no thread $name among: $(tr '\n' ' ' <<<"$names")"
done
kill -INT "$pid"
wait "$rec" || true
finish
