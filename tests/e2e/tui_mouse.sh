# The mouse in the terminal UI, in tmux: a click selects the row under it in
# every view (each view's own list, never another's by its number), and
# Enter then acts on that row.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

# click LINE: a left click (press and release, SGR encoding) on screen line LINE (1-based)
click() { tm send-keys -t ui -l $'\e[<0;5;'"$1"'M'$'\e[<0;5;'"$1"'m'; }

expect_status 0 "record CpuRatio" -- clrscope record -o "$WORK/s" --rate 400 -- dotnet "$(app CpuRatio)" 2
tui_start "$CLRSCOPE_BIN open $WORK/s"
expect_screen "1 Functions" 10 "the session opens"
# by total time: by self, Heavy (none of its own) may sit below the native
# functions the start-up ran for a sample each
tm send-keys -t ui s
expect_screen "sorted by total" 5 "s sorts Functions by total time"
expect_screen "Program+Worker.Heavy" 5 "Functions lists Heavy"
line=$(screen | grep -n "Program+Worker.Heavy" | head -1 | cut -d: -f1)
click "$line"; sleep 0.3
tm send-keys -t ui Enter
expect_screen "Clrscope.TestApps.Program+Worker.Heavy: " 5 "a click on Heavy's row, then Enter, shows Heavy's callers"
expect_screen "caller " 5 "with its caller under the title line"
line=$(screen | grep -n "^caller " | head -1 | cut -d: -f1)
click "$line"; sleep 0.3
tm send-keys -t ui Enter
expect_screen "Clrscope.TestApps.Program+Worker.Run: " 5 "a click on the caller's row in Callers, then Enter, moves there"

# every view, every line: the program stays up
for key in 1 2 3 4 5 6 7 8 9 0 Tab f; do
	tm send-keys -t ui "$key"
	sleep 0.2
	for line in 1 2 3 4 5 8 20 29 30; do click "$line"; sleep 0.05; done
done
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "clicks in every view, Locks and Flame included, leave the UI running until q"
finish
