# A target killed with SIGKILL mid-run: everything the agent flushed is
# still read, and a torn tail is reported as such.
source "$CLRSCOPE_TESTLIB"

dll=$(app Spin)
"$CLRSCOPE_BIN" record -o "$WORK/s" --rate 500 -- dotnet "$dll" >"$WORK/out" 2>"$WORK/err" &
CHILDREN+=($!)
rec=$!
for _ in $(seq 100); do
	grep -q '^tick 5' "$WORK/out" 2>/dev/null && break
	sleep 0.1
done
target=$(awk '/^pid / {print $2; exit}' "$WORK/out")
[[ -n "$target" ]] || { fail "Spin never printed its pid"; finish; }
kill -9 "$target"
rc=0
wait "$rec" || rc=$?
check "rc == 137" "record passes on the SIGKILL as 128+9" rc="$rc"

expect_status 0 "report reads a killed session" -- clrscope report --format json "$WORK/s"
echo "$OUT" >"$WORK/r.json"
p='d["processes"][0]'
check "s >= 300" "samples up to the kill are there" s="$(json "$p['samples']" "$WORK/r.json")"
expect_contains "$(json "$p['ended']" "$WORK/r.json")" "False" "no end record after SIGKILL"

# Cut the last record in half, as a kill mid-write leaves it.
seg=$(ls "$WORK"/s/*/seg-*.clog | tail -1)
size=$(stat -c %s "$seg")
truncate -s $((size - 5)) "$seg"
expect_status 0 "report reads a torn segment" -- clrscope report --format json "$WORK/s"
expect_contains "$ERR" "torn record" "json on stdout, the torn tail on stderr"
echo "$OUT" >"$WORK/r2.json"
check "t > 0" "torn_bytes counted" t="$(json "$p['log']['torn_bytes']" "$WORK/r2.json")"
expect_status 0 "text report of the torn session" -- clrscope report "$WORK/s"
expect_contains "$OUT" "torn tail of" "the text report says the tail was torn"
finish
