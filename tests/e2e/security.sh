# Session data belongs to the user alone.  After real sessions (recorded
# with a paused start and a dial, launched from the terminal UI), all under
# umask 000: every directory is 0700, every file 0600, all of it ours, and
# the agent's control semaphore is 0600.  Session directories of another
# user or writable by others are refused by clrscope (record --pid, dial)
# and by the agent itself, and the program runs on unprofiled.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
umask 000 # nothing may rely on the user's umask
uid=$(id -u)

# expect_private DIR WHEN: directories 0700, everything else 0600, all ours.
expect_private() {
	local loose count
	loose=$(find "$1" \( \( -type d ! -perm 700 \) -o \( ! -type d ! -perm 600 \) -o ! -uid "$uid" \) -printf '%m %u %p\n')
	count=$(find "$1" | wc -l)
	[[ -z "$loose" ]] && pass "$2: all $count entries are private" || fail "$2: not private:"$'\n'"$loose"
}

# expect_entries DIR NAME...: each NAME exists under DIR.
expect_entries() {
	local dir=$1 missing=""
	shift
	for name in "$@"; do [[ -e "$dir/$name" ]] || missing+=" $name"; done
	[[ -z "$missing" ]] && pass "the session has $*" || fail "missing in $dir:$missing"
}

# ---- a recorded session: paused start (diag.sock), a dial, the end ----
"$CLRSCOPE_BIN" record --pause -o "$WORK/s" --rate 200 -- dotnet "$(app Spin)" 30 >"$WORK/spin.out" 2>"$WORK/spin.err" &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/spin.out" '^tick 2' 30 || fail "Spin did not start: $(cat "$WORK/spin.err")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")
expect_status 0 "a dial while it runs" -- clrscope dial "$WORK/s" rate=300
expect_entries "$WORK/s" clrscope.session diag.sock ".agent-$pid.lock" "$pid/dials" "$pid/.dials.lock" "$pid/status" \
	"$pid/seg-000001.clog"
expect_private "$WORK/s" "while recording"
sems=$(find /dev/shm -maxdepth 1 -name "sem.clrscope.$uid.$pid.*" -printf '%m\n')
[[ "$sems" == 600 ]] && pass "the control semaphore is 0600" || fail "semaphore modes for pid $pid: '$sems'"
kill -TERM "$pid" # Spin says bye and exits 0
wait "$rec" && pass "the recording ended well" || fail "record failed: $(cat "$WORK/spin.err")"
expect_spin_output "$WORK/spin.out" "the program's output is whole"
expect_private "$WORK/s" "after the end"

# ---- a session launched from the terminal UI (output.log) ----
tui_start "umask 000; $CLRSCOPE_BIN launch -o $WORK/l -- dotnet $(app Workload) 5"
expect_screen "exited 0" 30 "a launch from the UI runs to its end"
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "and q leaves"
expect_entries "$WORK/l" clrscope.session output.log
expect_private "$WORK/l" "a launched session"

# ---- directories that are not the user's own ----
if [[ $(id -u) != 0 ]]; then
	skip_part "directories of another user: needs root (to give them away)"
	finish
fi
mkdir -m 0700 "$WORK/foreign" "$WORK/shared"
chown nobody "$WORK/foreign"
chmod 0770 "$WORK/shared"

# clrscope: attach into them, dial a live session that was given away
"$CLRSCOPE_BIN" record -o "$WORK/d" --rate 100 -- dotnet "$(app Spin)" 30 >"$WORK/d.out" 2>"$WORK/d.err" &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/d.out" '^tick 2' 30 || fail "Spin did not start: $(cat "$WORK/d.err")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/d.out")
expect_status 1 "record --pid into another user's directory" -- clrscope record --pid "$pid" -o "$WORK/foreign"
expect_contains "$ERR" "belongs to another user" "refused, saying whose it is"
expect_status 1 "record --pid into a group-writable directory" -- clrscope record --pid "$pid" -o "$WORK/shared"
expect_contains "$ERR" "writable by other users" "refused, saying why"
chown nobody "$WORK/d"
expect_status 1 "dial a session now owned by another user" -- clrscope dial "$WORK/d" rate=150
expect_contains "$ERR" "belongs to another user" "the dial is refused"
chown "$uid" "$WORK/d"
chmod 0770 "$WORK/d/$pid"
expect_status 1 "dial a process directory writable by the group" -- clrscope dial "$WORK/d" rate=150
expect_contains "$ERR" "writable by other users" "refused too"
chmod 0700 "$WORK/d/$pid"
expect_status 0 "dial once the directories are private again" -- clrscope dial "$WORK/d" rate=150
kill -TERM "$pid"
wait "$rec" && pass "the program ran on meanwhile, and ended well" || fail "record failed: $(cat "$WORK/d.err")"
expect_spin_output "$WORK/d.out" "its output is whole"

# the agent: handed such a directory, it does not profile, and the program
# runs on with its own output
dll=$(app Workload)
want=$(dotnet "$dll" 5 | grep '^checksum')
mkdir -m 0700 "$WORK/real"
ln -s "$WORK/real" "$WORK/link"
for dir in "$WORK/foreign" "$WORK/shared" "$WORK/link" "relative/dir"; do
	rm -f "$WORK/agent.log"
	got=$(with_agent "$dir" env CLRSCOPE_AGENT_LOG="$WORK/agent.log" dotnet "$dll" 5 | grep '^checksum')
	[[ "$got" == "$want" ]] && pass "agent given $dir: the program's output is right" || fail "agent given $dir: '$got', wanted '$want'"
	expect_contains "$(cat "$WORK/agent.log" 2>/dev/null)" "not profiling" "and the agent says it is not profiling"
done
written=$(find "$WORK/foreign" "$WORK/shared" "$WORK/real" -mindepth 1)
[[ -z "$written" ]] && pass "nothing was written into them" || fail "written: $written"
finish
