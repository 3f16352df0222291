# A thread that runs in short bursts and parks between them at the same
# place (Bursts: "burster" waits in Worker.Park, runs Worker.Burst for
# 150 us each time Main sets its event, 2,000 times a second): at most
# ticks it has run since the last one, yet sits where its last capture
# found it.  The mixed sampler keeps that capture's frames without a
# signal when the thread is in the same system call at the same stack
# pointer with every stack word its walk read unchanged (the proof); the
# validate dial checks every 20th kept sample against a fresh capture.
# Every sample of the burster has its exact frames, root first.
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record Bursts at 1 kHz, a check every 20" -- \
	clrscope record -o "$WORK/s" --rate 1000 --validate 20 -- dotnet "$(app Bursts)" 3
expect_contains "$OUT" "bursts " "the program paced its worker"
clrscope report --format json --time wall "$WORK/s" >"$WORK/r.json"
a='d["processes"][0]["agent"]'
kept=$(json "$a['parked_kept']" "$WORK/r.json") signals=$(json "$a['signals']" "$WORK/r.json")
checks=$(json "$a['stack_checks']" "$WORK/r.json") mismatches=$(json "$a['stack_mismatches']" "$WORK/r.json")
check "kept >= 300" "samples kept by proof, without a signal" kept="$kept" signals="$signals"
check "checks >= 20 and mismatches == 0" "the checks found every kept and fast stack right" \
	checks="$checks" mismatches="$mismatches"

tid=$(json '[t["os_tid"] for t in d["processes"][0]["threads"] if t["name"] == "burster"][0]' "$WORK/r.json")
clrscope report --format collapsed --time wall --thread "$tid" "$WORK/s" >"$WORK/burster"
# root first: the thread's start, Loop (on-stack replacement code: a loop
# in a method called once), then Park's wait or Burst
python3 - "$WORK/burster" >"$WORK/shape" <<'PY'
import sys
root = "[native];System.Threading.Thread.StartCallback;Clrscope.TestApps.Worker.Loop;"
park = root + "Clrscope.TestApps.Worker.Park;System.Threading.WaitHandle.WaitOneNoCheck"
total = exact = parked = 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    n = int(n)
    total += n
    if stack.startswith(park) or stack.startswith(root + "Clrscope.TestApps.Worker.Burst") or stack == root[:-1]:
        exact += n
    parked += n if stack.startswith(park) else 0
print(total, exact, parked)
PY
read -r total exact parked <"$WORK/shape"
check "total >= 2000 and exact >= 0.97 * total" "the burster's samples have their exact frames" \
	total="$total" exact="$exact" parked="$parked"
finish
