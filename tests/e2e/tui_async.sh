# The logical stacks in the terminal UI (tmux): the Async app's Tree shows
# its hot path through RunAsync, QuoteAsync and the [await] boundary (drawn
# dim: another style than its neighbours) into SumAsync and Kernel;
# ':stacks physical' shows the thread pool's dispatch loop instead, with no
# [await] frame, and L switches back.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

expect_status 0 "record Async at 400 Hz" -- clrscope record -o "$WORK/s" --rate 400 -- dotnet "$(app Async)" 3
tui_start "$CLRSCOPE_BIN open $WORK/s" 160
expect_screen "1 Functions" 10 "the session opens"
tm send-keys -t ui 2 ; sleep 0.3
tm send-keys -t ui H
expect_screen "- Clrscope.TestApps.Program+<QuoteAsync>" 5 "Tree: the hot path goes through QuoteAsync"
expect_screen "- [await]" 5 "... and the [await] boundary"
expect_screen "Clrscope.TestApps.Program.Kernel" 5 "... to Kernel"
# the boundary's row is drawn in another style than the rows around it
styles=$(tm capture-pane -e -p -t ui | python3 -c '
import re, sys
rows = sys.stdin.read().split("\n")
def style(row):
    return re.findall(r"\x1b\[[0-9;]*m", row.split("<QuoteAsync>")[0].split("[await]")[0])[-1:]
mark = [style(r) for r in rows if "- [await]" in r]
quote = [style(r) for r in rows if "+<QuoteAsync>" in r and "[await]" not in r]
print("differ" if mark and quote and mark[0] != quote[0] else "same %r %r" % (mark, quote))
')
expect_eq "$styles" "differ" "the [await] row is drawn dim"

tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui "stacks physical" Enter
expect_screen "physical stacks" 5 ":stacks physical says so"
tm send-keys -t ui 2 ; sleep 0.3
tm send-keys -t ui H
expect_screen "System.Threading.ThreadPoolWorkQueue.Dispatch" 10 "Tree: the physical hot path is the dispatch loop"
expect_not_contains "$(screen)" "[await]" "no [await] frame in physical stacks"
tm send-keys -t ui L
expect_screen "logical stacks" 5 "L switches back to logical stacks"
tm send-keys -t ui q
finish
