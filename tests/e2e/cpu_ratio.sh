# Two callers share one callee in a 3:1 time ratio: the folded stacks show
# each caller above the callee, root first, in that ratio; the JSON summary
# counts samples per second at the requested rate. A split that repeats in
# step with the sampling rate comes out in the same ratio.
source "$CLRSCOPE_TESTLIB"

dll=$(app CpuRatio)
# six seconds: about 2,400 samples, so that 20 % of the ratio is 3.5
# standard errors of Light's count (three seconds made it 2.5: one run in a
# hundred or so came out beyond it by chance)
expect_status 0 "record CpuRatio at 400 Hz" -- clrscope record -o "$WORK/s" --rate 400 -- dotnet "$dll" 6
expect_contains "$OUT" "done " "the program's own output is forwarded"
expect_contains "$ERR" "recorded" "record says where the session is"

clrscope report --format collapsed "$WORK/s" >"$WORK/folded"
heavy=$(awk '/Program\+Worker\.Heavy;Clrscope\.TestApps\.Program\+Worker\.Burn( |;)/ {n += $NF} END {print n+0}' "$WORK/folded")
light=$(awk '/Program\+Worker\.Light;Clrscope\.TestApps\.Program\+Worker\.Burn( |;)/ {n += $NF} END {print n+0}' "$WORK/folded")
check "heavy > 300" "enough samples under Heavy;Burn" heavy="$heavy"
check "abs(heavy / max(light, 1) - 3.0) <= 0.6" "Heavy:Light is 3:1 within 20%" heavy="$heavy" light="$light"
if grep -q '^\(\[thread start\];\)\?Clrscope\.TestApps\.Program\.Main;Clrscope\.TestApps\.Program+Worker\.Run;Clrscope\.TestApps\.Program+Worker\.Heavy;Clrscope\.TestApps\.Program+Worker\.Burn [0-9]*$' "$WORK/folded"; then
	pass "stacks are root first: Main;Run;Heavy;Burn"
else
	fail "no root-first Main;Run;Heavy;Burn line in: $(head -5 "$WORK/folded")"
fi

# The same split in step with the wall clock: 2.5 ms slots, the rate's own
# period. Ticks on an exact grid would land on one phase of every slot
# (a split of hundreds to one); the sampler spaces its ticks at random.
expect_status 0 "record CpuRatio clocked at 400 Hz" -- clrscope record -o "$WORK/c" --rate 400 -- dotnet "$dll" 6 clocked
clrscope report --format collapsed "$WORK/c" >"$WORK/clocked"
heavy=$(awk '/Program\+Worker\.HeavyUntil;Clrscope\.TestApps\.Program\+Worker\.BurnUntil( |;)/ {n += $NF} END {print n+0}' "$WORK/clocked")
light=$(awk '/Program\+Worker\.LightUntil;Clrscope\.TestApps\.Program\+Worker\.BurnUntil( |;)/ {n += $NF} END {print n+0}' "$WORK/clocked")
check "heavy + light > 1800" "enough samples in the clocked slots" heavy="$heavy" light="$light"
check "abs(heavy / max(light, 1) - 3.0) <= 0.6" "a split in step with the rate is still 3:1 within 20%" heavy="$heavy" light="$light"

clrscope report --format json "$WORK/s" >"$WORK/r.json"
check "n == 1" "one process" n="$(json 'len(d["processes"])' "$WORK/r.json")"
p='d["processes"][0]'
samples=$(json "$p[\"samples\"]" "$WORK/r.json")
check "abs(s / 6.0 - 400) <= 80" "about 400 samples a second over 6 s" s="$samples"
second1=$(json "$p[\"samples_per_second\"][1]" "$WORK/r.json")
check "abs(x - 400) <= 60" "samples_per_second[1] near the rate" x="$second1"
burn_self=$(json "[f['self'] for f in $p['functions'] if f['name']=='Clrscope.TestApps.Program+Worker.Burn'][0]" "$WORK/r.json")
check "b / s >= 0.8" "Burn has most of the self time" b="$burn_self" s="$samples"
check "x == 0" "nothing dropped" x="$(json "$p['agent']['dropped']" "$WORK/r.json")"
expect_contains "$(json "$p['runtime']" "$WORK/r.json")" "CoreCLR" "the runtime version is reported"
expect_contains "$(json "$p['loaded']" "$WORK/r.json")" "startup" "loaded at startup"
expect_contains "$(json "$p['ended']" "$WORK/r.json")" "True" "the agent wrote its end record"

clrscope report --top 3 "$WORK/s" >"$WORK/text"
expect_contains "$(cat "$WORK/text")" "Clrscope.TestApps.Program+Worker.Burn" "the text table names the hot method"
check "n == 3" "--top 3 lists three functions" n="$(grep -cE '^ +[0-9.]+%' "$WORK/text")"

# the program's exit status comes through
expect_status 2 "a failing program's status is forwarded" -- clrscope record -o "$WORK/s2" -- dotnet "$dll"
finish
