# The diagnostics IPC client against real runtimes (through the test_ipc
# helper): ProcessInfo2, AttachProfiler's refusals, ResumeRuntime on a
# runtime paused at startup, a "connect" diagnostic port, and the runtime's
# handling of DOTNET_DiagnosticPorts=PATH,listen (ignored).
source "$CLRSCOPE_TESTLIB"
dll=$(app Spin)
tool="${CLRSCOPE_TEST_TOOLS:-$(dirname "$CLRSCOPE_BIN")/../tests}/test_ipc"
[[ -x "$tool" ]] || { echo "missing $tool: build the tests" >&2; exit 1; }

wait_for() { # wait_for FILE REGEX SECONDS
	for _ in $(seq 1 $(($3 * 10))); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# a running process
dotnet "$dll" >"$WORK/spin.out" 2>&1 &
pid=$!
CHILDREN+=("$pid")
wait_for "$WORK/spin.out" '^pid ' 15 || fail "Spin did not start"
out=$("$tool" info "$pid")
expect_contains "$out" "rc=0 version=2 pid=$pid clr=10." "ProcessInfo2 names the runtime"
expect_contains "$out" "entry=Spin" "and the entry assembly"
out=$("$tool" attach "$pid" "$WORK/no-such-profiler.so")
expect_contains "$out" "hr=0x8007007E" "attaching a missing library: ERROR_MOD_NOT_FOUND"
expect_contains "$out" "could not load the profiler library at that path" "in words"
wait_for "$WORK/spin.out" '^tick' 10 && kill -0 "$pid" && pass "the target lives on" || fail "the target died"

# not .NET, not there
sleep 30 &
sleeper=$!
CHILDREN+=("$sleeper")
# the forked shell becomes sleep only once it has exec'd
for _ in $(seq 50); do [[ $(cat /proc/$sleeper/comm 2>/dev/null) == sleep ]] && break; sleep 0.05; done
out=$("$tool" attach "$sleeper" /x.so)
expect_contains "$out" "rc=-3" "attach to sleep: not .NET"
expect_contains "$out" "process $sleeper (sleep) is not a .NET program" "in words"
kill "$sleeper"
wait "$sleeper" 2>/dev/null || true
out=$("$tool" info "$sleeper")
expect_contains "$out" "rc=-1" "ProcessInfo of a process that is gone"
expect_contains "$out" "no process $sleeper is running" "in words"

# a process that clrscope records already has a profiler
clrscope record -o "$WORK/rec" -- dotnet "$dll" >"$WORK/rec.out" 2>&1 &
CHILDREN+=($!)
wait_for "$WORK/rec.out" '^pid ' 15 || fail "recorded Spin did not start"
recpid=$(awk '/^pid / {print $2; exit}' "$WORK/rec.out")
CHILDREN+=("$recpid")
# "profiled" means the agent holds a log segment open: wait for its first write
for _ in $(seq 50); do compgen -G "$WORK/rec/*/seg-*.clog" >/dev/null && break; sleep 0.1; done
out=$("$tool" attach "$recpid" "$CLRSCOPE_AGENT_LIB")
expect_contains "$out" "hr=0x8013136A" "attaching to a profiled process: CORPROF_E_PROFILER_ALREADY_ACTIVE"
expect_contains "$out" "a profiler is already loaded in that process" "in words"
expect_status 0 "ps --pid on the recorded process" -- clrscope ps --pid "$recpid"
expect_contains "$OUT" "attach:      no: clrscope is profiling it" "ps says clrscope profiles it"
expect_contains "$OUT" "profiled:    yes" "and that it is profiled"
kill "$recpid"

# paused at startup on its default socket, then resumed
DOTNET_DefaultDiagnosticPortSuspend=1 dotnet "$dll" >"$WORK/paused.out" 2>&1 &
paused=$!
CHILDREN+=("$paused")
for _ in $(seq 1 100); do
	out=$("$tool" info "$paused")
	[[ "$out" == rc=0* ]] && break
	sleep 0.1
done
expect_contains "$out" "rc=0" "a paused runtime answers ProcessInfo2"
sleep 1
! grep -q '^pid ' "$WORK/paused.out" && pass "it is paused: no output yet" || fail "it was not paused: $(cat "$WORK/paused.out")"
out=$("$tool" attach "$paused" "$WORK/no-such-profiler.so")
expect_contains "$out" "hr=0x8013135B" "attach while paused: CORPROF_E_NOT_YET_AVAILABLE"
out=$("$tool" resume "$paused")
expect_contains "$out" "rc=0" "ResumeRuntime on its default socket"
wait_for "$WORK/paused.out" '^tick' 15 && pass "it runs after ResumeRuntime" || fail "still paused: $(cat "$WORK/paused.out")"
kill "$paused"

# a connect port: the runtime dials our socket, waits, and runs once resumed
"$tool" port "$WORK/port.sock" >"$WORK/port.out" 2>&1 &
CHILDREN+=($!)
wait_for "$WORK/port.out" '^listening' 10 || fail "test_ipc port did not listen: $(cat "$WORK/port.out")"
DOTNET_DiagnosticPorts="$WORK/port.sock" dotnet "$dll" >"$WORK/dialer.out" 2>&1 &
dialer=$!
CHILDREN+=("$dialer")
wait_for "$WORK/port.out" '^(resumed|rc=-)' 20 || fail "no resume: $(cat "$WORK/port.out")"
expect_contains "$(cat "$WORK/port.out")" "advertised pid $dialer" "the runtime advertises its pid on the port"
expect_contains "$(cat "$WORK/port.out")" "resumed" "ResumeRuntime on the port"
wait_for "$WORK/dialer.out" '^tick' 15 && pass "it runs after ResumeRuntime" || fail "still paused: $(cat "$WORK/dialer.out")"
kill "$dialer"

# "listen" ports are ignored by the runtime: no socket at PATH, no pause
DOTNET_DiagnosticPorts="$WORK/listen.sock,listen,suspend" dotnet "$dll" >"$WORK/listen.out" 2>&1 &
listener=$!
CHILDREN+=("$listener")
wait_for "$WORK/listen.out" '^tick' 15 && pass "a listen,suspend port does not pause the runtime" ||
	fail "it paused: $(cat "$WORK/listen.out")"
[[ ! -e "$WORK/listen.sock" ]] && pass "and makes no socket at its path" || fail "$WORK/listen.sock exists"
kill "$listener" "$pid"

# another mount namespace with a private /tmp, and another pid namespace:
# the socket is reached through /proc/PID/root and named with the pid the
# target sees; a profiler path that exists only on our side is not found
if unshare -m --propagation private true 2>/dev/null; then
	# The target's TMPDIR is a tmpfs that only its namespace sees (the
	# directory looks empty from here); the agent copy we put there first
	# is hidden from the target by that mount.
	private="$WORK/private"
	mkdir -p "$private"
	cp "$CLRSCOPE_AGENT_LIB" "$private/agent-copy.so"
	unshare -m --propagation private sh -c 'mount -t tmpfs none "$1" && shift && TMPDIR="$0" exec "$@"' \
		"$private" "$private" dotnet "$dll" >"$WORK/ns.out" 2>&1 &
	CHILDREN+=($!)
	wait_for "$WORK/ns.out" '^pid ' 15 || fail "Spin in a mount namespace did not start: $(cat "$WORK/ns.out")"
	nspid=$(awk '/^pid / {print $2; exit}' "$WORK/ns.out")
	CHILDREN+=("$nspid")
	expect_status 0 "ps --pid in another mount namespace" -- clrscope ps --pid "$nspid"
	expect_contains "$OUT" "socket:      /proc/$nspid/root$private/dotnet-diagnostic-$nspid-" "reached through /proc/PID/root"
	out=$("$tool" attach "$nspid" "$private/agent-copy.so")
	expect_contains "$out" "hr=0x8007007E" "a profiler path missing in the target's namespace: ERROR_MOD_NOT_FOUND"
	kill "$nspid"
else
	skip_part "another mount namespace: unshare -m fails here"
fi
if unshare -p -f --mount-proc true 2>/dev/null; then
	unshare -p -f --mount-proc sh -c 'exec "$@"' sh dotnet "$dll" >"$WORK/pidns.out" 2>&1 &
	CHILDREN+=($!)
	wait_for "$WORK/pidns.out" '^pid 1$' 15 || fail "Spin in a pid namespace did not start as pid 1: $(cat "$WORK/pidns.out")"
	inner=""
	for p in $(pgrep -f "^dotnet $dll\$" || true); do
		grep -qE '^NSpid:[[:space:]]+[0-9]+[[:space:]]+1$' "/proc/$p/status" 2>/dev/null && inner=$p
	done
	CHILDREN+=("$inner")
	out=$("$tool" info "$inner")
	expect_contains "$out" "rc=0 version=2 pid=1 " "ProcessInfo2 in a pid namespace (the runtime says pid 1)"
	expect_status 0 "ps --pid in a pid namespace" -- clrscope ps --pid "$inner"
	expect_contains "$OUT" "dotnet-diagnostic-1-" "the socket is named with the inner pid"
	kill "$inner"
else
	skip_part "another pid namespace: unshare -p fails here"
fi
finish
