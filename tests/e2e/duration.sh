# --duration stops a program that would run forever: SIGINT first, so it
# can exit cleanly, and record returns the program's own status.
source "$CLRSCOPE_TESTLIB"
dll=$(app Spin)
start=$(date +%s.%N)
expect_status 0 "record --duration 1.5 on an endless program" -- clrscope record -o "$WORK/s" --duration 1.5 -- dotnet "$dll"
end=$(date +%s.%N)
expect_contains "$OUT" "bye" "the program saw SIGINT and said goodbye"
check "1.4 <= e - s <= 6" "stopped soon after 1.5 s" s="$start" e="$end"
clrscope report --format json "$WORK/s" >"$WORK/r.json"
check "s > 100" "it was sampled" s="$(json 'd["processes"][0]["samples"]' "$WORK/r.json")"
expect_contains "$(cat "$WORK/r.json")" "Clrscope.TestApps.Program.Loop" "the busy loop is named"
finish
