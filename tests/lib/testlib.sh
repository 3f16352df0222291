# Shared by the end-to-end tests: paths, temporary directories, assertions.
# Each test is a bash script run by ctest with CLRSCOPE_BIN, CLRSCOPE_APPS and
# CLRSCOPE_AGENT_LIB set (tests/CMakeLists.txt).
set -euo pipefail

: "${CLRSCOPE_BIN:?run through ctest}"
: "${CLRSCOPE_APPS:?run through ctest}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
unset CLRSCOPE_AGENT CLRSCOPE_AGENT_LOG DOTNET_EnableDiagnostics || true
# reports look for debug files here only: no debuginfod server of the
# machine's (e2e.debuginfod runs its own), no symbol directory of the user's
unset DEBUGINFOD_URLS CLRSCOPE_SYMBOLS || true

TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "/tmp/clrscope-e2e-$TEST_NAME-XXXXXX")
CHILDREN=()
cleanup() {
	for pid in "${CHILDREN[@]:-}"; do
		[[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

FAILURES=0
SKIPPED=()
fail() {
	echo "FAIL [$TEST_NAME]: $*" >&2
	FAILURES=$((FAILURES + 1))
}
pass() {
	echo "ok - $*"
}
# A test that cannot run here calls skip; one that can run only some of its
# checks runs those and calls skip_part for each of the others.  Either way
# it ends with status 77, which ctest reports as skipped (SKIP_RETURN_CODE
# in tests/CMakeLists.txt), so the suite says what it did not check; a
# failed check still ends it with status 1.
SKIP_STATUS=77
skip() { # skip REASON: the rest of this test cannot run here
	((FAILURES)) && finish
	echo "$TEST_NAME: skipped: $*"
	exit "$SKIP_STATUS"
}
skip_part() { # skip_part REASON: some of this test's checks cannot run here
	SKIPPED+=("$*")
	echo "skip - $*"
}
finish() {
	if ((FAILURES)); then
		echo "$TEST_NAME: $FAILURES check(s) failed" >&2
		exit 1
	fi
	if ((${#SKIPPED[@]})); then
		echo "$TEST_NAME: the checks that ran passed; skipped, as they cannot run here:"
		printf '  - %s\n' "${SKIPPED[@]}"
		exit "$SKIP_STATUS"
	fi
	echo "$TEST_NAME: all checks passed"
	exit 0
}

# kernel_samples_here: true where the kernel samples this user's threads
# (kernel.perf_event_paranoid 2 or less, or root), as the kernel sampler
# needs; KERNEL_SAMPLES_WHY says why not
KERNEL_SAMPLES_WHY="the kernel does not sample this user's threads (kernel.perf_event_paranoid above 2, not root)"
kernel_samples_here() {
	(($(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3) <= 2)) || [[ $(id -u) == 0 ]]
}

app() { # app NAME -> path of its dll
	local dll="$CLRSCOPE_APPS/$1/$1.dll"
	[[ -f "$dll" ]] || { echo "missing test app $dll: run scripts/test.sh (it builds tests/apps)" >&2; exit 1; }
	echo "$dll"
}

clrscope() { "$CLRSCOPE_BIN" "$@"; }

# expect_status WANT DESCRIPTION -- COMMAND...: runs COMMAND, keeps its
# stdout/stderr in $OUT/$ERR, checks the exit status. The files are
# $WORK/out and $WORK/err: a program left running in the background must
# write elsewhere, or its output lands in the middle of the next answer.
expect_status() {
	local want=$1 what=$2
	shift 3
	local rc=0
	"$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
	if [[ "$rc" == "$want" ]]; then
		pass "$what (exit $rc)"
	else
		fail "$what: exit $rc, wanted $want; stderr: $ERR"
	fi
}

expect_contains() { # expect_contains HAYSTACK NEEDLE DESCRIPTION
	if [[ "$1" == *"$2"* ]]; then
		pass "$3"
	else
		fail "$3: '$2' not found in: $1"
	fi
}

expect_not_contains() { # expect_not_contains HAYSTACK NEEDLE DESCRIPTION
	if [[ "$1" != *"$2"* ]]; then
		pass "$3"
	else
		fail "$3: '$2' found in: $1"
	fi
}

expect_eq() { # expect_eq ACTUAL EXPECTED DESCRIPTION
	if [[ "$1" == "$2" ]]; then
		pass "$3"
	else
		fail "$3: got '$1', expected '$2'"
	fi
}

# json EXPR FILE: evaluates a Python expression over the parsed JSON in d.
json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}

# expect_whole_log JSON WHAT: a report (JSON) of a log that ended read
# every record and every sample the agent says it wrote (its last STATUS)
expect_whole_log() {
	local lost # (pid, bad records, skipped bytes, samples missing) of each process that lost some
	lost=$(json "[(p['pid'], p['log']['bad_records'], p['log']['skipped_bytes'], p['agent']['samples'] - p['wall_samples'])
		for p in d['processes'] if p['ended'] and (p['log']['bad_records'] or p['log']['skipped_bytes']
		or p['agent']['samples'] != p['wall_samples'])]" "$1")
	expect_eq "$lost" "[]" "$2: every record read, every sample the agent wrote counted"
}

# check EXPR DESCRIPTION: a Python boolean expression over the variables
# given as NAME=VALUE after it.
check() {
	local expr=$1 what=$2
	shift 2
	if python3 -c 'import sys; env={k:float(v) for k,v in (a.split("=",1) for a in sys.argv[2:])}; sys.exit(0 if eval(sys.argv[1],{},env) else 1)' "$expr" "$@"; then
		pass "$what ($*)"
	else
		fail "$what: $expr is false for $*"
	fi
}

# wait_line FILE REGEX SECONDS: until a line of FILE matches REGEX; false
# when the time is up.
wait_line() {
	local deadline=$((SECONDS + $3))
	until grep -qE -- "$2" "$1" 2>/dev/null; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

# with_agent SESSION COMMAND...: runs COMMAND with the agent loaded at
# startup and writing into SESSION, set up the way clrscope record does it
# (for the tests that hand the agent what clrscope would refuse).
# wait_heap_snapshots SECONDS SESSION N: until SESSION's report has N
# complete heap snapshots (its JSON left in $WORK/r.json); 1 after SECONDS.
wait_heap_snapshots() {
	local i
	for i in $(seq $(($1 * 10))); do
		clrscope report --format json "$2" >"$WORK/r.json" 2>/dev/null || true
		[[ $(json "sum(1 for s in d['processes'][0]['heap_snapshots'] if s['complete'])" "$WORK/r.json" 2>/dev/null) -ge $3 ]] && return 0
		sleep 0.1
	done
	return 1
}

with_agent() {
	local session=$1
	shift
	env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{BC8604E2-7E73-4C7E-B410-5D3E412990D8}' \
		CORECLR_PROFILER_PATH="$CLRSCOPE_AGENT_LIB" CLRSCOPE_SESSION_DIR="$session" "$@"
}

# expect_spin_output FILE DESCRIPTION: Spin's output is whole: its pid, then
# ticks 1, 2, 3 ... without a gap, and "bye" (it was sent SIGTERM).
expect_spin_output() {
	if awk '/^pid / && NR == 1 {next} /^tick / && !bye && $2 == n + 1 {n++; next} /^bye$/ && !bye {bye = 1; next}
		{bad = 1; exit} END {exit bad || !bye || !n}' "$1"; then
		pass "$2 ($(grep -c '^tick' "$1") ticks, then bye)"
	else
		fail "$2: $(head -c 400 "$1")"
	fi
}

# expect_attach_round PID SESSION WHAT RUNTIME MIN: attaches to Spin (PID)
# for 1.5 s at 300 Hz, recording into SESSION, and detaches: the session
# was loaded by attach and ended detached, every record read, with more
# than MIN samples, the busy loop among its hottest functions and a runtime
# that matches the regex RUNTIME; the program runs on.  WHAT starts each
# check's description.
expect_attach_round() {
	local pid=$1 session=$2 what=$3 runtime=$4 min=$5 p='d["processes"][0]' named
	expect_status 0 "$what: attach" -- clrscope record --pid "$pid" -o "$session" --duration 1.5 --rate 300
	expect_contains "$ERR" "detached from pid $pid; it keeps running" "$what: detached"
	clrscope report --format json "$session" >"$session.json"
	check "s > $min" "$what: has samples" s="$(json "$p['samples']" "$session.json")"
	expect_whole_log "$session.json" "$what"
	expect_eq "$(json "$p['loaded'] + ' ' + str($p['detached'])" "$session.json")" "attach True" \
		"$what: loaded by attach, ended detached"
	named=$(json "$p['runtime']" "$session.json")
	[[ $named =~ $runtime ]] && pass "$what: names the runtime ($named)" || fail "$what: runtime '$named', wanted $runtime"
	# (samples land at safe points too, so the leaf varies between
	# SpinInner and its callers)
	expect_contains "$(json "[f['name'] for f in $p['functions'] if f['total'] > 0.3 * $p['samples']]" "$session.json")" \
		"Clrscope.TestApps.Program.Loop" "$what: sees the busy loop"
	kill -0 "$pid" 2>/dev/null && pass "$what: the program runs on" || fail "$what: the program died"
}

# fails_when_killed CLIENT TARGET ERRFILE WHAT MESSAGE: CLIENT (a pid) waits
# on the stopped TARGET; once TARGET is killed, CLIENT must end within 3 s
# with status 1 and MESSAGE in ERRFILE.  WHAT names CLIENT in the results.
fails_when_killed() {
	local client=$1 target=$2 errfile=$3 what=$4 message=$5 started rc=0
	sleep 1
	kill -0 "$client" && pass "$what waits on the stopped target" || fail "$what ended early: $(cat "$errfile")"
	started=$SECONDS
	kill -9 "$target"
	wait "$client" || rc=$?
	check "rc == 1 and took <= 3" "$what fails at once when the target is killed" rc="$rc" took=$((SECONDS - started))
	expect_contains "$(cat "$errfile")" "$message" "and says the target exited"
}
