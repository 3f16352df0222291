# The terminal UI killed (SIGKILL) in the middle of a session it launched:
# the program and its agent carry on without it (the log keeps growing, the
# program's output is whole), the agent's memory stays bounded with nobody
# reading, and 'clrscope open' on the session shows it live and follows it
# to its end.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

log_bytes() { cat "$WORK"/s/[0-9]*/seg-*.clog 2>/dev/null | wc -c; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

tui_start "$CLRSCOPE_BIN launch -o $WORK/s --rate 500 -- dotnet $(app Spin) 12"
expect_screen "running" 20 "the launched program is profiled live"
wait_line "$WORK/s/output.log" '^tick 5' 20 || fail "no ticks in output.log"
target=$(awk '/^pid / {print $2; exit}' "$WORK/s/output.log")
ui=$(pgrep -P "$(tm display -p -t ui '#{pane_pid}')" -x clrscope)
[[ -n "$target" && -n "$ui" ]] || { fail "target '$target' or UI '$ui' not found"; finish; }
kill -9 "$ui"
expect_screen "EXITED 137" 10 "the UI is killed"

# the agent carries on alone, within a fixed footprint
before=$(log_bytes)
rss_first=$(rss_kib "$target") rss_max=0
for _ in $(seq 8); do
	sleep 0.5
	rss=$(rss_kib "$target")
	((rss > rss_max)) && rss_max=$rss
done
check "after > before" "the log keeps growing without the UI" before="$before" after="$(log_bytes)"
check "(most - first) < 16 * 1024" "the target's memory stays bounded (KiB)" first="$rss_first" most="$rss_max"

# a new UI picks the live session up and follows it
tui_start "$CLRSCOPE_BIN open $WORK/s"
expect_screen "live" 10 "'clrscope open' shows the session live"
samples() { screen | grep -oE '[0-9]+ samples \|' | head -1 | grep -oE '[0-9]+'; }
first=$(samples)
sleep 1.5
check "later > first" "and follows it as it grows" first="${first:-0}" later="$(samples)"
for _ in $(seq 150); do kill -0 "$target" 2>/dev/null || break; sleep 0.1; done
kill -0 "$target" 2>/dev/null && fail "the program did not end within its 12 s" || pass "the program ended on its own"
expect_screen "ended" 10 "the UI shows the end"
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "and q leaves"
expect_contains "$(cat "$WORK/s/output.log")" "tick 55" "the program's output is whole"
expect_contains "$(clrscope report "$WORK/s")" "ended: runtime shutdown" "the agent wrote its end"
finish
