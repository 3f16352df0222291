# The signal handler survives what a program may do: a thread whose frame
# pointer points into unmapped memory (the handler only copies the stack,
# through a system call that cannot fault, and the unwinder reads the copy),
# and a program that installs its own handler on the agent's signal later
# (no signal reaches it once the agent sees that; those threads are walked
# by the runtime instead, and still sampled).
source "$CLRSCOPE_TESTLIB"
lib="$CLRSCOPE_TEST_TOOLS/libclrscopefaults.so"
[[ -f $lib ]] || { fail "missing $lib (the build makes it)"; finish; }

for sampler in mixed signal; do
	expect_status 0 "$sampler: a thread spinning with rbp in unmapped memory, 1 kHz" -- \
		clrscope record -o "$WORK/badfp-$sampler" --rate 1000 --sampler "$sampler" -- \
		dotnet "$(app Faults)" badfp 3 "$lib"
	expect_contains "$OUT" "done " "$sampler: the program ran to its end"
	clrscope report --format json "$WORK/badfp-$sampler" >"$WORK/r.json"
	check "s > 0" "$sampler: the program was sampled" s="$(json "d['processes'][0]['samples']" "$WORK/r.json")"
done

expect_status 0 "a program takes over the agent's signal" -- \
	clrscope record -o "$WORK/steal" --rate 1000 -- dotnet "$(app Faults)" steal 2 "$lib"
stolen=$(awk '/^stolen/ {print $2}' <<<"$OUT")
foreign=$(awk '/^foreign/ {print $2}' <<<"$OUT")
check "n >= 1" "it took over the agent's handler" n="${stolen:-0}"
check "f == 0" "no signal of the agent reached the program's handler after that" f="${foreign:-999}"
tid=$(awk '/^tid/ {print $2}' <<<"$OUT")
after=$(clrscope report --format json --thread "$tid" --from 1.5 "$WORK/steal" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')
check "a > 100" "the busy thread is still sampled (walked by the runtime)" a="$after"
finish
