# The agent exports DllGetClassObject and nothing else, and needs nothing
# beyond libc, libpthread and libdl.
source "$CLRSCOPE_TESTLIB"
lib=$CLRSCOPE_AGENT_LIB
exports=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
[[ "$exports" == "DllGetClassObject " ]] && pass "only DllGetClassObject is exported" || fail "exports: $exports"
needed=$(readelf -d "$lib" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}')
for n in $needed; do
	case "$n" in
	libc.so.6 | libpthread.so.0 | libdl.so.2) pass "needs $n" ;;
	*) fail "the agent links $n" ;;
	esac
done
readelf -d "$lib" | grep -q 'NODELETE' && pass "marked nodelete (never unloaded)" || fail "not marked NODELETE"
finish
