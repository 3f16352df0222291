# The instrumentation and memory views as a person uses them, in tmux:
# Calls after a launch with --instrument (exact counts, no detach), 'h'
# taking a heap snapshot shown in Heap, Allocs after --allocations, the GC
# table and strip chart, and the reasons shown where a view cannot work.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
start_ui() { tui_start "$CLRSCOPE_BIN $*"; } # start_ui ARGS...: clrscope ARGS in a fresh pane

# an instrumented launch that also counts allocations
start_ui launch -o "$WORK/calls" --instrument "'Clrscope.TestApps.Counted.*'" --allocations -- dotnet "$(app CallCounter)" 200000
expect_screen "instrumented (no detach)" 20 "the status bar says the program is instrumented"
expect_screen "exited 0" 20 "the program runs to its end"
tm send-keys -t ui 7
expect_screen "functions hooked of" 5 "7 opens Calls"
expect_screen "Clrscope.TestApps.Counted.Target" 5 "with the hooked functions"
row=$(screen | grep "Counted.Target" | head -1)
[[ "$row" == *" 200000 "* ]] && pass "Target shows exactly 200000 calls" || fail "Target row: $row"
row=$(screen | grep "Counted.Other" | head -1)
[[ "$row" == *" 400000 "* ]] && pass "Other shows exactly 400000 calls" || fail "Other row: $row"
tm send-keys -t ui s
expect_screen "sorted by inclusive time" 5 "s sorts Calls by another column"
tm send-keys -t ui 9
expect_screen "allocations since the start" 5 "9 opens Allocs"
expect_screen "System.String" 5 "with allocated types"
tm send-keys -t ui 0
if wait_screen "pause max" 3 || wait_screen "No garbage collection recorded yet" 3; then
	pass "0 opens the GC view"
else
	fail "GC view: $(screen)"
fi
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "q leaves"

# a live program: h takes a heap snapshot; no instrumentation to show
start_ui launch -o "$WORK/heap" -- dotnet "$(app Retainer)" 1500 40
expect_screen "running" 20 "a plain launch runs"
wait_line "$WORK/heap/output.log" '^retained 1500' 20 || fail "Retainer did not start"
tm send-keys -t ui 7
expect_screen "started without instrumentation" 5 "Calls explains how to instrument"
tm send-keys -t ui h
expect_screen "snapshot 1 at" 15 "h takes a heap snapshot and shows Heap"
expect_screen "Clrscope.TestApps.Retained" 5 "with the program's own type"
row=$(screen | grep "Clrscope.TestApps.Retained$" | head -1)
[[ "$row" == *" 1500 "* ]] && pass "exactly 1500 Retained objects" || fail "Retained row: $row"
tm send-keys -t ui s
expect_screen "sorted by count" 5 "s sorts Heap by count"
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui "snapshot" Enter
expect_screen "snapshot 2 at" 15 "':snapshot' takes another one"
expect_screen "against snapshot before" 5 "and compares it with the one before"
tm send-keys -t ui 9
expect_screen "started without allocation counting" 5 "Allocs explains --allocations"
tm send-keys -t ui q
tm kill-session -t ui

# the GC view of a program that collects
start_ui launch -o "$WORK/gc" -- dotnet "$(app GcInducer)" 5
expect_screen "exited 0" 20 "a collecting program runs"
tm send-keys -t ui 0
expect_screen "pause max" 5 "GC shows the pause strip chart"
expect_screen "heap max" 5 "and the heap strip chart"
n=$(screen | grep -c " induced ")
check "n >= 5" "and a row per induced collection" n="$n"
n=$(screen | grep -c " induced  *blocking ")
check "n >= 5" "each with its type from the runtime's event stream" n="$n"
tm send-keys -t ui q
finish
