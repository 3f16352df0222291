# Runtime events: a program that throws and catches exactly N exceptions of
# its own type shows exactly N, with their N messages (from the runtime's
# event stream); one that induces K gen-2 collections shows at least K
# induced gen-2 GCs with a type, promoted bytes, a pause that holds the
# collection, and the objects the program pinned; modules, JIT and threads
# are counted.
source "$CLRSCOPE_TESTLIB"

expect_status 0 "record Thrower 25" -- clrscope record -o "$WORK/t" -- dotnet "$(app Thrower)" 25
expect_contains "$OUT" "caught 26" "the program caught all it threw"
clrscope report --format json "$WORK/t" >"$WORK/t.json"
p='d["processes"][0]'
mine="[e for e in $p['exceptions'] if e['type']=='Clrscope.TestApps.ThrowerException']"
check "n == 25" "exactly 25 ThrowerExceptions" n="$(json "$mine[0]['count']" "$WORK/t.json")"
check "n == 25" "all 25 caught" n="$(json "$mine[0]['caught']" "$WORK/t.json")"
check "n == 1" "exactly one InvalidOperationException" \
	n="$(json "[e['count'] for e in $p['exceptions'] if e['type']=='System.InvalidOperationException'][0]" "$WORK/t.json")"
check "n == 26" "events.exceptions counts every throw" n="$(json "$p['events']['exceptions']" "$WORK/t.json")"
check "n >= 1" "modules were loaded" n="$(json "$p['events']['modules']" "$WORK/t.json")"
expect_contains "$(json "[m['name'] for m in $p['modules']]" "$WORK/t.json")" "Thrower.dll" "the app's own module is listed"
check "n >= 1" "methods were compiled" n="$(json "$p['jit']['methods']" "$WORK/t.json")"
expect_contains "$(json "$mine[0]['caught_in']" "$WORK/t.json")" "Clrscope.TestApps.Program.Main" "caught in Main"
check "n == 25" "25 distinct messages" n="$(json "len($mine[0]['messages'])" "$WORK/t.json")"
check "n == 25" "each message counted once" n="$(json "sum(m['count'] for m in $mine[0]['messages'] if m['count'] == 1)" "$WORK/t.json")"
check "n == 25" "the messages are the program's (boom 0 .. boom 24)" \
	n="$(json "len(set(m['text'] for m in $mine[0]['messages']) & set('boom %d' % i for i in range(25)))" "$WORK/t.json")"
inv="[e['messages'] for e in $p['exceptions'] if e['type']=='System.InvalidOperationException'][0]"
check "n == 1" "the other exception's message, its control characters made spaces" \
	n="$(json "int(len($inv) == 1 and $inv[0]['count'] == 1 and $inv[0]['text'].startswith('invalid   xxx'))" "$WORK/t.json")"
check "n <= 255" "a long message is cut to 255 bytes" n="$(json "len($inv[0]['text'].encode())" "$WORK/t.json")"
expect_contains "$(clrscope report "$WORK/t")" "boom 0" "the text report shows messages"

# with --instrument the exception callbacks stay (the event stream is off
# there): the messages are read from the thrown objects instead
expect_status 0 "record Thrower 5 --instrument" -- \
	clrscope record -o "$WORK/ti" -i 'Clrscope.TestApps.Program.Main' -- dotnet "$(app Thrower)" 5
clrscope report --format json "$WORK/ti" >"$WORK/ti.json"
check "n == 5" "callbacks: 5 ThrowerExceptions with their 5 messages" \
	n="$(json "len(set(m['text'] for e in $p['exceptions'] if e['type']=='Clrscope.TestApps.ThrowerException' for m in e['messages']) & set('boom %d' % i for i in range(5)))" "$WORK/ti.json")"
check "n == 1" "callbacks: the long message cut and cleaned too" \
	n="$(json "int([m['text'] for e in $p['exceptions'] if e['type']=='System.InvalidOperationException' for m in e['messages']][0].startswith('invalid   xxx'))" "$WORK/ti.json")"
