# Diagnostics sockets are trusted only when they are the target's own:
# owned by the target's owner and served by the target itself (SO_PEERCRED).
# Another user can make dotnet-diagnostic-PID-KEY-socket names in /tmp for
# any of our processes; such a socket never makes a process look like .NET,
# never stalls ps, and never receives a command (an AttachProfiler would
# hand it the session path).  What a socket says, and what a profiled
# program writes about itself into its session, is masked before printing.
source "$CLRSCOPE_TESTLIB"
fake=$(dirname "$CLRSCOPE_TESTLIB")/fakeruntime.py
[[ $(id -u) == 0 ]] || skip "needs root (to make a throwaway user)"
user=clrscope-t$$
useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
PLANTED=()
cleanup_user() {
	for p in "${PLANTED[@]:-}"; do [[ -n "$p" ]] && rm -f "$p"; done
	pkill -9 -u "$user" 2>/dev/null || true
	for _ in $(seq 50); do pgrep -u "$user" >/dev/null || break; sleep 0.05; done # userdel refuses a user with processes
	userdel "$user" 2>/dev/null || true
}
trap 'cleanup_user; cleanup' EXIT
mkdir -m 0777 "$WORK/foreign"
chmod 0711 "$WORK"

# plant MODE NAME LOG [as USER]: a fake socket at /tmp/NAME; waits until it listens.
plant() {
	local mode=$1 name=$2 log=$3 who=${4:-}
	local out=$WORK/foreign/$RANDOM.out
	if [[ -n "$who" ]]; then
		runuser -u "$who" -- /usr/bin/python3 "$fake" "$mode" "/tmp/$name" "$log" >"$out" 2>&1 &
	else
		/usr/bin/python3 "$fake" "$mode" "/tmp/$name" "$log" >"$out" 2>&1 &
	fi
	CHILDREN+=($!)
	wait_line "$out" '^ready' 10 || { fail "the fake socket did not start: $(cat "$out")"; return 1; }
	PLANTED+=("$(awk '/^ready/ {print $2}' "$out")")
	FAKE_PID=$!
}

# elapsed COMMAND...: runs it like expect_status 0 and sets MS to its run time.
elapsed() {
	local t0 t1
	t0=$(date +%s%N)
	expect_status "$@"
	t1=$(date +%s%N)
	MS=$(((t1 - t0) / 1000000))
}

# ---- a plain process of ours with another user's socket in its name ----
sleep 60 &
sleeper=$!
CHILDREN+=("$sleeper")
log=$WORK/foreign/sleeper.log
touch "$log" && chmod 0666 "$log"
plant silent "dotnet-diagnostic-$sleeper-1-socket" "$log" "$user"
[[ $(stat -c %U "/tmp/dotnet-diagnostic-$sleeper-1-socket") == "$user" ]] && pass "the planted socket is $user's" ||
	fail "the planted socket is not $user's"
elapsed 0 "ps with a planted socket" -- clrscope ps
[[ -z "$(awk -v p="$sleeper" '$1 == p' <<<"$OUT")" ]] && pass "sleep is not listed as a .NET process" ||
	fail "sleep listed: $OUT"
check "ms < 1000" "ps answers within a second" ms="$MS"
elapsed 1 "ps --pid on sleep" -- clrscope ps --pid "$sleeper"
expect_contains "$ERR" "is not a .NET program" "sleep is not a .NET program"
expect_contains "$ERR" "1 socket of that name owned by another user ignored" "the planted socket is named as ignored"
check "ms < 1000" "ps --pid answers within a second" ms="$MS"
[[ ! -s "$log" ]] && pass "the planted socket received nothing" || fail "the planted socket got $(wc -c <"$log") bytes"

