# The runtime stays suspended at most a tenth of the time.  Eight threads
# spin on this machine's few cores: for the runtime to stop, each must get
# a core, so a suspension takes milliseconds, and a sampler suspending 1000
# times a second would keep the runtime suspended (its threads waiting on
# one another) most of the time.  With the budget the suspensions add up to
# about a tenth of the run, the report counts the walks put off, and the
# program does nearly the work it does unprofiled.
source "$CLRSCOPE_TESTLIB"

deep=$(app DeepThreads)
spins() { awk '/^done / {print $2}' <<<"$1"; }
expect_status 0 "DeepThreads 8 busy threads, 2 s, unprofiled" -- dotnet "$deep" 8 5 2
alone=$(spins "$OUT")
expect_status 0 "the same under the suspending sampler at 1 kHz" -- \
	clrscope record -o "$WORK/s" --sampler suspend --rate 1000 -- dotnet "$deep" 8 5 2
profiled=$(spins "$OUT")
clrscope report --format json "$WORK/s" >"$WORK/r.json"
p='d["processes"][0]'
check "t / d <= 0.15" "suspended about a tenth of the time at most" \
	t="$(json "$p['agent']['suspend_ms_total']" "$WORK/r.json")" d="$(json "$p['duration_ms']" "$WORK/r.json")"
check "n > 0" "the walks put off are counted" n="$(json "$p['agent']['deferred_walks']" "$WORK/r.json")"
check "n > 0" "and samples were still taken" n="$(json "$p['samples']" "$WORK/r.json")"
check "p >= 0.6 * a" "the program keeps most of its progress" p="${profiled:-0}" a="${alone:-1}"
finish