expect_contains "$(json "[m['text'] for m in $p['messages']]" "$WORK/ti.json")" "--instrument" "the agent says why the event stream is off"
expect_contains "$(clrscope report "$WORK/t")" "exception Clrscope.TestApps.ThrowerException: 25 thrown, 25 caught in Clrscope.TestApps.Program.Main" \
	"the text report lists the exception type and where it was caught"
check "n == 1" "the main thread is listed (its id the pid), with the CPU time it used" \
	n="$(json "len([t for t in $p['threads'] if t['os_tid'] == $p['pid'] and t['cpu_ms'] > 0])" "$WORK/t.json")"
check "n == c" "every thread the runtime announced is listed once" \
	n="$(json "len(set(t['os_tid'] for t in $p['threads'] if t['os_tid']))" "$WORK/t.json")" \
	c="$(json "$p['events']['threads_created']" "$WORK/t.json")"

# GcInducer 7 5 pins 5 objects through its 7 collections; GcInducer 7, the
# control, pins none: the runtime's own pins are the same in both
expect_status 0 "record GcInducer 7 5" -- clrscope record -o "$WORK/g" -- dotnet "$(app GcInducer)" 7 5
clrscope report --format json "$WORK/g" >"$WORK/g.json"
check "n >= 7" "at least 7 induced gen-2 GCs" \
	n="$(json "len([g for g in $p['gcs'] if g['gen']==2 and g['reason']=='induced'])" "$WORK/g.json")"
# a blocking collection runs inside the runtime's suspension for it
check "n >= 7 and bad == 0" "every blocking GC pauses the program, for at least the GC's own time" \
	n="$(json "len([g for g in $p['gcs'] if g['type'] == 'blocking'])" "$WORK/g.json")" \
	bad="$(json "len([g for g in $p['gcs'] if g['type'] == 'blocking' and not 0 < g['duration_ms'] <= g['pause_ms']])" "$WORK/g.json")"
check "n >= 7" "the induced gen-2 GCs are blocking (type from the event stream)" \
	n="$(json "len([g for g in $p['gcs'] if g['gen']==2 and g['reason']=='induced' and g['type']=='blocking'])" "$WORK/g.json")"
check "n == 0" "every GC has a reason and a type" \
	n="$(json "len([g for g in $p['gcs'] if g['reason'] in ('other', 'unknown') or g['type'] is None])" "$WORK/g.json")"
check "x > 0" "induced GCs promote the live objects" \
	x="$(json "min(g['promoted_bytes'] for g in $p['gcs'] if g['reason']=='induced')" "$WORK/g.json")"
expect_status 0 "record GcInducer 7 (no pins)" -- clrscope record -o "$WORK/g0" -- dotnet "$(app GcInducer)" 7
clrscope report --format json "$WORK/g0" >"$WORK/g0.json"
pins="sorted(set(g['pinned_objects'] for g in $p['gcs'] if g['reason'] == 'induced'))"
check "n == 1" "without pins of its own: one pinned-object count on every induced GC" n="$(json "len($pins)" "$WORK/g0.json")"
check "p == b + 5" "with 5 pinned: every induced GC counts those 5 more" \
	p="$(json "$pins[-1] if len($pins) == 1 else -1" "$WORK/g.json")" b="$(json "$pins[0]" "$WORK/g0.json")"
check "x > 0" "heap sizes after each GC" x="$(json "sum($p['gcs'][-1]['heap_bytes'])" "$WORK/g.json")"
expect_contains "$(clrscope report "$WORK/g")" "induced" "the text report summarises the GCs"

# Events can be chosen at launch: none recorded, sampling still on.
expect_status 0 "record --events none" -- clrscope record -o "$WORK/n" --events none -- dotnet "$(app Thrower)" 3
clrscope report --format json "$WORK/n" >"$WORK/n.json"
check "n == 0" "no exceptions recorded with events=none" n="$(json "$p['events']['exceptions']" "$WORK/n.json")"
finish
