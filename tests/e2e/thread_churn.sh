# Stress: 200 threads created and destroyed continuously, sampled at 1 kHz,
# with each sampler (the signal sampler's thread ids come and go and are
# reused): no deadlock, no crash, samples from many threads.
# CLRSCOPE_CHURN_SECONDS sets the length of each run (default 10; the
# performance issue asks for 60 as a separate run).
source "$CLRSCOPE_TESTLIB"
seconds=${CLRSCOPE_CHURN_SECONDS:-10}
for sampler in mixed suspend signal; do
	expect_status 0 "$sampler sampler, 200 threads churning for ${seconds}s at 1 kHz" -- \
		timeout $((seconds + 60)) "$CLRSCOPE_BIN" record -o "$WORK/$sampler" --rate 1000 --sampler "$sampler" -- \
		dotnet "$(app ThreadChurn)" 200 "$seconds"
	expect_contains "$OUT" "started " "the program finished on its own"
	started=$(awk '/^started/ {print $2}' <<<"$OUT")
	check "n > 500" "threads kept coming and going" n="${started:-0}"
	clrscope report --format json "$WORK/$sampler" >"$WORK/$sampler.json"
	p='d["processes"][0]'
	check "n > 50" "samples came from many threads" n="$(json "len([t for t in $p['threads'] if t['samples'] > 0])" "$WORK/$sampler.json")"
	check "n > 0" "Churn.Work was seen" \
		n="$(json "sum(f['total'] for f in $p['functions'] if f['name'].endswith('Churn.Work'))" "$WORK/$sampler.json")"
done
finish
