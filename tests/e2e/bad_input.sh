# Wrong input gets a clear message and the right exit status, and loses
# nothing: no command, a program that is not .NET, profiling disabled,
# unusable -o directories, a missing agent, damaged sessions.
source "$CLRSCOPE_TESTLIB"
dll=$(app CpuRatio)

expect_status 2 "record without a command" -- clrscope record
expect_contains "$ERR" "no command to run" "says what is missing"
expect_status 2 "record with a bad rate" -- clrscope record --rate 0 -- true
expect_contains "$ERR" "--rate" "names the option"
expect_status 2 "unknown subcommand" -- clrscope frobnicate
expect_status 127 "a command that does not exist" -- clrscope record -o "$WORK/none" -- /nonexistent/program
expect_contains "$ERR" "cannot run /nonexistent/program" "says it cannot run it"

expect_status 1 "a program that is not .NET" -- clrscope record -o "$WORK/native" -- /bin/echo hello
expect_contains "$OUT" "hello" "its output still comes through"
expect_contains "$ERR" "does not look like a .NET program" "explains why nothing was recorded"

expect_status 1 "profiling disabled in the environment" -- env DOTNET_EnableDiagnostics=0 "$CLRSCOPE_BIN" record -o "$WORK/off" -- dotnet "$dll" 0.2
expect_contains "$ERR" "DOTNET_EnableDiagnostics=0" "names the variable that turned it off"

expect_status 1 "a missing agent" -- env CLRSCOPE_AGENT=/nonexistent/agent.so "$CLRSCOPE_BIN" record -o "$WORK/x" -- dotnet "$dll" 0.1
expect_contains "$ERR" "profiling agent is not at /nonexistent/agent.so" "says where it looked"

expect_status 1 "an -o directory that cannot be created" -- clrscope record -o /proc/clrscope-test -- dotnet "$dll" 0.1
expect_contains "$ERR" "cannot create directory" "says it cannot create it"
mkdir -m 0777 "$WORK/open"
chmod 0777 "$WORK/open"
expect_status 1 "a world-writable -o directory" -- clrscope record -o "$WORK/open" -- dotnet "$dll" 0.1
expect_contains "$ERR" "writable by other users" "refuses it"
mkdir "$WORK/real" && ln -s "$WORK/real" "$WORK/link"
expect_status 1 "a symlinked -o directory" -- clrscope record -o "$WORK/link" -- dotnet "$dll" 0.1
expect_contains "$ERR" "symbolic link" "refuses it"
if [[ $(id -u) == 0 ]]; then
	mkdir -m 0700 "$WORK/foreign" && chown 4321:4321 "$WORK/foreign"
	expect_status 1 "a foreign-owned -o directory" -- clrscope record -o "$WORK/foreign" -- dotnet "$dll" 0.1
	expect_contains "$ERR" "belongs to another user" "refuses it"
else
	skip_part "a foreign-owned -o directory: needs root (to give it away)"
fi

expect_status 2 "report without a directory" -- clrscope report
expect_status 2 "report with an unknown format" -- clrscope report --format xml "$WORK"
expect_status 1 "report on a directory that is no session" -- clrscope report "$WORK/real"
expect_contains "$ERR" "is not a clrscope session" "says so"

# A good session, then damaged copies of it.
expect_status 0 "a good session to damage" -- clrscope record -o "$WORK/good" -- dotnet "$dll" 1
clrscope report --format json "$WORK/good" >"$WORK/good.json"
good=$(json 'd["processes"][0]["samples"]' "$WORK/good.json")
pid=$(json 'd["processes"][0]["pid"]' "$WORK/good.json")
expect_status 1 "report --pid of a process not in the session" -- clrscope report --pid 1 "$WORK/good"
expect_contains "$ERR" "no process 1" "says which pid is missing"

cp -a "$WORK/good" "$WORK/garbled"
seg=$(ls "$WORK"/garbled/*/seg-000001.clog)
size=$(stat -c %s "$seg")
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef\xc5\x5c\xff\xff' | dd of="$seg" bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_status 0 "report on a garbled segment" -- clrscope report --format json --pid "$pid" "$WORK/garbled"
expect_contains "$ERR" "damaged bytes" "reports the damage on stderr"
echo "$OUT" >"$WORK/garbled.json"
got=$(json 'd["processes"][0]["samples"]' "$WORK/garbled.json")
check "0 < got <= good" "the samples outside the damage survive" got="$got" good="$good"

cp -a "$WORK/good" "$WORK/newer"
seg=$(ls "$WORK"/newer/*/seg-000001.clog)
printf '\x09\x00' | dd of="$seg" bs=1 seek=8 conv=notrunc status=none
expect_status 1 "report on a segment of a newer format" -- clrscope report "$WORK/newer"
expect_contains "$OUT" "log format 9.0" "names the format version it found"

cp -a "$WORK/good" "$WORK/empty"
: >"$(ls "$WORK"/empty/*/seg-000001.clog)"
expect_status 0 "report on an empty segment" -- clrscope report "$WORK/empty"
expect_contains "$OUT" "no hello record" "says the agent never started writing"
finish
