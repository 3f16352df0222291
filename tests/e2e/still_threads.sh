# Threads that have not run since their last walk keep their stack without
# being walked again, and a tick where no thread ran does not suspend the
# runtime, with the suspending and the (default) mixed sampler.  Phases
# moves each of three deep threads twice through six phases of half a
# second (waiting in WaitA, waiting in WaitB, spinning, waiting in WaitD,
# reading a pipe in ReadE, another in ReadF): a stack reused past its
# thread's next move would give one wait site the next one's samples; every
# wait site gets its own second, at full depth.  The second round goes from
# wait to wait on a few microseconds of CPU, and WaitD's first call has two
# threads waiting for its compilation: a sampler that judged by CPU time
# alone would give their WaitD time to Descend, or ReadF's to ReadE.
source "$CLRSCOPE_TESTLIB"

threads=3 depth=30 rate=200 seconds=0.5 rounds=2
for sampler in suspend mixed; do
	expect_status 0 "$sampler: record Phases at $rate Hz" -- \
		clrscope record -o "$WORK/s-$sampler" --sampler "$sampler" --rate "$rate" -- dotnet "$(app Phases)" "$threads" "$depth" "$seconds" "$rounds"
	expect_contains "$OUT" "done" "$sampler: the program went through its phases"
	clrscope report --format json --time wall "$WORK/s-$sampler" >"$WORK/r-$sampler.json"
	expect_whole_log "$WORK/r-$sampler.json" "$sampler"
	p='d["processes"][0]'
	total() { json "sum(f['total'] for f in $p['functions'] if f['name'] == 'Clrscope.TestApps.Phases.$1')" "$WORK/r-$sampler.json"; }
	a=$(total WaitA) b=$(total WaitB) c=$(total Spin) w=$(total WaitD) e=$(total ReadE) f=$(total ReadF)
	expected=$((threads * rate))
	# one thread's half second given to the wrong site is a sixth of a site
	for phase in "WaitA $a" "WaitB $b" "WaitD $w" "ReadE $e" "ReadF $f"; do
		set -- $phase
		check "abs(n - e) <= 0.15 * e" "$sampler: $1 has its threads' second of samples" n="$2" e="$expected"
	done
	# three threads spinning on two cores: a suspension waits for each to
	# get a core, and the budget (a tenth of the time) skips ticks; signals
	# need no suspension
	share=0.5
	[[ $sampler == suspend ]] && share=0.1
	check "c >= $share * a" "$sampler: the spinning phase is sampled too" c="$c" a="$a"

	clrscope report --format collapsed --time wall "$WORK/s-$sampler" >"$WORK/folded-$sampler"
	deep=$(grep -m1 'Phases\.WaitB;' "$WORK/folded-$sampler" | tr ';' '\n' | grep -c '^Clrscope\.TestApps\.Phases\.Descend$' || true)
	check "n == $depth" "$sampler: a reused stack is the whole stack ($depth levels of Descend)" n="$deep"
	check "x == 0" "$sampler: most ticks found nobody had run: no suspension (median)" \
		x="$(json "$p['agent']['suspend_us_median']" "$WORK/r-$sampler.json")"
done

# At the slowest rate, 1 Hz, ticks come at random gaps of half a period to
# a period and a half (up to four under load): a run of held samples is
# often spaced more than a second apart, and is read whole all the same
expect_status 0 "record Spin at 1 Hz" -- clrscope record -o "$WORK/slow" --rate 1 -- dotnet "$(app Spin)" 8
clrscope report --format json --time wall "$WORK/slow" >"$WORK/slow.json"
expect_whole_log "$WORK/slow.json" "1 Hz"
check "t >= 5 and t <= 12" "about a tick a second" t="$(json "d['processes'][0]['ticks']" "$WORK/slow.json")"
finish
