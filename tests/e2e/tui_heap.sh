# The heap graph in the terminal UI, in tmux: h takes a snapshot of a heap
# of known shape (tests/apps/Graph) and Heap shows each type's retained
# bytes; Enter on a type shows its paths from the roots (Paths); the
# dominator tree (Dominators) puts the list on top, opens to its array and
# its sessions, each retaining itself and its payload; a second snapshot
# shows the growth.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
NS=Clrscope.TestApps
tui_start "$CLRSCOPE_BIN launch -o $WORK/g -- dotnet $(app Graph) 2000 64 90" 230
expect_screen "running" 20 "the program runs"
wait_line "$WORK/g/output.log" '^ready 2000' 30 || fail "Graph did not start: $(cat "$WORK/g/output.log" 2>&1)"
tm send-keys -t ui h
expect_screen "snapshot 1 at" 20 "h takes a heap snapshot and shows Heap"
expect_screen "retained" 5 "with a column of retained bytes"
row=$(screen | grep " $NS.Session\$" | head -1)
[[ "$row" == *" 2000 "*" 64000 "*" 2112000 "* ]] && pass "2000 Sessions retain 2112000 bytes (their own and their payloads')" ||
	fail "Session row: $row"

# only the sessions' types, by count: Session first; Enter shows its paths
tm send-keys -t ui / ; sleep 0.2
tm send-keys -t ui C-u "filter TestApps.Session" Enter
expect_screen "filter: TestApps.Session" 5 "the filter is shown"
tm send-keys -t ui s
expect_screen "sorted by count" 5 "s sorts Heap by count"
tm send-keys -t ui Enter
expect_screen "$NS.Session in snapshot 1: 2000 objects" 10 "Enter shows the paths to the type"
row=$(screen | grep "static $NS.Registry.s_sessions > " | head -1)
[[ "$row" == *" 2000 "*" 64000 "*" 2112000 "*"List\`1<$NS.Session> > $NS.Session[] > $NS.Session"* ]] &&
	pass "one path: the static field, the list, its array" || fail "path row: $row"

# the dominator tree: the list on top, opened to its array and its sessions
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui C-u "view dominators" Enter
expect_screen "each object retains those below it" 10 ":view dominators shows the dominator tree"
first=$(screen | sed -n 4p)
[[ "$first" == *"+ System.Collections.Generic.List\`1<$NS.Session> @"* ]] && pass "the list retains the most" ||
	fail "top row: $first"
tm send-keys -t ui Enter
expect_screen "+ $NS.Session[] @" 5 "Enter opens the list: its array"
tm send-keys -t ui Down Enter
expect_screen "+ $NS.Session @" 5 "Enter opens the array: its sessions"
row=$(screen | grep "+ $NS.Session @" | head -1)
[[ "$row" == *" 1056 "* ]] && pass "each session retains 1056 bytes" || fail "session row: $row"
n=$(screen | grep -c "+ $NS.Session @")
check "n >= 10" "the sessions are listed" n="$n"
# on a session, Left goes up to the array, and Left again closes it
tm send-keys -t ui Down Left Left
sleep 0.5
n=$(screen | grep -c "+ $NS.Session @" || true)
check "n == 0" "Left goes up to the array and closes it" n="$n"
expect_screen "+ $NS.Session[] @" 5 "the array is closed"

# a second snapshot: the growth column
tm send-keys -t ui 8
tm send-keys -t ui h
expect_screen "snapshot 2 at" 20 "h takes a second snapshot"
expect_screen "against snapshot before" 5 "compared with the one before"
tm send-keys -t ui q
tui_stop
finish
