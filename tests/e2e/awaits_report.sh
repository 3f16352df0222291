# The awaits snapshot in the report: the Async app parks 120 async chains
# of three known shapes (park mode); before a snapshot, report --awaits
# fails and says how to take one; after 'dial snapshot=awaits' the JSON
# report's awaits holds exactly the three groups, biggest first, with
# their frames outermost first down to what the innermost method awaits
# ([awaiting TYPE]: the never-completed TCS's task, Task.Delay's promise)
# and their counts (100, 10, 10), and
# awaits_snapshots the snapshot's totals; report --awaits lists the same;
# a second snapshot is kept beside the first and becomes the latest.  The
# same chains on .NET 8 and 9 (the self-contained copies of the app).
source "$CLRSCOPE_TESTLIB"

park() { # park SESSION COMMAND...: records COMMAND (the app in park mode) until its chains are parked
	local session=$1
	shift
	"$CLRSCOPE_BIN" record -o "$session" -- "$@" >"$session.out" 2>&1 &
	CHILDREN+=($!)
	wait_line "$session.out" '^parked' 30 || fail "$*: the chains were not parked: $(cat "$session.out")"
	CHILDREN+=($(awk '/^pid / {print $2; exit}' "$session.out")) # the program itself, which spins until its end
}
park "$WORK/s" dotnet "$(app Async)" 60 park

expect_status 1 "report --awaits before any snapshot fails" -- clrscope report --awaits "$WORK/s"
expect_contains "$ERR" "has no awaits snapshot; take one with: clrscope dial $WORK/s snapshot=awaits" \
	"... and says how to take one"

# wait_awaits N [SESSION]: until the report has N awaits snapshots (its JSON in $WORK/r.json)
wait_awaits() {
	local i
	for i in $(seq 100); do
		clrscope report --format json "${2:-$WORK/s}" >"$WORK/r.json" 2>/dev/null || true
		[[ $(json "len(d['processes'][0]['awaits_snapshots'])" "$WORK/r.json" 2>/dev/null) -ge $1 ]] && return 0
		sleep 0.1
	done
	return 1
}

# The groups as "count:frame;frame;..." lines, the state machines' names
# without their namespace and number (Program+<ParkOuterAsync>d__12.MoveNext
# is ParkOuterAsync).
groups() { # groups PYTHON-EXPR-OF-A-GROUP-LIST
	json "'\n'.join('%d:%s' % (g['count'], ';'.join(__import__('re').sub(r'^Clrscope\.TestApps\.Program\+<(\w+)>d__\d+\.MoveNext$', r'\1', f) for f in g['stack'])) for g in $1)" "$WORK/r.json"
}
tcs='[awaiting System.Threading.Tasks.Task`1<System.Int32>]'
want="100:ParkOuterAsync;ParkMiddleAsync;ParkInnerAsync;$tcs
10:ParkBothAsync;[WhenAll];ParkInnerAsync;$tcs
10:ParkDelayAsync;[awaiting System.Threading.Tasks.Task+DelayPromise]"

expect_status 0 "dial snapshot=awaits" -- clrscope dial "$WORK/s" snapshot=awaits
wait_awaits 1 && pass "the awaits snapshot arrived" || fail "no awaits snapshot: $(head -c 600 "$WORK/r.json")"
expect_eq "$(groups "d['processes'][0]['awaits']")" "$want" \
	"awaits: the three chains outermost first, 100, 10 and 10 of them, biggest first"
snap="d['processes'][0]['awaits_snapshots'][0]"
expect_eq "$(json "[$snap[k] for k in ('seq', 'chains', 'suspended', 'unresolved', 'lost')]" "$WORK/r.json")" \
	"[1, 120, 325, 0, 0]" "awaits_snapshots: snapshot 1 of 120 chains, 325 methods suspended, none unresolved or lost"
check "p > 0" "the snapshot says how long the program stood still" p="$(json "$snap['pause_ms']" "$WORK/r.json")"
expect_eq "$(groups "$snap['groups']")" "$want" "awaits_snapshots: the same groups"

expect_status 0 "report --awaits" -- clrscope report --awaits "$WORK/s"
expect_contains "$OUT" "awaits snapshot 1 at " "report --awaits names the snapshot"
expect_contains "$OUT" ": 120 chains pending in 3 groups, 325 async methods suspended, 0 unresolved; paused " \
	"... with its totals"
# each group: its count, then its frames one per line, outermost first
listed=$(sed -E 's/Clrscope\.TestApps\.Program\+<(\w+)>d__[0-9]+\.MoveNext/\1/' <<<"$OUT" | awk '
	/^ +[0-9]+  [^ ]/ {if (line) print line; n = $1; sub(/^ +[0-9]+  /, ""); line = n ":" $0; next}
	line && /^ +[^ 0-9]/ {sub(/^ +/, ""); line = line ";" $0}
	END {if (line) print line}')
expect_eq "$listed" "$want" "report --awaits lists the three groups, biggest first, frames outermost first"
expect_status 0 "report --awaits --top 1" -- clrscope report --awaits --top 1 "$WORK/s"
expect_contains "$OUT" "(2 more groups; --top N shows more)" "--top limits the groups listed"

expect_status 0 "a second snapshot" -- clrscope dial "$WORK/s" snapshot=awaits
wait_awaits 2 && pass "the second snapshot arrived" || fail "no second snapshot"
expect_eq "$(json "[s['seq'] for s in d['processes'][0]['awaits_snapshots']]" "$WORK/r.json")" "[1, 2]" \
	"both snapshots are kept, in order"
expect_eq "$(groups "d['processes'][0]['awaits']")" "$want" "the latest has the same chains"
expect_eq "$(json "d['processes'][0]['log']['bad_records']" "$WORK/r.json")" "0" "every record read"

for tfm in net8.0 net9.0; do
	apps=$CLRSCOPE_APPS/$tfm
	if [[ ! -x "$apps/Async/Async" ]]; then
		skip_part "$tfm: no self-contained Async ($(head -1 "$apps/unavailable" 2>/dev/null || echo "not built"))"
		continue
	fi
	park "$WORK/$tfm" "$apps/Async/Async" 60 park
	expect_status 0 "$tfm: dial snapshot=awaits" -- clrscope dial "$WORK/$tfm" snapshot=awaits
	wait_awaits 1 "$WORK/$tfm" && pass "$tfm: the awaits snapshot arrived" || fail "$tfm: no awaits snapshot"
	expect_eq "$(groups "d['processes'][0]['awaits']")" "$want" "$tfm: the three chains, 100, 10 and 10 of them"
	expect_eq "$(json "[$snap[k] for k in ('chains', 'suspended', 'unresolved', 'lost')]" "$WORK/r.json")" \
		"[120, 325, 0, 0]" "$tfm: 120 chains, 325 methods suspended, none unresolved or lost"
done
finish
