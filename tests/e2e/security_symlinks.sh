# No symbolic link is followed in a session directory.  Links to a victim
# file (or directory) are planted wherever clrscope or the agent create or
# open something: the marker, diag.sock, output.log, the agent's lock, the
# process directory, dials, .dials.lock, status, the next segment.  Each
# time the victim stays as it was, and a message says what was in the way.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"
post=$CLRSCOPE_TEST_TOOLS/post_semaphore

victim=$WORK/victim
echo "the victim's own data" >"$victim"
cp -p "$victim" "$WORK/victim.orig"
mkdir -m 0700 "$WORK/victim-dir"
expect_victim_untouched() { # expect_victim_untouched WHEN
	if cmp -s "$victim" "$WORK/victim.orig" && [[ $(stat -c '%a %Y' "$victim") == $(stat -c '%a %Y' "$WORK/victim.orig") ]] &&
		[[ -z "$(find "$WORK/victim-dir" -mindepth 1)" ]]; then
		pass "$1: the victim is untouched"
	else
		fail "$1: the victim changed"
	fi
}
# session NAME [ENTRY]: a fresh private directory, with ENTRY in it linked to the victim
session() {
	mkdir -m 0700 "$WORK/$1"
	[[ -z "${2:-}" ]] || ln -s "$victim" "$WORK/$1/$2"
}
mark_session() { printf 'clrscope-session 1\ncommand test\n' >"$WORK/$1/clrscope.session"; }
workload=$(app Workload)
spin=$(app Spin)

# ---- clrscope's own files ----
session marker clrscope.session
expect_status 1 "record into a directory whose marker is a link" -- clrscope record -o "$WORK/marker" -- dotnet "$workload" 1
expect_contains "$ERR" "clrscope.session is a symbolic link" "says what is in the way"
expect_victim_untouched "marker"

session port diag.sock
expect_status 0 "a paused start with diag.sock a link" -- clrscope record --pause -o "$WORK/port" -- dotnet "$workload" 1
expect_contains "$ERR" "diag.sock exists and is not a socket" "notes it and starts without pausing"
expect_victim_untouched "diag.sock"

session output output.log
tui_start "$CLRSCOPE_BIN launch -o $WORK/output -- dotnet $workload 1"
expect_screen "EXITED 1" 20 "a launch from the UI with output.log a link fails"
expect_screen "it is a symbolic link" 5 "saying why"
expect_victim_untouched "output.log"

# ---- the agent's: its lock and its process directory ----
dotnet "$spin" 20 >"$WORK/target.out" 2>&1 &
target=$!
CHILDREN+=($target)
wait_line "$WORK/target.out" '^tick 1' 30 || fail "Spin did not start"
session lock ".agent-$target.lock"
expect_status 1 "attach with the agent's lock file a link" -- clrscope record --pid "$target" -o "$WORK/lock" --duration 1
expect_contains "$ERR" ".agent-$target.lock is a symbolic link, which the agent will not open" "says what is in the way"
kill -0 "$target" && pass "the target runs on" || fail "the target died"
expect_victim_untouched "the agent's lock (attach)"

# Started by the environment, the agent finds its lock (or its process
# directory) a link when the program starts: bash plants them under its own
# pid, then execs the program under that pid.
plant_and_run() { # plant_and_run SESSION ENTRY-WITH-PID TARGET: Workload's checksum line
	with_agent "$WORK/$1" bash -c 'ln -s "$3" "$2/${1//PID/$$}"; exec dotnet "$4" 5' _ "$2" "$WORK/$1" "$3" "$workload" |
		grep '^checksum'
}
want=$(dotnet "$workload" 5 | grep '^checksum')
session agentlock
got=$(CLRSCOPE_AGENT_LOG=$WORK/agent.log plant_and_run agentlock ".agent-PID.lock" "$victim")
[[ "$got" == "$want" ]] && pass "a program whose agent lock is a link runs right" || fail "checksum '$got', wanted '$want'"
[[ -z "$(find "$WORK/agentlock" -mindepth 1 -type d)" ]] && pass "and is not profiled" || fail "it was profiled"
expect_contains "$(cat "$WORK/agent.log" 2>/dev/null)" "lock is a symbolic link" "the agent's log says why"
expect_victim_untouched "the agent's lock (startup)"

session procdir
mark_session procdir
got=$(plant_and_run procdir "PID" "$WORK/victim-dir")
[[ "$got" == "$want" ]] && pass "a program whose process directory is taken by a link runs right" ||
	fail "checksum '$got', wanted '$want'"
