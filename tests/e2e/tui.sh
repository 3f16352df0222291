# The terminal UI as a person uses it, in tmux (send-keys, capture-pane) at
# a pinned size, locale and TERM: the targets screen lists a running app;
# attaching from the keyboard shows its hot method at the top; ':rate 500'
# is applied and shown; 'd' detaches and the app keeps running; a resize
# keeps the screen whole; 'q' leaves and the terminal is restored; a launch
# keeps the program's output off the screen.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

dll=$(app CpuRatio)
dotnet "$dll" 60 >"$WORK/app.out" 2>&1 &
apppid=$!
CHILDREN+=($apppid)
for _ in $(seq 50); do grep -q '^pid ' "$WORK/app.out" && break; sleep 0.1; done

tm new-session -d -s ui -x 100 -y 30 \
	"env TERM=xterm-256color XDG_STATE_HOME=$WORK/state $CLRSCOPE_BIN; echo EXITED \$?; stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)\$'; echo MODES; sleep 60"
expect_screen "running .NET process" 10 "the targets screen opens"
expect_screen "$apppid" 10 "it lists the running app"

# filter down to it and attach from the keyboard
tm send-keys -t ui / ; sleep 0.2
tm send-keys -t ui C-u "filter CpuRatio.dll" Enter
expect_screen "filter: CpuRatio.dll" 5 "the filter is shown"
tm send-keys -t ui a
expect_screen "attached to pid $apppid" 15 "'a' attaches"
expect_screen "Functions" 5 "the session screen opens"
if wait_screen "Clrscope.TestApps.Program+Worker.Burn" 10; then
	first=$(screen | sed -n 3p)
	[[ "$first" == *"Worker.Burn"* ]] && pass "the hot method is at the top" || fail "top row: $first"
else
	fail "Burn never showed: $(screen)"
fi

# the prompt: a rate change, acknowledged on the status bar
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui "rate 500" Enter
expect_screen "dials 1/1" 10 "':rate 500' is acknowledged"
sleep 2.5
rate=$(screen | grep -oE '[0-9]+ samples/s' | head -1 | awk '{print $1}')
check "r >= 350 and r <= 560" "the status bar shows about 500 samples/s" r="${rate:-0}"
# what the profiler costs the program now, at the status bar's end (a wider
# window shows it whole)
tm resize-window -t ui -x 160 -y 30; sleep 1.2
cost=$(screen | grep -oE 'agent [0-9.]+% CPU' | head -1 | grep -oE '[0-9.]+')
check "c > 0 and c < 50" "the status bar shows the agent's own CPU share" c="${cost:-0}"
tm resize-window -t ui -x 100 -y 30; sleep 0.3

# views, tree and help
tm send-keys -t ui 2 ; sleep 0.3
tm send-keys -t ui H
expect_screen "- Clrscope.TestApps.Program+Worker.Heavy" 5 "Tree: H opens the hot path"
tm send-keys -t ui 4
expect_screen "kind" 5 "Events view"
tm send-keys -t ui '?'
expect_screen "clrscope help" 5 "? shows the help"
tm send-keys -t ui x

# resize in the middle of a session
tm resize-window -t ui -x 50 -y 12; sleep 0.6
small=$(screen)
[[ "$small" == *"clrscope"* && "$small" == *"samples/s"* ]] && pass "a small window keeps the tab line and status bar" ||
	fail "after resize: $small"
tm resize-window -t ui -x 100 -y 30; sleep 0.6
expect_screen "6 Processes" 5 "back to full size"

# detach: the app keeps running
tm send-keys -t ui d
expect_screen "detached" 20 "'d' detaches"
kill -0 "$apppid" 2>/dev/null && pass "the app is still running" || fail "the app died"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$apppid/stat"; } # its user and system time
before=$(cpu_ticks)
sleep 1
check "after > before" "and goes on working (its CPU time grows)" before="$before" after="$(cpu_ticks)"

# back to the targets screen, and launch from its prompt
tm send-keys -t ui q; sleep 0.5
expect_screen "running .NET process" 5 "q goes back to the targets screen"
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui "launch dotnet $dll 2" Enter
expect_screen "Worker.Burn" 15 "':launch' from the targets screen profiles the program"
expect_screen "exited 0" 15 "and shows how it ended"
tm send-keys -t ui q; sleep 0.5

# leave: q to quit from the targets screen; the terminal is restored
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "q twice quits with status 0"
wait_screen "MODES" 5
restored=$(screen)
grep -qx "icanon" <<<"$restored" && grep -qx "echo" <<<"$restored" &&
	pass "the terminal is back in canonical mode with echo" || fail "terminal modes: $restored"
[[ -f "$WORK/state/clrscope/history" ]] && grep -q "rate 500" "$WORK/state/clrscope/history" &&
	pass "the prompt history is saved" || fail "no history in $WORK/state/clrscope"
tm kill-session -t ui

