# Threads that run in short bursts and park between them at one place, as
# a thread pool's workers do (Bursts: "burster" waits in Worker.Park, runs
# Worker.Burst each time Main sets its event, and parks again).
#
# 1. Short bursts, far apart (10 us every 2 ms): at most ticks the burster
#    has run a little since the last one, yet sits where its last capture
#    found it.  The mixed sampler keeps that capture's frames without a
#    signal when the thread is in the same system call at the same stack
#    pointer with every stack word its walk read unchanged (the proof); the
#    validate dial checks every 20th kept sample against a fresh capture.
#    Every sample of the burster has its exact frames, root first.
# 2. Long bursts (150 us every 500 us: the burster works a third of the
#    time): the sampler thread wakes when a CPU frees up, most often as
#    the burster parks, so a signal sent as it wakes would find the burster
#    parked nearly always.  Signals land at instants drawn at random before
#    the next tick, and the proof judges only threads that used at most 5 %
#    of the time: its samples in Burst come near its share of time on a
#    CPU, and in the CPU view its time is mostly Burst's (captures that
#    found it waiting in the system call are off the CPU).
# 3. Sparse bursts (10 us every 20 ms, at 100 Hz): the burster has run a
#    little since most ticks' predecessor and waits again; where no proof
#    keeps its frames, the sampler reads its stack where it waits, without
#    a signal (the copy is kept only when the thread did not run while it
#    was taken, and when it unwinds without rbp, which needs native frames
#    at calls placed by their code); the validate dial compares every 5th
#    read with a signal's capture at the same place.
# 4. Long bursts under the kernel sampler: the kernel samples the burster
#    each time it has used a period of CPU in its own code (no signal), and
#    each tick adds where it is then, read where it waits, unless it is on a
#    CPU: Burst's share of its samples is its share of wall time in Burst,
#    as the app measures it, and its CPU samples are nearly all Burst's.
source "$CLRSCOPE_TESTLIB"

# the burster's samples, wall or cpu: "total in_park in_burst exact"
shape() {
	clrscope report --format collapsed --time "$1" --thread "$2" "$3" | python3 -c '
import re, sys
root = "[thread start];System.Threading.Thread.StartCallback;Clrscope.TestApps.Worker.Loop;"
native = re.compile(re.escape(root) + r"\[(native|[^] ]*\.so[^] ]*)\]")  # a native run, by its module
park = root + "Clrscope.TestApps.Worker.Park;System.Threading.WaitHandle.WaitOneNoCheck"
burst = root + "Clrscope.TestApps.Worker.Burst"
total = parked = bursting = exact = 0
for line in sys.stdin:
    stack, n = line.rsplit(" ", 1)
    n = int(n)
    total += n
    parked += n if stack.startswith(park) else 0
    bursting += n if stack.startswith(burst) else 0
    exact += n if stack.startswith(park) or stack.startswith(burst) or native.match(stack) else 0
print(total, parked, bursting, exact)'
}
burster() { json '[t["os_tid"] for t in d["processes"][0]["threads"] if t["name"] == "burster"][0]' "$1"; }

expect_status 0 "short bursts: record Bursts at 1 kHz, a check every 20" -- \
	clrscope record -o "$WORK/short" --rate 1000 --validate 20 -- dotnet "$(app Bursts)" 3 10 2000
expect_contains "$OUT" "bursts " "the program paced its worker"
clrscope report --format json --time wall "$WORK/short" >"$WORK/short.json"
expect_whole_log "$WORK/short.json" "short bursts"
a='d["processes"][0]["agent"]'
kept=$(json "$a['parked_kept']" "$WORK/short.json") signals=$(json "$a['signals']" "$WORK/short.json")
checks=$(json "$a['stack_checks']" "$WORK/short.json") mismatches=$(json "$a['stack_mismatches']" "$WORK/short.json")
# (about 840 kept of 2,900 samples on an idle machine, fewer where the
# sampler thread waits for a CPU)
check "kept >= 100" "short bursts: samples kept by proof, without a signal" kept="$kept" signals="$signals"
check "checks >= 20 and mismatches == 0" "short bursts: the checks found every kept and fast stack right" \
	checks="$checks" mismatches="$mismatches"
