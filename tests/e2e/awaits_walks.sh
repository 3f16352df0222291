# Awaits snapshots by every way the agent walks the heap, and on a real
# server.  The Async app's parked chains (park mode: 100, 10 and 10 of
# three shapes) come out the same from the runtime's heap dump in a forced
# GC (the default), from a walk of every object in a runtime suspension
# (.NET 10 with instrumentation, which has no event session), from the
# ObjectReferences walk of a forced GC (--heap-snapshots on .NET 8), with
# the async dial off (the types are learnt all the same), and after an
# attach, where the box types were loaded before the agent: the first walk
# meets them unknown, learns them and walks again.  Then ASP.NET Core
# under a load of 32 keep-alive connections: each connection's chain
# (KestrelConnection.ExecuteAsync -> ... -> ProcessRequests) is pending
# once, as dotnet-dump's dumpasync counts them; and the endpoint's samples
# (SHA-256 in a request delegate that ProcessRequests calls after a resume,
# on a pool thread) name that chain as their logical callers: its state
# machines are generic, over a reference type, so the frame names the
# shared code's type and the box its exact one.
source "$CLRSCOPE_TESTLIB"

# awaits_groups SESSION: the latest snapshot's groups, "count:frame;..." (the
# state machines' names without namespace and number), and its walk
awaits_groups() {
	local i
	for i in $(seq 100); do
		clrscope report --format json "$1" >"$WORK/r.json" 2>/dev/null || true
		if [[ $(json "len(d['processes'][0]['awaits_snapshots'])" "$WORK/r.json" 2>/dev/null) -ge 1 ]]; then
			json "'\n'.join('%d:%s' % (g['count'], ';'.join(__import__('re').sub(r'^.*<(\w+)>d__\d+(\`\d+)?\.MoveNext$', r'\1', f) for f in g['stack'])) for g in d['processes'][0]['awaits'])" "$WORK/r.json"
			return 0
		fi
		sleep 0.1
	done
	echo "no awaits snapshot"
}
walk_of() { json "d['processes'][0]['awaits_snapshots'][-1]['walk']" "$WORK/r.json"; }
tcs='[awaiting System.Threading.Tasks.Task`1<System.Int32>]'
want="100:ParkOuterAsync;ParkMiddleAsync;ParkInnerAsync;$tcs
10:ParkBothAsync;[WhenAll];ParkInnerAsync;$tcs
10:ParkDelayAsync;[awaiting System.Threading.Tasks.Task+DelayPromise]"

# parked LABEL SESSION RECORD-OPTION... -- COMMAND...: records the app in park
# mode, asks for an awaits snapshot once its chains are parked, and checks
# the groups
parked() {
	local label=$1 session=$2
	shift 2
	"$CLRSCOPE_BIN" record -o "$session" "$@" >"$session.out" 2>&1 &
	CHILDREN+=($!)
	if ! wait_line "$session.out" '^parked' 30; then
		fail "$label: the chains were not parked: $(cat "$session.out")"
		return
	fi
	CHILDREN+=($(awk '/^pid / {print $2; exit}' "$session.out"))
	expect_status 0 "$label: dial snapshot=awaits" -- clrscope dial "$session" snapshot=awaits
	expect_eq "$(awaits_groups "$session")" "$want" "$label: the three chains, 100, 10 and 10 of them"
}

parked "suspended walk" "$WORK/instr" --instrument 'Clrscope.TestApps.Program.Kernel' -- dotnet "$(app Async)" 60 park
expect_eq "$(walk_of)" "suspended" "suspended walk: the snapshot says it walked every object in a suspension"
parked "async dial off" "$WORK/off" --async off -- dotnet "$(app Async)" 60 park
net8=$CLRSCOPE_APPS/net8.0/Async/Async
if [[ -x $net8 ]]; then
	parked "gc walk" "$WORK/gcwalk" --heap-snapshots -- "$net8" 60 park
	expect_eq "$(walk_of)" "gc" "gc walk: the snapshot says it walked the live objects of a collection"
