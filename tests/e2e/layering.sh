# The folders keep the architecture: every include names its folder, and
# the rules between them hold (docs/ARCHITECTURE.md, "Rules between the
# halves"): the agent includes only agent/ and common/, clrscope never
# includes agent/, common/ includes only itself, the UI is the only place
# curses and readline are included, and ui/ and cmd/ include no cycle
# (cmd/ui.c starts the UI; ui/ never includes cmd/).
source "$CLRSCOPE_TESTLIB"
src=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../.." && pwd)
cd "$src"

# includes FOLDERS PATTERN [EXCEPT]: the "#include" lines under FOLDERS that
# match PATTERN, less those matching EXCEPT
includes() {
	grep -rnE --include='*.c' --include='*.h' "^#[[:space:]]*include[[:space:]]+$2" $1 |
		{ [[ -n "${3:-}" ]] && grep -vE "$3" || cat; } || true
}

bare=$(includes "agent common tui" '"[^/"]+"' '"profile.pb-c.h"')
[[ -z "$bare" ]] && pass "every include names its folder" || fail "includes without their folder: $bare"
bad=$(includes agent '"' '"(agent|common)/')
[[ -z "$bad" ]] && pass "the agent includes only agent/ and common/" || fail "agent includes: $bad"
bad=$(includes common '"' '"common/')
[[ -z "$bad" ]] && pass "common/ includes only itself" || fail "common includes: $bad"
bad=$(includes tui '"agent/')
[[ -z "$bad" ]] && pass "clrscope includes nothing of the agent" || fail "tui includes the agent: $bad"
bad=$(includes "agent common tui/cmd tui/live tui/pdb tui/profile tui/util" '<(n?curses|readline/|inotifytools/)')
[[ -z "$bad" ]] && pass "curses, readline and inotify are included only by tui/ui" || fail "outside tui/ui: $bad"
bad=$(includes tui/ui '"cmd/')
[[ -z "$bad" ]] && pass "ui/ includes nothing of cmd/" || fail "ui includes cmd: $bad"
bad=$(includes "tui/profile tui/pdb tui/util tui/live" '"(ui|cmd)/')
[[ -z "$bad" ]] && pass "the model, the live processes and the helpers include neither ui/ nor cmd/" ||
	fail "lower layers include upper ones: $bad"
finish