# ---- a .NET process whose own socket is gone, with planted ones in its place ----
dotnet "$(app Spin)" 60 >"$WORK/spin.out" 2>&1 &
spin=$!
CHILDREN+=("$spin")
wait_line "$WORK/spin.out" '^pid ' 20 || fail "Spin did not start"
for _ in $(seq 1 50); do compgen -G "/tmp/dotnet-diagnostic-$spin-*-socket" >/dev/null && break; sleep 0.1; done
rm -f /tmp/dotnet-diagnostic-"$spin"-*-socket # as a /tmp cleaner would
log=$WORK/foreign/spin.log
touch "$log" && chmod 0666 "$log"
plant silent "dotnet-diagnostic-$spin-99-socket" "$log" "$user" # newer than the process: the old "newest" pick
elapsed 0 "ps --pid on Spin" -- clrscope ps --pid "$spin"
expect_contains "$OUT" "attach:      no: no diagnostics socket" "Spin has no socket of its own"
expect_contains "$OUT" "owned by another user ignored" "the planted one is ignored"
check "ms < 1000" "ps --pid answers within a second" ms="$MS"
expect_status 1 "record --pid with only a planted socket" -- clrscope record --pid "$spin" --duration 1 -o "$WORK/s1"
expect_contains "$ERR" "owned by another user ignored" "record --pid says why"
[[ ! -s "$log" ]] && pass "AttachProfiler never reached the planted socket" || fail "the planted socket got $(wc -c <"$log") bytes"
rm -f "/tmp/dotnet-diagnostic-$spin-99-socket"

# a socket of the right owner served by another process of that owner
log=$WORK/foreign/peer.log
plant silent "dotnet-diagnostic-$spin-98-socket" "$log"
elapsed 0 "ps --pid on Spin with a socket it does not serve" -- clrscope ps --pid "$spin"
expect_contains "$OUT" "is served by process $FAKE_PID of uid 0, not by process $spin" "the listener is named"
check "ms < 1000" "ps --pid answers within a second" ms="$MS"
expect_status 1 "record --pid through another process's socket" -- clrscope record --pid "$spin" --duration 1 -o "$WORK/s2"
expect_contains "$ERR" "does not trust it" "record --pid refuses it"
[[ ! -s "$log" ]] && pass "nothing was sent to it" || fail "it got $(wc -c <"$log") bytes"
rm -f "/tmp/dotnet-diagnostic-$spin-98-socket"

# ---- what a process says about itself is masked before printing ----
log=$WORK/foreign/info.log
plant info "dotnet-diagnostic-{pid}-{start}-socket" "$log"
info=$FAKE_PID
elapsed 0 "ps with a hostile runtime" -- clrscope ps
row=$(awk -v p="$info" '$1 == p' <<<"$OUT")
expect_contains "$row" "10.0.0?]0;owned??[2J?31m" "its runtime version is shown masked"
elapsed 0 "ps --pid on it" -- clrscope ps --pid "$info"
expect_contains "$OUT" "entry point: Evil?]0;owned??[2J?31m" "its entry point is shown masked"
clrscope ps --json >"$WORK/ps.json"
if grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$WORK/out" "$WORK/ps.json"; then
	fail "a control character reached the output"
else
	pass "no control character reached the output"
fi

# ---- what a profiled program writes about itself is masked too ----
expect_status 2 "record a program whose command line has escapes" -- \
	clrscope record -o "$WORK/esc" -- dotnet "$(app Spin)" $'1\e]0;owned\a\e[2J'
for format in text json collapsed; do
	clrscope report --format "$format" "$WORK/esc" >"$WORK/esc.$format" 2>&1 || true
	if grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$WORK/esc.$format"; then
		fail "report --format $format printed a control character"
	else
		pass "report --format $format prints no control character"
	fi
done
expect_contains "$(cat "$WORK/esc.text")" "Spin.dll 1?]0;owned??[2J" "the command line is shown masked"

# ---- runtimes of our own that never answer: ps still answers within a second ----
for i in 1 2 3 4; do
	plant silent "dotnet-diagnostic-{pid}-{start}-socket" "$WORK/foreign/mute$i.log"
done
elapsed 0 "ps with four runtimes that never answer" -- clrscope ps
check "ms < 1000" "ps answers within a second" ms="$MS"
n=$(grep -c "its runtime does not answer" <<<"$OUT" || true)
check "n >= 4" "they are listed as not answering" n="$n"
finish