read -r total parked bursting exact <<<"$(shape wall "$(burster "$WORK/short.json")" "$WORK/short")"
# (about 2,900 samples in 3 s on an idle machine, fewer where the sampler
# thread or the burster waits for a CPU; 1,000 are plenty for a 97 % share)
check "total >= 1000 and exact >= 0.97 * total" "short bursts: the burster's samples have their exact frames" \
	total="$total" exact="$exact" parked="$parked"

expect_status 0 "long bursts: record Bursts at 1 kHz" -- \
	clrscope record -o "$WORK/long" --rate 1000 -- dotnet "$(app Bursts)" 3 150 500
clrscope report --format json --time wall "$WORK/long" >"$WORK/long.json"
expect_whole_log "$WORK/long.json" "long bursts"
tid=$(burster "$WORK/long.json")
# the truth: the burster's own CPU clock over the run
share=$(json "[t['cpu_ms'] for t in d['processes'][0]['threads'] if t['name'] == 'burster'][0] / d['processes'][0]['duration_ms']" "$WORK/long.json")
read -r total parked bursting exact <<<"$(shape wall "$tid" "$WORK/long")"
# a signal drawn at a random instant often finds a burster that works a
# third of the time waiting: the report counts those signals (each wakes
# its thread; about a third of all signals)
check "w >= 0.1 * n and w < n" "long bursts: the signals that found their thread waiting are counted" \
	w="$(json "d['processes'][0]['agent']['signals_waiting']" "$WORK/long.json")" \
	n="$(json "d['processes'][0]['agent']['signals']" "$WORK/long.json")"
check "total >= 1000 and exact >= 0.97 * total" "long bursts: the burster's samples have their exact frames" \
	total="$total" exact="$exact"
# against the wall time the program measures in Burst: about all of it on
# an idle machine, 0.8-1.0 of it beside busy programs (a capture whose
# signal waits for a CPU stands for the ticks it waited through but the
# last), within the bounds below
wall=$(sed -n 's/^burst_ms \([0-9.]*\) of \([0-9.]*\)$/\1 \2/p' <<<"$OUT")
check "b / total >= 0.5 * share and 0.75 * w / life <= b / total <= 1.25 * w / life" \
	"long bursts: Burst's share of the burster's samples comes near its share of wall time and CPU time" \
	b="$bursting" total="$total" share="$share" w="${wall% *}" life="${wall#* }"
read -r total parked bursting exact <<<"$(shape cpu "$tid" "$WORK/long")"
check "b >= 0.75 * total" "long bursts: Burst has most of the burster's CPU samples" b="$bursting" total="$total" \
	parked="$parked"
# its CPU samples (one a millisecond) against its own CPU clock: a capture
# that finds it running stands for the CPU time it used since the last one
# that did (CPU_OWED), so they add up to it (0.99-1.03 of it, beside a busy
# loop too)
cpu_ms=$(json "[t['cpu_ms'] for t in d['processes'][0]['threads'] if t['name'] == 'burster'][0]" "$WORK/long.json")
check "0.92 * c <= total <= 1.1 * c" "long bursts: the burster's CPU samples add up to its CPU time" total="$total" \
	c="$cpu_ms"
# a capture on the instruction after the futex wait returned is the
# burster woken by Main (the signal came as it waited, or as it waited for
# a CPU after the wake): not its time on a CPU, so few of its CPU samples
# (0-2 %) lie there
woke=$(clrscope report --format collapsed --time cpu --thread "$tid" "$WORK/long" |
	awk '/WaitOneNoCheck;libc[^;]*!__futex_abstimed_wait_common [0-9]+$/ {n += $NF} END {print n + 0}')
check "w < 0.08 * total" "long bursts: few CPU samples where the burster was woken from its wait" w="$woke" total="$total"

