# cmake --install lays out bin/, lib/clrscope/ and share/man/, and the
# installed clrscope finds its installed agent.
source "$CLRSCOPE_TESTLIB"
build=$(cd "$(dirname "$CLRSCOPE_BIN")/.." && pwd)
prefix="$WORK/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
agent=$(basename "$CLRSCOPE_AGENT_LIB")
man1=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../../man" && ls *.1) # clrscope.1 and each command's page
for f in bin/clrscope "lib/clrscope/$agent" $(printf 'share/man/man1/%s ' $man1) share/man/man5/clrscope-session.5; do
	[[ -e "$prefix/$f" ]] && pass "installed $f" || fail "missing $prefix/$f"
done
[[ "$agent" == libclrscope-agent-*.*.*.so ]] && pass "the agent's file name carries the version" || fail "agent file $agent"
expect_status 0 "the installed clrscope records with the installed agent" -- \
	"$prefix/bin/clrscope" record -o "$WORK/s" -- dotnet "$(app CpuRatio)" 0.5
expect_contains "$ERR" "recorded" "samples were recorded"
finish
