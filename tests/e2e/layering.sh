# The folders keep the architecture: every include names its folder, and
# the rules between them hold (docs/ARCHITECTURE.md, "Rules between the
# halves"): the agent includes only agent/ and common/, clrscope never
# includes agent/, common/ includes only itself, the UI is the only place
# curses and readline are included, and ui/ and cmd/ include no cycle
# (cmd/ui.c starts the UI; ui/ never includes cmd/).  No module includes
# itself through others (a circle), and the agent's folders are layers: a
# file includes its own folder and lower layers only, and so do the calls
# between the agent's modules (tests/lib/layers.py).
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

# The agent's layers, lowest first.  A file of a folder may include (and
# call) its own folder and folders of lower rank only; folders of one rank
# know nothing of each other.  A call upward is a hook set from above (see
# each folder's README.md).
export AGENT_LAYERS='
agent          0  the base: corprof.h (the ABI), agent.h (shared state, clocks, debug log)
agent/log      1  the session log: the writer thread, its size cap, MESSAGE records
agent/unwind   2  stacks into frames: the unwinder over the code map, the runtime walk
agent/symbols  3  naming: frames, stacks, threads, IL offsets, what the runtime does on a thread
agent/sampling 4  the sampler thread and its ways of taking a tick
agent/events   4  runtime callbacks and events, allocations, heap snapshots, instrumentation
agent/runtime  5  the COM surface, start, stop and detach, the control thread and dials
'
layers="$src/tests/lib/layers.py"
build=$(cd "$(dirname "$CLRSCOPE_AGENT_LIB")/../.." && pwd)
objects=("$build/agent/CMakeFiles/clrscope_agent.dir" "$build/agent/CMakeFiles/clrscope_agent_walkprobe.dir")
bad=$(python3 "$layers" "$src" "${objects[@]}") && pass "no include or call circle, no arrow against the agent's layers" ||
	fail "circles or arrows against the layers: $bad"

# The check can fail: a copy with one include up the layers (the log
# including the control thread, which includes the log) is refused, as an
# arrow and as a circle; and so is a circle in clrscope's folders (the
# ages including the config file, which includes the ages).
mkdir -p "$WORK/src"
cp -r agent common tui "$WORK/src"
writer=$(find "$WORK/src/agent" -name logwriter.c)
control=$(cd "$WORK/src" && find agent -name control.h)
echo "#include \"$control\"" >>"$writer"
echo '#include "util/config.h"' >>"$WORK/src/tui/util/age.c"
bad=$(python3 "$layers" "$WORK/src") && fail "a planted include up the layers went unseen" || {
	expect_contains "$bad" "against the layers" "a planted include up the layers is an arrow against them"
	expect_contains "$bad" "include circle: agent/" "... and a circle"
	expect_contains "$bad" "include circle: tui/util/age tui/util/config" "a planted circle in tui/ is refused"
}
finish
