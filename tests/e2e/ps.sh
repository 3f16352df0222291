# clrscope ps lists the user's running .NET processes with their runtime,
# whether clrscope could attach and why not; --pid explains a process that
# is not one of them.
source "$CLRSCOPE_TESTLIB"
dll=$(app Spin)

# start_spin OUT [VAR=VALUE...]: starts Spin in the background and prints
# its pid once it has said "pid N".
start_spin() {
	local out=$1
	shift
	env "$@" dotnet "$dll" >"$out" 2>&1 &
	CHILDREN+=($!)
	for _ in $(seq 1 150); do
		if grep -q '^pid ' "$out"; then
			awk '/^pid / {print $2; exit}' "$out"
			return 0
		fi
		sleep 0.1
	done
	echo "Spin did not start: $(cat "$out")" >&2
	return 1
}

pid=$(start_spin "$WORK/spin.out")
off=$(start_spin "$WORK/off.out" DOTNET_EnableDiagnostics=0)

expect_status 0 "ps lists processes" -- clrscope ps
row=$(awk -v p="$pid" '$1 == p' <<<"$OUT")
[[ -n "$row" ]] && pass "ps lists Spin ($pid)" || fail "ps does not list Spin ($pid): $OUT"
expect_contains "$(head -1 <<<"$OUT")" "PID  RUNTIME" "the table has a header"
read -r _ runtime attach _ <<<"$row"
[[ "$runtime" == 10.* ]] && pass "runtime $runtime" || fail "runtime of $pid is '$runtime', wanted 10.x: $row"
[[ "$attach" == yes ]] && pass "attach yes" || fail "attach of $pid is '$attach', wanted yes: $row"
expect_contains "$row" "dotnet $dll" "the command line is shown"
offrow=$(awk -v p="$off" '$1 == p' <<<"$OUT")
if [[ -z "$offrow" ]]; then
	pass "the process with diagnostics off is not listed"
else
	expect_contains "$offrow" "no: diagnostics turned off (DOTNET_EnableDiagnostics=0)" \
		"the process with diagnostics off says why it cannot be attached"
fi

clrscope ps --json >"$WORK/ps.json"
check "n == 1" "ps --json has Spin once" n="$(json "len([p for p in d if p['pid'] == $pid])" "$WORK/ps.json")"
check "ok == 1" "its fields" ok="$(json "int(any(p['pid'] == $pid and p['runtime'].startswith('10.') and p['attach'] is True and p['reason'] is None and p['profiled'] is False and p['command'].endswith('Spin.dll') for p in d))" "$WORK/ps.json")"
check "ok == 1" "the process with diagnostics off is absent or not attachable" \
	ok="$(json "int(all(p['attach'] is False and 'EnableDiagnostics=0' in p['reason'] for p in d if p['pid'] == $off))" "$WORK/ps.json")"

expect_status 0 "ps --pid on Spin" -- clrscope ps --pid "$pid"
expect_contains "$OUT" "entry point: Spin" "the runtime named the entry assembly"
expect_contains "$OUT" "attach:      yes" "--pid says it can attach"
expect_contains "$OUT" "dotnet-diagnostic-$pid-" "--pid shows the socket"
clrscope ps --pid "$pid" --json >"$WORK/one.json"
check "ok == 1" "ps --pid --json" ok="$(json "int(d['pid'] == $pid and d['arch'] in ('x64', 'arm64') and d['os'] == 'Linux')" "$WORK/one.json")"
expect_status 0 "ps --pid on the process with diagnostics off" -- clrscope ps --pid "$off"
expect_contains "$OUT" "diagnostics turned off (DOTNET_EnableDiagnostics=0)" "--pid says diagnostics are off"

# processes that are not .NET processes of ours
sleep 30 &
sleeper=$!
CHILDREN+=("$sleeper")
expect_status 1 "ps --pid on sleep" -- clrscope ps --pid "$sleeper"
expect_contains "$ERR" "process $sleeper (sleep) is not a .NET program" "sleep is not a .NET program"
kill "$sleeper"
wait "$sleeper" 2>/dev/null || true
expect_status 1 "ps --pid on a process that is gone" -- clrscope ps --pid "$sleeper"
expect_contains "$ERR" "no process $sleeper is running" "a missing process is named as such"
expect_status 2 "ps --pid with a bad pid" -- clrscope ps --pid abc
expect_status 2 "ps with an argument" -- clrscope ps extra

kill "$pid" "$off"
for _ in $(seq 1 50); do
	kill -0 "$pid" 2>/dev/null || kill -0 "$off" 2>/dev/null || break
	sleep 0.1
done
expect_status 0 "ps after the apps exited" -- clrscope ps
[[ -z "$(awk -v p="$pid" '$1 == p' <<<"$OUT")" ]] && pass "Spin is gone from ps" || fail "Spin still listed: $OUT"
finish
