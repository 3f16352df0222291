# A malicious log cannot crash, hang or take over the user's side: damaged
# copies of a real session (random bytes, truncations, forged records with
# valid checksums: cycles, huge ids and counts, names full of terminal
# escapes, an early END; a directory, FIFO or device in a segment's place,
# a FIFO for the status file or output.log, thousands of process
# directories) are read by 'clrscope report' in every format and shown by
# 'clrscope open'.  Each ends on its own with status 0 or 1 and says what
# it found; the JSON stays valid, and no escape sequence from the log
# reaches the terminal.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
forge="python3 $(dirname "$CLRSCOPE_TESTLIB")/forgelog.py"

expect_status 0 "a good session to damage" -- clrscope record -o "$WORK/good" --rate 1000 -- dotnet "$(app Workload)" 20
pid=$(basename "$(ls -d "$WORK"/good/[0-9]*)")
segsize=$(stat -c %s "$WORK/good/$pid/seg-000001.clog")

# damaged NAME: a fresh copy of the good session; $seg is its segment
damaged() {
	cp -a "$WORK/good" "$WORK/$1"
	seg=$WORK/$1/$pid/seg-000001.clog
}
random_bytes() { # random_bytes SEED COUNT
	python3 -c 'import random,sys; r=random.Random(int(sys.argv[1])); sys.stdout.buffer.write(r.randbytes(int(sys.argv[2])))' "$@"
}

damaged garbage && random_bytes 1 300000 >"$seg"
damaged garbage-after-header && { head -c 16 "$WORK/good/$pid/seg-000001.clog" && random_bytes 2 300000; } >"$seg.new" && mv "$seg.new" "$seg"
for cut in 0 7 16 $((segsize / 2)) $((segsize - 3)); do damaged "cut-at-$cut" && truncate -s "$cut" "$seg"; done
for k in 1 2 3; do damaged "forged-mutation-$k" && $forge mutate "$k" "$seg"; done
damaged forged-hostile && $forge hostile "$seg"
damaged directory-segment && rm "$seg" && mkdir "$seg"
damaged fifo-segment && rm "$seg" && mkfifo "$seg"
if [[ $(id -u) == 0 ]]; then
	damaged device-segment && rm "$seg" && mknod "$seg" c 1 5 # /dev/zero: endless
else
	skip_part "a device as a segment: needs root (mknod)"
fi
damaged fifo-status && rm "$WORK/fifo-status/$pid/status" && mkfifo "$WORK/fifo-status/$pid/status"
damaged fifo-output && mkfifo "$WORK/fifo-output/output.log"
damaged many-processes && (cd "$WORK/many-processes" && mkdir $(seq 100000 102999))
cases=$(cd "$WORK" && ls -d garbage* cut-at-* forged-* *-segment fifo-status fifo-output many-processes)

# ---- clrscope report, every format ----
controls=$'[\x01-\x08\x0b-\x1f\x7f]' # what a terminal would act on
for c in $cases; do
	ended=yes
	for format in text json collapsed speedscope; do
		rc=0
		(ulimit -n 256 && timeout 8 "$CLRSCOPE_BIN" report --format "$format" "$WORK/$c") >"$WORK/$c.$format" \
			2>"$WORK/$c.$format.err" || rc=$?
		((rc == 0 || rc == 1)) || { ended=no && fail "report --format $format $c: exit $rc $(head -c 300 "$WORK/$c.$format.err")"; }
	done
	[[ $ended == yes ]] && pass "$c: report ends by itself in every format, with status 0 or 1"
	LC_ALL=C grep -qa "$controls" "$WORK/$c.text" && fail "$c: the text report holds control characters from the log" ||
		pass "$c: the text report is free of control characters"
done
python3 - "$WORK" $cases <<'EOF' && pass "every JSON and speedscope report parses" || fail "invalid JSON"
import json, os, sys
for case in sys.argv[2:]:
    for ext in ("json", "speedscope"):
        path = os.path.join(sys.argv[1], case + "." + ext)
        if os.path.getsize(path):
            json.load(open(path, encoding="utf-8"))
EOF
expect_contains "$(cat "$WORK/garbage.text")" "damaged bytes skipped" "random bytes are counted as damage"
# 3 bytes off a whole segment always cut its last record (a cut in the
# middle may fall between two records)
expect_contains "$(cat "$WORK/cut-at-$((segsize - 3)).text")" "torn tail" "a cut segment ends in a torn tail"
expect_contains "$(cat "$WORK/forged-hostile.text")" "undecodable records" "undecodable records are counted"
expect_contains "$(cat "$WORK/directory-segment.text.err")" "seg-000001.clog is a directory" "a directory for a segment is named"
expect_contains "$(cat "$WORK/fifo-segment.text.err")" "seg-000001.clog is a FIFO" "so is a FIFO"
expect_contains "$(cat "$WORK/many-processes.text")" "Too many open files" "running out of descriptors is said"

# ---- clrscope open: every view, then q ----
for c in garbage cut-at-7 cut-at-$((segsize / 2)) forged-mutation-1 forged-hostile fifo-segment fifo-status fifo-output; do
	tui_start "$CLRSCOPE_BIN open $WORK/$c"
	title=$(tm display -p -t ui '#{pane_title}')
	if wait_screen "1 Functions" 10; then
		for key in 2 Enter h 3 Enter 4 5 6 Enter 7 8 9 0 1 End Enter o x; do tm send-keys -t ui "$key"; done
		sleep 0.5
		tm send-keys -t ui q
	fi
	expect_screen "EXITED 0" 10 "open $c: shown, every view, then q"
	[[ "$(tm display -p -t ui '#{pane_title}')" == "$title" ]] && pass "open $c: the window title is unchanged" ||
		fail "open $c: the log set the window title to $(tm display -p -t ui '#{pane_title}')"
done
finish
