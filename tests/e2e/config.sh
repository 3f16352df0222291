# The config file ($XDG_CONFIG_HOME/clrscope/config) gives record its
# default rate and events; options override it; a bad line is reported with
# file:line and skipped; a file others may write is ignored.
source "$CLRSCOPE_TESTLIB"
dll=$(app CpuRatio)
export XDG_CONFIG_HOME=$WORK/config
config=$XDG_CONFIG_HOME/clrscope/config
mkdir -p "$XDG_CONFIG_HOME/clrscope"
p='d["processes"][0]'

cat >"$config" <<'CONFIG'
# clrscope settings
rate = 321
events = gc,exceptions
CONFIG
expect_status 0 "record with rate and events from the config" -- clrscope record -o "$WORK/a" -- dotnet "$dll" 1
[[ "$ERR" != *"$config"* ]] && pass "a good config says nothing" || fail "unexpected warning: $ERR"
clrscope report --format json "$WORK/a" >"$WORK/a.json"
check "r == 321" "rate_hz comes from the config" r="$(json "$p['rate_hz']" "$WORK/a.json")"
expect_contains "$(json "$p['events_at_start']" "$WORK/a.json")" "gc,exceptions" "events_at_start comes from the config"
[[ "$(json "$p['events_at_start']" "$WORK/a.json")" == "gc,exceptions" ]] && pass "and only those events" ||
	fail "events_at_start is $(json "$p['events_at_start']" "$WORK/a.json")"

expect_status 0 "record --rate 123 --events jit over the config" -- \
	clrscope record -o "$WORK/b" --rate 123 --events jit -- dotnet "$dll" 1
clrscope report --format json "$WORK/b" >"$WORK/b.json"
check "r == 123" "--rate overrides the config" r="$(json "$p['rate_hz']" "$WORK/b.json")"
[[ "$(json "$p['events_at_start']" "$WORK/b.json")" == "jit" ]] && pass "--events overrides the config" ||
	fail "events_at_start is $(json "$p['events_at_start']" "$WORK/b.json")"

expect_status 0 "record --rate 123 alone: events still from the config" -- \
	clrscope record -o "$WORK/c" --rate 123 -- dotnet "$dll" 1
clrscope report --format json "$WORK/c" >"$WORK/c.json"
check "r == 123" "--rate overrides the config" r="$(json "$p['rate_hz']" "$WORK/c.json")"
[[ "$(json "$p['events_at_start']" "$WORK/c.json")" == "gc,exceptions" ]] && pass "the config's events stand" ||
	fail "events_at_start is $(json "$p['events_at_start']" "$WORK/c.json")"

# a bad line is reported and skipped; the rest applies and the run works
cat >"$config" <<'CONFIG'
rate = 321
rate = fast
events = gc,exceptions
colour = no
CONFIG
expect_status 0 "record with bad lines in the config" -- clrscope record -o "$WORK/d" -- dotnet "$dll" 1
expect_contains "$ERR" "clrscope: $config:2: rate wants a whole number" "the bad rate is reported with file:line"
expect_contains "$ERR" "config:2:" "config:2: on stderr"
expect_contains "$ERR" "$config:4: unknown key 'colour'" "so is an unknown key"
expect_contains "$ERR" "recorded" "the run still works"
clrscope report --format json "$WORK/d" >"$WORK/d.json"
check "r == 321" "the good lines still apply" r="$(json "$p['rate_hz']" "$WORK/d.json")"

# a config file others may write is ignored whole
printf 'rate = 321\n' >"$config"
chmod 666 "$config"
expect_status 0 "record with a world-writable config" -- clrscope record -o "$WORK/e" -- dotnet "$dll" 1
expect_contains "$ERR" "$config is writable by other users" "the file is refused, and said so"
clrscope report --format json "$WORK/e" >"$WORK/e.json"
check "r == 200" "the default rate stands" r="$(json "$p['rate_hz']" "$WORK/e.json")"
chmod 600 "$config"

# an events list with + or - is not a default
printf 'events = +gc\n' >"$config"
expect_status 0 "record with a relative events list in the config" -- clrscope record -o "$WORK/f" -- dotnet "$dll" 1
expect_contains "$ERR" "$config:1: events wants a list of kinds" "it is reported"
finish
