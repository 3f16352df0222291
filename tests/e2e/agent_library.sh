# The agent exports DllGetClassObject and nothing else, needs nothing
# beyond libc, libpthread and libdl, and imports nothing that could run a
# program or load code.
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

# It never runs anything, from the session directory or elsewhere: nothing
# that starts a program or loads code is imported, and its only raw system
# calls are the three the signal sampler needs, perf_event_open (the
# kernel sampler) and sched_getattr/sched_setattr (the sampler thread's own
# time slice): glibc has no wrapper for these.
imports=$(nm -D --undefined-only "$lib" | awk '{sub(/@.*/, "", $2); print $2}')
runners=$(grep -xE 'exec[lv]p?e?|execvpe|execveat|fexecve|system|popen|posix_spawnp?|fork|vfork|_Fork|clone3?|dlopen|dlmopen|dlsym|dlvsym' <<<"$imports" || true)
[[ -z "$runners" ]] && pass "imports nothing that runs programs or loads code" || fail "imports: $(echo $runners)"
src=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../.." && pwd)
raw=$(grep -ho 'syscall(SYS_[a-z_0-9]*' "$src"/agent/*.c "$src"/agent/*/*.c "$src"/common/*.c | sort -u | tr '\n' ' ')
[[ "$raw" == "syscall(SYS_gettid syscall(SYS_perf_event_open syscall(SYS_process_vm_readv syscall(SYS_rt_tgsigqueueinfo syscall(SYS_sched_getattr syscall(SYS_sched_setattr " ]] &&
	pass "raw system calls: only gettid, perf_event_open, process_vm_readv (its own stack), rt_tgsigqueueinfo and the sampler thread's sched_getattr/sched_setattr" ||
	fail "raw system calls: $raw"
finish
