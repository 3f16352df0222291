# Driving the terminal UI in tmux, for the tests that need a screen: a
# private tmux server per test, the pane as text, waits with deadlines.
# Source after testlib.sh.
command -v tmux >/dev/null || { fail "tmux is needed"; finish; }

# The server outlives its sessions (exit-empty off): by default it exits
# with the last one, and a new-session sent while it is exiting fails with
# "server exited unexpectedly". The EXIT trap kills it.
TMUX_SOCKET="clrscope-test-$$"
TMUX_CONF="$WORK/tmux.conf"
echo 'set -s exit-empty off' >"$TMUX_CONF"
tm() { tmux -L "$TMUX_SOCKET" -f "$TMUX_CONF" "$@"; }
export LANG=C.UTF-8 LC_ALL=C.UTF-8

# tui_stop: ends the window and what runs in it, even a program that hangs
# with its signals blocked (a hang is a failure, not a leftover).
tui_stop() {
	local pane child
	pane=$(tm display -p -t ui '#{pane_pid}' 2>/dev/null) || return 0
	for child in $(pgrep -P "$pane"); do kill -9 "$child" 2>/dev/null || true; done
	tm kill-session -t ui 2>/dev/null || true
}
trap 'tui_stop; tm kill-server 2>/dev/null || true; cleanup' EXIT

# tui_start COMMAND [COLUMNS]: runs COMMAND (a shell line) in a fresh window
# of 30 lines and 100 columns (or COLUMNS)
# named ui, then prints "EXITED status" and waits, so that the last screen
# and the status can be read. A UI killed by a signal leaves the terminal
# raw (no CR on newline), hence stty sane and the explicit \r\n.
tui_start() {
	tui_stop
	tm new-session -d -s ui -x "${2:-100}" -y 30 "export TERM=xterm-256color; $1; s=\$?; stty sane; printf '\\r\\nEXITED %s\\r\\n' \$s; sleep 120"
}
screen() { tm capture-pane -p -t ui; }
# wait_screen TEXT SECONDS: until the screen shows TEXT
wait_screen() {
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.2
	done
	return 1
}
# wait_screen_gone TEXT SECONDS: until the screen no longer shows TEXT
wait_screen_gone() {
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do
		screen | grep -qF -- "$1" || return 0
		sleep 0.2
	done
	return 1
}
expect_screen() { # expect_screen TEXT SECONDS DESCRIPTION
	if wait_screen "$1" "$2"; then pass "$3"; else fail "$3: '$1' not on screen:"$'\n'"$(screen)"; fi
}
