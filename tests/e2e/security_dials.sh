# A malicious dials file cannot crash or hang the agent, nor set anything
# invalid: binary garbage, NUL bytes, a huge or sparse file, huge numbers, a
# line too long, thousands of lines, a FIFO, a device, a directory or a
# symbolic link in its place, the file rewritten while it is read, a flood
# of posts.  Each is answered with a rejection that says why, the program
# runs on with its own output, and a proper dial still works.
source "$CLRSCOPE_TESTLIB"
post=$CLRSCOPE_TEST_TOOLS/post_semaphore

"$CLRSCOPE_BIN" record -o "$WORK/s" --rate 100 -- dotnet "$(app Spin)" 120 >"$WORK/spin.out" 2>"$WORK/spin.err" &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/spin.out" '^tick 2' 30 || fail "Spin did not start: $(cat "$WORK/spin.err")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")
dials=$WORK/s/$pid/dials
clrscope report --format json "$WORK/s" >"$WORK/r.json"
control=$(json 'd["processes"][0]["control"]' "$WORK/r.json")
[[ -n "$control" ]] || fail "the agent has no control semaphore"
cp "$dials" "$WORK/dials.good"

# The agent's DIALS answers, one a line, from the text report (quicker to
# poll than the JSON one).
answers() { clrscope report "$WORK/s" 2>/dev/null | grep -a '^  dials at ' || true; }
# expect_rejected WHAT ERROR: posts the agent, waits for its next answer,
# which must be a rejection whose error holds ERROR.
expect_rejected() {
	local before last deadline=$((SECONDS + 5))
	before=$(answers | wc -l)
	"$post" "$control" || { fail "$1: cannot post"; return; }
	while (($(answers | wc -l) <= before)); do
		((SECONDS < deadline)) || { fail "$1: no answer within 5 s"; return; }
		sleep 0.05
	done
	last=$(answers | tail -1)
	if [[ "$last" == *" rejected: "*"; "*"$2"* ]]; then
		pass "$1: rejected (${last#*; })"
	else
		fail "$1: wanted a rejection with '$2', got: $last"
	fi
}
in_place() { rm -rf "$dials" && "$@"; } # in_place COMMAND: COMMAND makes the new dials

python3 -c 'import random,sys; random.seed(7); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(3000)))' >"$dials"
expect_rejected "binary garbage" "dials"
printf 'generation 50\0rate=7\nrate=300\0 junk\n' >"$dials"
expect_rejected "NUL bytes hiding the rest of a line" "byte 0x00"
python3 -c 'print("rate=500\n" * 116508, end="")' >"$dials"
expect_rejected "a 1 MiB file" "larger than 4096 bytes"
in_place truncate -s 8G "$dials"
expect_rejected "an 8 GiB sparse file" "larger than 4096 bytes"
printf 'generation 99999999999999999999999999\nrate=300\n' >"$dials"
expect_rejected "a generation beyond 64 bits" "bad generation"
printf 'generation 3\nrate=4294967297\n' >"$dials"
expect_rejected "a rate beyond 32 bits" "rate is a whole number"
printf 'generation 3\nflush_ms=18446744073709551617\n' >"$dials"
expect_rejected "a flush interval beyond 64 bits" "flush_ms is a whole number"
printf 'generation 3\nrate=-5\n' >"$dials"
expect_rejected "a negative rate" "rate is a whole number"
{ echo "generation 3"; printf 'events=%0.sgc,' $(seq 100); echo; } >"$dials"
expect_rejected "a line too long" "too long"
{ printf '\n%.0s' $(seq 3000); printf 'generation 7\nrate=abc\n'; } >"$dials"
expect_rejected "thousands of lines, a bad one at the end" "line 3002"
printf '#\n%.0s' $(seq 3000) >"$dials"
expect_rejected "thousands of lines, more than 4 KiB" "larger than 4096 bytes"
: >"$dials"
expect_rejected "an empty file" "no generation line"
in_place mkfifo "$dials"
expect_rejected "a FIFO" "not a regular file"
in_place mkdir "$dials"
expect_rejected "a directory" "not a regular file"
in_place ln -s /dev/zero "$dials"
expect_rejected "a symbolic link to /dev/zero" "symbolic links"
if [[ $(id -u) == 0 ]]; then
	in_place mknod "$dials" c 1 5
	expect_rejected "a device (/dev/zero's numbers)" "not a regular file"
else
	skip_part "a device as the dials file: needs root (mknod)"
fi
rm -rf "$dials"
expect_rejected "no file at all" "No such file"

# Rewritten while the agent reads it: halves and wholes of two valid files,
# garbage between them, a hundred posts.  Whatever it made of them, it
# answers, and every state it took is one of the valid ones.
printf 'generation 40\nrate=250\n' >"$WORK/a"
printf 'generation 41\nrate=350\nflush_ms=50\n' >"$WORK/b"
(
	end=$((SECONDS + 3))
	while ((SECONDS < end)); do
		cp "$WORK/a" "$dials"
		head -c 9 "$WORK/b" >"$dials"
		cp "$WORK/b" "$dials.new" && mv "$dials.new" "$dials"
		printf '\xff\xfe' >>"$dials"
	done
) &
churn=$!
earlier=$(answers | wc -l)
for _ in $(seq 100); do "$post" "$control" 2>/dev/null || true; done
wait "$churn"
sleep 1
bad=$(answers | tail -n +$((earlier + 1)) | grep -av ' rejected: ' | grep -aEv ' rate=(100|250|350) ' || true)
[[ -z "$bad" ]] && pass "every state taken during the churn is a valid one" || fail "states: $bad"

cp "$WORK/dials.good" "$dials"
expect_status 0 "a proper dial after all that" -- clrscope dial "$WORK/s" rate=200
expect_contains "$OUT" "rate=200" "is applied"
kill -TERM "$pid" && pass "the program is alive" || fail "the program died"
wait "$rec" && pass "and ends well on SIGTERM, exit 0" || fail "record failed: $(cat "$WORK/spin.err")"
expect_spin_output "$WORK/spin.out" "its output is whole"
finish
