# A full disk under a running agent: it drops and counts what it cannot
# write, the program runs on unharmed, and the report shows the drops.
source "$CLRSCOPE_TESTLIB"
[[ $(id -u) == 0 ]] || skip "needs root (to mount a small tmpfs)"
mkdir -p "$WORK/small"
mount -t tmpfs -o size=256k,mode=0700 none "$WORK/small" 2>"$WORK/mount.err" ||
	skip "cannot mount a tmpfs here: $(cat "$WORK/mount.err")"
trap 'umount "$WORK/small" 2>/dev/null || true; cleanup' EXIT
# fill the disk but a little, so that the agent starts and then runs out:
# 56 KiB left, of which the session's small files take a page each (tmpfs),
# against about 100 KB that this run writes; much less room would leave its
# log none for a single sample after the start-up's records
dd if=/dev/zero of="$WORK/small/filler" bs=1k count=200 status=none 2>/dev/null || true
expect_status 0 "record at 2 kHz into an almost full tmpfs" -- \
	clrscope record -o "$WORK/small/s" --rate 2000 -- dotnet "$(app Spin)" 4
expect_contains "$OUT" "tick 15" "the program ran to its end"
rm -f "$WORK/small/filler" # room for the report to say what happened
clrscope report --format json "$WORK/small/s" >"$WORK/r.json"
p='d["processes"][0]'
check "n > 0" "the agent counted dropped records" n="$(json "$p['agent']['dropped']" "$WORK/r.json")"
check "n > 0" "and write errors" n="$(json "$p['agent']['write_errors']" "$WORK/r.json")"
check "n > 0" "what fit was kept" n="$(json "$p['samples']" "$WORK/r.json")"
expect_contains "$(clrscope report "$WORK/small/s")" "records dropped" "the text report shows the drops"
finish
