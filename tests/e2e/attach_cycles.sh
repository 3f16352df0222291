# Attach and detach many times to one process: no crash, no growth of the
# target's memory beyond a bound, its output unaffected.
source "$CLRSCOPE_TESTLIB"
cycles=${CLRSCOPE_ATTACH_CYCLES:-20}
dotnet "$(app Spin)" >"$WORK/spin.out" 2>&1 &
spin=$!
CHILDREN+=($spin)
for _ in $(seq 100); do grep -q '^tick 3' "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
rss() { awk '/^VmRSS/ {print $2}' "/proc/$spin/status"; }
clrscope record --pid "$spin" -o "$WORK/warm" --duration 0.3 >/dev/null 2>&1 || true
before=$(rss)
ok=0
for i in $(seq "$cycles"); do
	if clrscope record --pid "$spin" -o "$WORK/c$i" --duration 0.2 --rate 500 >/dev/null 2>"$WORK/err"; then
		ok=$((ok + 1))
	else
		fail "cycle $i: $(cat "$WORK/err")"
		break
	fi
done
after=$(rss)
check "ok == n" "every attach/detach cycle worked" ok="$ok" n="$cycles"
kill -0 "$spin" 2>/dev/null && pass "the program survived $cycles cycles" || fail "the program died"
check "a - b < 64 * 1024" "its memory grew by less than 64 MiB" a="$after" b="$before"
echo "rss before ${before} kB, after ${after} kB"
samples=$(clrscope report --format json "$WORK/c$cycles" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["samples"])')
check "s > 0" "the last cycle still records samples" s="$samples"
finish