# launch: the program's output goes to the session, not the screen
tm new-session -d -s ui -x 100 -y 30 \
	"env TERM=xterm-256color $CLRSCOPE_BIN launch -o $WORK/launched -- dotnet $dll 3; echo EXITED \$?; sleep 60"
expect_screen "Worker.Burn" 15 "a launched program is profiled live"
expect_screen "exited 0" 15 "the status bar says how it ended"
screen | grep -q "^done " && fail "the program's output reached the screen" || pass "its output stayed off the screen"
grep -q "^done " "$WORK/launched/output.log" && pass "its output is in output.log" || fail "no output.log"
[[ -e "$WORK/launched/closed" ]] && pass "the session is closed once the program exited" || fail "no closed mark"
tm send-keys -t ui o
expect_screen "output of the program" 5 "'o' shows the program's output"
screen | grep -q "^done " && pass "with its last lines" || fail "output view: $(screen)"
tm send-keys -t ui x
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "q leaves a launched session"

# Ctrl-Z suspends to the shell and fg brings the screen back
tm kill-session -t ui
tm new-session -d -s ui -x 100 -y 30 "env PS1='shell> ' bash --norc --noprofile -i"
sleep 0.5
tm send-keys -t ui "TERM=xterm-256color $CLRSCOPE_BIN open $WORK/launched" Enter
expect_screen "1 Functions" 10 "open from a shell"
tm send-keys -t ui C-z
expect_screen "Stopped" 5 "Ctrl-Z suspends it"
tm send-keys -t ui "clear; fg" Enter
expect_screen "1 Functions" 5 "fg brings the screen back"
tm send-keys -t ui q
sleep 0.5
tm send-keys -t ui "echo back \$?" Enter
expect_screen "back 0" 5 "q after a suspend leaves cleanly"

# a crash restores the terminal before the process dies
tm kill-session -t ui
tm new-session -d -s ui -x 100 -y 30 \
	"env TERM=xterm-256color ASAN_OPTIONS=handle_segv=0 $CLRSCOPE_BIN open $WORK/launched; echo EXITED \$?; stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)\$'; echo MODES; sleep 60"
expect_screen "Functions" 10 "open again"
pkill -SEGV -f "^$CLRSCOPE_BIN open $WORK/launched"
expect_screen "EXITED 139" 10 "a crash (SIGSEGV) ends it with the signal's status"
wait_screen "MODES" 5
grep -qx "icanon" <<<"$(screen)" && grep -qx "echo" <<<"$(screen)" && pass "and the terminal is restored" ||
	fail "terminal left raw after a crash: $(screen)"

# SIGTERM restores the terminal too
tm kill-session -t ui
tm new-session -d -s ui -x 100 -y 30 \
	"env TERM=xterm-256color $CLRSCOPE_BIN open $WORK/launched; echo EXITED \$?; stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)\$'; echo MODES; sleep 60"
expect_screen "Functions" 10 "open shows a finished session"
pkill -TERM -f "^$CLRSCOPE_BIN open $WORK/launched"
expect_screen "EXITED 0" 10 "SIGTERM ends it cleanly"
wait_screen "MODES" 5
grep -qx "icanon" <<<"$(screen)" && grep -qx "echo" <<<"$(screen)" && pass "and the terminal is restored" ||
	fail "terminal left raw: $(screen)"

# attaching happens off the screen's thread: a stopped program holds the
# runtime's answer, and the screen still answers keys meanwhile
dotnet "$dll" 60 >"$WORK/held.out" 2>&1 &
held=$!
CHILDREN+=($held)
for _ in $(seq 50); do grep -q '^pid ' "$WORK/held.out" && break; sleep 0.1; done
kill -STOP "$held"
tm kill-session -t ui
tm new-session -d -s ui -x 100 -y 30 \
	"env TERM=xterm-256color $CLRSCOPE_BIN attach -o $WORK/held $held; echo EXITED \$?; sleep 60"
expect_screen "attaching to pid $held" 10 "attach says it is attaching"
tm send-keys -t ui '?'
expect_screen "clrscope help" 3 "the screen answers keys while the runtime holds the attach"
tm send-keys -t ui x
kill -CONT "$held"
expect_screen "attached to pid $held" 20 "the attach completes once the program runs again"
expect_screen "Worker.Burn" 15 "and its session is shown"
tm send-keys -t ui d
expect_screen "detached" 20 "'d' detaches"
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "q leaves"

# an attach that fails leaves with the reason
tm kill-session -t ui
sleep 300 &
CHILDREN+=($!)
tm new-session -d -s ui -x 100 -y 30 \
	"env TERM=xterm-256color $CLRSCOPE_BIN attach -o $WORK/notnet $!; echo EXITED \$?; sleep 60"
expect_screen "EXITED 1" 15 "attaching to a program that is not .NET fails"
expect_contains "$(screen)" "clrscope: " "and says why"
finish
