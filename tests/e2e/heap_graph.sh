# The live object graph of a heap of known shape (tests/apps/Graph), asserted
# exactly: N Sessions held by a static List, each retaining itself and its
# byte[1000] payload (sizes as the runtime gives them), by one path from the
# static field through the list and its array; a ring whose overwritten
# entries are garbage (exactly its slots live); a cycle held by one static,
# counted once in its type's retained bytes; an object held by two Holders,
# retained by neither; an Orphan held by the finalization queue alone; and
# between two snapshots the list grows by N Sessions, the app's other types
# unchanged (report --heap says so too, and clrscope diff --heap against a
# session of N).  Background GC stays on.
#
#   heap_graph.sh          .NET 10 (the SDK's runtime), launched and attached
#   heap_graph.sh TFM      net8.0, net9.0: the self-contained copy of Graph
source "$CLRSCOPE_TESTLIB"
tfm=${1:-}
N=3000
RING=128
if [[ -n $tfm ]]; then
	TEST_NAME=heap_graph_${tfm%.0}
	apps=$CLRSCOPE_APPS/$tfm
	[[ -f "$apps/unavailable" ]] && skip "$(head -1 "$apps/unavailable")"
	[[ -x "$apps/Graph/Graph" ]] || { fail "missing $apps/Graph/Graph: run scripts/test.sh (tests/apps/build.sh makes it)"; finish; }
	program=("$apps/Graph/Graph")
else
	tfm=net10.0
	program=(dotnet "$(app Graph)")
fi
NS=Clrscope.TestApps

jexpect() { # jexpect FILE EXPR DESCRIPTION: EXPR (python, over d) is true
	local got
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(bool(eval(sys.argv[2])))' "$1" "$2" 2>&1)
	[[ $got == True ]] && pass "$3" || fail "$3: $2 is $got"
}
types_of() { # types_of REPORT INDEX -> python dict expression of the snapshot's types
	echo "{t['type']: t for t in d['processes'][0]['heap_snapshots'][$2]['types']}"
}

# the exact checks of one snapshot of N sessions (report R, snapshot index I)
check_shape() {
	local r=$1 i=$2 sessions=$3 what=$4
	local T
	T=$(types_of "$r" "$i")
	jexpect "$r" "d['processes'][0]['heap_snapshots'][$i]['walk'] == 'graph'" "$what: the snapshot is of the object graph"
	jexpect "$r" "$T['$NS.Session']['count'] == $sessions" "$what: exactly $sessions Sessions"
	jexpect "$r" "$T['$NS.RingEntry']['count'] == $RING" "$what: exactly the ring's $RING entries live"
	jexpect "$r" "$T['$NS.RingEntry']['retained'] == $RING * ($T['$NS.RingEntry']['bytes'] // $RING + 88)" \
		"$what: each ring entry retains itself and its 64-byte array (88 bytes)"
	jexpect "$r" "$T['$NS.CycleNode']['count'] == 3" "$what: the cycle's three nodes"
	jexpect "$r" "$T['$NS.CycleNode']['retained'] == $T['$NS.CycleNode']['bytes']" \
		"$what: the cycle counted once in its type's retained bytes"
	jexpect "$r" "$T['$NS.Holder']['count'] == 2 and $T['$NS.Shared']['count'] == 1" "$what: two holders, one shared object"
	jexpect "$r" "$T['$NS.Holder']['retained'] == $T['$NS.Holder']['bytes']" \
		"$what: the object held by both holders is retained by neither"
	jexpect "$r" "$T['$NS.Orphan']['count'] == 1" "$what: one orphan"
}

# the paths to one type in the latest snapshot: report --retention TYPE
retention() { # retention SESSION TYPE OUT
	clrscope report --format json --retention "$2" "$1" >"$3" || fail "report --retention $2 failed"
}

