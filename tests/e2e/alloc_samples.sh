# Sampled allocations from the runtime's event stream (AllocationSampled,
# .NET 10): a program allocating 5 M objects of 40 bytes in one method gets
# samples whose estimate comes near the 200 MB it allocated, nearly all of
# it on stacks through that method and of that type; events=-allocsamples
# turns them off.
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record Allocator 5000000" -- clrscope record -o "$WORK/a" -- dotnet "$(app Allocator)" 5000000
clrscope report --format json "$WORK/a" >"$WORK/a.json"
a='d["processes"][0]["allocation_samples"]'
check "n >= 1000" "about one sample per 100 KiB" n="$(json "$a['count']" "$WORK/a.json")"
check "abs(x - 200e6) <= 0.15 * 200e6" "the estimate comes within 15 % of the 200 MB allocated" \
	x="$(json "[t['bytes'] for t in d['processes'][0]['allocation_sample_types'] if t['type']=='Clrscope.TestApps.Allocated'][0]" "$WORK/a.json")"
check "x >= 0.9" "at least 90 % of the sampled bytes on stacks through the allocating method" \
	x="$(json "sum(s['bytes'] for s in $a['sites'] if 'Clrscope.TestApps.Program.AllocateMany' in s['stack']) / $a['bytes']" "$WORK/a.json")"
expect_contains "$(clrscope report "$WORK/a")" "sampled allocations:" "the text report summarises them"

expect_status 0 "record without allocsamples" -- \
	clrscope record -o "$WORK/n" --events gc,exceptions,jit,modules,threads -- dotnet "$(app Allocator)" 1000000
clrscope report --format json "$WORK/n" >"$WORK/n.json"
check "n == 0" "no samples when off" n="$(json "$a['count']" "$WORK/n.json")"
finish
