# The signal handler survives what a program may do: a thread whose frame
# pointer points into unmapped memory (the handler only copies the stack,
# through a system call that cannot fault, and the unwinder reads the copy),
# and a program that installs its own handler on the agent's signal later
# (no signal reaches it once the agent sees that; those threads are walked
# by the runtime instead, and still sampled), and a thread that blocks the
# signals (one stays pending, never more).
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

# A thread that blocks the real-time signals while it runs: at most one
# signal is ever in flight to it (queued ones count against the user's
# limit), the program goes on, the thread is sampled again once it
# unblocks them, and the mixed sampler walks it meanwhile.
for sampler in mixed signal; do
	expect_status 0 "$sampler: a thread spins 2 s with the signals blocked, 1 kHz" -- \
		clrscope record -o "$WORK/masked-$sampler" --rate 1000 --sampler "$sampler" -- \
		dotnet "$(app Faults)" masked 2 "$lib"
	check "q >= 0 and q <= 2" "$sampler: at most one signal of ours queued at once" q="$(awk '/^queued/ {print $2}' <<<"$OUT")"
	expect_contains "$OUT" "done " "$sampler: the program ran to its end"
	clrscope report --format collapsed "$WORK/masked-$sampler" >"$WORK/masked.folded"
	burn=$(awk '/Program\.Main;Clrscope\.TestApps\.Program\.Burn( |;)/ {n += $NF} END {print n+0}' "$WORK/masked.folded")
	check "b > 500" "$sampler: sampled again after it unblocked them (1 s of Burn)" b="$burn"
	if [[ $sampler == mixed ]]; then
		# (Main, or Main over a run of native code, labelled by its module)
		blocked=$(awk '/^\[thread start\];Clrscope\.TestApps\.Program\.Main( |;\[(native|[^] ;]*\.so[^] ;]*)\] )[0-9]+$/ {n += $NF} END {print n+0}' "$WORK/masked.folded")
		check "m > 1000" "mixed: walked by the runtime while it blocked them (2 s)" m="$blocked"
	fi
done
finish
