# Out of memory in the terminal UI gives the terminal back before it says
# so: with CLRSCOPE_FAIL_ALLOC_AT=1 the UI's first allocation after it
# takes the screen fails.  Then the pane is out of the alternate screen,
# the message is on the normal screen where it can be read, the terminal
# is in cooked mode again (icanon, echo) before anything else runs, and
# clrscope exits with status 1.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

# the terminal's modes as clrscope left them, read before anything resets them
modes="stty -a | tr ' ;' '\\n\\n' | grep -E '^-?(icanon|echo)\$' | tr '\\n' ' '"
tui_start "env XDG_STATE_HOME=$WORK/state CLRSCOPE_FAIL_ALLOC_AT=1 $CLRSCOPE_BIN; s=\$?; printf 'modes: %s\\r\\n' \"\$($modes)\"; (exit \$s)"
expect_screen "EXITED" 10 "clrscope ends"
text=$(screen)
expect_contains "$text" "EXITED 1" "with status 1"
expect_contains "$text" "clrscope: out of memory (asked for " "the message is on the normal screen"
expect_contains "$text" "modes: icanon echo" "the terminal is in cooked mode again"
expect_eq "$(tm display -p -t ui '#{alternate_on}')" 0 "the pane is out of the alternate screen"
finish