run_launched() {
	local s=$WORK/launched
	mkfifo "$WORK/in"
	"$CLRSCOPE_BIN" record -o "$s" -- "${program[@]}" "$N" "$RING" <"$WORK/in" >"$WORK/l.out" 2>&1 &
	local rec=$!
	CHILDREN+=($rec)
	exec 3>"$WORK/in"
	wait_line "$WORK/l.out" "^ready $N" 60 || { fail "$tfm: Graph did not start: $(cat "$WORK/l.out")"; return; }
	expect_status 0 "$tfm: dial snapshot=heap" -- clrscope dial "$s" snapshot=heap
	wait_heap_snapshots 30 "$s" 1 || { fail "$tfm: no snapshot: $(cat "$WORK/l.out")"; return; }
	echo grow >&3
	wait_line "$WORK/l.out" "^grown $((2 * N))" 30 || fail "$tfm: Graph did not grow"
	expect_status 0 "$tfm: a second snapshot" -- clrscope dial "$s" snapshot=heap
	wait_heap_snapshots 30 "$s" 2 || fail "$tfm: no second snapshot"
	local r=$WORK/r.json
	check_shape "$r" 0 "$N" "$tfm, snapshot 1"
	check_shape "$r" 1 "$((2 * N))" "$tfm, snapshot 2"
	# growth: +N Sessions, the app's other types unchanged
	local A B
	A=$(types_of "$r" 0)
	B=$(types_of "$r" 1)
	jexpect "$r" "$B['$NS.Session']['count'] - $A['$NS.Session']['count'] == $N" "$tfm: the list grew by exactly $N Sessions"
	jexpect "$r" "all($B[k]['count'] == $A[k]['count'] and $B[k]['bytes'] == $A[k]['bytes'] for k in $A if k.startswith('$NS.') and k != '$NS.Session')" \
		"$tfm: the app's other types did not change"
	jexpect "$r" "set(k for k in $A if k.startswith('$NS.')) == set(k for k in $B if k.startswith('$NS.'))" \
		"$tfm: no type of the app came or went"
	jexpect "$r" "'$NS.Session' in d['processes'][0]['heap_suspects']['growing_types'] and not any(t.startswith('$NS.') and t != '$NS.Session' for t in d['processes'][0]['heap_suspects']['growing_types'])" \
		"$tfm: of the app's types, Session alone grew in every snapshot"

	# the paths: sessions from their static field, through the list and its array
	retention "$s" Session "$WORK/sessions.json"
	local rs="d['processes'][0]['retention']"
	jexpect "$WORK/sessions.json" "$rs['type'] == '$NS.Session' and $rs['count'] == $((2 * N))" "$tfm: --retention finds Session by its short name"
	jexpect "$WORK/sessions.json" "len($rs['paths']) == 1 and $rs['paths'][0]['count'] == $((2 * N))" \
		"$tfm: all the Sessions are on one path"
	jexpect "$WORK/sessions.json" "$rs['paths'][0]['path'] == ['static $NS.Registry.s_sessions', 'System.Collections.Generic.List\`1<$NS.Session>', '$NS.Session[]', '$NS.Session']" \
		"$tfm: the path from the static field through the list and its array"
	retention "$s" System.Byte[] "$WORK/bytes.json"
	local payload="[p for p in d['processes'][0]['retention']['paths'] if p['path'][-2:] == ['$NS.Session', 'System.Byte[]']][0]"
	jexpect "$WORK/bytes.json" "$payload['count'] == $((2 * N)) and $payload['bytes'] == $((2 * N)) * 1024" \
		"$tfm: each Session's payload is one byte[1000] of 1024 bytes"
	local session_bytes
	session_bytes=$(json "$B['$NS.Session']['bytes']" "$r")
	jexpect "$WORK/sessions.json" "$rs['paths'][0]['retained'] == $session_bytes + $((2 * N)) * 1024 == $rs['retained']" \
		"$tfm: each Session retains its own bytes and its payload's"
	retention "$s" Orphan "$WORK/orphan.json"
	jexpect "$WORK/orphan.json" "[p['path'] for p in d['processes'][0]['retention']['paths']] == [['[finalization queue]', '$NS.Orphan']]" \
		"$tfm: the orphan is held by the finalization queue alone"
	retention "$s" CycleNode "$WORK/cycle.json"
	jexpect "$WORK/cycle.json" "sorted((p['path'][-1], p['count']) for p in d['processes'][0]['retention']['paths']) == [('$NS.CycleNode', 1), ('$NS.CycleNode+', 2)] and all(p['path'][0] == 'static $NS.Cycle.s_head' for p in d['processes'][0]['retention']['paths'])" \
		"$tfm: the cycle hangs from its static field"
	retention "$s" Shared "$WORK/shared.json"
	jexpect "$WORK/shared.json" "[p['path'] for p in d['processes'][0]['retention']['paths']] == [['static $NS.Holders.s_left', '$NS.Holder', '$NS.Shared']]" \
		"$tfm: the shared object's shortest path"

	# the text report says the same
	clrscope report --heap "$s" >"$WORK/heap.txt"
	expect_contains "$(cat "$WORK/heap.txt")" "against snapshot 1" "$tfm: report --heap compares with the snapshot before"
	grep -qE "^ +\+$N +\+[0-9]+ +\+[0-9]+  $NS\.Session\$" "$WORK/heap.txt" &&
		pass "$tfm: report --heap shows the Sessions' growth" || fail "$tfm: report --heap: $(cat "$WORK/heap.txt")"
	exec 3>&-
	wait "$rec" && pass "$tfm: the program ran to its end" || fail "$tfm: record failed: $(cat "$WORK/l.out")"
}

