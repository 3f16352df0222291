# A privileged process (a copy of the dotnet host with a file capability,
# run by an ordinary user, so the kernel sets AT_SECURE) does not take
# paths from its environment: the agent neither profiles it nor opens
# CLRSCOPE_AGENT_LOG, and the program runs as usual.  The same copy without
# the capability is profiled (the control).  Needs root: a throwaway user
# runs both.
source "$CLRSCOPE_TESTLIB"
[[ $(id -u) == 0 ]] || skip "needs root (setcap, a throwaway user)"
command -v setcap >/dev/null || { fail "setcap is needed (libcap2-bin)"; finish; }
user=clrscope-s$$
useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
trap 'userdel "$user" 2>/dev/null || true; cleanup' EXIT
chmod 0711 "$WORK"
root=$(dirname "$(readlink -f "$(command -v dotnet)")")
host=$WORK/dn
mkdir -m 0755 "$host"
cp "$root/dotnet" "$host/dotnet"
ln -s "$root/shared" "$host/shared"
ln -s "$root/host" "$host/host"
mkdir -m 0755 "$WORK/home" && chown "$user" "$WORK/home"
dll=$(app Spin)

run() { # run NAME: Spin for a second as $user with the agent asked for, into $WORK/NAME
	mkdir -m 0700 "$WORK/$1" && chown "$user" "$WORK/$1"
	runuser -u "$user" -- env HOME="$WORK/home" DOTNET_CLI_TELEMETRY_OPTOUT=1 CORECLR_ENABLE_PROFILING=1 \
		CORECLR_PROFILER='{BC8604E2-7E73-4C7E-B410-5D3E412990D8}' CORECLR_PROFILER_PATH="$CLRSCOPE_AGENT_LIB" \
		CLRSCOPE_SESSION_DIR="$WORK/$1" CLRSCOPE_AGENT_LOG="$WORK/home/$1.log" \
		"$host/dotnet" "$dll" 1 >"$WORK/$1.out" 2>&1
}
run plain || fail "the control failed: $(cat "$WORK/plain.out")"
n=$(find "$WORK/plain" -mindepth 1 -maxdepth 1 -type d | wc -l)
[[ "$n" == 1 && -s "$WORK/home/plain.log" ]] && pass "the copied host is profiled and logs (the control)" ||
	fail "control: $n process directories, log: $(cat "$WORK/home/plain.log" 2>&1)"

setcap cap_net_bind_service+ep "$host/dotnet" || { fail "setcap failed (the file system may not keep capabilities)"; finish; }
run secure && pass "the privileged program ran" || fail "it failed: $(cat "$WORK/secure.out")"
grep -q '^tick 1' "$WORK/secure.out" && pass "with its output" || fail "output: $(cat "$WORK/secure.out")"
[[ -z "$(ls -A "$WORK/secure")" ]] && pass "nothing was written into the session" || fail "session: $(ls -A "$WORK/secure")"
[[ ! -e "$WORK/home/secure.log" ]] && pass "CLRSCOPE_AGENT_LOG was not opened" || fail "the log exists: $(cat "$WORK/home/secure.log")"
finish
