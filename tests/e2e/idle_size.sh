# An idle program does not fill the session: threads that do not run keep
# their stacks, and their samples are written as runs (HOLDS) instead of one
# per tick, every sample still counted.  Twenty parked threads at 1 kHz:
# the log stays under 200 KiB for 15 s (about 13.6 KB a second; a sample
# per thread and tick would take some 700 KiB).
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record 20 parked threads for 6 s at 1 kHz" -- \
	clrscope record -o "$WORK/s" --rate 1000 -- dotnet "$(app DeepThreads)" 20 10 6 busy=0
bytes=$(cat "$WORK"/s/*/seg-*.clog | wc -c)
clrscope report --format json --time wall "$WORK/s" >"$WORK/r.json"
secs=$(json "d['processes'][0]['duration_ms'] / 1000" "$WORK/r.json")
check "b / s < 200 * 1024 / 15" "under 200 KiB per 15 s of log" b="$bytes" s="$secs"
samples=$(json "d['processes'][0]['samples']" "$WORK/r.json")
ticks=$(json "d['processes'][0]['ticks']" "$WORK/r.json")
check "n >= 20 * t" "every parked thread still has a sample per tick" n="$samples" t="$ticks"
check "t > 4000" "a tick every millisecond, or nearly" t="$ticks"
# the parked threads' samples are where they wait, in the right count
parked=$(json "sum(t['samples'] for t in d['processes'][0]['threads'] if t['name'].startswith('deep-'))" "$WORK/r.json")
# (the ticks count from the agent's start; the threads park a few hundred
# milliseconds later, more under load: the window below is exact to 5 %)
check "p <= 20 * t and p >= 0.95 * 20 * t" "the 20 parked threads have a sample each per tick" p="$parked" t="$ticks"
# a time window cuts runs at its edges
clrscope report --format json --time wall --from 2 --to 4 "$WORK/s" >"$WORK/w.json"
windowed=$(json "sum(t['samples'] for t in d['processes'][0]['threads'] if t['name'].startswith('deep-'))" "$WORK/w.json")
wticks=$(json "d['processes'][0]['ticks']" "$WORK/w.json")
# (one sample per tick and thread; a loaded machine makes ticks late, so
# they are counted rather than taken to be 2000)
check "t > 1500 and abs(w - 20 * t) <= 0.05 * 20 * t" "two seconds of the 20 parked threads: a sample each per tick" w="$windowed" t="$wticks"
finish