else
	skip_part "gc walk: no self-contained .NET 8 Async ($(head -1 "$CLRSCOPE_APPS/net8.0/unavailable" 2>/dev/null || echo "not built"))"
fi

# after an attach
dotnet "$(app Async)" 60 park >"$WORK/app.out" 2>&1 &
CHILDREN+=($!)
if wait_line "$WORK/app.out" '^parked' 30; then
	pid=$(awk '/^pid / {print $2; exit}' "$WORK/app.out")
	CHILDREN+=("$pid")
	"$CLRSCOPE_BIN" record --pid "$pid" -o "$WORK/attached" --duration 20 >"$WORK/attached.out" 2>&1 &
	CHILDREN+=($!)
	wait_line "$WORK/attached.out" 'attached|recording' 20 || sleep 2
	for i in $(seq 50); do
		clrscope dial "$WORK/attached" snapshot=awaits >/dev/null 2>&1 && break
		sleep 0.2
	done
	expect_eq "$(awaits_groups "$WORK/attached")" "$want" "after an attach: the three chains, 100, 10 and 10 of them"
else
	fail "the app to attach to did not park its chains: $(cat "$WORK/app.out")"
fi

# ASP.NET Core under 32 keep-alive connections
port=$((20000 + RANDOM % 20000))
"$CLRSCOPE_BIN" record -o "$WORK/web" -- dotnet "$(app WebHash)" "$port" 20 >"$WORK/web.out" 2>&1 &
CHILDREN+=($!)
if wait_line "$WORK/web.out" '^listening' 30; then
	hey -c 32 -z 6s "http://127.0.0.1:$port/hash?n=16" >"$WORK/hey.out" 2>&1 &
	CHILDREN+=($!)
	sleep 3
	expect_status 0 "web app: dial snapshot=awaits" -- clrscope dial "$WORK/web" snapshot=awaits
	awaits_groups "$WORK/web" >"$WORK/web.groups"
	connections=$(awk -F: '$2 ~ /^ExecuteAsync;ProcessRequestsAsync;ProcessRequestsAsync/ {n += $1} END {print n + 0}' "$WORK/web.groups")
	check "c == 32" "web app: one pending chain per connection, KestrelConnection.ExecuteAsync outermost" c="$connections"
	accept=$(grep -cE '^1:[^;]*AcceptConnectionsAsync[^;]*;AcceptAsync;\[awaiting System\.Net\.Sockets\.Socket\+AwaitableSocketAsyncEventArgs\]$' "$WORK/web.groups" || true)
	check "a == 1" "web app: the accept loop awaits its socket" a="$accept"
	main=$(grep -cE '^1:\[blocking wait\];Program\+<<Main>\$>d__0\.MoveNext;RunAsync;WaitForShutdownAsync;' "$WORK/web.groups" || true)
	check "m == 1" "web app: Main's chain, which a thread waits for, under [blocking wait]" m="$main"
	[[ $connections == 32 && $accept == 1 && $main == 1 ]] || echo "web app's groups: $(head -c 2000 "$WORK/web.groups")" >&2
	wait "${CHILDREN[-1]}" 2>/dev/null || true
	clrscope report --format collapsed "$WORK/web" >"$WORK/web.folded"
	read -r chained hashed < <(python3 - "$WORK/web.folded" <<'PY'
import re, sys
chained = hashed = 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    if "HashData" not in stack:
        continue
    hashed += int(n)
    names = [re.sub(r"^.*<(\w+)>d__\d+(`\d+)?\.MoveNext$", r"\1", f) for f in stack.split(";")]
    if names[:5] == ["ExecuteAsync", "ProcessRequestsAsync", "ProcessRequestsAsync", "[await]", "ProcessRequests"]:
        chained += int(n)
print(chained, hashed)
PY
)
	check "h > 50 and c >= 0.9 * h" \
		"web app: the endpoint's samples under ExecuteAsync;ProcessRequestsAsync;ProcessRequestsAsync;[await];ProcessRequests" \
		c="$chained" h="$hashed"
else
	fail "WebHash did not start: $(cat "$WORK/web.out")"
fi
finish
