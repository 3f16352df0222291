# The Awaits view in the terminal UI (tmux): the Async app parks 120 async
# chains (park mode); before a snapshot the view says how to take one; A
# asks for one (the status line says so, and again when it arrives) and the
# view shows the three chains as a tree, open, outermost method first down
# to what the innermost awaits, with their counts 100, 10 and 10, the
# [WhenAll] row dim; Enter closes a chain;
# ':snapshot awaits' takes the next one.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
P=Clrscope.TestApps.Program

tui_start "$CLRSCOPE_BIN launch -o $WORK/s -- dotnet $(app Async) 60 park" 170
expect_screen "running" 20 "the program runs"
wait_line "$WORK/s/output.log" '^parked' 30 || fail "Async did not park its chains: $(cat "$WORK/s/output.log" 2>&1)"
CHILDREN+=($(awk '/^pid / {print $2; exit}' "$WORK/s/output.log")) # it spins until its end: not past the test
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui C-u "view awaits" Enter
expect_screen "No awaits snapshot yet." 10 ":view awaits shows the Awaits view, empty"
expect_screen "Press A (or :snapshot awaits) to take one" 5 "... and says how to take a snapshot"

tm send-keys -t ui A
expect_screen "awaits snapshot 1 at " 20 "A takes an awaits snapshot"
expect_screen ": 120 chains pending in 3 groups, 325 async methods suspended, 0 unresolved; paused " 5 \
	"... and its heading gives the totals"
# the message line, the last of the screen, says it arrived
wait_screen_gone "asked for an awaits snapshot" 10 || true
status=$(screen | grep -v '^$' | tail -1)
expect_contains "$status" "awaits snapshot 1 at " "the status line says the snapshot arrived"

# rows: chains, %, the method indented by its depth
row() { # row REGEX: the screen's rows that match, names without namespace and number
	screen | sed -E "s/$P\\+<(\\w+)>d__[0-9]+\\.MoveNext/\\1/g" | grep -E -- "$1" || true
}
tree=$(screen | sed -E "s/$P\\+<(\\w+)>d__[0-9]+\\.MoveNext/\\1/g" | grep -E '^ +[0-9]+ +[0-9.]+ ' | sed -E 's/ +/ /g')
tcs='[awaiting System.Threading.Tasks.Task`1<System.Int32>]'
want=" 100 83.3 - ParkOuterAsync
 100 83.3 - ParkMiddleAsync
 100 83.3 - ParkInnerAsync
 100 83.3 $tcs
 10 8.3 - ParkBothAsync
 10 8.3 - [WhenAll]
 10 8.3 - ParkInnerAsync
 10 8.3 $tcs
 10 8.3 - ParkDelayAsync
 10 8.3 [awaiting System.Threading.Tasks.Task+DelayPromise]"
expect_eq "$tree" "$want" "the tree: Outer > Middle > Inner 100, Both > [WhenAll] > Inner 10, Delay 10, each to what it awaits, open"
# the [WhenAll] row is drawn in another style than the rows around it
styles=$(tm capture-pane -e -p -t ui | python3 -c '
import re, sys
rows = sys.stdin.read().split("\n")
def style(row):
    return re.findall(r"\x1b\[[0-9;]*m", row.split("[WhenAll]")[0].split("Park")[0])[-1:]
mark = [style(r) for r in rows if "- [WhenAll]" in r]
both = [style(r) for r in rows if "<ParkBothAsync>" in r]
print("differ" if mark and both and mark[0] != both[0] else "same %r %r" % (mark, both))
')
expect_eq "$styles" "differ" "the [WhenAll] row is drawn dim"

# Enter on the first row closes the outer chains
tm send-keys -t ui g Enter
wait_screen_gone "ParkMiddleAsync" 5 && pass "Enter closes ParkOuterAsync's chain" ||
	fail "ParkMiddleAsync still shown: $(screen)"
expect_contains "$(row 'ParkOuterAsync')" "+ ParkOuterAsync" "... marked closed"

tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui C-u "snapshot awaits" Enter
expect_screen "awaits snapshot 2 at " 20 ":snapshot awaits takes the next one"
expect_contains "$(row 'ParkOuterAsync')" "+ ParkOuterAsync" "what was closed stays closed"
tm send-keys -t ui q
tui_stop
finish