expect_status 0 "sparse bursts: record Bursts at 100 Hz, a check every 5" -- \
	clrscope record -o "$WORK/sparse" --rate 100 --validate 5 -- dotnet "$(app Bursts)" 3 10 20000
clrscope report --format json --time wall "$WORK/sparse" >"$WORK/sparse.json"
expect_whole_log "$WORK/sparse.json" "sparse bursts"
read_in_place=$(json "$a['waiting_read']" "$WORK/sparse.json") waiting=$(json "$a['signals_waiting']" "$WORK/sparse.json")
checks=$(json "$a['stack_checks']" "$WORK/sparse.json") mismatches=$(json "$a['stack_mismatches']" "$WORK/sparse.json")
# (about 96 reads in place and 32 signals that find it waiting, of 150 bursts)
check "r >= 20" "sparse bursts: the burster was read where it waited, without a signal" r="$read_in_place" \
	signals_waiting="$waiting"
check "checks >= 10 and mismatches == 0" "sparse bursts: the checks found every stack right" checks="$checks" \
	mismatches="$mismatches"
read -r total parked bursting exact <<<"$(shape wall "$(burster "$WORK/sparse.json")" "$WORK/sparse")"
check "total >= 200 and exact >= 0.97 * total" "sparse bursts: the burster's samples have their exact frames" \
	total="$total" exact="$exact" parked="$parked"

if kernel_samples_here; then
	expect_status 0 "kernel sampler: record Bursts at 1 kHz" -- \
		clrscope record -o "$WORK/kernel" --rate 1000 --sampler kernel -- dotnet "$(app Bursts)" 3 150 500
	clrscope report --format json --time wall "$WORK/kernel" >"$WORK/kernel.json"
	expect_whole_log "$WORK/kernel.json" "kernel sampler"
	tid=$(burster "$WORK/kernel.json")
	share=$(json "[t['cpu_ms'] for t in d['processes'][0]['threads'] if t['name'] == 'burster'][0] / d['processes'][0]['duration_ms']" "$WORK/kernel.json")
	check "k > 500" "kernel sampler: the kernel sampled the burster" k="$(json "$a['kernel_samples']" "$WORK/kernel.json")"
	read -r total parked bursting exact <<<"$(shape wall "$tid" "$WORK/kernel")"
	check "total >= 1000 and exact >= 0.97 * total" "kernel sampler: the burster's samples have their exact frames" \
		total="$total" exact="$exact"
	# wall samples measure the wall time in Burst, preempted there or not;
	# its time on a CPU is that only on an idle machine.  The kernel's
	# samples stand for the burster's time on a CPU, and each tick adds
	# where it is then unless it is on a CPU: about its wall share on an
	# idle machine, up to 1.15 of it beside busy programs.
	# The tick's instant is the sampler thread's waking, not drawn at random
	# as a timer's is, and where the burster is preempted in Burst it is
	# found waiting for a CPU there at those instants more often than over
	# its time (the man page says so): up to 1.26 of its share where it is
	# on a CPU for 93 % of its time in Burst or more, up to 1.55 where 80 %.
	# The upper bound holds where it is on a CPU for 85 % of that time or
	# more (share: its CPU time over its life)
	wall=$(sed -n 's/^burst_ms \([0-9.]*\) of \([0-9.]*\)$/\1 \2/p' <<<"$OUT")
	check "0.85 * w / life <= b / total and (share < 0.85 * w / life or b / total <= 1.35 * w / life)" \
		"kernel sampler: Burst's share of the burster's samples is its share of wall time there" \
		b="$bursting" total="$total" w="${wall% *}" life="${wall#* }" share="$share"
	read -r total parked bursting exact <<<"$(shape cpu "$tid" "$WORK/kernel")"
	check "b >= 0.75 * total" "kernel sampler: the burster's CPU samples are Burst's" b="$bursting" total="$total"
else
	skip_part "kernel sampler: $KERNEL_SAMPLES_WHY"
fi
finish
