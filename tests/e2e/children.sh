# A .NET program that starts a .NET child: both inherit the profiling
# environment and land in one session, each in its own directory.
source "$CLRSCOPE_TESTLIB"
expect_status 0 "record Spawner, which runs CpuRatio as a child" -- \
	clrscope record -o "$WORK/s" -- dotnet "$(app Spawner)" "$(app CpuRatio)"
expect_contains "$OUT" "child exited 0" "the child ran"
clrscope report --format json "$WORK/s" >"$WORK/r.json"
check "n == 2" "two processes in the session" n="$(json 'len(d["processes"])' "$WORK/r.json")"
parent=$(json '[p["pid"] for p in d["processes"] if "Spawner" in p["command"]][0]' "$WORK/r.json")
child=$(json '[p["pid"] for p in d["processes"] if "Spawner" not in p["command"]][0]' "$WORK/r.json")
check "pp == parent" "the child's parent is the Spawner" pp="$(json "[p['ppid'] for p in d['processes'] if p['pid']==$child][0]" "$WORK/r.json")" parent="$parent"
[[ -d "$WORK/s/$parent" && -d "$WORK/s/$child" ]] && pass "one directory per process" || fail "process directories: $(ls "$WORK/s")"
clrscope report --format json --pid "$child" "$WORK/s" >"$WORK/c.json"
check "n == 1" "--pid selects one process" n="$(json 'len(d["processes"])' "$WORK/c.json")"
expect_contains "$(json '[f["name"] for f in d["processes"][0]["functions"]][:3]' "$WORK/c.json")" "Burn" "the child's hot method"
clrscope report --format collapsed "$WORK/s" >"$WORK/folded"
grep -q "^pid_$child;" "$WORK/folded" && pass "collapsed stacks are rooted per process" || fail "no pid_$child root"

# The paused start: the program's runtime waits on clrscope's port until it
# is resumed, and nothing is lost; its agent then takes the port out of the
# environment, so a child is not paused (it loads the agent at startup all
# the same), and one started after record has gone would not wait forever.
expect_status 0 "record --pause Spawner" -- clrscope record --pause -o "$WORK/p" -- dotnet "$(app Spawner)" "$(app CpuRatio)"
expect_contains "$OUT" "child exited 0" "the child ran after its paused start"
clrscope report --format json "$WORK/p" >"$WORK/p.json"
check "n == 2" "both processes recorded" n="$(json 'len(d["processes"])' "$WORK/p.json")"
[[ ! -e "$WORK/p/diag.sock" ]] && pass "the port is gone after the run" || fail "diag.sock left behind"
"$CLRSCOPE_BIN" record --pause -o "$WORK/q" -- dotnet "$(app Spawner)" "$(app Spin)" >"$WORK/q.out" 2>&1 &
rec=$!
CHILDREN+=($rec)
wait_line "$WORK/q.out" '^tick 1' 30 || fail "the child did not run: $(cat "$WORK/q.out")"
child=$(awk '/^pid / {n++} /^pid / && n == 2 {print $2; exit}' "$WORK/q.out")
env_of_child=$(tr '\0' '\n' <"/proc/$child/environ" 2>/dev/null || true)
expect_contains "$env_of_child" "CORECLR_ENABLE_PROFILING=1" "the child inherited the profiling environment"
[[ "$env_of_child" != *"diag.sock"* ]] && pass "but not the paused start's port" ||
	fail "the child's DiagnosticPorts: $(grep DiagnosticPorts <<<"$env_of_child")"
wait "$rec" && pass "record --pause with a child ends" || fail "record --pause: $(cat "$WORK/q.out")"

# A shell (not .NET: it keeps the port in its environment) that starts 66
# runtimes one after the other: each dials in paused and is resumed (more
# than 64, so that a list of resumed runtimes that stopped at 64 would leave
# the 65th dialing again and again); all 66 run and are recorded, none hangs.
runs=66
expect_status 0 "record --pause of a shell starting $runs runtimes" -- timeout 90 \
	"$CLRSCOPE_BIN" record --pause -o "$WORK/many" -- bash -c \
	"for i in \$(seq $runs); do dotnet '$(app CpuRatio)' 0 || exit 1; done"
check "n == $runs" "every runtime ran" n="$(grep -c '^done' "$WORK/out" || true)"
clrscope report --format json "$WORK/many" >"$WORK/many.json"
check "n == $runs" "every runtime was recorded" n="$(json 'len(d["processes"])' "$WORK/many.json")"
finish
