# Attach, detach and attach again to one long-running program: samples both
# times, the program never dies and its output goes on unaffected.  And the
# ways an attach can fail, each with its own message.
source "$CLRSCOPE_TESTLIB"
dll=$(app Spin)

dotnet "$dll" 15 >"$WORK/spin.out" 2>&1 &
spin=$!
CHILDREN+=($spin)
for _ in $(seq 100); do grep -q '^tick 3' "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
pid=$(awk '/^pid / {print $2; exit}' "$WORK/spin.out")

for round in 1 2; do
	expect_attach_round "$pid" "$WORK/s$round" "round $round" '^CoreCLR 10\.[0-9]+\.[0-9]+' 300
done

# a live session of a process we attached to can be dialed too, while attached
"$CLRSCOPE_BIN" record --pid "$pid" -o "$WORK/s3" --rate 100 >/dev/null 2>"$WORK/rec3.err" &
rec=$!
for _ in $(seq 100); do grep -q 'recording into' "$WORK/rec3.err" 2>/dev/null && break; sleep 0.1; done
expect_status 0 "dial an attached process by pid" -- clrscope dial "$WORK/s3" rate=250
kill -INT "$rec"
wait "$rec" && pass "Ctrl-C (SIGINT) ends the recording with a detach" || fail "record --pid did not end cleanly"
expect_contains "$(cat "$WORK/rec3.err")" "detached from pid $pid" "it detached on SIGINT"

# failures
expect_status 1 "attach to a pid that does not exist" -- clrscope record --pid 999999 -o "$WORK/x1"
expect_contains "$ERR" "no process 999999" "says there is no such process"
sleep 30 &
CHILDREN+=($!)
expect_status 1 "attach to a process that is not .NET" -- clrscope record --pid $! -o "$WORK/x2"
expect_contains "$ERR" "is not a .NET program" "says it is not .NET"
DOTNET_EnableDiagnostics=0 dotnet "$dll" 10 >/dev/null 2>&1 &
nodiag=$!
CHILDREN+=($nodiag)
sleep 1
expect_status 1 "attach to a process with diagnostics disabled" -- clrscope record --pid "$nodiag" -o "$WORK/x3"
expect_contains "$ERR" "DOTNET_EnableDiagnostics=0" "names the setting"
"$CLRSCOPE_BIN" record -o "$WORK/launched" -- dotnet "$dll" 6 >"$WORK/l.out" 2>/dev/null &
CHILDREN+=($!)
for _ in $(seq 100); do grep -q '^tick 2' "$WORK/l.out" 2>/dev/null && break; sleep 0.1; done
lpid=$(awk '/^pid / {print $2; exit}' "$WORK/l.out")
expect_status 1 "attach to a process clrscope already profiles" -- clrscope record --pid "$lpid" -o "$WORK/x4"
expect_contains "$ERR" "profiler" "says a profiler is already there"
expect_status 2 "--pid and a command together" -- clrscope record --pid 1 -- dotnet x.dll
wait "$spin" && pass "the program exited 0 on its own" || fail "the program failed"
ticks=$(grep -c '^tick' "$WORK/spin.out")
check "t >= 70" "its output went on unaffected (a tick every 200 ms)" t="$ticks"
grep -vq '^\(pid\|tick\) ' "$WORK/spin.out" && fail "unexpected output: $(grep -v '^\(pid\|tick\) ' "$WORK/spin.out")" || pass "nothing but its own lines"

finish