expect_status 1 "report the session with the link in it" -- clrscope report --format json "$WORK/procdir"
expect_contains "$ERR" "is a symbolic link" "the link is named"
echo "$OUT" >"$WORK/procdir.json"
check "n > 0" "the agent recorded into PID.2 instead" n="$(json 'sum(p["samples"] for p in d["processes"])' "$WORK/procdir.json")"
expect_victim_untouched "the process directory"

# ---- a live session: dials, .dials.lock, status, the process directory ----
"$CLRSCOPE_BIN" record -o "$WORK/live" --rate 100 -- dotnet "$spin" 120 >"$WORK/live.out" 2>"$WORK/live.err" &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/live.out" '^tick 2' 30 || fail "Spin did not start: $(cat "$WORK/live.err")"
pid=$(awk '/^pid / {print $2; exit}' "$WORK/live.out")
proc=$WORK/live/$pid
control=$(clrscope report --format json "$WORK/live" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["control"])')

mv "$proc/dials" "$WORK/dials.saved"
ln -s "$victim" "$proc/dials"
expect_status 1 "dial with the dials file a link" -- clrscope dial "$WORK/live" rate=200
expect_contains "$ERR" "dials is a symbolic link" "says what is in the way"
"$post" "$control" && pass "posted the agent with its dials file a link"
rm "$proc/.dials.lock" && mv -f "$WORK/dials.saved" "$proc/dials"
ln -s "$victim" "$proc/.dials.lock"
expect_status 1 "dial with .dials.lock a link" -- clrscope dial "$WORK/live" rate=200
expect_contains "$ERR" ".dials.lock is a symbolic link" "says what is in the way"
rm "$proc/.dials.lock"
ln -sfn "$victim" "$proc/status" # the agent keeps writing the file it made

mv "$proc" "$WORK/moved" && ln -s "$WORK/victim-dir" "$proc"
expect_status 1 "dial with the process directory swapped for a link" -- clrscope dial "$WORK/live" rate=200
expect_contains "$ERR" "is a symbolic link" "says what is in the way"
rm "$proc" && mv "$WORK/moved" "$proc"
expect_status 0 "dial once it is back" -- clrscope dial "$WORK/live" rate=200
kill -TERM "$pid"
wait "$rec" && pass "the program ran on and ended well" || fail "record failed: $(cat "$WORK/live.err")"
expect_spin_output "$WORK/live.out" "its output is whole"
clrscope report --format json "$WORK/live" >"$WORK/live.json" 2>/dev/null || true
expect_contains "$(json '[x["error"] for x in d["processes"][0]["dials"] if x["status"] == "rejected"]' "$WORK/live.json")" \
	"symbolic links" "the agent rejected the linked dials file"
expect_victim_untouched "dials, .dials.lock, status and the process directory"

# ---- the next segment: the writer steps over it, the reader too ----
"$CLRSCOPE_BIN" record -o "$WORK/seg" --rate 100 -- dotnet "$(app Thrower)" 150000 >"$WORK/seg.out" 2>"$WORK/seg.err" &
rec=$!
CHILDREN+=($rec)
# Thrower logs some 8 MB a second: the link goes in as soon as the first
# segment exists, long before the writer needs the second
for _ in $(seq 500); do
	first=$(compgen -G "$WORK/seg/[0-9]*/seg-000001.clog" || true)
	[[ -n "$first" ]] && break
	sleep 0.01
done
ln -s "$victim" "$(dirname "$first")/seg-000002.clog" && pass "planted seg-000002.clog in time" ||
	fail "the writer was faster than the test"
wait "$rec" && pass "the program ran to its end" || fail "record failed: $(cat "$WORK/seg.err")"
expect_contains "$(cat "$WORK/seg.out")" "caught 150001" "with its own output"
expect_status 0 "report the session" -- clrscope report "$WORK/seg"
expect_contains "$OUT" "agent warning: seg-000002.clog already existed (a symbolic link)" "the agent's warning is shown"
expect_contains "$ERR" "seg-000002.clog is a symbolic link" "the reader says it skipped it"
[[ -f "$(dirname "$first")/seg-000003.clog" ]] && pass "the log went on in seg-000003.clog" || fail "no seg-000003.clog"
expect_contains "$OUT" "in 2 segments" "and the report read both real segments"
expect_victim_untouched "the next segment"
finish