run_attached() {
	mkfifo "$WORK/ain"
	"${program[@]}" "$N" "$RING" <"$WORK/ain" >"$WORK/a.out" 2>&1 &
	local app_pid=$!
	CHILDREN+=($app_pid)
	exec 4>"$WORK/ain"
	wait_line "$WORK/a.out" "^ready $N" 60 || { fail "$tfm: Graph did not start"; return; }
	"$CLRSCOPE_BIN" record --pid "$app_pid" -o "$WORK/attached" >"$WORK/rec.out" 2>&1 &
	local rec=$!
	CHILDREN+=($rec)
	wait_line "$WORK/rec.out" 'attached to pid' 20 || { fail "$tfm: no attach: $(cat "$WORK/rec.out")"; return; }
	expect_status 0 "$tfm: dial snapshot=heap after attaching" -- clrscope dial "$WORK/attached" snapshot=heap
	wait_heap_snapshots 30 "$WORK/attached" 1 || { fail "$tfm: no attached snapshot"; return; }
	check_shape "$WORK/r.json" 0 "$N" "$tfm, attached"
	kill -INT "$rec" 2>/dev/null || true
	wait "$rec" || true
	exec 4>&-
	wait "$app_pid" && pass "$tfm: the program ran on after the detach, to its end" || fail "$tfm: the program failed"
}

# clrscope diff --heap: a session of N sessions against the launched one's
# latest snapshot (2N): +N Sessions, the app's other types unchanged
run_diff() {
	local small=$WORK/small
	"$CLRSCOPE_BIN" record -o "$small" -- "${program[@]}" "$N" "$RING" 20 >"$WORK/s.out" 2>&1 &
	local rec=$!
	CHILDREN+=($rec)
	wait_line "$WORK/s.out" "^ready $N" 60 || { fail "$tfm: Graph did not start: $(cat "$WORK/s.out")"; return; }
	expect_status 0 "$tfm: dial snapshot=heap" -- clrscope dial "$small" snapshot=heap
	wait_heap_snapshots 30 "$small" 1 || { fail "$tfm: no snapshot"; return; }
	kill -INT "$rec" 2>/dev/null || true
	wait "$rec" || true
	expect_status 0 "$tfm: diff --heap as JSON" -- clrscope diff --heap --format json "$small" "$WORK/launched"
	cp "$WORK/out" "$WORK/diff.json"
	local row="{t['type']: t for t in d['types']}"
	jexpect "$WORK/diff.json" "d['base']['seq'] == 1 and d['new']['seq'] == 2" "$tfm: diff --heap compares the latest snapshots"
	jexpect "$WORK/diff.json" "$row['$NS.Session']['base']['count'] == $N and $row['$NS.Session']['new']['count'] == $((2 * N))" \
		"$tfm: diff --heap: $N more Sessions"
	jexpect "$WORK/diff.json" "all(t['base']['count'] == t['new']['count'] and t['base']['bytes'] == t['new']['bytes'] for t in d['types'] if t['type'].startswith('$NS.') and t['type'] != '$NS.Session')" \
		"$tfm: diff --heap: the app's other types' objects unchanged"
	jexpect "$WORK/diff.json" "[p for p in d['paths'] if p['path'].endswith('> $NS.Session')][0]['new']['count'] == $((2 * N))" \
		"$tfm: diff --heap: by path too"
	expect_status 0 "$tfm: diff --heap as text" -- clrscope diff --heap "$small" "$WORK/launched"
	grep -qE "^ +$((2 * N)) +\+$N .* $NS\.Session\$" "$WORK/out" && pass "$tfm: the text says so" || fail "$tfm: diff --heap: $(cat "$WORK/out")"
	expect_status 1 "$tfm: diff --heap of a session without snapshots is refused" -- \
		clrscope diff --heap "$small" "$WORK/no-such"
}

run_launched
if [[ $tfm == net10.0 ]]; then
	run_attached
	run_diff
fi
finish
