# Collectible code unloaded while it is profiled: the program lives.  The
# Shapes app's collectibles shape makes a collectible assembly every 10 ms
# and has every fourth batch unloaded, whose FunctionIDs and ModuleIDs the
# runtime frees as the unload goes on (its info methods read freed memory
# for an ID asked about after that: SIGSEGV in the program).  At 20 Hz a
# tick comes up to 75 ms after the last, and what was taken before an
# unload would be named after it: a compilation's JIT event and its
# capture's activity (the method being compiled), a capture's frames.
# Every sampler, and the mixed one without events (captures alone).
source "$CLRSCOPE_TESTLIB"

run() { # run NAME SAMPLER [RECORD OPTION...]
	local name=$1 sampler=$2
	shift 2
	expect_status 0 "$name: collectible assemblies unloaded under a 20 Hz sampler" -- \
		clrscope record -o "$WORK/$name" --rate 20 --sampler "$sampler" "$@" -- \
		dotnet "$(app Shapes)" collectibles 2
	expect_contains "$OUT" "done " "$name: the program ran to its end"
	clrscope report --format json "$WORK/$name" >"$WORK/r.json"
	[[ " $* " == *" --events none "* ]] ||
		check "m >= 40" "$name: its collectible assemblies were loaded (the modules recorded)" \
			m="$(json "len(d['processes'][0]['modules'])" "$WORK/r.json")"
	check "s > 0" "$name: the program was sampled" s="$(json "d['processes'][0]['wall_samples']" "$WORK/r.json")"
	clrscope report --format collapsed "$WORK/$name" >"$WORK/folded"
	check "u == 0" "$name: every frame has a method's name" u="$(grep -c '\[function 0x' "$WORK/folded" || true)"
}

for sampler in mixed kernel signal suspend; do
	run "$sampler" "$sampler"
done
run "mixed-no-events" mixed --events none
finish
